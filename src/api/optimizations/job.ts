// The durable job behind POST /v1/optimizations: road matrix piece by piece, then the search in time
// slices through the worker pool, each slice continuing from the best plan so far (the checkpoint), then
// one road geometry per route. Only a share of the workers ever runs batch work (batchShare), and every
// piece is a separate pool task, so interactive requests queue between pieces instead of behind a job.
import type { Sql } from '../../db/client.js';
import { poolSize, runTask } from '../../compute/pool.js';
import { HttpError } from '../../http/errors.js';
import { PermanentJobError, type JobContext, type JobDefinition } from '../../jobs/runner.js';
import { farFromRoad, matrixInPieces, type MatrixResult, type ProfileName } from '../../engine/engine.js';
import { farMessage } from '../engine-errors.js';
import { nextState, sliceOptions, type SearchState } from '../../engine/vrp/slices.js';
import type { VrpProblem, VrpSolution } from '../../engine/vrp/solver.js';
import { applyBreaks, timeAsGiven } from '../../engine/vrp/breaks.js';
import type { Names } from '../../engine/vrp/schedule.js';
import { indexLocations, toProblem, travelOf, unreachableLocations, type LocationIndex } from '../optimize/problem.js';
import type { OptimizeBody } from '../optimize/schema.js';
import { optimizeJson } from '../optimize/response.js';
import { defaultVehicleId } from '../optimize/schema.js';
import { geometry, roadMatrix } from '../optimize/routes.js';
import { batchBodySchema } from './schema.js';
import { excludeBits } from '../routes/exclude.js';
import {
  completeOptimization,
  failOptimization,
  OPTIMIZATION_JOB,
  saveProgress,
  startOptimizationRun,
  type Checkpoint,
  type OptimizationRow,
  type Progress,
} from './store.js';

/** One search slice: how long a batch job holds a worker before it queues again behind interactive work. */
export const SLICE_MS = 1000;

/** Workers a batch job may use at once: half the pool, at least one (2 cores: 1 of 2). */
export function batchShare(): number {
  return Math.max(1, Math.floor(poolSize() / 2));
}

/** The job failed for a reason the client can act on, stored as the 422 body it would have got. */
class Rejected extends PermanentJobError {
  constructor(readonly body: Record<string, unknown>) {
    super(String(body.message));
  }
}

export function optimizationJob(sql: Sql): [string, JobDefinition<{ optimization_id: string }>] {
  return [
    OPTIMIZATION_JOB,
    {
      concurrency: batchShare(),
      run: (ctx) => runOptimization(sql, ctx),
      onFailure: async (job, error) => {
        const body =
          error instanceof Rejected
            ? error.body
            : error instanceof PermanentJobError
              ? { message: `The optimization ${error.message}.` }
              : { message: 'The optimization could not be completed because of an internal error.' };
        await failOptimization(sql, job.payload.optimization_id, body);
      },
    },
  ];
}

/** 4xx answers of the engine become the job's failure; anything else (busy, 502) is retried. */
function asRejection(err: unknown): unknown {
  return err instanceof HttpError && err.status === 422 ? new Rejected(err.body()) : err;
}

