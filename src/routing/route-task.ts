// Pool tasks for routing: each worker builds its RouteCore once over the shared graph memory that the
// engine handed to the pool (workerData.routing).
import { workerData } from 'piscina';
import type { SharedGraphs } from './graph-memory.js';
import { RouteCore, type MatrixQuery, type MatrixResult, type Outcome, type RouteQuery, type RouteResult } from './route-core.js';

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

export function matrixTask(q: MatrixQuery): Outcome<MatrixResult> {
  return routeCore().matrix(q);
}
