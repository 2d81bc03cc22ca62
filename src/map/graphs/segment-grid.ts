// A uniform grid over the shape segments of the map's geometries, shared by every profile and stored as
// two flat arrays (CSR of cells → first point index of each segment, consecutive ones as runs) so workers use it in place from
// shared memory. A profile finds its geometry of a segment from the point by binary search over its
// geomFirst (a segment no geometry of the profile covers is not the profile's). Cells are about 250 m
// square, larger when a map would need over 12 million (48 MB of cell index, held once for all
// profiles); a segment is listed in every cell its bounding box touches. Smaller cells than 400 m made
// 500 avoided circles cheaper to place (10x10 country: 12 → 9 ms p50 per avoided route).
import { E7, type GridParams, type Shapes } from './road-graph.js';

const TARGET_CELL_M = 250;
const MAX_CELLS = 12_000_000;
const M_PER_DEG = 111_195; // mean Earth radius 6371.0088 km × π/180
const EARTH_R = 6371008.8;
const RAD = Math.PI / 180;

/**
 * The grid over the segments marked in `used` (bit p: the segment from point p to p+1 belongs to some
 * profile's geometry) of the points `geomE7`.
 */
export function buildSegmentGrid(used: Uint8Array, geomE7: Int32Array): { params: GridParams; first: Uint32Array; items: Uint32Array } {
  const points = geomE7.length / 2;
  let minLat = Infinity,
    minLon = Infinity,
    maxLat = -Infinity,
    maxLon = -Infinity;
  for (let p = 0; p < points; p++) {
    const lat = geomE7[2 * p] * E7,
      lon = geomE7[2 * p + 1] * E7;
    if (lat < minLat) minLat = lat;
    if (lat > maxLat) maxLat = lat;
    if (lon < minLon) minLon = lon;
    if (lon > maxLon) maxLon = lon;
  }
  if (points === 0) {
    minLat = minLon = 0;
    maxLat = maxLon = 0;
  }
  const cosMid = Math.max(0.05, Math.cos(((minLat + maxLat) / 2) * RAD));
  let cellLat = TARGET_CELL_M / M_PER_DEG;
  let cellLon = cellLat / cosMid;
  let rows = Math.floor((maxLat - minLat) / cellLat) + 1;
  let cols = Math.floor((maxLon - minLon) / cellLon) + 1;
  if (rows * cols > MAX_CELLS) {
    const scale = Math.sqrt((rows * cols) / MAX_CELLS);
    cellLat *= scale;
    cellLon *= scale;
    rows = Math.floor((maxLat - minLat) / cellLat) + 1;
    cols = Math.floor((maxLon - minLon) / cellLon) + 1;
  }
  const params: GridParams = { minLat, minLon, cellLat, cellLon, rows, cols };
  const first = new Uint32Array(rows * cols + 1);
  let items = new Uint32Array(0);
  let fill = first;
  // Two passes over every segment, the same loop: count per cell, then place. No closure per segment:
  // at country scale this loop runs for tens of millions of segments.
  for (const placing of [false, true]) {
    for (let p = 0; p + 1 < points; p++) {
      if (!(used[p >> 3] & (1 << (p & 7)))) continue;
      {
        const la0 = geomE7[2 * p] * E7,
          lo0 = geomE7[2 * p + 1] * E7,
          la1 = geomE7[2 * p + 2] * E7,
          lo1 = geomE7[2 * p + 3] * E7;
        const r0 = Math.floor((Math.min(la0, la1) - minLat) / cellLat),
          r1 = Math.floor((Math.max(la0, la1) - minLat) / cellLat);
        const c0 = Math.floor((Math.min(lo0, lo1) - minLon) / cellLon),
          c1 = Math.floor((Math.max(lo0, lo1) - minLon) / cellLon);
        for (let r = r0; r <= r1; r++) {
          for (let c = c0; c <= c1; c++) {
            if (placing) items[fill[r * cols + c]++] = p;
            else first[r * cols + c + 1]++;
          }
        }
      }
    }
    if (!placing) {
      for (let i = 0; i < rows * cols; i++) first[i + 1] += first[i];
      fill = first.slice(0, rows * cols);
      items = new Uint32Array(first[rows * cols]);
    }
  }
  return { params, first, items: packRuns(first, items) };
}

/**
 * Marks an item that starts a run: the next item is the run's length, and the run lists the segments
 * from the marked point on. A way crossing a cell lists several consecutive segments there: written as
 * runs, the 32x32 country's grid holds 16.3 M items instead of 54.3 M (217 → 65 MB).
 */
export const RUN = 0x8000_0000;

/** Rewrites each cell's segments (ascending points) as runs, in place; `first` is updated to match. */
function packRuns(first: Uint32Array, items: Uint32Array): Uint32Array {
  let out = 0;
  for (let cell = 0; cell + 1 < first.length; cell++) {
    const end = first[cell + 1];
    let i = first[cell];
    first[cell] = out;
    while (i < end) {
      let j = i + 1;
      while (j < end && items[j] === items[j - 1] + 1) j++;
      if (items[i] >= RUN) throw new Error(`the map has more than ${RUN} shape points`);
      if (j - i === 1) items[out++] = items[i];
      else {
        items[out++] = items[i] | RUN;
        items[out++] = j - i;
      }
      i = j;
    }
  }
  first[first.length - 1] = out;
  return items.slice(0, out);
}

