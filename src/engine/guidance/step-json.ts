// A leg's steps as the JSON the reply carries, OSRM's RouteStep: geometry in the route's form, maneuver,
// name, ref, distance, duration, mode, the maneuver's intersection and, with a language, the sentence
// osrm-text-instructions makes of the step (the same model, so its phrases fit as they are). Written in
// the compute thread as UTF-8 straight into the reply's text, after the route's line: a far route has
// hundreds of steps a leg, and an object per step and intersection for JSON.stringify, then a string of
// the whole, cost several times the steps' search (docs/directions.md, "What steps cost"). The text is the
// one JSON.stringify made of those objects, byte for byte. A step's geometry is its stretch of the route's
// line as already written (`LineText`): copied, not formatted again.
import osrmTextInstructions from 'osrm-text-instructions';
import { labelTexts } from '../../map/graphs/road-labels.js';
import type { Shapes } from '../../map/graphs/road-graph.js';
import { LINE_STRING_PREFIX, lineStringBytes, writeCoordinate, writeDigits, writeLineString } from '../line-json.js';
import { polylineBytes, writePolyline, writePolylineStart } from '../polyline.js';
import type { RawStep, StepIntersection } from './steps.js';

const compiler = osrmTextInstructions('v5');
const utf8 = new TextEncoder();

/** OSRM's travel mode per profile. */
const MODES: Record<string, string> = { 'driving-car': 'driving', 'driving-hgv': 'driving', 'cycling-regular': 'cycling', 'foot-walking': 'walking' };

export interface StepOptions {
  profile: string;
  format: 'geojson' | 'polyline' | 'polyline6';
  language?: string;
  legIndex: number;
  legCount: number;
  /** The leg's meters and seconds: the steps' rounded values add up to the leg's rounded ones. */
  distance: number;
  duration: number;
}

/**
 * The route's whole line written in the steps' form (writeLineString or writePolyline with `offsets`):
 * where each point's text starts in `bytes`, and where the text after the last point starts.
 */
export interface LineText {
  bytes: Uint8Array;
  offsets: Int32Array;
}

/** The most bytes a point takes in a line's text: `[` 11 `,` 11 `]` `,` for GeoJSON, 2 × 6 doubled `\` for a polyline. */
const POINT_BYTES = 26;

/** A label's texts as JSON strings (UTF-8, quoted and escaped), and as text for the instructions' objects. */
interface LabelJson {
  name: string;
  ref: string | null;
  nameJson: Uint8Array;
  refJson: Uint8Array | null;
}

const NO_LABEL: LabelJson = { name: '', ref: null, nameJson: utf8.encode('""'), refJson: null };
/** Per shapes (another map's labels never hit), the labels met so far: the same few recur along every route. */
const labelCache = new WeakMap<object, Map<number, LabelJson>>();
const MAX_CACHED_LABELS = 100_000;

function labelJson(shapes: Shapes, label: number): LabelJson {
  if (label < 0) return NO_LABEL;
  let cache = labelCache.get(shapes);
  if (!cache) labelCache.set(shapes, (cache = new Map()));
  let json = cache.get(label);
  if (!json) {
    if (cache.size >= MAX_CACHED_LABELS) cache.clear();
    const { name, ref } = labelTexts(shapes, label);
    json = {
      name: name ?? '',
      ref: ref || null,
      nameJson: utf8.encode(JSON.stringify(name ?? '')),
      refJson: ref ? utf8.encode(JSON.stringify(ref)) : null,
    };
    cache.set(label, json);
  }
  return json;
}

/** A rotary's name (OSRM's `rotary_name`): its label's name, when it has one that is not empty. */
const rotaryOf = (shapes: Shapes, s: RawStep): LabelJson | null => {
  if (s.ring === undefined || s.ring < 0) return null;
  const ring = labelJson(shapes, s.ring);
  return ring.name ? ring : null;
};

const tenths = (x: number) => Math.round(x * 10) / 10;

