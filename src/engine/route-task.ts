// Pool tasks for routing: each worker builds its RouteCore once over the shared graph memory that the
// engine handed to the pool (workerData.routing).
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import { threadSettings } from '../compute/thread-settings.js';
import type { SharedGraphs } from './graph-memory.js';
import { lineStringBytes, lineStringJson, microOfE7, writeLineString, writeLineStringBeside } from './line-json.js';
import { NULL_JSON, polylineBytes, simplifyLine, writePolyline, type GeometryOptions } from './polyline.js';
import { cellRowsBound, writeCellRows } from './matrix-json.js';
import { legOpening } from './legs-json.js';
import { arenaOf, HEAD_ROOM, SLOT_BYTES, takeSlot, type ReplyArena } from './reply-arena.js';
import { planSteps, writeSteps, type LineText } from './guidance/step-json.js';
import {
  RouteCore,
  type IsochroneQuery,
  type IsochroneResult,
  type MatrixJsonQuery,
  type MatrixJsonTaskResult,
  type MatrixQuery,
  type MatrixResult,
  type NearestRoad,
  type Outcome,
  type RouteE7Result,
  type RouteJsonTaskResult,
  type RouteQuery,
  type RouteResult,
  type TravelTimesQuery,
  type WarmUpCounts,
} from './route-core.js';
import type { LatLon } from '../lib/lat-lon.js';

let core: RouteCore | undefined;

function routeCore(): RouteCore {
  const shared = (workerData as { routing?: SharedGraphs } | undefined)?.routing;
  if (!shared) throw new Error('no map loaded in this worker');
  core ??= new RouteCore(shared, threadSettings());
  return core;
}

/** Every kind of routing request once, then plain routes within `budgetMs` (RouteCore.warmUp). */
export const warmRouting = (budgetMs: number, stop: [Int32Array, Int32Array]): WarmUpCounts => routeCore().warmUp(budgetMs, lineStringJson, stop);
export const pageInScratch = (): number => routeCore().pageInDefault();
export const reverseBuilds = (): Array<() => boolean> => routeCore().reverseBuilds();
export const warmAvoidingAgain = (): void => routeCore().warmAvoidAgain(lineStringJson);

/** What the steps' instructions need beyond the route: the language, and where this route's legs stand
 *  in the whole (a half of a split route says "your 3rd destination" as the whole would). */
export interface StepText {
  language?: string;
  legBase?: number;
  legCount?: number;
  /** A whole route's steps: written with their legs around them, `,"legs":[…]` after the geometry, so that
   *  the reply is that one text (RouteJsonResult.withLegs; not for a half of a split route, joined later). */
  legsText?: boolean;
}

export function routeTask(q: RouteQuery): Outcome<RouteResult> {
  return routeCore().route(q);
}

const arenaBuffer = (workerData as { replyArena?: SharedArrayBuffer } | undefined)?.replyArena;
const arena: ReplyArena | undefined = arenaBuffer && arenaOf(arenaBuffer);

/** The route with its geometry already written as text, ready for a reply: GeoJSON, or in the form
 *  `geometry` asks (polyline.ts), into a slot of the reply arena when one is free and large enough, else
 *  as a copy. */
export function routeJsonTask(q: RouteQuery & { geometry?: GeometryOptions } & StepText): Outcome<RouteJsonTaskResult> {
  const found = routeCore().routeE7(q);
  if (!found.ok) return found;
  const { alternatives, ...route } = found.value;
  // Alternatives' GeoJSON lines copy the text of the points they begin and end with alike from the
  // route's (without steps: the steps' texts are written from their own line's).
  const beside = alternatives?.length && !q.steps && (q.geometry?.format ?? 'geojson') === 'geojson' && (q.geometry?.overview ?? 'full') === 'full';
  const base = beside ? { line: route.geometryE7, offsets: (mainOffsets = grownOffsets(mainOffsets, route.geometryE7)), text: EMPTY } : undefined;
  const written = writeRoute(route, q, 'slot', base);
  if (!alternatives) return written;
  // Alternatives after the route's text in its slot (one slot per reply, released with it), as copies
  // when it has no slot or no room left: a copy is a new buffer on both threads, and the half megabyte
  // or more of them per answer set off full collections there (docs/routing.md, "What sets the tail").
  const ref = written.ok ? written.value.geometryJson : null;
  const room: Room | null = ref && !(ref instanceof Uint8Array) ? { slot: ref[0], token: ref[1], at: (ref[3] ?? 0) + ref[2] } : null;
  const others = alternatives.flatMap((a) => {
    const w = writeRoute(a, q, room ?? 'copy', undefined, base);
    return w.ok ? [w.value] : [];
  });
  return written.ok ? { ok: true, value: { ...written.value, alternatives: others } } : written;
}

