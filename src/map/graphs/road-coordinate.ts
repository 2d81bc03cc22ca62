// The point a road's bearing at a junction is measured towards, as OSRM's guidance finds it: its
// representative coordinate (osrm-backend 6.0.0, src/extractor/intersection/coordinate_extractor.cpp,
// `ExtractRepresentativeCoordinate`, and intersection_analysis.cpp, which takes the first point a metre
// away instead where only two roads meet). OSRM's steps, its turn angles and its car profile's turn
// penalties all read that bearing, and where a road bends near the junction a fixed distance down it is
// several degrees off (a slip road that bends onto a road 10 m on: 56° where OSRM says 60°); enough to
// turn a bend into a turn, or a turn's modifier into another. Ported function by function, in OSRM's
// fixed 1e-6° coordinates and with its roundings and truncations, its quirks included (a trim given a
// length cache reads segment lengths as distances from the start, as OSRM's does): the numbers are
// then OSRM's own.

/** Coordinates in 1e-6°: longitudes and latitudes side by side. */
export interface Coords {
  lon: number[];
  lat: number[];
}

/** What a road's class tells the extractor (OSRM's RoadClassification), and the junction's. */
export interface RoadContext {
  /** A road that may be ignored (OSRM's low priority: service roads, tracks, paths). */
  lowPriority: boolean;
  /** A roundabout's or circular junction's way. */
  ring: boolean;
  /** GetOffsetCorrectionFactor: 2.5 motorway and trunk (ramps too), 1.5 primary, else 1. */
  offsetFactor: number;
  /** The most lanes of any road at the junction, 0 where none says. */
  lanes: number;
}

export const ASSUMED_LANE_WIDTH = 3.25;
const ASSUMED_LANE_COUNT = 2;
const DESIRED_COORDINATE_DIFFERENCE = 2;
const LOOKAHEAD_DISTANCE_WITHOUT_LANES = 10;
const FAR_LOOKAHEAD_DISTANCE = 40;
const SKIPPING_INACCURACIES_DISTANCE = 2;
export const NARROW_TURN_ANGLE = 40;
const FUZZY_ANGLE_DIFFERENCE = 25;
const STRAIGHT_ANGLE = 180;

const RAD = Math.PI / 180;
// mapbox::cheap_ruler's multipliers per band of latitude, as OSRM's CheapRulerContainer(1800) keeps them.
const RE = 6378.137,
  FE = 1 / 298.257223563,
  E2 = FE * (2 - FE);
const RULER_STEP = (90 * 1e6) / 1800;
const rulerKx = new Float64Array(1800),
  rulerKy = new Float64Array(1800);
for (let n = 0; n < 1800; n++) {
  const lat = (RULER_STEP * (n + 0.5)) / 1e6;
  const mul = RAD * RE * 1000,
    coslat = Math.cos(lat * RAD),
    w2 = 1 / (1 - E2 * (1 - coslat * coslat)),
    w = Math.sqrt(w2);
  rulerKx[n] = mul * w * coslat;
  rulerKy[n] = mul * w * w2 * (1 - E2);
}
const rulerBin = (latA: number, latB: number): number => Math.trunc((Math.abs(Math.trunc((latA + latB) / 2)) - 1) / RULER_STEP);
/** What a degree of longitude is worth against one of latitude in OSRM's bearings at latitude `latE7` (1e-7°):
 *  its cheap ruler's kx over ky in the latitude's band. Not the latitude's cosine: the ellipsoid makes the
 *  ratio 0.3 % larger at 47°, 0.7 % at the equator, enough to put a turn of OSRM's 40.1° at 39.9°. */
export function bearingScale(latE7: number): number {
  const lat = e6OfE7(latE7);
  const bin = rulerBin(lat, lat);
  return rulerKx[bin] / rulerKy[bin];
}
/** std::round: halves away from zero. */
const roundAway = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));
/** A 1e-7° integer as OSRM's 1e-6° one (std::round of the degrees). */
export const e6OfE7 = (e7: number): number => roundAway(e7 / 10);
/** std::remainder(x, 360). */
const remainder360 = (x: number): number => x - 360 * Math.round(x / 360);

