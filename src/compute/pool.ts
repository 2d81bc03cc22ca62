import { AsyncLocalStorage } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import { type Config, loadConfig } from '../config.js';
import type { ThreadSettings } from './thread-settings.js';
import { distPath } from '../lib/paths.js';

/** Thrown when the pool's queue is full: the HTTP layer answers 503. */
export class PoolBusyError extends Error {
  constructor() {
    super('The routing engine is busy. Retry shortly.');
  }
}

/**
 * One pool of threads over one set of worker data (a loaded map). A new map gets a generation of its own
 * beside the one serving (engine.ts, loadMap): its threads start on the new data while the old ones keep
 * answering, and the old generation is destroyed once no request pinned to it and no task runs on it.
 */
export class PoolGeneration {
  piscina: Piscina | undefined;
  /** Tasks of this process running or queued on this generation's threads. */
  tasks = 0;
  /** Requests (and jobs) pinned to this generation that have not finished. */
  users = 0;
  /** No longer current: destroyed as soon as nothing uses it. */
  retiring = false;
  private retired: (() => void) | undefined;
  readonly gone: Promise<void>;

  constructor(readonly workerData: Record<string, unknown>) {
    this.gone = new Promise((resolve) => (this.retired = resolve));
  }

  /** Destroys the threads if the generation is retiring and unused (called whenever a use ends). */
  settle(): void {
    if (!this.retiring || this.users > 0 || this.tasks > 0) return;
    const p = this.piscina;
    this.piscina = undefined;
    const done = this.retired;
    this.retired = undefined;
    if (!done) return;
    void (p ? p.destroy() : Promise.resolve()).finally(done);
  }
}

/** Generations made and not yet destroyed (2 during a map swap, else 1). */
const live = new Set<PoolGeneration>();
let current = made(new PoolGeneration({}));

function made(gen: PoolGeneration): PoolGeneration {
  live.add(gen);
  void gen.gone.then(() => live.delete(gen));
  return gen;
}

/** The generation of the request or job this code runs for (pinGeneration, runOn). */
const pinned = new AsyncLocalStorage<PoolGeneration>();
/** The pool's part of the configuration: its size, and `turnPrices`, which every thread reads from its
 *  worker data (`threadSettings`). */
type PoolSettings = Pick<Config, 'workers' | 'poolQueue' | 'turnPrices'>;
let sizing: PoolSettings | undefined;

/** Threads and queue length of the pool made next, and what its threads are told of the configuration
 *  (the service passes its validated configuration; scripts that use the pool directly get the
 *  environment's). */
export function configurePool(settings: PoolSettings): void {
  sizing = settings;
}

/** The generation a task goes to now: the one this request or job is pinned to, else the current one. */
export const activeGeneration = (): PoolGeneration => pinned.getStore() ?? current;

/** Generations alive now (2 while an old map finishes its requests after a swap). */
export const liveGenerations = (): number => live.size;

/**
 * Runs `work` with every task it starts (however deep) on the generation current now, which stays alive
 * until `work` has settled: a request answered from one map from its first task to its last. Nested calls
 * keep the outer pin.
 */
export async function pinGeneration<T>(work: (generation: PoolGeneration) => Promise<T>): Promise<T> {
  const gen = activeGeneration();
  gen.users++;
  try {
    return await pinned.run(gen, () => work(gen));
  } finally {
    gen.users--;
    gen.settle();
  }
}

/** A generation over `patch` merged into the current worker data; not current until `promote`. Its
 *  threads start at once. */
export function newGeneration(patch: Record<string, unknown>): PoolGeneration {
  const gen = made(new PoolGeneration({ ...current.workerData, ...patch }));
  piscinaOf(gen);
  return gen;
}

/** `work` with its tasks on `gen` (e.g. warming a generation up before it is promoted). */
export const runOn = <T>(gen: PoolGeneration, work: () => Promise<T>): Promise<T> => pinned.run(gen, work);

/** Makes `gen` current: new requests go to it; the previous one is destroyed once its users are done. */
export function promote(gen: PoolGeneration): PoolGeneration {
  const old = current;
  current = gen;
  retire(old);
  return old;
}

/** A generation given up (a map that failed to load, or one replaced): destroyed once unused. */
export function retire(gen: PoolGeneration): Promise<void> {
  if (gen === current) throw new Error('the current generation cannot be retired');
  gen.retiring = true;
  gen.settle();
  return gen.gone;
}

const poolSizing = (): PoolSettings => sizing ?? loadConfig();

/** Worker threads of the pool (WAYMARK_WORKERS, or one per core up to 4). */
export function poolSize(): number {
  return poolSizing().workers;
}

export const computePool = (): Piscina => piscinaOf(activeGeneration());

