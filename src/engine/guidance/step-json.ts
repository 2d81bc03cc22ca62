// A leg's steps as the JSON the reply carries, OSRM's RouteStep: geometry in the route's form, maneuver,
// name, ref, destinations and exits, distance, duration, mode, the maneuver's intersection and, with a
// language, the sentence osrm-text-instructions makes of the step (the same model, so its phrases fit as
// they are). Written in the compute thread as UTF-8 straight into the reply's text, after the route's
// line: a far route has hundreds of steps a leg, and an object per step and intersection for
// JSON.stringify, then a string of the whole, cost several times the steps' search (docs/directions.md,
// "What steps cost"). The text is the one JSON.stringify made of those objects, byte for byte. A step's
// geometry is its stretch of the route's line as already written (`LineText`): copied, not formatted again.
import osrmTextInstructions from 'osrm-text-instructions';
import { PROFILES, type ProfileName } from '../../map/graphs/profiles.js';
import { labelSigns, labelTexts, type RoadSigns } from '../../map/graphs/road-labels.js';
import type { Shapes } from '../../map/graphs/road-graph.js';
import { LINE_STRING_PREFIX, lineStringBytes, writeCoordinate, writeDigits, writeLineString } from '../line-json.js';
import { polylineBytes, writePolyline, writePolylineStart } from '../polyline.js';
import { LANE_INDICATIONS } from './lanes.js';
import type { RawStep, StepIntersection, StepMode } from './steps.js';

const compiler = osrmTextInstructions('v5');
const utf8 = new TextEncoder();

/** The profile's index in PROFILES (the bit of the labels' `shownTo`), -1 for another. */
const profileIndex = (o: StepOptions): number => PROFILES.indexOf(o.profile as ProfileName);

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
  signs: RoadSigns;
  nameJson: Uint8Array;
  /** What a step writes of it after its maneuver: `},"name":…`, then `,"ref":…`, `,"destinations":…` and
   *  `,"exits":…` where it has them; for a profile not shown the destinations, the same without them. */
  json: Uint8Array;
  jsonWithoutDestinations: Uint8Array;
}

const NO_NAME_JSON = utf8.encode('},"name":""');
const NO_LABEL: LabelJson = {
  name: '',
  ref: null,
  signs: { destinations: null, shownTo: 0, exits: null },
  nameJson: utf8.encode('""'),
  json: NO_NAME_JSON,
  jsonWithoutDestinations: NO_NAME_JSON,
};
/** Per shapes (another map's labels never hit), the labels met so far: the same few recur along every route. */
const labelCache = new WeakMap<object, Map<number, LabelJson>>();
// A far route meets several hundred labels; a few MB per thread at most.
const MAX_CACHED_LABELS = 20_000;

/** `,"key":value` of a text the step has, as JSON.stringify writes it; nothing for none or an empty one. */
const field = (key: string, value: string | null): string => (value ? `,"${key}":${JSON.stringify(value)}` : '');

function labelJson(shapes: Shapes, label: number): LabelJson {
  if (label < 0) return NO_LABEL;
  let cache = labelCache.get(shapes);
  if (!cache) labelCache.set(shapes, (cache = new Map()));
  let json = cache.get(label);
  if (!json) {
    if (cache.size >= MAX_CACHED_LABELS) cache.clear();
    const { name, ref } = labelTexts(shapes, label);
    const signs = labelSigns(shapes, label);
    const head = `},"name":${JSON.stringify(name ?? '')}${field('ref', ref)}`;
    const full = utf8.encode(head + field('destinations', signs.destinations) + field('exits', signs.exits));
    json = {
      name: name ?? '',
      ref: ref || null,
      signs,
      nameJson: utf8.encode(JSON.stringify(name ?? '')),
      json: full,
      jsonWithoutDestinations: signs.destinations ? utf8.encode(head + field('exits', signs.exits)) : full,
    };
    cache.set(label, json);
  }
  return json;
}