/** The rest of a slot a reply holds, from `at`: where its alternatives' texts go. */
interface Room {
  slot: number;
  token: number;
  at: number;
}

/** One route's text: its geometry in the form asked for, then with steps each leg's steps (`stepsAt`
 *  says where each ends), in a slot of the arena taken for it ('slot', when one is free and large
 *  enough) or in the `Room` left in one (moved on past it), else as a copy. */
function writeRoute(
  found: Omit<RouteE7Result, 'alternatives'>,
  q: RouteQuery & { geometry?: GeometryOptions } & StepText,
  place: 'slot' | 'copy' | Room,
  keep?: LineBase,
  beside?: LineBase,
): Outcome<RouteJsonTaskResult> {
  const { geometryE7: full, waypointPoints, bbox, legSteps, ...rest } = found;
  const format = q.geometry?.format ?? 'geojson',
    overview = q.geometry?.overview ?? 'full';
  const precision = format === 'polyline' ? 5 : 6;
  const bound = (l: Int32Array) => (format === 'geojson' ? lineStringBytes(l) : polylineBytes(l));
  const write = (l: Int32Array, buf: Uint8Array, offsets?: Int32Array) =>
    format === 'geojson' ? writeLineString(l, buf, offsets) : writePolyline(l, precision, buf, offsets);
  const line = overview === 'false' ? null : overview === 'simplified' ? simplifyLine(full, waypointPoints, q.geometry?.toleranceM ?? 1) : full;
  // Steps in the geometry's form, from the whole line whatever the overview.
  const planned = legSteps?.map((leg, i) =>
    planSteps(leg, routeCore().shapes, {
      profile: q.profile,
      format,
      language: q.language,
      legIndex: (q.legBase ?? 0) + i,
      legCount: q.legCount ?? legSteps.length,
      distance: rest.legs[i].distance,
      duration: rest.legs[i].duration,
    }),
  );
  const legsText = planned && q.legsText ? planned.map((_, i) => legOpening(i, rest.legs[i])) : null;
  let bytes = line ? bound(line) : NULL_JSON.length;
  for (const leg of planned ?? []) bytes += leg.bound;
  // Each opening is ASCII, a byte a character; then its `}`, the key before the list and its `]`.
  for (const opening of legsText ?? []) bytes += opening.length + 1;
  if (legsText) bytes += LEGS_KEY.length + 1;
  const room = typeof place === 'object' && arena && bytes <= SLOT_BYTES - place.at ? place : null;
  const taken = place === 'slot' && arena && line && bytes <= SLOT_BYTES - HEAD_ROOM ? takeSlot(arena, threadId) : null;
  const held = room
    ? { ...room, bytes: arena!.bytes.subarray(room.slot * SLOT_BYTES + room.at, (room.slot + 1) * SLOT_BYTES) }
    : taken && { ...taken, bytes: taken.bytes.subarray(HEAD_ROOM), at: HEAD_ROOM };
  const buf = held ? held.bytes : scratchOf(bytes);
  let end: number;
  let lineText: LineText | null = null;
  if (!line) {
    buf.set(NULL_JSON);
    end = NULL_JSON.length;
  } else if (planned && line === full) {
    // The steps' geometries are stretches of this text.
    lineText = { bytes: buf, offsets: offsetsOf(full) };
    end = write(full, buf, lineText.offsets);
  } else if (keep) {
    end = writeLineString(full, buf, keep.offsets);
    keep.text = buf;
  } else if (beside) end = writeLineStringBeside(full, buf, beside.line, beside.text, beside.offsets);
  else end = write(line, buf);
  let stepsAt: number[] | undefined;
  if (planned) {
    if (!lineText) {
      lineText = { bytes: lineScratchOf(bound(full)), offsets: offsetsOf(full) };
      write(full, lineText.bytes, lineText.offsets);
    }
    // With the legs written around them the text is one, and where each leg's steps end is not needed.
    stepsAt = legsText ? undefined : [end];
    if (legsText) end = putAscii(LEGS_KEY, buf, end);
    for (const [i, leg] of planned.entries()) {
      if (legsText) end = putAscii(legsText[i], buf, end);
      end = writeSteps(leg, full, lineText, buf, end);
      if (legsText) buf[end++] = 125;
      stepsAt?.push(end);
    }
    if (legsText) buf[end++] = 93;
  }
  // The box in the same 1e-6° rounding as the line's text, so it is exactly the box of what is printed.
  const [w, s, e, n] = bbox.map((x) => microOfE7(x) / 1e6);
  // A copy is exact (a view of the scratch would carry all of it across threads).
  const copy = held ? null : buf.slice(0, end);
  if (room) room.at += end;
  // The route's text stays where the alternatives read it: in its slot, or the copy (the scratch is theirs).
  if (keep && copy) keep.text = copy;
  return {
    ok: true,
    value: {
      ...rest,
      bbox: [w, s, e, n],
      geometryJson: copy ?? [held!.slot, held!.token, end, held!.at],
      ...(legsText ? { withLegs: true } : {}),
      ...(stepsAt ? { stepsAt } : {}),
    },
  };
}

