// Pool tasks for routing: each worker builds its RouteCore once over the shared graph memory that the
// engine handed to the pool (workerData.routing).
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import type { SharedGraphs } from './graph-memory.js';
import { lineStringBytes, lineStringJson, microOfE7, writeLineString } from './line-json.js';
import { arenaOf, SLOT_BYTES, takeSlot, type ReplyArena } from './reply-arena.js';
import {
  RouteCore,
  type IsochroneQuery,
  type IsochroneResult,
  type MatrixQuery,
  type MatrixResult,
  type NearestRoad,
  type Outcome,
  type RouteJsonTaskResult,
  type RouteQuery,
  type RouteResult,
  type TravelTimes,
  type TravelTimesQuery,
} from './route-core.js';
import type { LatLon } from '../lib/lat-lon.js';

let core: RouteCore | undefined;

function routeCore(): RouteCore {
  const shared = (workerData as { routing?: SharedGraphs } | undefined)?.routing;
  if (!shared) throw new Error('no map loaded in this worker');
  core ??= new RouteCore(shared);
  return core;
}

/** Milliseconds a thread with a map spends warming its routes up before its first task. */
const WARM_UP_MS = 1500;
if ((workerData as { routing?: SharedGraphs } | undefined)?.routing) routeCore().warmUp(WARM_UP_MS, lineStringJson);

export function routeTask(q: RouteQuery): Outcome<RouteResult> {
  return routeCore().route(q);
}

const arenaBuffer = (workerData as { replyArena?: SharedArrayBuffer } | undefined)?.replyArena;
const arena: ReplyArena | undefined = arenaBuffer && arenaOf(arenaBuffer);

/** The route with its geometry already written as GeoJSON text, ready for a reply: into a slot of the
 *  reply arena when one is free and large enough, else as a copy. */
export function routeJsonTask(q: RouteQuery): Outcome<RouteJsonTaskResult> {
  const found = routeCore().routeE7(q);
  if (!found.ok) return found;
  const { geometryE7, bbox, ...rest } = found.value;
  // The box in the same 1e-6° rounding as the line's text, so it is exactly the box of what is printed.
  const [w, s, e, n] = bbox.map((x) => microOfE7(x) / 1e6);
  const held = arena && lineStringBytes(geometryE7) <= SLOT_BYTES ? takeSlot(arena, threadId) : null;
  const geometryJson: RouteJsonTaskResult['geometryJson'] = held
    ? [held.slot, held.token, writeLineString(geometryE7, held.bytes)]
    : lineStringJson(geometryE7);
  return { ok: true, value: { ...rest, bbox: [w, s, e, n], geometryJson } };
}

export function matrixTask(q: MatrixQuery): Outcome<MatrixResult> {
  return routeCore().matrix(q);
}

export function farTask(q: { profile: string; points: LatLon[] }): Outcome<number[]> {
  return routeCore().far(q);
}

export function isochroneTask(q: IsochroneQuery): Outcome<IsochroneResult> {
  return routeCore().isochrone(q);
}

export function travelTimesTask(q: TravelTimesQuery): Outcome<TravelTimes> {
  return routeCore().travelTimes(q);
}

export function nearestTask(q: { profile: string; point: LatLon; count: number }): Outcome<NearestRoad[]> {
  return routeCore().nearest(q);
}