/** Whether profile `profile` (its index in PROFILES; -1 none) shows the label's destinations. */
const showsDestinations = (l: LabelJson, profile: number): boolean => profile >= 0 && ((l.signs.shownTo >> profile) & 1) === 1;

/** The bytes a step of profile `profile` writes of its label (`LabelJson.json`). */
const labelBytes = (l: LabelJson, profile: number): Uint8Array => (showsDestinations(l, profile) ? l.json : l.jsonWithoutDestinations);

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
  const instructions = o.language ? steps.map((s) => utf8.encode(JSON.stringify(instruction(s, shapes, s.mode ?? mode, o)))) : null;
  let bound = 2;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const label = labelJson(shapes, s.label);
    const rotary = rotaryOf(shapes, s);
    // The step's geometry (a point of its own repeated), its fixed keys and numbers, its texts.
    bound += 64 + (s.to - s.from + 2) * POINT_BYTES + 320 + label.json.length + (rotary?.nameJson.length ?? 0);
    bound += intersectionBytes(s.intersection);
    if (s.passed) for (const x of s.passed) bound += intersectionBytes(x);
    if (instructions) bound += 16 + instructions[i].length;
  }
  return { steps, shapes, options: o, values, instructions, bound };
}

const intersectionBytes = (x: StepIntersection): number =>
  96 + 12 * x.bearings.length + (x.lanes ? 12 + x.lanes.masks.reduce((n, m) => n + laneJson(m).length + 6, 0) : 0);

/** A step's mode where it is not its profile's (a ferry's, a pushed bicycle's), with the key after it. */
const MODE_JSON: Record<StepMode, Uint8Array> = {
  ferry: utf8.encode(',"mode":"ferry","intersections":[{"location":['),
  'pushing bike': utf8.encode(',"mode":"pushing bike","intersections":[{"location":['),
};

/** OSRM's travel modes whose steps show turn lanes: its car profile's (car.lua's turn lanes handler). */
const LANES_MODE = 'driving';

/** `{"indications":[…],"valid":` of a lane's mask, encoded once per mask met. */
const LANE_JSON = new Map<number, Uint8Array>();
function laneJson(mask: number): Uint8Array {
  let bytes = LANE_JSON.get(mask);
  if (!bytes) {
    const indications = LANE_INDICATIONS.filter((_, bit) => mask & (1 << bit));
    LANE_JSON.set(mask, (bytes = utf8.encode(`{"indications":${JSON.stringify(indications)},"valid":`)));
  }
  return bytes;
}

/** The object osrm-text-instructions reads a step's sentence from (the fields it reads, as the reply has them). */
function instruction(s: RawStep, shapes: Shapes, mode: string, o: StepOptions): string {
  const label = labelJson(shapes, s.label);
  const rotary = rotaryOf(shapes, s);
  const { destinations, exits } = label.signs;
  const step = {
    maneuver: {
      type: s.type,
      ...(s.modifier ? { modifier: s.modifier } : {}),
      bearing_after: s.bearingAfter,
      ...(s.exit !== undefined ? { exit: s.exit } : {}),
    },
    name: label.name,
    ...(label.ref ? { ref: label.ref } : {}),
    ...(destinations && showsDestinations(label, profileIndex(o)) ? { destinations } : {}),
    ...(exits ? { exits } : {}),
    ...(rotary ? { rotary_name: rotary.name } : {}),
    mode,
  };
  return compiler.compile(o.language!, step, { legCount: o.legCount, legIndex: o.legIndex });
}