/** The steps' distances and durations as shown: each the change of the rounded running totals, so that
 *  the steps add up to the leg exactly. Pairs per step (meters, seconds). */
function shownValues(steps: RawStep[], o: StepOptions): Float64Array {
  const out = new Float64Array(2 * steps.length);
  let meters = 0,
    seconds = 0,
    shownM = 0,
    shownS = 0;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    meters += s.meters;
    seconds += s.tenths / 10;
    const last = i === steps.length - 1;
    const upToM = last ? tenths(o.distance) : tenths(meters),
      upToS = last ? tenths(o.duration) : tenths(seconds);
    out[2 * i] = tenths(upToM - shownM);
    out[2 * i + 1] = tenths(upToS - shownS);
    shownM = upToM;
    shownS = upToS;
  }
  return out;
}

/** A leg's steps, ready to write: their shown values, their instructions' JSON (with a language) and the
 *  most bytes they take. */
export interface PlannedSteps {
  steps: RawStep[];
  shapes: Shapes;
  options: StepOptions;
  values: Float64Array;
  instructions: Uint8Array[] | null;
  bound: number;
}

export function planSteps(steps: RawStep[], shapes: Shapes, o: StepOptions): PlannedSteps {
  const values = shownValues(steps, o);
  const mode = MODES[o.profile] ?? 'driving';
  const instructions = o.language ? steps.map((s) => utf8.encode(JSON.stringify(instruction(s, shapes, mode, o)))) : null;
  let bound = 2;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const label = labelJson(shapes, s.label);
    const rotary = rotaryOf(shapes, s);
    // The step's geometry (a point of its own repeated), its fixed keys and numbers, its texts.
    bound += 64 + (s.to - s.from + 2) * POINT_BYTES + 320 + label.nameJson.length + (label.refJson?.length ?? 0) + (rotary?.nameJson.length ?? 0);
    bound += intersectionBytes(s.intersection);
    if (s.passed) for (const x of s.passed) bound += intersectionBytes(x);
    if (instructions) bound += 16 + instructions[i].length;
  }
  return { steps, shapes, options: o, values, instructions, bound };
}

const intersectionBytes = (x: StepIntersection): number => 96 + 12 * x.bearings.length;

/** The object osrm-text-instructions reads a step's sentence from (the fields it reads, as the reply has them). */
function instruction(s: RawStep, shapes: Shapes, mode: string, o: StepOptions): string {
  const label = labelJson(shapes, s.label);
  const rotary = rotaryOf(shapes, s);
  const step = {
    maneuver: {
      type: s.type,
      ...(s.modifier ? { modifier: s.modifier } : {}),
      bearing_after: s.bearingAfter,
      ...(s.exit !== undefined ? { exit: s.exit } : {}),
    },
    name: label.name,
    ...(label.ref ? { ref: label.ref } : {}),
    ...(rotary ? { rotary_name: rotary.name } : {}),
    mode,
  };
  return compiler.compile(o.language!, step, { legCount: o.legCount, legIndex: o.legIndex });
}

// The writer's state: the buffer written into and the position in it (one leg at a time, in one thread).
let b: Uint8Array = new Uint8Array(0);
let p = 0;

/** The keys and words of the step's JSON, encoded once. */
const K = {
  LOCATION_FIRST: utf8.encode('{"location":'),
  BEARINGS: utf8.encode(',"bearings":['),
  ENTRY: utf8.encode('],"entry":['),
  IN: utf8.encode(',"in":'),
  OUT: utf8.encode(',"out":'),
  GEOMETRY: utf8.encode('{"geometry":'),
  MANEUVER: utf8.encode(',"maneuver":{"type":'),
  MODIFIER: utf8.encode(',"modifier":'),
  LOCATION: utf8.encode(',"location":'),
  BEARING_BEFORE: utf8.encode(',"bearing_before":'),
  BEARING_AFTER: utf8.encode(',"bearing_after":'),
  EXIT: utf8.encode(',"exit":'),
  NAME: utf8.encode('},"name":'),
  REF: utf8.encode(',"ref":'),
  ROTARY_NAME: utf8.encode(',"rotary_name":'),
  DISTANCE: utf8.encode(',"distance":'),
  DURATION: utf8.encode(',"duration":'),
  INSTRUCTION: utf8.encode(',"instruction":'),
  TRUE: utf8.encode('true'),
  FALSE: utf8.encode('false'),
};