const LEGS_KEY = ',"legs":';
/** ASCII `text` into `b` at `p`; the end. */
function putAscii(text: string, b: Uint8Array, p: number): number {
  for (let i = 0; i < text.length; i++) b[p++] = text.charCodeAt(i);
  return p;
}

// This thread's reusable buffers: a route's text when no arena slot takes it, the whole line's text for
// steps when the route's geometry is another (simplified, or none), and where its points are.
let scratch: Uint8Array = new Uint8Array(1 << 16),
  lineScratch: Uint8Array = new Uint8Array(0),
  offsets = new Int32Array(0);
const grown = (buf: Uint8Array, bytes: number) => (buf.length >= bytes ? buf : new Uint8Array(Math.max(bytes, 2 * buf.length)));
const scratchOf = (bytes: number) => (scratch = grown(scratch, bytes));
const lineScratchOf = (bytes: number) => (lineScratch = grown(lineScratch, bytes));
/** A route's line (its GeoJSON text from its start, written with `offsets`) that alternatives copy from. */
interface LineBase {
  line: Int32Array;
  text: Uint8Array;
  offsets: Int32Array;
}
const EMPTY = new Uint8Array(0);
/** Where the points of the route's text are, while its alternatives are written (`offsets` is theirs). */
let mainOffsets: Int32Array = new Int32Array(0);
const grownOffsets = (buf: Int32Array, line: Int32Array): Int32Array => {
  const need = Math.max(2, line.length >> 1) + 1;
  return buf.length >= need ? buf : new Int32Array(Math.max(need, 2 * buf.length));
};
function offsetsOf(line: Int32Array): Int32Array {
  // One per point (a single point is written twice), and one after the last.
  const need = Math.max(2, line.length >> 1) + 1;
  if (offsets.length < need) offsets = new Int32Array(Math.max(need, 2 * offsets.length));
  return offsets;
}

export function matrixTask(q: MatrixQuery): Outcome<MatrixResult> {
  return routeCore().matrix(q);
}

/** `matrix` with the asked rows written as JSON text (matrix-json.ts) in an arena slot when one is free:
 *  the durations' rows, then the distances' from `durationsEnd`. */
export function matrixJsonTask(q: MatrixJsonQuery): Outcome<MatrixJsonTaskResult> {
  const m = routeCore().matrix({ ...q, packed: true });
  if (!m.ok) return m;
  const { durations: _d, distances: _m, packed, ...rest } = m.value;
  const cols = (q.targets ?? q.points).length,
    rows = packed!.durations.length / Math.max(1, cols);
  const bytes = (q.annotations.durations ? cellRowsBound(rows, cols) : 0) + (q.annotations.distances ? cellRowsBound(rows, cols) : 0);
  const write = (buf: Uint8Array): [number, number] => {
    const durationsEnd = q.annotations.durations ? writeCellRows(packed!.durations, rows, cols, buf, 0) : 0;
    return [durationsEnd, q.annotations.distances ? writeCellRows(packed!.distances, rows, cols, buf, durationsEnd) : durationsEnd];
  };
  const held = arena && bytes <= SLOT_BYTES ? takeSlot(arena, threadId) : null;
  if (held) {
    const [durationsEnd, end] = write(held.bytes);
    return { ok: true, value: { ...rest, cellsJson: [held.slot, held.token, end], durationsEnd } };
  }
  const buf = new Uint8Array(bytes);
  const [durationsEnd, end] = write(buf);
  return { ok: true, value: { ...rest, cellsJson: buf.slice(0, end), durationsEnd } };
}

export function farTask(q: Parameters<RouteCore['far']>[0]): Outcome<number[]> {
  return routeCore().far(q);
}

export function isochroneTask(q: IsochroneQuery): Outcome<IsochroneResult> {
  return routeCore().isochrone(q);
}

export function travelTimesTask(q: TravelTimesQuery): Outcome<Float64Array> {
  return routeCore().travelTimes(q);
}

export function nearestTask(q: { profile: string; point: LatLon; count: number }): Outcome<NearestRoad[]> {
  return routeCore().nearest(q);
}