/** OSRM's greatCircleDistance (a cheap ruler at the pair's mean latitude), metres. */
export function distance(lonA: number, latA: number, lonB: number, latB: number): number {
  const bin = rulerBin(latA, latB);
  const dx = remainder360((lonA - lonB) / 1e6) * rulerKx[bin],
    dy = ((latA - latB) / 1e6) * rulerKy[bin];
  return Math.sqrt(dx * dx + dy * dy);
}

/** OSRM's bearing from a to b, degrees clockwise from north in [0, 360). */
export function bearing(lonA: number, latA: number, lonB: number, latB: number): number {
  const bin = rulerBin(latA, latB);
  const dx = remainder360((lonB - lonA) / 1e6) * rulerKx[bin],
    dy = ((latB - latA) / 1e6) * rulerKy[bin];
  const deg = Math.atan2(dx, dy) / RAD;
  return deg < 0 ? deg + 360 : deg;
}

const angularDeviation = (a: number, b: number): number => {
  const d = Math.abs(a - b);
  return Math.min(360 - d, d);
};

export class Coord {
  constructor(
    readonly lon: number,
    readonly lat: number,
  ) {}
  /** Coordinate(FloatCoordinate): degrees to 1e-6°, rounded. */
  static ofDegrees(lon: number, lat: number): Coord {
    return new Coord(roundAway(lon * 1e6), roundAway(lat * 1e6));
  }
  equals(o: Coord): boolean {
    return this.lon === o.lon && this.lat === o.lat;
  }
}
const dist = (a: Coord, b: Coord): number => distance(a.lon, a.lat, b.lon, b.lat);

/** projectPointOnSegment on plain degrees: the point of segment source–target nearest `c`, in degrees. */
function project(source: Coord, target: Coord, c: Coord): [number, number] {
  const sx = source.lon / 1e6,
    sy = source.lat / 1e6,
    tx = target.lon / 1e6,
    ty = target.lat / 1e6;
  const vx = tx - sx,
    vy = ty - sy,
    rx = c.lon / 1e6 - sx,
    ry = c.lat / 1e6 - sy;
  const squared = vx * vx + vy * vy;
  if (squared < Number.EPSILON) return [sx, sy];
  const ratio = Math.min(1, Math.max(0, (vx * rx + vy * ry) / squared));
  return [(1 - ratio) * sx + tx * ratio, (1 - ratio) * sy + ty * ratio];
}
const projected = (source: Coord, target: Coord, c: Coord): Coord => {
  const [lon, lat] = project(source, target, c);
  return Coord.ofDegrees(lon, lat);
};

function interpolate(factor: number, from: Coord, to: Coord): Coord {
  return new Coord(Math.trunc(from.lon + factor * (to.lon - from.lon)), Math.trunc(from.lat + factor * (to.lat - from.lat)));
}
const interpolationFactor = (desired: number, toFirst: number, toSecond: number): number =>
  Math.max(0, Math.min((desired - toFirst) / (toSecond - toFirst), 1));

function maxDeviation(cs: Coord[], from: number, to: number, begin: Coord, end: Coord): number {
  let max = 0;
  for (let i = from; i < to; i++) max = Math.max(max, dist(projected(begin, end, cs[i]), cs[i]));
  return max;
}

/** ExtractCoordinateAtLength without a length cache. */
function coordinateAtLength(length: number, cs: Coord[]): Coord {
  let accumulated = 0;
  for (let i = 1; i < cs.length; i++) {
    const d = dist(cs[i - 1], cs[i]);
    if (accumulated + d >= length) return interpolate(interpolationFactor(length - accumulated, 0, d), cs[i - 1], cs[i]);
    accumulated += d;
  }
  return cs[cs.length - 1];
}

/** ExtractCoordinateAtLength with a length cache (segment lengths, [0] unused). */
function coordinateAtLengthCached(length: number, cs: Coord[], cache: number[]): Coord {
  let accumulated = 0,
    k = 1;
  for (let i = 1; i < cs.length; i++) {
    if (accumulated + cache[k] >= length) return interpolate(interpolationFactor(length - accumulated, 0, cache[k]), cs[i - 1], cs[i]);
    accumulated += cache[k];
    k++;
  }
  return cs[cs.length - 1];
}

/** PrepareLengthCache: 0, then each segment's length until their sum reaches `limit`. */
function lengthCache(cs: Coord[], limit: number): number[] {
  const out = [0];
  let accumulated = 0;
  for (let i = 1; i < cs.length; i++) {
    const d = dist(cs[i - 1], cs[i]);
    accumulated += d;
    out.push(d);
    if (accumulated >= limit) break;
  }
  return out;
}

