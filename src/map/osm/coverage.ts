// The extract's coverage grid, which the geocoder keeps to tell points off the map (which cells of a fixed-size grid hold nodes of the extract, neighbours
// included) computed while the nodes stream by, so no node's coordinate has to be kept for it.
//
// The grid's origin depends on the southernmost and westernmost node, known only at the end, and a cell
// is floor((coordinate - origin) / size) in floating point. Cells are therefore recorded relative to a
// fixed origin (floor(coordinate / size)); that gives the same cell once the origin is known except for
// coordinates within rounding distance of a cell edge, whose exact values are remembered (they are few:
// one per grid line at the extract's coordinate resolution) and placed with the original formula.
export const COVERAGE_CELL_DEGREES = 0.05;

/** Cells of a lat/lon grid that contain map data (dilated by one cell); points elsewhere are outside the map. */
export interface CoverageGrid {
  minLat: number;
  minLon: number;
  cellDegrees: number;
  rows: number;
  cols: number;
}

// Far beyond the float error of the cell arithmetic (~1e-12 cells), far below a 1e-7° step (2e-6 cells).
const EDGE = 1e-6;
const SPAN = 1 << 13; // absolute cells per axis: 180 / 0.05 = 3600 each side of 0
const EDGE_BASE = SPAN; // keys >= this name an edge value, not an absolute cell

export interface Coverage {
  grid: CoverageGrid;
  cells: Uint8Array;
}

export class CoverageBuilder {
  private minLat = Infinity;
  private minLon = Infinity;
  private maxLat = -Infinity;
  private maxLon = -Infinity;
  private count = 0;
  private readonly keys = new Set<number>();
  private readonly edgeValues: number[] = [];
  private readonly edgeIds = new Map<number, number>();
  private lastKey = NaN;

  private axisKey(v: number): number {
    const x = v / COVERAGE_CELL_DEGREES;
    const f = Math.floor(x);
    const frac = x - f;
    if (frac > EDGE && frac < 1 - EDGE && f > -SPAN / 2 && f < SPAN / 2) return f + SPAN / 2;
    let id = this.edgeIds.get(v);
    if (id === undefined) {
      id = this.edgeValues.push(v) - 1;
      this.edgeIds.set(v, id);
    }
    return EDGE_BASE + id;
  }

  add(lat: number, lon: number): void {
    if (lat < this.minLat) this.minLat = lat;
    if (lat > this.maxLat) this.maxLat = lat;
    if (lon < this.minLon) this.minLon = lon;
    if (lon > this.maxLon) this.maxLon = lon;
    this.count++;
    const key = this.axisKey(lat) * 2 ** 26 + this.axisKey(lon);
    // Consecutive nodes mostly share a cell; skipping the set for them is most of the speed.
    if (key !== this.lastKey) {
      this.keys.add(key);
      this.lastKey = key;
    }
  }

  result(): Coverage {
    const d = COVERAGE_CELL_DEGREES;
    if (this.count === 0) return { grid: { minLat: 0, minLon: 0, cellDegrees: d, rows: 0, cols: 0 }, cells: new Uint8Array(0) };
    const latCells = Math.floor(this.minLat / d);
    const lonCells = Math.floor(this.minLon / d);
    const grid: CoverageGrid = {
      minLat: latCells * d - d,
      minLon: lonCells * d - d,
      cellDegrees: d,
      rows: 0,
      cols: 0,
    };
    grid.rows = Math.floor((this.maxLat - grid.minLat) / d) + 2;
    grid.cols = Math.floor((this.maxLon - grid.minLon) / d) + 2;
    const rowOf = (key: number): number =>
      key >= EDGE_BASE ? Math.floor((this.edgeValues[key - EDGE_BASE] - grid.minLat) / d) : key - SPAN / 2 - latCells + 1;
    const colOf = (key: number): number =>
      key >= EDGE_BASE ? Math.floor((this.edgeValues[key - EDGE_BASE] - grid.minLon) / d) : key - SPAN / 2 - lonCells + 1;
    const hit = new Uint8Array(grid.rows * grid.cols);
    for (const key of this.keys) {
      const latKey = Math.floor(key / 2 ** 26);
      hit[rowOf(latKey) * grid.cols + colOf(key - latKey * 2 ** 26)] = 1;
    }
    const cells = new Uint8Array(hit.length);
    for (let r = 0; r < grid.rows; r++) {
      for (let col = 0; col < grid.cols; col++) {
        if (!hit[r * grid.cols + col]) continue;
        for (let dr = -1; dr <= 1; dr++) {
          for (let dc = -1; dc <= 1; dc++) {
            const rr = r + dr,
              cc = col + dc;
            if (rr >= 0 && rr < grid.rows && cc >= 0 && cc < grid.cols) cells[rr * grid.cols + cc] = 1;
          }
        }
      }
    }
    return { grid, cells };
  }
}
