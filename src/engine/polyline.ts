// The other forms of a route's geometry (POST /v1/routes `geometry_format`, `overview`): Google's encoded
// polyline (lat, lon order, precision 5 or 6, as OSRM, GraphHopper and Valhalla send it) written as a JSON
// string straight from the line's 1e-7° integers into the reply's bytes, and the Douglas–Peucker
// simplification of `overview: "simplified"`. Written in the compute thread like line-json.ts: building
// the [lat, lon] float pairs @mapbox/polyline's `encode` wants, and then copying its string into the
// reply, costs several times the encoding itself on a far route (docs/routing.md, "Compact route geometry").
import { METERS_PER_DEGREE } from '../lib/geo/sphere.js';
import { floorDiv } from './line-json.js';

/** How a route's geometry is answered. */
export interface GeometryOptions {
  format: 'geojson' | 'polyline' | 'polyline6';
  overview: 'full' | 'simplified' | 'false';
  /** `simplified`: the largest distance (meters) the simplified line may be from the route. */
  toleranceM?: number;
}

const QUOTE = 34;
const BACKSLASH = 92;
export const NULL_JSON = Uint8Array.of(110, 117, 108, 108);

/** The most bytes writePolyline writes: 6 characters of 5 bits per value (a `\` doubled), 2 quotes. */
export const polylineBytes = (valuesE7: Int32Array): number => 8 + Math.max(4, valuesE7.length) * 12;

/**
 * The encoded polyline of flat lon, lat values in 1e-7° as a JSON string (quotes, and the `\` the
 * alphabet holds escaped) into `buf` (of at least polylineBytes); its length. Each coordinate is
 * rounded to whole 1e-5° (precision 5) or 1e-6° (6) halves up, as the GeoJSON rounds them: a polyline6
 * decodes to exactly the GeoJSON's numbers. A single point is repeated, as in the GeoJSON. With
 * `offsets` (of at least one more entry than points), where each point's characters start, and the
 * closing quote's place after the last: a stretch of the line after its first point encodes as it does
 * in the whole (steps copy theirs).
 */
export function writePolyline(valuesE7: Int32Array, precision: 5 | 6, buf: Uint8Array, offsets?: Int32Array): number {
  const points = valuesE7.length === 2 ? Int32Array.of(valuesE7[0], valuesE7[1], valuesE7[0], valuesE7[1]) : valuesE7;
  const div = precision === 5 ? 100 : 10;
  const half = div >> 1;
  let p = 0;
  buf[p++] = QUOTE;
  let lastLat = 0,
    lastLon = 0;
  for (let i = 0; i < points.length; i += 2) {
    if (offsets) offsets[i >> 1] = p;
    const lat = floorDiv(points[i + 1] + half, div),
      lon = floorDiv(points[i] + half, div);
    p = writeDelta(lon - lastLon, buf, writeDelta(lat - lastLat, buf, p));
    lastLat = lat;
    lastLon = lon;
  }
  if (offsets) offsets[points.length >> 1] = p;
  buf[p++] = QUOTE;
  return p;
}

/** One value's difference in the polyline alphabet into `buf` at `p`; the end. */
function writeDelta(d: number, buf: Uint8Array, p: number): number {
  // Zigzag: the sign into the lowest bit (a difference is at most 360e6, so 2 × it fits 31 bits).
  let v = (d << 1) ^ (d >> 31);
  while (v >= 32) {
    const c = 63 + (32 | (v & 31));
    if (c === BACKSLASH) buf[p++] = BACKSLASH;
    buf[p++] = c;
    v >>= 5;
  }
  const c = 63 + v;
  if (c === BACKSLASH) buf[p++] = BACKSLASH;
  buf[p++] = c;
  return p;
}

/** Point `i` of flat lon, lat values in 1e-7° encoded on its own (the first point of a polyline) into `buf` at `p`; the end. */
export function writePolylineStart(valuesE7: Int32Array, i: number, precision: 5 | 6, buf: Uint8Array, p: number): number {
  const div = precision === 5 ? 100 : 10;
  const half = div >> 1;
  return writeDelta(floorDiv(valuesE7[2 * i] + half, div), buf, writeDelta(floorDiv(valuesE7[2 * i + 1] + half, div), buf, p));
}

/**
 * Two encoded polylines (as writePolyline writes them) where the second starts at the point the first
 * ends at, as the parts of one: the first without its closing quote, then the second without its
 * opening quote and its first point. The second's next deltas are from its first point, the first's
 * last: they hold as they are. Views, not copies.
 */
