// Pool tasks for routing: each worker builds its RouteCore once over the shared graph memory that the
// engine handed to the pool (workerData.routing).
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import type { SharedGraphs } from './graph-memory.js';
import { lineStringBytes, lineStringJson, microOfE7, writeLineString } from './line-json.js';
import { NULL_JSON, polylineBytes, simplifyLine, writePolyline, type GeometryOptions } from './polyline.js';
import { cellRowsBound, writeCellRows } from './matrix-json.js';
import { arenaOf, SLOT_BYTES, takeSlot, type ReplyArena } from './reply-arena.js';
import { stepsJson } from './guidance/step-json.js';
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
  core ??= new RouteCore(shared);
  return core;
}

/** Every kind of routing request once, then plain routes within `budgetMs` (RouteCore.warmUp). */
export const warmRouting = (budgetMs: number, stop: [Int32Array, Int32Array]): WarmUpCounts => routeCore().warmUp(budgetMs, lineStringJson, stop);

/** What the steps' instructions need beyond the route: the language, and where this route's legs stand
 *  in the whole (a half of a split route says "your 3rd destination" as the whole would). */
export interface StepText {
  language?: string;
  legBase?: number;
  legCount?: number;
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
  const written = writeRoute(route, q, true);
  if (!alternatives) return written;
  // Alternatives as copies: the arena's slots are for the one text a reply sends in place.
  const others = alternatives.flatMap((a) => {
    const w = writeRoute(a, q, false);
    return w.ok ? [w.value as RouteJsonTaskResult & { geometryJson: Uint8Array }] : [];
  });
  return written.ok ? { ok: true, value: { ...written.value, alternatives: others } } : written;
}

/** One route's texts: its geometry in the form asked for (in an arena slot when `inArena` and one is
 *  free and large enough) and its steps. */
function writeRoute(
  found: Omit<RouteE7Result, 'alternatives'>,
  q: RouteQuery & { geometry?: GeometryOptions } & StepText,
  inArena: boolean,
): Outcome<RouteJsonTaskResult> {
  const { geometryE7: full, waypointPoints, bbox, legSteps, ...rest } = found;
  const format = q.geometry?.format ?? 'geojson',
    overview = q.geometry?.overview ?? 'full';
  // Steps in the geometry's form, from the whole line whatever the overview.
  const steps = legSteps?.map((leg, i) =>
    stepsJson(leg, routeCore().shapes, full, {
      profile: q.profile,
      format,
      language: q.language,
      legIndex: (q.legBase ?? 0) + i,
      legCount: q.legCount ?? legSteps.length,
      distance: rest.legs[i].distance,
      duration: rest.legs[i].duration,
    }),
  );
  // The box in the same 1e-6° rounding as the line's text, so it is exactly the box of what is printed.
  const [w, s, e, n] = bbox.map((x) => microOfE7(x) / 1e6);
  const answer = (geometryJson: RouteJsonTaskResult['geometryJson']): Outcome<RouteJsonTaskResult> => ({
    ok: true,
    value: { ...rest, bbox: [w, s, e, n], geometryJson, ...(steps ? { stepsJson: steps } : {}) },
  });
  if (overview === 'false') return answer(NULL_JSON.slice());
  const line = overview === 'simplified' ? simplifyLine(full, waypointPoints, q.geometry?.toleranceM ?? 1) : full;
  const [bytes, write]: [number, (buf: Uint8Array) => number] =
    format === 'geojson'
      ? [lineStringBytes(line), (buf) => writeLineString(line, buf)]
      : [polylineBytes(line), (buf) => writePolyline(line, format === 'polyline' ? 5 : 6, buf)];
  const held = inArena && arena && bytes <= SLOT_BYTES ? takeSlot(arena, threadId) : null;
  if (held) return answer([held.slot, held.token, write(held.bytes)]);
  if (format === 'geojson') return answer(lineStringJson(line));
  const buf = new Uint8Array(bytes);
  return answer(buf.slice(0, write(buf)));
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