/** TrimCoordinatesToLength, as OSRM's (with a cache its entries are read as distances from the start). */
function trimToLength(cs: Coord[], desired: number, cache: number[] = []): Coord[] {
  const useCache = cache.length > 0;
  if (useCache && cache[cache.length - 1] < desired && cs.length >= 2) {
    const out = cs.length > cache.length ? cs.slice(0, cache.length) : cs.slice();
    const last = dist(out[out.length - 2], out[out.length - 1]);
    if (last > 0) out[out.length - 1] = interpolate(interpolationFactor(cache[cache.length - 1], 0, last), out[out.length - 2], out[out.length - 1]);
    return out;
  }
  let toCurrent = 0;
  for (let i = 1; i < cs.length; i++) {
    const toNext = useCache ? cache[i] : toCurrent + dist(cs[i - 1], cs[i]);
    if (toNext >= desired) {
      const out = cs.slice(0, i + 1);
      out[i] = interpolate(interpolationFactor(desired, toCurrent, toNext), cs[i - 1], cs[i]);
      return out;
    }
    toCurrent = toNext;
  }
  return cs.slice();
}

/** TrimCoordinatesByLengthFront: from `desired` metres on (empty when shorter). */
function trimFront(cs: Coord[], desired: number): Coord[] {
  let toIndex = 0,
    index = 0;
  for (let next = 1; next < cs.length; next++) {
    const toNext = toIndex + dist(cs[index], cs[next]);
    if (toNext >= desired) {
      const out = cs.slice(index);
      out[0] = interpolate(interpolationFactor(desired, toIndex, toNext), cs[index], cs[next]);
      return out;
    }
    toIndex = toNext;
    index = next;
  }
  return [];
}

/** SampleCoordinates: a point every `rate` metres up to `maxLength`, the first point first. */
function sample(cs: Coord[], maxLength: number, rate: number): Coord[] {
  const out = [cs[0]];
  let carry = 0,
    total = 0;
  for (let i = 1; i < cs.length; i++) {
    if (total > maxLength) break;
    const between = dist(cs[i - 1], cs[i]);
    if (carry + between >= rate) {
      const base = rate - carry;
      const count = Math.floor((Math.min(maxLength - total, between) + carry) / rate);
      for (let s = 0; s < count; s++) out.push(interpolate(interpolationFactor(base + s * rate, 0, between), cs[i - 1], cs[i]));
      carry = between + carry - count * rate;
    } else carry += between;
    total += between;
  }
  return out;
}

const rotate = (c: Coord, radians: number): Coord => {
  const cos = Math.cos(radians),
    sin = Math.sin(radians),
    lon = c.lon / 1e6,
    lat = c.lat / 1e6;
  return Coord.ofDegrees(cos * lon - sin * lat, sin * lon + cos * lat);
};

/** leastSquareRegression: the ends of the least-squares line through the points, a little past them. */
function leastSquares(cs: Coord[]): [Coord, Coord] {
  const n = cs.length;
  let minLon = cs[0].lon / 1e6,
    maxLon = minLon,
    minLat = cs[0].lat / 1e6,
    maxLat = minLat;
  for (const c of cs) {
    minLon = Math.min(minLon, c.lon / 1e6);
    maxLon = Math.max(maxLon, c.lon / 1e6);
    minLat = Math.min(minLat, c.lat / 1e6);
    maxLat = Math.max(maxLat, c.lat / 1e6);
  }
  if (maxLat - minLat > 2 * (maxLon - minLon)) {
    const [a, b] = leastSquares(cs.map((c) => rotate(c, -90 * RAD)));
    return [rotate(a, 90 * RAD), rotate(b, 90 * RAD)];
  }
  let sumLon = 0,
    sumLat = 0;
  for (const c of cs) {
    sumLon += c.lon / 1e6;
    sumLat += c.lat / 1e6;
  }
  const meanLon = sumLon / n,
    meanLat = sumLat / n;
  let varLon = 0;
  for (const c of cs) varLon += (c.lon / 1e6 - meanLon) ** 2;
  const sdLon = Math.sqrt(varLon / (n - 1));
  if (Math.abs(sdLon) < Number.EPSILON) return [cs[0], cs[n - 1]];
  let varLat = 0;
  for (const c of cs) varLat += (c.lat / 1e6 - meanLat) ** 2;
  const sdLat = Math.sqrt(varLat / (n - 1));
  if (Math.abs(sdLat) < Number.EPSILON) return [cs[0], cs[n - 1]];
  let correlation = 0;
  for (const c of cs) correlation += ((c.lon / 1e6 - meanLon) * (c.lat / 1e6 - meanLat)) / (sdLon * sdLat);
  correlation /= n - 1;
  const slope = (correlation * sdLat) / sdLon,
    intercept = meanLat - slope * meanLon;
  const offset = 0.00001;
  return [Coord.ofDegrees(minLon - offset, intercept + slope * (minLon - offset)), Coord.ofDegrees(maxLon + offset, intercept + slope * (maxLon + offset))];
}

