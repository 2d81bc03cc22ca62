import client from 'prom-client';
import { liveGenerations, observeTasks, poolStats as computeStats } from '../compute/pool.js';
import { activeMap } from '../engine/engine.js';
import type { MapSwaps } from './map-swap.js';
import { poolStats, type Sql, retryable } from '../db/client.js';
import type { RequestContext } from '../http/context.js';
import { errorSchema, type Operation } from '../http/openapi.js';
import { RawJson, type Route } from '../http/router.js';
import { backgroundErrorCounts } from '../lib/background-errors.js';

// Process metrics (CPU, memory, event loop lag, GC) are the process's, whatever app it runs: one
// registry for them, made once (prom-client's collectors watch the process for good once started).
let processRegistry: client.Registry | undefined;
const processMetrics = (): client.Registry => {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};

export const metricsDoc: Operation = {
  operationId: 'getMetrics',
  tag: 'Operator',
  summary: 'Prometheus metrics',
  description:
    "The Prometheus text exposition format: requests by route template, method and status with their durations, compute pool tasks, queue depth and threads, PostgreSQL pool use, background jobs by state, and the process's CPU, memory, event loop and GC. No key: by default (WAYMARK_METRICS=loopback) only clients on this host get it, anyone else a 404; WAYMARK_METRICS=on serves everyone, off no one.",
  responses: {
    200: { description: 'The metrics.', contentTypes: ['text/plain'], contentSchema: { type: 'string', description: 'Prometheus text format 0.0.4.' } },
    404: {
      description:
        'Metrics are off (WAYMARK_METRICS=off), or the client is not on this host while they are for loopback only: answered as if there were no such path.',
      schema: errorSchema,
      example: { message: 'Not found.' },
    },
  },
};

export interface MetricsDeps {
  /** The pools to report, by the name they get as the `pool` label. */
  pools: Record<string, Sql>;
  /** Where the jobs are counted by state. */
  sql: Sql;
  /** 'loopback': only clients on this host may read /metrics; 'on': anyone; 'off': nobody (404). */
  access: 'loopback' | 'on' | 'off';
  /** Map swaps of this process (WAYMARK_MAP set), counted by outcome. */
  swaps?: MapSwaps;
}

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A route template for requests that matched none: paths as sent would make a series per URL. */
const UNMATCHED = 'unmatched';