/** Text known to be ASCII (a number JSON.stringify wrote). */
function putAscii(text: string): void {
  for (let i = 0; i < text.length; i++) b[p++] = text.charCodeAt(i);
}

const QUOTED: Map<string, Uint8Array> = new Map();
/** A maneuver's type or modifier as a JSON string, encoded once. */
function putQuoted(text: string): void {
  let bytes = QUOTED.get(text);
  if (!bytes) QUOTED.set(text, (bytes = utf8.encode(JSON.stringify(text))));
  putBytes(bytes);
}

function putBytes(bytes: Uint8Array): void {
  // Keys and names are a few bytes: a loop, where `set` costs more in its call than in its copy.
  const n = bytes.length;
  if (n > 64) b.set(bytes, p);
  else for (let i = 0; i < n; i++) b[p + i] = bytes[i];
  p += n;
}

/** Bytes [start, end) of `src` (the line's text, often earlier in the same buffer: a move within it). */
function putRange(src: Uint8Array, start: number, end: number): void {
  if (src === b) b.copyWithin(p, start, end);
  else b.set(src.subarray(start, end), p);
  p += end - start;
}

/** A number as JSON.stringify writes it. */
function putNumber(x: number): void {
  if (Number.isInteger(x) && Math.abs(x) < 2 ** 31) {
    // -0 is written 0, as JSON.stringify does.
    if (x < 0) {
      b[p++] = 45;
      x = -x;
    }
    p = writeDigits(x, b, p);
    return;
  }
  // Tenths (distances, durations): the double nearest k / 10 prints as k / 10.
  const k = Math.round(x * 10);
  if (k / 10 === x && Math.abs(k) < 2 ** 31) {
    let t = k;
    if (t < 0) {
      b[p++] = 45;
      t = -t;
    }
    const int = (t / 10) | 0;
    p = writeDigits(int, b, p);
    b[p++] = 46;
    b[p++] = 48 + t - int * 10;
    return;
  }
  putAscii(JSON.stringify(x));
}

function putLocation(line: Int32Array, point: number): void {
  b[p++] = 91;
  p = writeCoordinate(line[2 * point], b, p);
  b[p++] = 44;
  p = writeCoordinate(line[2 * point + 1], b, p);
  b[p++] = 93;
}

/** The step's stretch of the line, from point `from` to point `to` (a single point twice, as a LineString
 *  needs two positions and OSRM sends two), copied from the line's text. */
function putGeometry(line: Int32Array, text: LineText, format: StepOptions['format'], from: number, to: number): void {
  const { bytes, offsets } = text;
  if (format === 'geojson') {
    putRange(bytes, 0, LINE_STRING_PREFIX);
    const start = offsets[from];
    if (from === to) {
      putRange(bytes, start, offsets[from + 1] - 1);
      b[p++] = 44;
      putRange(bytes, start, offsets[from + 1] - 1);
    } else putRange(bytes, start, offsets[to + 1] - 1);
    b[p++] = 93;
    b[p++] = 125;
    return;
  }
  // A polyline's first point is encoded on its own; after it, the differences are the whole line's.
  b[p++] = 34;
  p = writePolylineStart(line, from, format === 'polyline' ? 5 : 6, b, p);
  if (from === to) {
    b[p++] = 63;
    b[p++] = 63;
  } else putRange(bytes, offsets[from + 1], offsets[to + 1]);
  b[p++] = 34;
}

