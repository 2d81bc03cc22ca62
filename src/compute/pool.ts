import { Piscina } from 'piscina';
import { loadConfig } from '../config.js';
import { distPath } from '../lib/paths.js';

/** Thrown when the pool's queue is full: the HTTP layer answers 503. */
export class PoolBusyError extends Error {
  constructor() {
    super('The routing engine is busy. Retry shortly.');
  }
}

let pool: Piscina | undefined;
let workerData: Record<string, unknown> = {};
let sizing: { workers: number; poolQueue: number } | undefined;

/** Threads and queue length of the pool made next (the service passes its validated configuration;
 *  scripts that use the pool directly get the environment's). */
export function configurePool(settings: { workers: number; poolQueue: number }): void {
  sizing = settings;
}

/** Merges keys into the data every worker receives at start (e.g. the shared map memory under
 *  `routing`); recreates the pool so every worker sees it. */
export async function setWorkerData(patch: Record<string, unknown>): Promise<void> {
  workerData = { ...workerData, ...patch };
  if (pool) {
    const old = pool;
    pool = undefined;
    await old.destroy();
  }
}

const poolSizing = (): { workers: number; poolQueue: number } => sizing ?? loadConfig();

/** Worker threads of the pool (WAYMARK_WORKERS, or one per core up to 4). */
export function poolSize(): number {
  return poolSizing().workers;
}

export function computePool(): Piscina {
  if (!pool) {
    const { workers, poolQueue } = poolSizing();
    pool = new Piscina({
      filename: distPath('compute-thread.js'),
      minThreads: workers,
      maxThreads: workers,
      maxQueue: poolQueue,
      idleTimeout: 60_000,
      workerData,
      // Node 20.19+ loads an ES module through require() synchronously, and a worker terminated in the
      // middle of that (a pool closed right after it was made) aborts the whole process in V8
      // (`Module::IsGraphAsync ... instantiated module`). Without require(esm), Piscina falls back to
      // import(), which a termination interrupts safely.
      execArgv: [...process.execArgv, '--no-experimental-require-module'],
    });
    // Piscina emits 'error' for a worker that fails with no task in flight (a task's own failure rejects
    // its promise instead); unheard, that event would take the whole process down.
    pool.on('error', (err: unknown) => process.emitWarning(`compute worker failed outside a task: ${String(err)}`));
  }
  return pool;
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
  return pool && { threads: pool.threads.length, queued: pool.queueSize };
}

/** Tasks of this process running or queued in the pool. */
let tasksInFlight = 0;

/** Threads no task of this process is running or waiting for: work split over them starts at once. */
export function idleThreads(): number {
  return pool ? Math.max(0, pool.options.maxThreads - tasksInFlight) : poolSize();
}

/** Runs a named export of the worker module. */
export async function runTask<T>(name: string, payload: unknown): Promise<T> {
  const p = computePool();
  if (p.queueSize >= p.options.maxQueue) throw new PoolBusyError();
  const started = performance.now();
  let ok = false;
  tasksInFlight++;
  try {
    const result = (await p.run(payload, { name })) as T;
    ok = true;
    return result;
  } catch (err) {
    if (err instanceof Error && /queue is full/i.test(err.message)) throw new PoolBusyError();
    throw err;
  } finally {
    tasksInFlight--;
    taskObserver?.(name, (performance.now() - started) / 1000, ok);
  }
}

export async function closePool(): Promise<void> {
  const p = pool;
  pool = undefined;
  if (p) await p.destroy();
}