/** RegressionLine: the least-squares line of the points sampled every metre, from the first to the last. */
function regressionLine(cs: Coord[]): [Coord, Coord] {
  const sampled = sample(cs, FAR_LOOKAHEAD_DISTANCE, 1);
  if (sampled.length < 2) return [cs[0], cs[cs.length - 1]];
  const [a, b] = leastSquares(sampled);
  return [projected(a, b, cs[0]), projected(a, b, cs[cs.length - 1])];
}

/** GetCorrectedCoordinate: `head`, moved back by 90 % of how far `base` lies off the junction `fix`. */
function corrected(fix: Coord, base: Coord, head: Coord): Coord {
  if (dist(base, head) < DESIRED_COORDINATE_DIFFERENCE) return head;
  return new Coord(head.lon - Math.trunc((90 * (base.lon - fix.lon)) / 100), head.lat - Math.trunc((90 * (base.lat - fix.lat)) / 100));
}

/** computeAngle: the angle at `b` from a to c (mercator y), 0–360. */
export function angleAt(a: Coord, b: Coord, c: Coord): number {
  if (a.equals(b) || b.equals(c)) return 180;
  const y = (lat: number): number => {
    const f = Math.sin(RAD * Math.max(-85.051128779806, Math.min(85.051128779806, lat / 1e6)));
    return (0.5 * Math.log((1 + f) / (1 - f))) / RAD;
  };
  const v1x = (a.lon - b.lon) / 1e6,
    v1y = y(a.lat) - y(b.lat),
    v2x = (c.lon - b.lon) / 1e6,
    v2y = y(c.lat) - y(b.lat);
  let angle = ((Math.atan2(v2y, v2x) - Math.atan2(v1y, v1x)) * 180) / Math.PI;
  while (angle < 0) angle += 360;
  return angle;
}

const signedArea = (a: Coord, b: Coord, c: Coord): number => {
  const [la1, lo1, la2, lo2, la3, lo3] = [a.lat, a.lon, b.lat, b.lon, c.lat, c.lon].map((v) => v / 1e6);
  return 0.5 * (-lo2 * la1 + lo3 * la1 + lo1 * la2 - lo3 * la2 - lo1 * la3 + lo2 * la3);
};