/** Keys and words of the step's JSON, encoded once; those that always come together are one piece. */
const K = {
  GEOMETRY: utf8.encode('{"geometry":'),
  LOCATION: utf8.encode(',"location":['),
  BEARING_BEFORE: utf8.encode('],"bearing_before":'),
  BEARING_AFTER: utf8.encode(',"bearing_after":'),
  EXIT: utf8.encode(',"exit":'),
  ROTARY_NAME: utf8.encode(',"rotary_name":'),
  DISTANCE: utf8.encode(',"distance":'),
  DURATION: utf8.encode(',"duration":'),
  /** After the first intersection's `{"location":[` (which ends the mode's piece), the next ones'. */
  NEXT_INTERSECTION: utf8.encode(',{"location":['),
  BEARINGS: utf8.encode('],"bearings":['),
  ENTRY: utf8.encode('],"entry":['),
  IN: utf8.encode(',"in":'),
  OUT: utf8.encode(',"out":'),
  LANES: utf8.encode(',"lanes":['),
  INSTRUCTION: utf8.encode(',"instruction":'),
  TRUE: utf8.encode('true'),
  FALSE: utf8.encode('false'),
};

/** `,"maneuver":{"type":…` and `,"modifier":…` per type and modifier, encoded once. */
const TYPES = new Map<string, Uint8Array>();
const MODIFIERS = new Map<string, Uint8Array>();
function typeJson(type: string): Uint8Array {
  let bytes = TYPES.get(type);
  if (!bytes) TYPES.set(type, (bytes = utf8.encode(`,"maneuver":{"type":${JSON.stringify(type)}`)));
  return bytes;
}
function modifierJson(modifier: string): Uint8Array {
  let bytes = MODIFIERS.get(modifier);
  if (!bytes) MODIFIERS.set(modifier, (bytes = utf8.encode(`,"modifier":${JSON.stringify(modifier)}`)));
  return bytes;
}

/** `src` into `b` at `p`; the end. Keys and names are a few bytes: a loop, where `set` costs more in its
 *  call than in its copy. */
function put(src: Uint8Array, b: Uint8Array, p: number): number {
  const n = src.length;
  if (n > 64) b.set(src, p);
  else for (let i = 0; i < n; i++) b[p + i] = src[i];
  return p + n;
}

/** Bytes [start, end) of `src` (the line's text, often earlier in the same buffer: a move within it). */
function putRange(src: Uint8Array, start: number, end: number, b: Uint8Array, p: number): number {
  if (src === b) b.copyWithin(p, start, end);
  else b.set(src.subarray(start, end), p);
  return p + end - start;
}

/** A number as JSON.stringify writes it. */
function putNumber(x: number, b: Uint8Array, p: number): number {
  if (Number.isInteger(x) && Math.abs(x) < 2 ** 31) {
    // -0 is written 0, as JSON.stringify does.
    if (x < 0) {
      b[p++] = 45;
      x = -x;
    }
    return writeDigits(x, b, p);
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
    return p;
  }
  // Anything else (not met): as JavaScript prints it, ASCII.
  const text = JSON.stringify(x);
  for (let i = 0; i < text.length; i++) b[p++] = text.charCodeAt(i);
  return p;
}

/** A point's `lon,lat` (without brackets). */
function putLonLat(line: Int32Array, point: number, b: Uint8Array, p: number): number {
  p = writeCoordinate(line[2 * point], b, p);
  b[p++] = 44;
  return writeCoordinate(line[2 * point + 1], b, p);
}

/** The step's stretch of the line, from point `from` to point `to` (a single point twice, as a LineString
 *  needs two positions and OSRM sends two), copied from the line's text. */
function putGeometry(line: Int32Array, text: LineText, format: StepOptions['format'], from: number, to: number, b: Uint8Array, p: number): number {
  const { bytes, offsets } = text;
  if (format === 'geojson') {
    p = putRange(bytes, 0, LINE_STRING_PREFIX, b, p);
    const start = offsets[from];
    if (from === to) {
      p = putRange(bytes, start, offsets[from + 1] - 1, b, p);
      b[p++] = 44;
      p = putRange(bytes, start, offsets[from + 1] - 1, b, p);
    } else p = putRange(bytes, start, offsets[to + 1] - 1, b, p);
    b[p++] = 93;
    b[p++] = 125;
    return p;
  }
  // A polyline's first point is encoded on its own; after it, the differences are the whole line's.
  b[p++] = 34;
  p = writePolylineStart(line, from, format === 'polyline' ? 5 : 6, b, p);
  if (from === to) {
    b[p++] = 63;
    b[p++] = 63;
  } else p = putRange(bytes, offsets[from + 1], offsets[to + 1], b, p);
  b[p++] = 34;
  return p;
}

