import { z } from 'zod';
// A route's GeoJSON LineString written as UTF-8 straight from its flat lon, lat integers (1e-7°): long routes have
// tens of thousands of points, and turning each into an array for JSON.stringify costs more than the
// search. It is written in the compute worker, and the HTTP edge copies the bytes into the reply as
// they are: no string of the whole line is ever made. Coordinates are rounded to 1e-6° (at most 11 cm,
// far below the engine's precision) in integers, and printed as JavaScript prints the rounded number: the
// text is the same as JSON.stringify's.

const DIGITS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  DIGITS[2 * i] = 48 + Math.floor(i / 10);
  DIGITS[2 * i + 1] = 48 + (i % 10);
}

const PREFIX = Buffer.from('{"type":"LineString","coordinates":[', 'latin1');
const CLOSE = 93;

/** 1e-6° rounding of a coordinate, as the JSON shows it. */
export const micro = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Math.floor(a / d) of an integer `a` (its quotient an int32) and a positive int32 `d`, by truncating
 *  divisions (`| 0`), which V8 makes integer ones: a far route's text took 1.3 × the CPU with Math.floor
 *  (32x32, 16,000 points a route: 0.74 → 0.56 ms), a polyline6 1.2 ×. */
export const floorDiv = (a: number, d: number): number => (a >= 0 ? (a / d) | 0 : -(((d - 1 - a) / d) | 0) | 0);

/** A 1e-7° integer rounded to whole 1e-6° (halves up, as Math.round): exact, no floating-point product. */
export const microOfE7 = (e7: number): number => floorDiv(e7 + 5, 10);

/**
 * `{"type":"LineString","coordinates":[[lon,lat],…]}` of flat lon, lat values in 1e-7°; a single point
 * is repeated, as a LineString needs two positions.
 */
export function lineStringJson(valuesE7: Int32Array): Uint8Array {
  const buf = scratchOf(lineStringBytes(valuesE7));
  const length = writeLineString(valuesE7, buf);
  // An exact copy (Buffer's slice is a view): the scratch is reused, and a view of it would carry all of
  // it across threads.
  return new Uint8Array(buf.buffer, buf.byteOffset, length).slice();
}

/** The most bytes lineStringJson writes for these values: at most 11 characters per number, 3 more per point. */
export const lineStringBytes = (valuesE7: Int32Array): number => 40 + Math.max(4, valuesE7.length) * 14;

/** The length of the LineString text's start, before its first point. */
export const LINE_STRING_PREFIX = PREFIX.length;

/**
 * lineStringJson's text written into `buf` (of at least lineStringBytes); its length. With `offsets` (of
 * at least one more entry than points), where each point's `[` is, and one past its closing `]` after the
 * last point: point i's text is buf[offsets[i], offsets[i + 1] - 1) (steps copy their stretches of it).
 */
export function writeLineString(valuesE7: Int32Array, buf: Uint8Array, offsets?: Int32Array): number {
  const points = valuesE7.length === 2 ? Int32Array.of(valuesE7[0], valuesE7[1], valuesE7[0], valuesE7[1]) : valuesE7;
  buf.set(PREFIX, 0);
  let p = writePoints(points, 0, points.length, buf, PREFIX.length, offsets);
  if (offsets) offsets[points.length >> 1] = p + 1;
  buf[p++] = 93;
  buf[p++] = 125;
  return p;
}

/**
 * writeLineString's text of `valuesE7` beside that of a line written before, `base`, whose text (`baseText`,
 * from its start) was written with `offsets`: the points the two lines begin and end with alike are
 * copied from it, the others written. An alternative route runs with the main route most of its way (up
 * to 80 % of it), and writing the numbers is most of a far route's text.
 */
export function writeLineStringBeside(valuesE7: Int32Array, buf: Uint8Array, base: Int32Array, baseText: Uint8Array, baseOffsets: Int32Array): number {
  const n = valuesE7.length,
    nb = base.length;
  if (n < 4 || nb < 4) return writeLineString(valuesE7, buf);
  // Values (two per point) alike from the start, then from the end, not overlapping in either line.
  let head = 0;
  while (head < n && head < nb && valuesE7[head] === base[head]) head++;
  head &= ~1;
  let tail = 0;
  while (head + tail < n && head + tail < nb && valuesE7[n - 1 - tail] === base[nb - 1 - tail]) tail++;
  tail &= ~1;
  buf.set(PREFIX, 0);
  let p = PREFIX.length;
  if (head > 0) {
    // Point i's text is baseText[offsets[i], offsets[i + 1] - 1): the first ones with the commas between.
    const end = baseOffsets[head >> 1] - 1;
    buf.set(baseText.subarray(baseOffsets[0], end), p);
    p += end - baseOffsets[0];
  }
  p = writePoints(valuesE7, head, n - tail, buf, p);
  if (tail > 0) {
    if (n - tail > 0) buf[p++] = 44;
    const from = baseOffsets[(nb - tail) >> 1],
      end = baseOffsets[nb >> 1] - 1;
    buf.set(baseText.subarray(from, end), p);
    p += end - from;
  }
  buf[p++] = 93;
  buf[p++] = 125;
  return p;
}

