// The shape of what a search reached: road pieces drawn into a grid of cells, and the union of the cells
// touched traced into GeoJSON polygons (holes where no reachable road passes, several polygons for
// islands). Every point drawn lies inside the shape, and every point of the shape lies within a cell or two
// of a point drawn: the shape is as faithful as the cell is small.
//
// Why not @turf/turf, measured on Liechtenstein's 30-minute car isochrone (11,465 reached road pieces;
// this module and reach-draw.ts: 11.9 ms for the whole answer): turf.buffer of 2,000 of the pieces by
// 50 m took 2.4 s and turf.union of those 2,000 buffers 68.5 s; turf.isobands over a point grid of the same
// cells (99,008 points) 31.8 s, and its interpolated edges can cut a reachable road point out. Tracing the
// cells keeps containment exact at a thousandth of the cost. turf's area measures the result
// (api/isochrones/features.ts).
import { METERS_PER_DEGREE } from '../lib/geo/sphere.js';

/** What the drawing draws on: a grid of cells, or the box of everything drawn. */
export interface Canvas {
  point(lon: number, lat: number): void;
  segment(lon0: number, lat0: number, lon1: number, lat1: number): void;
}

/** The box of everything drawn: where a grid must reach when a first guess of it was short. */
export class BoundsCanvas implements Canvas {
  box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];

  point(lon: number, lat: number): void {
    const b = this.box;
    if (lon < b[0]) b[0] = lon;
    if (lat < b[1]) b[1] = lat;
    if (lon > b[2]) b[2] = lon;
    if (lat > b[3]) b[3] = lat;
  }

  segment(lon0: number, lat0: number, lon1: number, lat1: number): void {
    this.point(lon0, lat0);
    this.point(lon1, lat1);
  }
}

/** Cells of `cellLon` × `cellLat` degrees from (west, south); `cells[y * cols + x]` is 1 when touched. */
export class CellGrid implements Canvas {
  readonly cells: Uint8Array;
  /** Points that fell outside the grid since it was made: the caller makes a larger one and draws again. */
  outside = false;

  constructor(
    readonly west: number,
    readonly south: number,
    readonly cellLon: number,
    readonly cellLat: number,
    readonly cols: number,
    readonly rows: number,
  ) {
    this.cells = new Uint8Array(cols * rows);
  }

  /** A grid over [west, south, east, north] with square cells of about `cellMeters`. Its lines lie on
   *  whole micro-degrees, so that the polygons' corners, printed to 1e-6°, are exactly the cells' corners. */
  static over(bbox: readonly [number, number, number, number], cellMeters: number): CellGrid {
    const [w, s, e, n] = bbox;
    const midLat = ((s + n) / 2) * (Math.PI / 180);
    const cellLat = Math.ceil((cellMeters / METERS_PER_DEGREE) * 1e6);
    const cellLon = Math.ceil((cellMeters / (METERS_PER_DEGREE * Math.max(0.01, Math.cos(midLat)))) * 1e6);
    // One cell of margin on every side: a point on the box's edge still has unmarked cells around it,
    // so every ring closes inside the grid.
    // (A micro-degree more: w × 1e6 may print a hair below a whole number.)
    const west = Math.floor(w * 1e6) - 1 - cellLon,
      south = Math.floor(s * 1e6) - 1 - cellLat;
    const cols = Math.max(1, Math.ceil((e * 1e6 - west) / cellLon)) + 2;
    const rows = Math.max(1, Math.ceil((n * 1e6 - south) / cellLat)) + 2;
    return new CellGrid(west / 1e6, south / 1e6, cellLon / 1e6, cellLat / 1e6, cols, rows);
  }

  /** Marks the cell of a point. */
  point(lon: number, lat: number): void {
    const x = Math.floor((lon - this.west) / this.cellLon),
      y = Math.floor((lat - this.south) / this.cellLat);
    if (x < 1 || y < 1 || x >= this.cols - 1 || y >= this.rows - 1) this.outside = true;
    else this.cells[y * this.cols + x] = 1;
  }