/** An intersection after its `{"location":[`; its lanes only `withLanes`. */
function putIntersection(line: Int32Array, x: StepIntersection, withLanes: boolean, b: Uint8Array, p: number): number {
  p = putLonLat(line, x.at, b, p);
  p = put(K.BEARINGS, b, p);
  for (let i = 0; i < x.bearings.length; i++) {
    if (i) b[p++] = 44;
    p = putNumber(x.bearings[i], b, p);
  }
  p = put(K.ENTRY, b, p);
  for (let i = 0; i < x.entry.length; i++) {
    if (i) b[p++] = 44;
    p = put(x.entry[i] ? K.TRUE : K.FALSE, b, p);
  }
  b[p++] = 93;
  if (x.in !== undefined) p = putNumber(x.in, b, put(K.IN, b, p));
  if (x.out !== undefined) p = putNumber(x.out, b, put(K.OUT, b, p));
  if (x.lanes && withLanes) {
    const { masks, first, count } = x.lanes;
    p = put(K.LANES, b, p);
    for (let i = 0; i < masks.length; i++) {
      if (i) b[p++] = 44;
      // OSRM numbers lanes from the right.
      const lane = masks.length - 1 - i;
      p = put(lane >= first && lane < first + count ? K.TRUE : K.FALSE, b, put(laneJson(masks[i]), b, p));
      b[p++] = 125;
    }
    b[p++] = 93;
  }
  b[p++] = 125;
  return p;
}

/**
 * The JSON array of a leg's planned steps, each with its geometry, into `b` at `at` (room for
 * `planned.bound` bytes); the end. `line` is the route's line (lon, lat pairs in 1e-7°), `text` its
 * whole text in `planned.options.format`.
 */
export function writeSteps(planned: PlannedSteps, line: Int32Array, text: LineText, b: Uint8Array, at: number): number {
  const { steps, shapes, options: o, values, instructions } = planned;
  const mode = utf8.encode(`,"mode":${JSON.stringify(MODES[o.profile] ?? 'driving')},"intersections":[{"location":[`);
  const profile = profileIndex(o);
  const withLanes = (MODES[o.profile] ?? 'driving') === LANES_MODE;
  let p = at;
  b[p++] = 91;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (i) b[p++] = 44;
    p = put(K.GEOMETRY, b, p);
    p = putGeometry(line, text, o.format, s.from, s.to, b, p);
    p = put(typeJson(s.type), b, p);
    if (s.modifier) p = put(modifierJson(s.modifier), b, p);
    p = put(K.LOCATION, b, p);
    p = putLonLat(line, s.from, b, p);
    p = putNumber(s.bearingBefore, b, put(K.BEARING_BEFORE, b, p));
    p = putNumber(s.bearingAfter, b, put(K.BEARING_AFTER, b, p));
    if (s.exit !== undefined) p = putNumber(s.exit, b, put(K.EXIT, b, p));
    p = put(labelBytes(labelJson(shapes, s.label), profile), b, p);
    const rotary = rotaryOf(shapes, s);
    if (rotary) p = put(rotary.nameJson, b, put(K.ROTARY_NAME, b, p));
    p = putNumber(values[2 * i], b, put(K.DISTANCE, b, p));
    p = putNumber(values[2 * i + 1], b, put(K.DURATION, b, p));
    p = put(s.mode ? MODE_JSON[s.mode] : mode, b, p);
    p = putIntersection(line, s.intersection, withLanes, b, p);
    if (s.passed) for (const x of s.passed) p = putIntersection(line, x, withLanes, b, put(K.NEXT_INTERSECTION, b, p));
    b[p++] = 93;
    if (instructions) p = put(instructions[i], b, put(K.INSTRUCTION, b, p));
    b[p++] = 125;
  }
  b[p++] = 93;
  return p;
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