async function runOptimization(sql: Sql, ctx: JobContext<{ optimization_id: string }>): Promise<void> {
  const id = ctx.job.payload.optimization_id;
  const row = await startOptimizationRun(sql, id);
  if (!row) return; // cancelled, finished, or its team is gone
  const live = async (progress: Progress, checkpoint?: Checkpoint) => {
    ctx.signal.throwIfAborted();
    return saveProgress(sql, id, progress, checkpoint, (tx) => ctx.progress(tx));
  };
  const body = batchBodySchema.parse(row.body);
  const profile = body.profile as ProfileName;
  // Checked when the job was asked for: a class the profile does not take cannot be stored.
  const exclude = excludeBits(profile, body.exclude, {});
  const { vehicles, stops, shipments = [] } = row.locations;
  // Stops from POIs: one far from a road or cut off from the others is left unassigned with why.
  const unservable: Record<number, string> = { ...row.locations.unservable };
  if (row.locations.fromPois) {
    const open = stops.flatMap((_, i) => (unservable[i] === undefined ? [i] : []));
    const far = await farFromRoad(
      profile,
      open.map((i) => ({ lat: stops[i].latitude, lon: stops[i].longitude })),
    );
    for (const k of far) unservable[open[k]] = `it ${farMessage(profile)}`;
  }
  const skip = new Set(Object.keys(unservable).map(Number));
  const ix = indexLocations(vehicles, stops, shipments, skip);

  let m: MatrixResult;
  let cancelled = false;
  try {
    m = await roadMatrix(profile, ix, () =>
      matrixInPieces({ profile, points: ix.points, ...(exclude ? { exclude } : {}) }, async (done) => {
        cancelled = !(await live({ phase: 'matrix', percent: done }));
        if (cancelled) throw new Error('the optimization is no longer running');
      }),
    );
  } catch (err) {
    if (cancelled) return;
    throw asRejection(err);
  }
  const travel = travelOf(m);
  const unreachable = unreachableLocations(ix, travel.duration, profile, skip);
  if (row.locations.fromPois) {
    for (const [field, [message]] of Object.entries(unreachable)) {
      const stop = /^stops\.(\d+)$/.exec(field);
      if (!stop) continue;
      unservable[Number(stop[1])] = `it ${message}`;
      skip.add(Number(stop[1]));
      delete unreachable[field];
    }
  }
  if (Object.keys(unreachable).length) {
    throw new Rejected({ message: Object.entries(unreachable).map(([f, [msg]]) => `${f}: ${msg}`)[0], errors: unreachable });
  }
  // The search plans the vehicles' breaks itself; they are timed in its best plan at the end (breaks.ts).
  const problem = shareMatrices(toProblem(body, ix, travel, row.frame, skip));

  if (body.mode === 'plan') {
    // Plan mode: no search, the routes as given. A stop that cannot be served (a POI closed that day, off
    // the roads) has no place to drive to: it leaves its route, which says so, and is unassigned with why.
    const given = givenRoutes(body, skip);
    const listed = new Set(given.flatMap((g) => g.jobs));
    problem.jobs.forEach((_, j) => {
      if (!listed.has(j)) unservable[j] ??= "it is in no vehicle's steps (plan mode)";
    });
    const names = planNames(body);
    const solution = timeAsGiven(problem, given, { timing: body.plan_timing ?? 'retime', names });
    for (const route of solution.routes) {
      const left = given.find((g) => g.vehicle === route.vehicle)?.left ?? [];
      if (left.length) route.violations = [...(route.violations ?? []), ...left.map((j) => `${names.job(j)} is left out: ${unservable[j]}`)];
    }
    return finish(sql, id, { body, ix, problem, profile, row, unservable, solution, live });
  }
  const budgetMs = row.time_budget * 1000;
  let state: SearchState = row.checkpoint ?? { routes: [], searchedMs: 0, rate: 0 };
  let solution: VrpSolution | undefined;
  let slice = 0;
  do {
    const sliceMs = Math.max(1, Math.min(SLICE_MS, budgetMs - state.searchedMs));
    const options = sliceOptions(state, sliceMs, budgetMs, row.runs * 100_000 + slice++);
    const started = performance.now();
    solution = await runTask<VrpSolution>('vrp', { problem, options });
    state = nextState(state, solution.routes, solution.iterations, performance.now() - started, sliceMs);
    const percent = Math.min(99, Math.round((100 * state.searchedMs) / budgetMs));
    if (!(await live({ phase: 'solving', percent }, state))) return;
  } while (state.searchedMs < budgetMs);

  const withBreaks = applyBreaks(problem, solution);
  for (const j of withBreaks.noRoomForBreaks) unservable[j] = "no vehicle's route has room for it and its driver's breaks";
  return finish(sql, id, { body, ix, problem, profile, row, unservable, solution: withBreaks, live });
}

interface Finished {
  body: OptimizeBody;
  ix: LocationIndex;
  problem: VrpProblem;
  profile: ProfileName;
  row: OptimizationRow;
  unservable: Record<number, string>;
  solution: VrpSolution;
  live: (progress: Progress) => Promise<boolean>;
}