export function joinPolylines(a: Uint8Array, b: Uint8Array): Uint8Array[] {
  let i = 1;
  // Two values: each ends at its first character below 63 + 32 (a `\` is one of those, written twice).
  for (let ends = 0; ends < 2; i++) {
    if (b[i] === BACKSLASH) i++;
    if (b[i] - 63 < 32) ends++;
  }
  return [a.subarray(0, a.length - 1), b.subarray(i)];
}

/** Meters per 1e-7° of latitude. */
const M_PER_E7 = METERS_PER_DEGREE * 1e-7;

/**
 * The points of the line (flat lon, lat in 1e-7°) that Douglas–Peucker keeps with `toleranceM`: every
 * point of the line is within that distance of the simplified one. The points at `keep` (indexes of
 * points, the snapped waypoints) and the ends are kept, and each stretch between two of them is
 * simplified on its own, on a plane at its first point's latitude: a route split at a waypoint simplifies
 * to the same points in either half.
 */
export function simplifyLine(valuesE7: Int32Array, keep: ArrayLike<number>, toleranceM: number): Int32Array {
  const n = valuesE7.length >> 1;
  if (n <= 2) return valuesE7;
  const kept = new Uint8Array(n);
  const t2 = (toleranceM / M_PER_E7) ** 2;
  const stack: number[] = [];
  const cuts = [0, ...Array.from(keep), n - 1].filter((k) => k >= 0 && k < n).sort((x, y) => x - y);
  for (let c = 0; c + 1 < cuts.length; c++) {
    const from = cuts[c],
      to = cuts[c + 1];
    kept[from] = kept[to] = 1;
    if (to - from < 2) continue;
    const kx = Math.cos((valuesE7[2 * from + 1] * 1e-7 * Math.PI) / 180);
    stack.push(from, to);
    while (stack.length) {
      const j = stack.pop()!,
        i = stack.pop()!;
      const ax = valuesE7[2 * i] * kx,
        ay = valuesE7[2 * i + 1];
      const dx = valuesE7[2 * j] * kx - ax,
        dy = valuesE7[2 * j + 1] - ay;
      const len2 = dx * dx + dy * dy;
      let worst = -1,
        at = -1;
      for (let k = i + 1; k < j; k++) {
        const px = valuesE7[2 * k] * kx - ax,
          py = valuesE7[2 * k + 1] - ay;
        // The distance to the segment (not its line): a stretch that turns back stays within the tolerance.
        let t = len2 > 0 ? (px * dx + py * dy) / len2 : 0;
        t = Math.max(0, Math.min(1, t));
        const ex = px - t * dx,
          ey = py - t * dy;
        const d2 = ex * ex + ey * ey;
        if (d2 > worst) {
          worst = d2;
          at = k;
        }
      }
      if (worst > t2) {
        kept[at] = 1;
        if (at - i > 1) stack.push(i, at);
        if (j - at > 1) stack.push(at, j);
      }
    }
  }
  let count = 0;
  for (let k = 0; k < n; k++) count += kept[k];
  const out = new Int32Array(2 * count);
  let q = 0;
  for (let k = 0; k < n; k++) {
    if (kept[k]) {
      out[q++] = valuesE7[2 * k];
      out[q++] = valuesE7[2 * k + 1];
    }
  }
  return out;
}

/**
 * `simplified`'s tolerance for waypoints (degrees): one pixel at the zoom that fits their box in 1000
 * pixels, the box's larger side (meters) / 1000, at least 1 m. From the waypoints as sent rather than
 * the route found, so that it is known before the route is searched and both halves of a split route
 * use the same one.
 */
export function simplifyToleranceM(waypoints: ReadonlyArray<{ lat: number; lon: number }>): number {
  let w = Infinity,
    s = Infinity,
    e = -Infinity,
    n = -Infinity;
  for (const p of waypoints) {
    w = Math.min(w, p.lon);
    e = Math.max(e, p.lon);
    s = Math.min(s, p.lat);
    n = Math.max(n, p.lat);
  }
  const wide = (e - w) * METERS_PER_DEGREE * Math.cos((((s + n) / 2) * Math.PI) / 180);
  const high = (n - s) * METERS_PER_DEGREE;
  return Math.max(1, Math.max(wide, high) / 1000);
}