function isCurve(cs: Coord[], segs: number[], length: number, laneWidth: number, ring: boolean): boolean {
  if (ring) return true;
  const n = cs.length;
  const begin = bearing(cs[0].lon, cs[0].lat, cs[1].lon, cs[1].lat),
    end = bearing(cs[n - 2].lon, cs[n - 2].lat, cs[n - 1].lon, cs[n - 1].lat);
  if (angularDeviation(begin, end) <= 0.5 * NARROW_TURN_ANGLE) return false;
  const deviation = (c: Coord): number => dist(projected(cs[0], cs[n - 1], c), c);
  if (n > 3) {
    const ccw = signedArea(cs[0], cs[n - 1], cs[1]) > 0;
    for (let i = 2; i < n - 1; i++) if (signedArea(cs[0], cs[n - 1], cs[i]) > 0 !== ccw) return false;
  }
  // Deviations rising to a maximum, then falling.
  let maxIndex: number, maxDev: number;
  if (n === 3) {
    maxIndex = 1;
    maxDev = deviation(cs[1]);
  } else {
    // std::is_sorted_until(begin + 1, end, increasing): the first point whose deviation falls.
    let k = 2;
    while (k < n && !(deviation(cs[k]) < deviation(cs[k - 1]))) k++;
    if (k === n) {
      maxIndex = n - 1;
      maxDev = 0;
    } else {
      for (let i = k + 1; i < n; i++) if (deviation(cs[i]) > deviation(cs[i - 1])) return false;
      maxIndex = k - 1;
      maxDev = deviation(cs[k - 1]);
    }
  }
  let toMax = 0;
  for (let i = 0; i <= maxIndex; i++) toMax += segs[i];
  if ((toMax <= 0.35 * length || maxDev < Math.max(0.3 * laneWidth, 0.5 * ASSUMED_LANE_WIDTH)) && length > LOOKAHEAD_DISTANCE_WITHOUT_LANES) return false;
  const angles: number[] = [];
  for (let i = 0; i + 2 < n; i++) angles.push(angleAt(cs[i], cs[i + 1], cs[i + 2]));
  let lastWasStraight = false,
    straight = Math.max(0, segs[1] - laneWidth),
    at = 1;
  for (let i = 0; i + 1 < angles.length; i++) {
    const previous = angles[i],
      current = angles[i + 1];
    const bothTurn = angularDeviation(previous, STRAIGHT_ANGLE) > FUZZY_ANGLE_DIFFERENCE && angularDeviation(current, STRAIGHT_ANGLE) > FUZZY_ANGLE_DIFFERENCE;
    if (bothTurn && previous > STRAIGHT_ANGLE === current < STRAIGHT_ANGLE) return false;
    const isStraight = angularDeviation(current, STRAIGHT_ANGLE) < 5;
    at++;
    if (isStraight) {
      straight += segs[at];
      if (lastWasStraight && straight > 0.3 * length) return false;
    } else if (straight > 0.3 * length) return false;
    else straight = segs[at];
    lastWasStraight = isStraight;
  }
  return length > 2 * laneWidth;
}

function isDirectOffset(cs: Coord[], straightIndex: number, straightDistance: number, length: number, segs: number[], lanes: number): boolean {
  // A lane's offset is measured from the middle of the road, half its lanes across.
  const closeToLaneDistance = (width: number): boolean => width - 0.5 * lanes * ASSUMED_LANE_WIDTH < ASSUMED_LANE_WIDTH;
  const offsetIndex = Math.max(1, straightIndex);
  if (offsetIndex + 1 >= cs.length) return false;
  let toOffset = 0;
  for (let i = 0; i <= offsetIndex; i++) toOffset += segs[i];
  if (!closeToLaneDistance(toOffset)) return false;
  if (length < 0.4 * FAR_LOOKAHEAD_DISTANCE) return false;
  if (length - Math.max(straightDistance, segs[1]) < 0.1 * length) return false;
  // The first segment from the offset on of 30 m or more (OSRM's find_if tests each length alone).
  let past = offsetIndex;
  while (past < segs.length && !(segs[past] >= 30)) past++;
  const compareEnd = Math.min(cs.length, past + 1);
  return 0.5 * ASSUMED_LANE_WIDTH > maxDeviation(cs, offsetIndex, compareEnd, cs[offsetIndex], cs[compareEnd - 1]);
}

/**
 * OSRM's representative coordinate of a road leaving a junction of three or more roads, into `out` ([lon,
 * lat], 1e-6°): `points` are the road's from the junction's on (1e-6°, repeated points dropped), to the
 * next junction or a little past where OSRM stops looking (FAR_LOOKAHEAD_DISTANCE and the lanes').
 */
export function representativeCoordinate(points: Coords, road: RoadContext, out: [number, number]): void {
  const count = points.lon.length;
  if (count <= 2) {
    out[0] = points.lon[count - 1];
    out[1] = points.lat[count - 1];
    return;
  }
  const c = representative(
    points.lon.map((lon, i) => new Coord(lon, points.lat[i])),
    road,
  );
  out[0] = c.lon;
  out[1] = c.lat;
}