/** The shared shapes and one profile's geometries over them: what a grid query needs. */
export interface GridView {
  shapes: Shapes;
  geomFirst: Uint32Array;
  geomLast: Uint32Array;
}

/** The profile's geometry whose segments include the one starting at point p, or -1 when none does. */
export function geometryOfPoint(view: GridView, p: number): number {
  const { geomFirst, geomLast } = view;
  let lo = 0,
    hi = geomFirst.length - 1;
  if (hi < 0 || geomFirst[0] > p) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (geomFirst[mid] <= p) lo = mid;
    else hi = mid - 1;
  }
  return p < geomLast[lo] ? lo : -1;
}

export interface SegmentHit {
  geom: number;
  point: number;
  t: number;
  distance: number;
  lat: number;
  lon: number;
}

/** Projection of (lat, lon) onto segment point→point+1 in a local equirectangular frame around the query point. */
export function projectOnSegment(coords: Int32Array, point: number, lat: number, lon: number): { t: number; distance: number; lat: number; lon: number } {
  const kx = Math.cos(lat * RAD) * RAD * EARTH_R,
    ky = RAD * EARTH_R;
  const lat0 = coords[2 * point] * E7,
    lon0 = coords[2 * point + 1] * E7,
    lat1 = coords[2 * point + 2] * E7,
    lon1 = coords[2 * point + 3] * E7;
  const ax = (lon0 - lon) * kx,
    ay = (lat0 - lat) * ky;
  const bx = (lon1 - lon) * kx,
    by = (lat1 - lat) * ky;
  const dx = bx - ax,
    dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const px = ax + t * dx,
    py = ay + t * dy;
  return {
    t,
    distance: Math.sqrt(px * px + py * py),
    lat: lat0 + t * (lat1 - lat0),
    lon: lon0 + t * (lon1 - lon0),
  };
}

/** Meters per degree of longitude at `lat`: pass it to the distance functions for many segments at one point. */
export const metersPerLonDegree = (lat: number): number => Math.cos(lat * RAD) * RAD * EARTH_R;

/** Meters from (lat, lon) to segment point→point+1 of a geometry's points. */
export function segmentDistance(coords: Int32Array, point: number, lat: number, lon: number, kx = metersPerLonDegree(lat)): number {
  return segmentDistanceDeg(coords[2 * point] * E7, coords[2 * point + 1] * E7, coords[2 * point + 2] * E7, coords[2 * point + 3] * E7, lat, lon, kx);
}

/** Meters from (lat, lon) to the segment (lat0, lon0)–(lat1, lon1), all in degrees; allocation-free. */
export function segmentDistanceDeg(lat0: number, lon0: number, lat1: number, lon1: number, lat: number, lon: number, kx = metersPerLonDegree(lat)): number {
  const ky = RAD * EARTH_R;
  const ax = (lon0 - lon) * kx,
    ay = (lat0 - lat) * ky;
  const dx = (lon1 - lon) * kx - ax,
    dy = (lat1 - lat) * ky - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const px = ax + t * dx,
    py = ay + t * dy;
  return Math.sqrt(px * px + py * py);
}

/**
 * Nearest segment within maxMeters whose geometry passes `accept` (given the segment's first point too),
 * searched ring by ring of cells until no unvisited cell can hold anything nearer.
 */
/** Rings and grid cells `nearestSegment` has gone through, in this thread: a search's cost counted, the
 *  same on any machine (test/unit/segment-grid.test.ts holds the search near a pole to it). @internal */
export const gridSearched = { rings: 0, cells: 0 };