/**
 * Each compute thread's young generation at its largest from the start. V8 starts it small and grows it as a
 * thread allocates, and a full collection (the warm-up's last step) or a quiet spell shrinks it again: its
 * pages are then given back and faulted in anew as it grows. On the 28x36 country a fresh process's first
 * routes avoiding 500 POIs paid ~105 page faults in each compute thread, request after request for the
 * first 6–12; with the size fixed, none. In V8's megabytes, which it doubles on 64-bit builds without pointer
 * compression (Node's): 32 MiB a semi-space, the most it grows to.
 */
const YOUNG_GENERATION_MB = 16;

/**
 * No allocation-site pretenuring: V8 allocates an allocation site's objects straight in the old generation
 * once most of them outlive a young collection. A far route's steps (several hundred objects, kept until
 * its reply is written) do whenever a collection falls in the middle of them; from then on every route's
 * steps were old-generation garbage: each young collection of a compute thread promoted megabytes and took
 * up to 13 ms, and full collections followed. Without it a thread's heap stays flat, its young collections
 * take 1–3 ms, and far routes with steps on 32x32 (each asked after its plain route) answered at p95
 * 14.7 | 14.8 ms instead of 19.5 | 19.6 (kept-alive | new connections; docs/directions.md, "Cost").
 */
const V8_FLAGS = [`--min-semi-space-size=${YOUNG_GENERATION_MB}`, '--no-allocation-site-pretenuring'];

function piscinaOf(gen: PoolGeneration): Piscina {
  if (!gen.piscina) {
    const { workers, poolQueue } = poolSizing();
    // V8 flags (Node takes none in a worker's execArgv): they hold for every isolate made after they are set.
    for (const flag of V8_FLAGS) setFlagsFromString(flag);
    const pool = new Piscina({
      filename: distPath('compute-thread.js'),
      minThreads: workers,
      maxThreads: workers,
      maxQueue: poolQueue,
      idleTimeout: 60_000,
      workerData: { ...gen.workerData, settings: { turnPrices: poolSizing().turnPrices } satisfies ThreadSettings },
      // Node 20.19+ loads an ES module through require() synchronously, and a worker terminated in the
      // middle of that (a pool closed right after it was made) aborts the whole process in V8
      // (`Module::IsGraphAsync ... instantiated module`). Without require(esm), Piscina falls back to
      // import(), which a termination interrupts safely.
      execArgv: [...process.execArgv, '--no-experimental-require-module'],
    });
    // Piscina emits 'error' for a worker that fails with no task in flight (a task's own failure rejects
    // its promise instead); unheard, that event would take the whole process down.
    pool.on('error', (err: unknown) => process.emitWarning(`compute worker failed outside a task: ${String(err)}`));
    gen.piscina = pool;
  }
  return gen.piscina;
}

/** Told of every task that ran: its kernel (the worker export), seconds from queued to done, and
 *  whether it succeeded (for /metrics). */
export type TaskObserver = (kernel: string, seconds: number, ok: boolean) => void;
let taskObserver: TaskObserver | undefined;

export function observeTasks(observer: TaskObserver | undefined): void {
  taskObserver = observer;
}

/** Threads running and tasks waiting for one; undefined before the pool is made (on first use). */
export function poolStats(): { threads: number; queued: number } | undefined {
  const pool = current.piscina;
  return pool && { threads: pool.threads.length, queued: pool.queueSize };
}

/** Threads no task of this process is running or waiting for: work split over them starts at once. */
export function idleThreads(): number {
  const gen = activeGeneration();
  return gen.piscina ? Math.max(0, gen.piscina.options.maxThreads - gen.tasks) : poolSize();
}

/** Runs a named export of the worker module. `ownWork`: the process's own task (a map's warm-up, one per
 *  thread before it serves), not refused for the queue limit that keeps requests from piling up. */
export async function runTask<T>(name: string, payload: unknown, { ownWork = false } = {}): Promise<T> {
  const gen = activeGeneration();
  const p = piscinaOf(gen);
  if (!ownWork && p.queueSize >= p.options.maxQueue) throw new PoolBusyError();
  const started = performance.now();
  let ok = false;
  gen.tasks++;
  try {
    const result = (await p.run(payload, { name })) as T;
    ok = true;
    return result;
  } catch (err) {
    if (err instanceof Error && /queue is full/i.test(err.message)) throw new PoolBusyError();
    throw err;
  } finally {
    gen.tasks--;
    gen.settle();
    taskObserver?.(name, (performance.now() - started) / 1000, ok);
  }
}

/** Destroys every generation's threads now (the process is stopping). */
export async function closePool(): Promise<void> {
  await Promise.all(
    [...live].map(async (gen) => {
      const p = gen.piscina;
      gen.piscina = undefined;
      await p?.destroy();
    }),
  );
}