/** ExtractRepresentativeCoordinate over three or more points. */
function representative(points: Coord[], road: RoadContext): Coord {
  let cs = points;
  if (road.ring) return coordinateAtLength(SKIPPING_INACCURACIES_DISTANCE, cs);
  const turn = cs[0];
  if (road.lowPriority) {
    // (OSRM then tests a first point within a lane's width for being more than a lane's width away: never.)
    cs = trimToLength(cs, LOOKAHEAD_DISTANCE_WITHOUT_LANES);
    return cs[cs.length - 1];
  }
  const lanes = road.offsetFactor * (road.lanes === 0 ? ASSUMED_LANE_COUNT : road.lanes);
  if (dist(cs[0], cs[1]) > lanes * ASSUMED_LANE_WIDTH + LOOKAHEAD_DISTANCE_WITHOUT_LANES) return cs[1];
  const lookahead = FAR_LOOKAHEAD_DISTANCE + lanes * ASSUMED_LANE_WIDTH;
  const segs = lengthCache(cs, lookahead);
  cs = trimToLength(cs, lookahead, segs);
  segs[segs.length - 1] = Math.min(segs[segs.length - 1], lookahead);
  let length = 0;
  for (const s of segs) length += s;
  const n = cs.length;
  if (n === 2 || length <= SKIPPING_INACCURACIES_DISTANCE) return cs[n - 1];
  if (maxDeviation(cs, 0, n, cs[0], cs[n - 1]) < 0.5 * ASSUMED_LANE_WIDTH)
    return cs[0].equals(cs[n - 1]) ? coordinateAtLength(SKIPPING_INACCURACIES_DISTANCE, cs) : cs[n - 1];
  // How far the road runs straight from the junction.
  let straightDistance = segs[1],
    index = 2;
  for (; index < n; index++) {
    if (maxDeviation(cs, 0, index, cs[0], cs[index]) < 0.25 * ASSUMED_LANE_WIDTH) straightDistance += segs[index];
    else break;
  }
  const straightIndex = index - 1;
  if (straightDistance >= lanes * ASSUMED_LANE_WIDTH + LOOKAHEAD_DISTANCE_WITHOUT_LANES) return coordinateAtLengthCached(5, cs, segs);
  const [a, b] = regressionLine(cs);
  if (maxDeviation(cs, 0, n, a, b) < 0.35 * ASSUMED_LANE_WIDTH) return corrected(turn, projected(a, b, cs[0]), projected(a, b, cs[n - 1]));
  // (OSRM passes its lanes to this test as a whole number.)
  if (isDirectOffset(cs, straightIndex, straightDistance, length, segs, Math.trunc(lanes))) {
    const at = Math.max(1, straightIndex);
    return corrected(turn, cs[at], cs[at + 1]);
  }
  if (isCurve(cs, segs, length, lanes * ASSUMED_LANE_WIDTH, road.ring)) {
    if (length <= SKIPPING_INACCURACIES_DISTANCE) return cs[n - 1];
    let curve = trimToLength(cs, 3 * SKIPPING_INACCURACIES_DISTANCE, segs);
    const curveSegs = segs.slice(0, curve.length);
    while (curveSegs.length < curve.length) curveSegs.push(0);
    curveSegs[curveSegs.length - 1] = dist(curve[curve.length - 2], curve[curve.length - 1]);
    const head = curve[curve.length - 1];
    curve = trimToLength(curve, 2 * SKIPPING_INACCURACIES_DISTANCE, curveSegs);
    return corrected(turn, curve[curve.length - 1], head);
  }
  const trimming = 0.8 * (lanes * ASSUMED_LANE_WIDTH);
  const trimmed = trimFront(cs, 0.8 * trimming);
  if (trimmed.length >= 2 && length >= trimming + 2) {
    const [ta, tb] = regressionLine(trimmed);
    if (maxDeviation(trimmed, 0, trimmed.length, ta, tb) < 0.5 * ASSUMED_LANE_WIDTH) return corrected(turn, ta, tb);
  }
  const result = coordinateAtLengthCached(LOOKAHEAD_DISTANCE_WITHOUT_LANES, cs, segs);
  if (!result.equals(turn)) return result;
  return cs.find((c) => !c.equals(turn)) ?? result;
}

/** Where only two roads meet (OSRM's GetCoordinateCloseToTurn): the first point more than a metre away,
 *  else the far end. */
export function closeCoordinate(points: Coords, out: [number, number]): void {
  const n = points.lon.length;
  for (let i = 1; i < n; i++) {
    if (distance(points.lon[i], points.lat[i], points.lon[0], points.lat[0]) > 1) {
      out[0] = points.lon[i];
      out[1] = points.lat[i];
      return;
    }
  }
  out[0] = points.lon[n - 1];
  out[1] = points.lat[n - 1];
}
