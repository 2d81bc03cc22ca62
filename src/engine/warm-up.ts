// Pool task `warmUp`: one per compute thread, before a map serves (engine.ts, loadMap). Whatever the
// first request of each kind pays in a thread — its code compiled, its search scratch paged in, the
// geocoder and search index read — is paid here instead of by a client.
import { getHeapSpaceStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { collectGarbage } from '../lib/gc.js';
import { geocoderBuilds, warmGeocoder } from './geocoder/task.js';
import { pageInScratch, reverseBuilds, warmAvoidingAgain, warmRouting } from './route-task.js';
import { solveVrp } from './vrp/solver.js';
import type { LatLon } from '../lib/lat-lon.js';

export interface WarmUpInput {
  /** [threads arrived]: each task waits here until every thread has one, so that each thread gets one. */
  barrier: Int32Array;
  /** Two flags per thread (in the order they arrived), raised by the main thread at the avoiding routes'
   *  deadline: the search stops there (RouteCore.warmUp). */
  stop: Int32Array;
  threads: number;
  /** Milliseconds for the repeated plain routes after one request of each kind (RouteCore.warmUp). */
  budgetMs: number;
  mapDir: string;
  geocoder: boolean;
  /** Points spread over the map, on roads: where the geocoder is asked. */
  samples: LatLon[];
}

/** What one thread ran: requests by kind and the milliseconds it took. */
export interface ThreadWarmUp {
  thread: number;
  ms: number;
  counts: Record<string, number>;
  /** Bytes of the default profile's search scratch this thread made resident (RouteCore.pageInDefault). */
  pagedInBytes: number;
}

/** How long a thread waits for the others to take their warm-up task before it warms up alone. */
const BARRIER_MS = 60_000;

/** One task of `threads` sent at once: this thread's arrival order (0…). Piscina gives a task only to an
 *  idle thread: with every thread held here until all have arrived, the tasks land on different threads. */
function oneEach({ barrier, threads }: { barrier: Int32Array; threads: number }): number {
  const arrived = Atomics.add(barrier, 0, 1);
  Atomics.notify(barrier, 0);
  const deadline = Date.now() + BARRIER_MS;
  for (let seen = Atomics.load(barrier, 0); seen < threads && Date.now() < deadline; seen = Atomics.load(barrier, 0)) {
    Atomics.wait(barrier, 0, seen, deadline - Date.now());
  }
  return arrived;
}

export async function warmUpTask(input: WarmUpInput): Promise<ThreadWarmUp> {
  const arrived = oneEach(input);
  const started = performance.now();
  const stop: [Int32Array, Int32Array] = [input.stop.subarray(2 * arrived, 2 * arrived + 1), input.stop.subarray(2 * arrived + 1, 2 * arrived + 2)];
  // What the map's threads share and one makes first: the geocoder's trees and the profiles' reverse
  // graphs. Each thread takes in turn the next one no other has taken (the streets' tree, the largest,
  // first), so that the threads end together; then each warms its routes.
  for (const build of [...(input.geocoder ? geocoderBuilds(input.mapDir) : []), ...reverseBuilds()]) build();
  // Before the routes: their searches then find the default profile's pages resident.
  const pagedInBytes = pageInScratch();
  const counts: Record<string, number> = { ...warmRouting(input.budgetMs, stop) };
  if (input.geocoder) Object.assign(counts, await warmGeocoder(input.mapDir, input.samples));
  return { thread: threadId, ms: Math.round(performance.now() - started), counts, pagedInBytes };
}

/**
 * Pool task `collectGarbage`, one per thread (engine.ts, collectThreadGarbage): the warm-ups' garbage —
 * far routes' lines and steps, matrices, isochrones, several rounds of each — was otherwise collected by
 * the first requests after ready (10x10 country: the compute threads' CPU time for a fresh process's
 * first and second avoiding route 2–3 × that of later ones). The collection also throws away code compiled
 * for the avoiding routes, which run again after it (RouteCore.warmAvoidAgain). Returns what it took (ThreadCollection).
 */
export function collectGarbageTask(input: { barrier: Int32Array; threads: number }): ThreadCollection {
  oneEach(input);
  const started = performance.now();
  const before = semiSpaceBytes();
  collectGarbage();
  // What the first requests meet: a young generation the collection left smaller would grow again under
  // them, its pages faulted in anew (compute/pool.ts, YOUNG_GENERATION_MB, keeps it whole).
  const after = semiSpaceBytes();
  warmAvoidingAgain();
  warmSolver();
  return { ms: Math.round(performance.now() - started), semiSpaceBytes: { before, after } };
}

/**
 * One plan of an optimize request's size, solved as each of its searches is (6,000 iterations), on travel
 * times made up here: the collection threw away the solver's compiled code too, and the handlers' last
 * round before ready gives a thread one or two solves. On the 32x32 country (a slow host, four starts
 * each, alternated with the commit before) the first optimize request after ready took 163–178 ms against
 * a median of 122 for the third to eighth; with this solve, 83–132 against 105.
 */
function warmSolver(): void {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  // 53 places in a square of 30 km, driven at 50 km/h along roads 1.3 × the straight line.
  const n = 53;
  const xy = Array.from({ length: n }, () => [30_000 * rand(), 30_000 * rand()]);
  const durations = new Int32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) durations[i * n + j] = Math.round((1.3 * Math.hypot(xy[i][0] - xy[j][0], xy[i][1] - xy[j][1])) / 13.9);
  solveVrp(
    { durations, vehicles: [{ start: 0, end: 0 }, { start: 1, end: 1 }, { start: 2 }], jobs: Array.from({ length: n - 3 }, (_, i) => ({ location: 3 + i })) },
    { iterations: 6_000, timeLimitMs: 1_000, seed: 1 },
  );
}

const semiSpaceBytes = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/** One thread's last collection before ready: its milliseconds, and the size of a semi-space of its young
 *  generation before and after it. */
export interface ThreadCollection {
  ms: number;
  semiSpaceBytes: { before: number; after: number };
}