export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests = new client.Counter({
    name: 'waymark_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly duration = new client.Histogram({
    name: 'waymark_http_request_duration_seconds',
    help: 'From the request read to its answer sent, by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly tasks = new client.Histogram({
    name: 'waymark_compute_task_duration_seconds',
    help: 'Compute pool tasks from queued to done, by kernel and outcome',
    labelNames: ['kernel', 'outcome'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  /** The series of a (route, method, status): prom-client hashes the labels on every call otherwise. */
  private readonly series = new Map<string, { count: client.Counter.Internal; time: client.Histogram.Internal<string> }>();

  constructor(private readonly deps: MetricsDeps) {
    const { registry } = this;
    new client.Gauge({
      name: 'waymark_compute_queue_depth',
      help: 'Compute tasks waiting for a worker thread',
      registers: [registry],
      collect() {
        this.set(computeStats()?.queued ?? 0);
      },
    });
    new client.Gauge({
      name: 'waymark_compute_threads',
      help: 'Compute worker threads running',
      registers: [registry],
      collect() {
        this.set(computeStats()?.threads ?? 0);
      },
    });
    const dbGauge = (name: string, help: string, pick: (s: NonNullable<ReturnType<typeof poolStats>>) => number) =>
      new client.Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers: [registry],
        collect() {
          for (const [pool, sql] of Object.entries(deps.pools)) {
            const s = poolStats(sql);
            if (s) this.set({ pool }, pick(s));
          }
        },
      });
    dbGauge('waymark_db_pool_in_use', 'Statements and transactions in flight on the PostgreSQL pool (waiting for a connection included)', (s) => s.busy);
    dbGauge('waymark_db_pool_connections', 'PostgreSQL connections open in the pool', (s) => s.open);
    dbGauge('waymark_db_pool_size', 'Most PostgreSQL connections the pool opens', (s) => s.max);
    // The job counts come from the database: while it does not answer they are left out (a 0 would read as
    // "no work waiting"), and waymark_database_up says why.
    new client.Gauge({
      name: 'waymark_jobs',
      help: 'Background jobs by state (queued, running, failed); absent while the database does not answer',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const rows = await retryable(deps.sql<{ status: string; n: number }[]>`SELECT status, count(*)::int AS n FROM jobs GROUP BY status`).catch(
          () => undefined,
        );
        this.reset();
        if (rows) for (const state of ['queued', 'running', 'failed']) this.set({ state }, rows.find((r) => r.status === state)?.n ?? 0);
      },
    });
    new client.Gauge({
      name: 'waymark_database_up',
      help: 'Whether PostgreSQL answered the last scrape (1) or not (0)',
      registers: [registry],
      async collect() {
        this.set((await retryable(deps.sql`SELECT 1`).catch(() => undefined)) ? 1 : 0);
      },
    });
    new client.Counter({
      name: 'waymark_background_errors_total',
      help: 'Failures of background work (usage writes, rate-limit give-backs, key cache refreshes, listeners…), by task; each is also logged',
      labelNames: ['task'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [task, n] of backgroundErrorCounts()) this.inc({ task }, n);
      },
    });
    new client.Gauge({
      name: 'waymark_map_info',
      help: 'The map new requests are answered from (1), by its id (the X-Waymark-Map header), directory and build time',
      labelNames: ['id', 'dir', 'built_at'],
      registers: [registry],
      collect() {
        this.reset();
        const map = activeMap();
        if (map) this.set({ id: map.id, dir: map.dir, built_at: map.manifest.builtAt }, 1);
      },
    });
    new client.Gauge({
      name: 'waymark_maps_loaded',
      help: 'Maps in memory with their compute threads: 2 while the one replaced by a swap finishes its requests',
      registers: [registry],
      collect() {
        this.set(activeMap() ? liveGenerations() : 0);
      },
    });
    new client.Counter({
      name: 'waymark_map_swaps_total',
      help: 'Maps loaded while serving (WAYMARK_MAP moved to another map), by result: activated, or refused (it did not load; the map serving stayed)',
      labelNames: ['result'],
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ result: 'activated' }, deps.swaps?.activated ?? 0);
        this.inc({ result: 'refused' }, deps.swaps?.refused ?? 0);
      },
    });
    observeTasks((kernel, seconds, ok) => this.tasks.observe({ kernel, outcome: ok ? 'ok' : 'error' }, seconds));
  }

  /** Called by the server once a reply is sent. */
  observe(ctx: RequestContext, route: string | undefined, status: number, startedMs: number): void {
    const key = `${ctx.method} ${route ?? UNMATCHED} ${status}`;
    let s = this.series.get(key);
    if (!s) {
      const labels = { route: route ?? UNMATCHED, method: ctx.method, status: String(status) };
      this.series.set(key, (s = { count: this.requests.labels(labels), time: this.duration.labels(labels) }));
    }
    s.count.inc();
    s.time.observe((performance.now() - startedMs) / 1000);
  }

  async text(): Promise<string> {
    return (await processMetrics().metrics()) + (await this.registry.metrics());
  }

  /** GET /metrics, in the Prometheus text format; not behind an API key, so by default only for this host. */
  route(): Route {
    return metricsRoute(this.deps.access, () => this.text());
  }

  close(): void {
    observeTasks(undefined);
  }
}

/** GET /metrics answering `text()` to the clients `access` lets in, 404 to the others. */
export function metricsRoute(access: MetricsDeps['access'], text: () => Promise<string>): Route {
  return {
    method: 'GET',
    path: '/metrics',
    public: true,
    openapi: metricsDoc,
    peer: true,
    handler: async (ctx) => {
      if (access === 'off' || (access === 'loopback' && !isLoopback(ctx.peer))) {
        return { status: 404, body: { message: 'Not found.' } };
      }
      return { status: 200, body: new RawJson(await text()), headers: { 'Content-Type': client.prometheusContentType } };
    },
  };
}

/** 127.0.0.0/8 and ::1, as uWS writes them (IPv6 in full, IPv4 possibly mapped into IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  if (/^(::ffff:)?127\./.test(a) || /^(0000:){5}ffff:7f/.test(a)) return true;
  return a === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(a);
}