export function nearestSegment(
  grid: GridView,
  lat: number,
  lon: number,
  maxMeters: number,
  accept: (geom: number, point: number) => boolean,
): SegmentHit | null {
  const { grid: params, gridFirst: first, gridItems: items, pointsE7: geomE7 } = grid.shapes;
  const row = Math.floor((lat - params.minLat) / params.cellLat);
  const col = Math.floor((lon - params.minLon) / params.cellLon);
  // Nothing within reach north or south of the grid's rows. Near a pole the cells' width in meters goes
  // to 0 and the rings below to billions: a point there would hold a worker for good.
  const reachLat = maxMeters / M_PER_DEG;
  if (lat < params.minLat - reachLat || lat > params.minLat + params.rows * params.cellLat + reachLat) return null;
  const cellM = Math.min(params.cellLat * M_PER_DEG, params.cellLon * M_PER_DEG * Math.cos(lat * RAD));
  const kx = metersPerLonDegree(lat);
  let bestGeom = -1,
    bestPoint = -1,
    bestDist = Infinity;
  // Past the ring that takes in the whole grid there are no cells left to look at.
  const lastRing = Math.max(Math.abs(row), Math.abs(params.rows - 1 - row), Math.abs(col), Math.abs(params.cols - 1 - col));
  const maxRing = Math.min(Math.ceil(maxMeters / cellM) + 1, lastRing);
  for (let ring = 0; ring <= maxRing; ring++) {
    gridSearched.rings++;
    for (let r = Math.max(row - ring, 0); r <= Math.min(row + ring, params.rows - 1); r++) {
      const edge = r === row - ring || r === row + ring;
      for (let c = col - ring; c <= col + ring; c += edge ? 1 : 2 * ring) {
        if (c >= 0 && c < params.cols) {
          gridSearched.cells++;
          const cell = r * params.cols + c;
          for (let i = first[cell]; i < first[cell + 1]; i++) {
            // The cell's items walked in place: with a callback per point a snapped point took ~30 % longer (in process, LI).
            // As an int32 (a run's mark makes it negative): a uint32 of 2^31 or more is a double in V8,
            // and so would be every index computed from it.
            let p = items[i] | 0,
              last = p + 1;
            if (p < 0) {
              p &= ~RUN;
              last = p + items[++i];
            }
            for (; p < last; p++) {
              const dist = segmentDistance(geomE7, p, lat, lon, kx);
              if (dist > maxMeters || dist >= bestDist) continue;
              const g = geometryOfPoint(grid, p);
              if (g >= 0 && accept(g, p)) {
                bestDist = dist;
                bestGeom = g;
                bestPoint = p;
              }
            }
          }
        }
        if (ring === 0) break;
      }
    }
    // Every cell outside this ring lies at least ring × cellM away from the query point.
    if (bestGeom >= 0 && bestDist <= ring * cellM) break;
  }
  return bestGeom < 0 ? null : { geom: bestGeom, point: bestPoint, ...projectOnSegment(geomE7, bestPoint, lat, lon) };
}

/**
 * The first point of every segment listed in a cell the circle's bounding box touches whose own bounding
 * box meets the circle's, in `out` (emptied first; returned): a segment that comes within `radius` (as
 * segmentDistance measures) always is, and most of a cell's segments are not, which saves their exact
 * distance.
 */
export function segmentsNearCircle(grid: GridView, lat: number, lon: number, radius: number, out: number[]): number[] {
  // Wider than segmentDistance's frame: M_PER_DEG is below its meters per degree of latitude, and
  // M_PER_DEG × cos below its meters per degree of longitude (within 0.6° of a pole the box, like the
  // cells searched, is capped).
  const dLat = radius / M_PER_DEG,
    dLon = radius / (M_PER_DEG * Math.max(0.01, Math.cos(lat * RAD)));
  return segmentsInBox(grid, lat - dLat, lon - dLon, lat + dLat, lon + dLon, out);
}

/** Whether the segment from point `p` to the next has a bounding box that meets the box (1e-7°). */
function segmentMeetsBox(pts: Int32Array, p: number, south: number, north: number, west: number, east: number): boolean {
  const lat0 = pts[2 * p],
    lat1 = pts[2 * p + 2],
    lon0 = pts[2 * p + 1],
    lon1 = pts[2 * p + 3];
  return !((lat0 < south && lat1 < south) || (lat0 > north && lat1 > north) || (lon0 < west && lon1 < west) || (lon0 > east && lon1 > east));
}

/**
 * The first point of every segment listed in a cell the box (degrees) touches whose own bounding box
 * meets the box, in `out` (emptied first; returned); a segment may come more than once: it is listed in
 * every cell it crosses. An array, not a callback: the avoidance calls this for each of up to 500 circles
 * per request, and V8 threw its compiled code away whenever another caller's callback came along.
 */
export function segmentsInBox(grid: GridView, s: number, w: number, n: number, e: number, out: number[]): number[] {
  out.length = 0;
  const { grid: params, gridFirst: first, gridItems: items, pointsE7: pts } = grid.shapes;
  const south = Math.floor(s * 1e7) - 1,
    north = Math.ceil(n * 1e7) + 1,
    west = Math.floor(w * 1e7) - 1,
    east = Math.ceil(e * 1e7) + 1;
  const r0 = Math.max(0, Math.floor((s - params.minLat) / params.cellLat));
  const r1 = Math.min(params.rows - 1, Math.floor((n - params.minLat) / params.cellLat));
  const c0 = Math.max(0, Math.floor((w - params.minLon) / params.cellLon));
  const c1 = Math.min(params.cols - 1, Math.floor((e - params.minLon) / params.cellLon));
  for (let r = r0; r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const cell = r * params.cols + c;
      for (let i = first[cell]; i < first[cell + 1]; i++) {
        const item = items[i];
        if (item < RUN) {
          if (segmentMeetsBox(pts, item, south, north, west, east)) out.push(item);
        } else for (let p = item ^ RUN, last = p + items[++i]; p < last; p++) if (segmentMeetsBox(pts, p, south, north, west, east)) out.push(p);
      }
    }
  }
  return out;
}