/** One road geometry per route, then the plan stored. */
async function finish(sql: Sql, id: string, f: Finished): Promise<void> {
  const { body, ix, problem, profile, row, unservable, solution, live } = f;
  const { vehicles, stops, shipments = [] } = row.locations;
  if (!(await live({ phase: 'routes', percent: 99 }))) return;
  const geometries: Array<Array<[number, number]>> = [];
  try {
    for (const r of solution.routes) {
      const v = problem.vehicles[r.vehicle];
      const at = [v.start, ...r.jobs.map((j) => problem.jobs[j].location), ...(v.end == null ? [] : [v.end])];
      geometries.push(
        await geometry(
          profile,
          at.map((p) => ix.points[p]),
          excludeBits(profile, body.exclude, {}),
        ),
      );
    }
  } catch (err) {
    throw asRejection(err);
  }
  const vehicleIds = body.vehicles.map((v, i) => v.id ?? defaultVehicleId(i));
  const result = optimizeJson({ body, vehicleIds, vehicles, stops, shipments, unservable, problem, frame: row.frame, batch: true }, solution, geometries);
  await completeOptimization(sql, id, result);
}

/**
 * Plan mode: each vehicle's steps as job indices (stops first, then each shipment's pickup and delivery),
 * and the breaks they name, each after the number of jobs before it, less one. Stops in `skip` (they
 * cannot be served) are left out, in `left`.
 */
function givenRoutes(
  body: OptimizeBody,
  skip: ReadonlySet<number>,
): Array<{ vehicle: number; jobs: number[]; left: number[]; breaks?: Array<{ index: number; after: number }> }> {
  const stopAt = new Map(body.stops.flatMap((s, i) => (s.id === undefined ? [] : [[String(s.id), i] as const])));
  const shipmentAt = new Map((body.shipments ?? []).flatMap((s, k) => (s.id === undefined ? [] : [[String(s.id), k] as const])));
  const S = body.stops.length;
  return body.vehicles.map((v, vehicle) => {
    const jobs: number[] = [];
    const left: number[] = [];
    const breaks: Array<{ index: number; after: number }> = [];
    for (const step of v.steps ?? []) {
      const key = String(step.id);
      if (step.type === 'stop') (skip.has(stopAt.get(key)!) ? left : jobs).push(stopAt.get(key)!);
      else if (step.type === 'pickup') jobs.push(S + 2 * shipmentAt.get(key)!);
      else if (step.type === 'delivery') jobs.push(S + 2 * shipmentAt.get(key)! + 1);
      else if (step.type === 'break') breaks.push({ index: (v.breaks ?? []).findIndex((b) => String(b.id) === key), after: jobs.length - 1 });
    }
    return { vehicle, jobs, left, ...(breaks.length ? { breaks } : {}) };
  });
}

/** Plan mode's violations name the request's stops, shipments and breaks by their ids. */
function planNames(body: OptimizeBody): Names {
  const S = body.stops.length;
  const quoted = (id: string | number | undefined, index: number) => (id === undefined ? `${index}` : `'${id}'`);
  return {
    job: (j) => {
      if (j < S) return `stop ${quoted(body.stops[j].id, j)}`;
      const k = (j - S) >> 1;
      return `the ${(j - S) & 1 ? 'delivery' : 'pickup'} of shipment ${quoted(body.shipments![k].id, k)}`;
    },
    break: (vehicle, k) => `break ${quoted(body.vehicles[vehicle].breaks![k].id, k)}`,
  };
}

/** The matrices in shared memory: every slice hands them to a worker without copying megabytes. */
function shareMatrices(p: VrpProblem): VrpProblem {
  const share = <T extends Int32Array | Float64Array>(a: T, make: (b: SharedArrayBuffer) => T): T => {
    const s = make(new SharedArrayBuffer(a.byteLength));
    s.set(a as never);
    return s;
  };
  return {
    ...p,
    durations: share(p.durations as Int32Array, (b) => new Int32Array(b)),
    distances: p.distances ? share(p.distances as Float64Array, (b) => new Float64Array(b)) : undefined,
  };
}