  /** Marks every cell the segment passes through (Amanatides–Woo traversal). */
  segment(lon0: number, lat0: number, lon1: number, lat1: number): void {
    const fx0 = (lon0 - this.west) / this.cellLon,
      fy0 = (lat0 - this.south) / this.cellLat;
    const fx1 = (lon1 - this.west) / this.cellLon,
      fy1 = (lat1 - this.south) / this.cellLat;
    let x = Math.floor(fx0),
      y = Math.floor(fy0);
    const xEnd = Math.floor(fx1),
      yEnd = Math.floor(fy1);
    if (x === xEnd && y === yEnd) {
      this.point(lon1, lat1);
      return;
    }
    const { cols, rows, cells } = this;
    if (Math.min(x, xEnd) < 1 || Math.min(y, yEnd) < 1 || Math.max(x, xEnd) >= cols - 1 || Math.max(y, yEnd) >= rows - 1) {
      this.outside = true;
      return;
    }
    const dx = fx1 - fx0,
      dy = fy1 - fy0;
    const stepX = dx > 0 ? 1 : -1,
      stepY = dy > 0 ? 1 : -1;
    const tDeltaX = dx !== 0 ? Math.abs(1 / dx) : Infinity,
      tDeltaY = dy !== 0 ? Math.abs(1 / dy) : Infinity;
    let tMaxX = dx !== 0 ? (dx > 0 ? x + 1 - fx0 : fx0 - x) * tDeltaX : Infinity;
    let tMaxY = dy !== 0 ? (dy > 0 ? y + 1 - fy0 : fy0 - y) * tDeltaY : Infinity;
    cells[y * cols + x] = 1;
    // At most |Δx| + |Δy| steps; the bound guards against a rounding that would miss the end cell.
    for (let steps = Math.abs(xEnd - x) + Math.abs(yEnd - y); steps > 0; steps--) {
      if (tMaxX < tMaxY) {
        x += stepX;
        tMaxX += tDeltaX;
      } else {
        y += stepY;
        tMaxY += tDeltaY;
      }
      cells[y * cols + x] = 1;
    }
    cells[yEnd * cols + xEnd] = 1;
  }

  /** Marks a polyline of lon, lat pairs (flat). */
  line(coords: ArrayLike<number>, from = 0, to = coords.length): void {
    if (to - from < 2) return;
    if (to - from === 2) {
      this.point(coords[from], coords[from + 1]);
      return;
    }
    for (let i = from; i + 3 < to; i += 2) this.segment(coords[i], coords[i + 1], coords[i + 2], coords[i + 3]);
  }

  /** Cells touched. */
  count(): number {
    let n = 0;
    for (let i = 0; i < this.cells.length; i++) n += this.cells[i];
    return n;
  }
}

/**
 * Two cells that meet only at a corner would make rings touch at a point: the cell beside them is
 * marked as well (a cell more of shape, never less), until no such corner is left.
 */
function closeCorners(g: CellGrid): void {
  const { cols, rows, cells } = g;
  for (let changed = true; changed; ) {
    changed = false;
    for (let y = 0; y + 1 < rows; y++) {
      for (let x = 0; x + 1 < cols; x++) {
        const i = y * cols + x;
        const a = cells[i],
          b = cells[i + 1],
          c = cells[i + cols],
          d = cells[i + cols + 1];
        if (a === d && b === c && a !== b) {
          if (a) cells[i + 1] = 1;
          else cells[i] = 1;
          changed = true;
        }
      }
    }
  }
}

/** A GeoJSON Polygon's or MultiPolygon's coordinates: rings of [lon, lat], outer rings counterclockwise. */
export type PolygonRings = number[][][];

/** Signed area (twice) of a ring of grid vertex ids; positive when counterclockwise. */
function ringArea(ring: number[], stride: number): number {
  let a = 0;
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i],
      q = ring[(i + 1) % ring.length];
    a += (p % stride) * Math.floor(q / stride) - (q % stride) * Math.floor(p / stride);
  }
  return a;
}