/** The text of the points of values `from` to `to` (even), each after a comma but the line's first, into
 *  `buf` at `p`; the end. `offsets`: as writeLineString's. */
function writePoints(points: Int32Array, from: number, to: number, buf: Uint8Array, p: number, offsets?: Int32Array): number {
  // One loop with the digits written inline and integer division by `| 0`: a far route has tens of
  // thousands of numbers, and this is 40 % less CPU than a call per number with Math.floor.
  for (let i = from; i < to; i++) {
    if ((i & 1) === 0) {
      if (i > 0) buf[p++] = 44;
      if (offsets) offsets[i >> 1] = p;
      buf[p++] = 91;
    } else buf[p++] = 44;
    let v = microOfE7(points[i]);
    if (v < 0) {
      buf[p++] = 45;
      v = -v;
    }
    const int = (v / 1e6) | 0;
    const frac = v - int * 1e6;
    if (int >= 100) {
      const h = (int / 100) | 0,
        r = int - h * 100;
      buf[p++] = 48 + h;
      buf[p++] = DIGITS[2 * r];
      buf[p++] = DIGITS[2 * r + 1];
    } else if (int >= 10) {
      buf[p++] = DIGITS[2 * int];
      buf[p++] = DIGITS[2 * int + 1];
    } else buf[p++] = 48 + int;
    if (frac !== 0) p = writeFraction(frac, buf, p);
    if (i & 1) buf[p++] = 93;
  }
  return p;
}

/** Millionths 1–999,999 as `.dddddd` without trailing zeros into `buf` at `p`; the end. */
function writeFraction(frac: number, buf: Uint8Array, p: number): number {
  const a = (frac / 1e4) | 0,
    rest = frac - a * 1e4,
    b = (rest / 100) | 0,
    c = rest - b * 100;
  buf[p] = 46;
  buf[p + 1] = DIGITS[2 * a];
  buf[p + 2] = DIGITS[2 * a + 1];
  buf[p + 3] = DIGITS[2 * b];
  buf[p + 4] = DIGITS[2 * b + 1];
  buf[p + 5] = DIGITS[2 * c];
  buf[p + 6] = DIGITS[2 * c + 1];
  p += 7;
  while (buf[p - 1] === 48) p--;
  return p;
}

/** A 1e-7° integer as the JSON shows it (1e-6° rounding, as writeLineString) into `buf` at `p`; the end. */
export function writeCoordinate(e7: number, buf: Uint8Array, p: number): number {
  let v = microOfE7(e7);
  if (v < 0) {
    buf[p++] = 45;
    v = -v;
  }
  const int = (v / 1e6) | 0;
  const frac = v - int * 1e6;
  p = writeDigits(int, buf, p);
  if (frac !== 0) p = writeFraction(frac, buf, p);
  return p;
}

/** A non-negative integer below 2^31 in decimal into `buf` at `p`; the end. */
export function writeDigits(n: number, buf: Uint8Array, p: number): number {
  if (n < 10) {
    buf[p] = 48 + n;
    return p + 1;
  }
  if (n < 100) {
    buf[p] = DIGITS[2 * n];
    buf[p + 1] = DIGITS[2 * n + 1];
    return p + 2;
  }
  let digits = 3;
  for (let x = 1000; x <= n && digits < 10; x *= 10) digits++;
  for (let i = p + digits - 1; i >= p; i--) {
    const q = (n / 10) | 0;
    buf[i] = 48 + n - q * 10;
    n = q;
  }
  return p + digits;
}

/**
 * Two lines written by lineStringJson where the second starts at the point the first ends at, as the
 * parts of one line: the first without its closing `]}`, then the second without its first point (the
 * text a single line through both would have). Views, not copies.
 */
export function joinLineStrings(a: Uint8Array, b: Uint8Array): Uint8Array[] {
  // The end of b's first point: the first `]` after the prefix (numbers hold no brackets).
  let i = PREFIX.length;
  while (b[i] !== CLOSE) i++;
  // a ends `…]]}`: without its last two bytes it ends with its last point; b's rest starts with the
  // comma before its second point.
  return [a.subarray(0, a.length - 2), b.subarray(i + 1)];
}

let scratch = Buffer.allocUnsafeSlow(0);

/** This thread's reusable buffer of at least `bytes` (a long route's line is a few hundred kB). */
function scratchOf(bytes: number): Buffer {
  if (scratch.length < bytes) scratch = Buffer.allocUnsafeSlow(Math.max(bytes, 2 * scratch.length));
  return scratch;
}

/** Flat lon, lat values as [lon, lat] pairs. */
export function pairsOf(values: Float64Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < values.length; i += 2) out.push([values[i], values[i + 1]]);
  return out;
}

/** The GeoJSON LineString of the routing answers, as the document shows it. */
export const lineStringSchema = z
  .object({
    type: z.literal('LineString'),
    coordinates: z
      .array(z.tuple([z.number(), z.number()]))
      .min(2)
      .describe('[longitude, latitude] pairs.'),
  })
  .meta({ id: 'LineString' });
