// Pool tasks for routing: each worker builds its RouteCore once over the shared graph memory that the
// engine handed to the pool (workerData.routing).
import { workerData } from 'piscina';
import type { SharedGraphs } from './graph-memory.js';
import { lineStringJson } from './line-json.js';
import { RouteCore, type LatLon, type MatrixQuery, type MatrixResult, type Outcome, type RouteJsonResult, type RouteQuery, type RouteResult } from './route-core.js';

let core: RouteCore | undefined;

function routeCore(): RouteCore {
  const shared = (workerData as { routing?: SharedGraphs } | undefined)?.routing;
  if (!shared) throw new Error('no map loaded in this worker');
  core ??= new RouteCore(shared);
  return core;
}

export function routeTask(q: RouteQuery): Outcome<RouteResult> {
  return routeCore().route(q);
}

/** The route with its geometry already written as GeoJSON text, ready for a reply. */
export function routeJsonTask(q: RouteQuery): Outcome<RouteJsonResult> {
  const found = routeCore().route(q);
  if (!found.ok) return found;
  const { geometry, ...rest } = found.value;
  return { ok: true, value: { ...rest, geometryJson: lineStringJson(geometry) } };
}

export function matrixTask(q: MatrixQuery): Outcome<MatrixResult> {
  return routeCore().matrix(q);
}

export function farTask(q: { profile: string; points: LatLon[] }): Outcome<number[]> {
  return routeCore().far(q);
}