/** Whether the point (px, py) in grid units lies inside a ring of vertex ids (even–odd rule). */
function ringContains(ring: number[], stride: number, px: number, py: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const xi = ring[i] % stride,
      yi = Math.floor(ring[i] / stride);
    const xj = ring[j] % stride,
      yj = Math.floor(ring[j] / stride);
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * The union of the marked cells as polygons: each an outer ring (counterclockwise) and its holes
 * (clockwise), as RFC 7946 orients them; coordinates rounded to 1e-6°. Empty when no cell is marked.
 * Holes of fewer than `minHoleCells` cells are filled.
 */
export function tracePolygons(g: CellGrid, minHoleCells = 1): PolygonRings[] {
  closeCorners(g);
  const { cols, rows, cells } = g;
  const stride = cols + 1;
  // The boundary as one outgoing edge per vertex, interior on the left. Without corner contacts no vertex
  // has two, so every ring is traced without a choice.
  const next = new Int32Array(stride * (rows + 1)).fill(-1);
  const at = (x: number, y: number) => (x >= 0 && y >= 0 && x < cols && y < rows ? cells[y * cols + x] : 0);
  const starts: number[] = [];
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      if (!cells[y * cols + x]) continue;
      const v = y * stride + x;
      if (!at(x, y - 1)) {
        next[v] = v + 1;
        starts.push(v);
      }
      if (!at(x + 1, y)) next[v + 1] = v + 1 + stride;
      if (!at(x, y + 1)) next[v + 1 + stride] = v + stride;
      if (!at(x - 1, y)) next[v + stride] = v;
    }
  }
  // Every ring has an edge along a cell's bottom (an outer ring its lowest, a hole its highest): starting
  // at those finds them all.
  const rings: number[][] = [];
  for (const s of starts) {
    if (next[s] < 0) continue;
    const ring: number[] = [];
    const firstDir = next[s] - s;
    let v = s,
      prevDir = 0;
    do {
      const w = next[v];
      next[v] = -1;
      const dir = w - v;
      // Only corners are kept: straight runs of cell edges are one segment.
      if (dir !== prevDir) ring.push(v);
      prevDir = dir;
      v = w;
    } while (v !== s);
    // The start is no corner when the ring comes back into it in the direction it left.
    if (prevDir === firstDir) ring.shift();
    rings.push(ring);
  }
  const outers: Array<{ ring: number[]; area: number; holes: number[][] }> = [];
  const holes: number[][] = [];
  for (const ring of rings) {
    const area = ringArea(ring, stride);
    if (area > 0) outers.push({ ring, area, holes: [] });
    else holes.push(ring);
  }
  for (const hole of holes) {
    // A hole of a few cells is a block between streets, not a place the roads do not reach.
    if (-ringArea(hole, stride) / 2 < minHoleCells) continue;
    // The centre of the marked cell on the left of the hole's first edge: inside exactly the outer rings
    // around the hole (cell centres never lie on a ring's edges).
    const a = hole[0],
      b = hole[1];
    const ax = a % stride,
      ay = Math.floor(a / stride);
    const dx = Math.sign((b % stride) - ax),
      dy = Math.sign(Math.floor(b / stride) - ay);
    const px = ax + 0.5 * dx - 0.5 * dy,
      py = ay + 0.5 * dy + 0.5 * dx;
    let best: (typeof outers)[number] | undefined;
    for (const o of outers) if ((!best || o.area < best.area) && ringContains(o.ring, stride, px, py)) best = o;
    best?.holes.push(hole);
  }
  const coords = (ring: number[]): number[][] => {
    const w = Math.round(g.west * 1e6),
      s = Math.round(g.south * 1e6),
      cw = Math.round(g.cellLon * 1e6),
      ch = Math.round(g.cellLat * 1e6);
    // Grids made by `over` lie on whole micro-degrees and print exactly; another grid's corners are printed
    // as they are, since rounding could move an edge past a point drawn beside it.
    const onLattice = [g.west - w / 1e6, g.south - s / 1e6, g.cellLon - cw / 1e6, g.cellLat - ch / 1e6].every((d) => Math.abs(d) < 1e-12);
    const out = ring.map((v) =>
      onLattice
        ? [(w + (v % stride) * cw) / 1e6, (s + Math.floor(v / stride) * ch) / 1e6]
        : [g.west + (v % stride) * g.cellLon, g.south + Math.floor(v / stride) * g.cellLat],
    );
    out.push(out[0]);
    return out;
  };
  return outers.sort((p, q) => q.area - p.area).map((o) => [coords(o.ring), ...o.holes.map(coords)]);
}
