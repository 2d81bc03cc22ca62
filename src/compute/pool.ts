import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { distPath } from '../paths.js';

/** Thrown when the pool's queue is full: the HTTP layer answers 503. */
export class PoolBusyError extends Error {
  constructor() {
    super('The routing engine is busy. Retry shortly.');
  }
}

let pool: Piscina | undefined;
let workerData: Record<string, unknown> = {};

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

/** Worker threads of the pool: WAYMARK_WORKERS, or one per core up to 4. */
export function poolSize(): number {
  return Number(process.env.WAYMARK_WORKERS ?? Math.max(1, Math.min(4, availableParallelism())));
}

export function computePool(): Piscina {
  if (!pool) {
    const threads = poolSize();
    pool = new Piscina({
      filename: distPath('compute', 'worker.js'),
      minThreads: threads,
      maxThreads: threads,
      maxQueue: Number(process.env.WAYMARK_POOL_QUEUE ?? 256),
      idleTimeout: 60_000,
      workerData,
    });
    // Piscina emits 'error' for a worker that fails with no task in flight (a task's own failure rejects
    // its promise instead); unheard, that event would take the whole process down.
    pool.on('error', (err: unknown) => process.emitWarning(`compute worker failed outside a task: ${String(err)}`));
  }
  return pool;
}

/** Runs a named export of the worker module. */
export async function runTask<T>(name: string, payload: unknown): Promise<T> {
  const p = computePool();
  if (p.queueSize >= p.options.maxQueue) throw new PoolBusyError();
  try {
    return (await p.run(payload, { name })) as T;
  } catch (err) {
    if (err instanceof Error && /queue is full/i.test(err.message)) throw new PoolBusyError();
    throw err;
  }
}

export async function closePool(): Promise<void> {
  const p = pool;
  pool = undefined;
  if (p) await p.destroy();
}