function putIntersection(line: Int32Array, x: StepIntersection): void {
  putBytes(K.LOCATION_FIRST);
  putLocation(line, x.at);
  putBytes(K.BEARINGS);
  for (let i = 0; i < x.bearings.length; i++) {
    if (i) b[p++] = 44;
    putNumber(x.bearings[i]);
  }
  putBytes(K.ENTRY);
  for (let i = 0; i < x.entry.length; i++) {
    if (i) b[p++] = 44;
    putBytes(x.entry[i] ? K.TRUE : K.FALSE);
  }
  b[p++] = 93;
  if (x.in !== undefined) {
    putBytes(K.IN);
    putNumber(x.in);
  }
  if (x.out !== undefined) {
    putBytes(K.OUT);
    putNumber(x.out);
  }
  b[p++] = 125;
}

/**
 * The JSON array of a leg's planned steps, each with its geometry, into `buf` at `at` (room for
 * `planned.bound` bytes); the end. `line` is the route's line (lon, lat pairs in 1e-7°), `text` its
 * whole text in `planned.options.format`.
 */
export function writeSteps(planned: PlannedSteps, line: Int32Array, text: LineText, buf: Uint8Array, at: number): number {
  const { steps, shapes, options: o, values, instructions } = planned;
  b = buf;
  p = at;
  const mode = utf8.encode(`,"mode":${JSON.stringify(MODES[o.profile] ?? 'driving')},"intersections":[`);
  b[p++] = 91;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (i) b[p++] = 44;
    putBytes(K.GEOMETRY);
    putGeometry(line, text, o.format, s.from, s.to);
    putBytes(K.MANEUVER);
    putQuoted(s.type);
    if (s.modifier) {
      putBytes(K.MODIFIER);
      putQuoted(s.modifier);
    }
    putBytes(K.LOCATION);
    putLocation(line, s.from);
    putBytes(K.BEARING_BEFORE);
    putNumber(s.bearingBefore);
    putBytes(K.BEARING_AFTER);
    putNumber(s.bearingAfter);
    if (s.exit !== undefined) {
      putBytes(K.EXIT);
      putNumber(s.exit);
    }
    putBytes(K.NAME);
    const label = labelJson(shapes, s.label);
    putBytes(label.nameJson);
    if (label.refJson) {
      putBytes(K.REF);
      putBytes(label.refJson);
    }
    const rotary = rotaryOf(shapes, s);
    if (rotary) {
      putBytes(K.ROTARY_NAME);
      putBytes(rotary.nameJson);
    }
    putBytes(K.DISTANCE);
    putNumber(values[2 * i]);
    putBytes(K.DURATION);
    putNumber(values[2 * i + 1]);
    putBytes(mode);
    putIntersection(line, s.intersection);
    if (s.passed) {
      for (const x of s.passed) {
        b[p++] = 44;
        putIntersection(line, x);
      }
    }
    b[p++] = 93;
    if (instructions) {
      putBytes(K.INSTRUCTION);
      putBytes(instructions[i]);
    }
    b[p++] = 125;
  }
  b[p++] = 93;
  const end = p;
  b = new Uint8Array(0);
  return end;
}

/** A leg's steps as a JSON text of their own, written as a reply writes them (the runner of OSRM's feature
 *  files reads them back). */
export function legStepsJson(steps: RawStep[], shapes: Shapes, line: Int32Array, o: StepOptions): string {
  const planned = planSteps(steps, shapes, o);
  const offsets = new Int32Array(Math.max(2, line.length >> 1) + 1);
  const geojson = o.format === 'geojson';
  const bytes = new Uint8Array(geojson ? lineStringBytes(line) : polylineBytes(line));
  if (geojson) writeLineString(line, bytes, offsets);
  else writePolyline(line, o.format === 'polyline' ? 5 : 6, bytes, offsets);
  const out = new Uint8Array(planned.bound);
  return new TextDecoder().decode(out.subarray(0, writeSteps(planned, line, { bytes, offsets }, out, 0)));
}
