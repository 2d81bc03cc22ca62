import { computePool, poolStats } from '../compute/pool.js';
import type { Sql } from '../db/client.js';
import { pendingMigrations } from '../db/migrate.js';
import { z } from 'zod';
import type { Operation } from '../http/openapi.js';
import type { Route } from '../http/router.js';
import type { ProfileName } from '../map/graphs/profiles.js';
import { activeMap } from '../engine/engine.js';
import type { MapSwaps } from './map-swap.js';
import type { HandlerWarmUp } from './warm-handlers.js';
import type { ThreadCollection } from '../engine/warm-up.js';

/** A database that does not answer within this long counts as unreachable: a probe must not hang. */
const DATABASE_TIMEOUT_MS = 2000;

export interface ReadinessDeps {
  sql: Sql;
  /** The profiles the configured map must have loaded; 'off' when the process runs without a map. */
  profiles: readonly ProfileName[] | 'off';
  /** Map swaps (WAYMARK_MAP set): a map loading, the last refused. */
  swaps?: MapSwaps;
  /** The process's own warm-up requests (ops/warm-handlers.ts): under way, or what they answered. */
  requests?: () => { warming: boolean; handlers?: HandlerWarmUp; collected?: ThreadCollection[] };
}

interface Part {
  ok: boolean;
  [detail: string]: unknown;
}

export interface Readiness {
  status: 'ready' | 'not ready';
  database: Part;
  migrations: Part;
  map: Part;
  pool: Part;
}

/** Each part the service needs to answer requests, checked now. */
export async function readiness(deps: ReadinessDeps): Promise<Readiness> {
  let database: Part;
  let migrations: Part;
  try {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_TIMEOUT_MS} ms`)), DATABASE_TIMEOUT_MS);
    });
    const pending = await Promise.race([pendingMigrations(deps.sql), timeout]).finally(() => clearTimeout(timer));
    database = { ok: true };
    migrations = { ok: pending.length === 0, pending };
  } catch (err) {
    database = { ok: false, error: err instanceof Error ? err.message : String(err) };
    migrations = { ok: false, error: 'unknown while the database is unreachable' };
  }
  const m = activeMap();
  const loaded = m?.profiles ?? [];
  const swaps = deps.swaps;
  const own = deps.requests?.();
  const warming = own?.warming ?? false;
  const map: Part =
    deps.profiles === 'off'
      ? { ok: true, profiles: [], note: 'WAYMARK_MAP=off: routing and geocoding are not served' }
      : {
          ok: deps.profiles.every((p) => loaded.includes(p)) && !warming,
          profiles: loaded,
          ...(warming && { warming }),
          ...(own?.handlers && { request_warm_up: own.handlers }),
          ...(own?.collected && { garbage_collected: own.collected.map((c) => ({ ms: c.ms, semi_space_bytes: c.semiSpaceBytes })) }),
          expected: deps.profiles,
          ...(m && {
            id: m.id,
            dir: m.dir,
            built_at: m.manifest.builtAt,
            warm_up: {
              ms: m.warmUp.ms,
              threads: m.warmUp.threads.map((t) => ({ thread: t.thread, ms: t.ms, requests: t.counts, paged_in_bytes: t.pagedInBytes })),
            },
          }),
          ...(swaps?.loading && { loading: swaps.loading }),
          ...(swaps?.lastRefused && { last_refused: swaps.lastRefused }),
        };
  computePool();
  const threads = poolStats()?.threads ?? 0;
  const pool: Part = { ok: threads > 0, threads };
  const ok = database.ok && migrations.ok && map.ok && pool.ok;
  return { status: ok ? 'ready' : 'not ready', database, migrations, map, pool };
}

const part = (description: string, details: Record<string, z.ZodType>) => z.looseObject({ ok: z.boolean(), ...details }).describe(description);
const unreachable = { error: z.string().optional().describe('Why the part is not ok, when the check failed.') };

const readinessSchema = z
  .object({
    status: z.enum(['ready', 'not ready']),
    database: part('Answers within 2 s.', unreachable),
    migrations: part('Every migration this version expects is applied.', {
      pending: z.array(z.string()).optional().describe('The migrations not yet applied.'),
      ...unreachable,
    }),
    map: part('The configured routing profiles are loaded, and every compute thread has warmed up on them.', {
      profiles: z.array(z.string()).describe('The profiles loaded.'),
      expected: z.array(z.string()).optional().describe('The profiles configured (WAYMARK_PROFILES).'),
      id: z.string().optional().describe("The map answering new requests: its manifest's SHA-256, 12 hex digits (the `X-Waymark-Map` header of each answer)."),
      dir: z.string().optional().describe('Its directory, links resolved.'),
      built_at: z.string().optional().describe('When `waymark map build` made it.'),
      warm_up: z
        .object({
          ms: z.int().describe('From the first thread starting its warm-up to the last finishing.'),
          threads: z.array(
            z.object({
              thread: z.int(),
              ms: z.int(),
              requests: z
                .record(z.string(), z.int())
                .describe('Requests run on the map before it served, by kind (route, avoid, matrix, isochrone, geocode, search).'),
              paged_in_bytes: z.int().describe("Bytes of the thread's search scratch for driving-car made resident before it served."),
            }),
          ),
        })
        .optional()
        .describe('What each compute thread ran on the map before it answered its first request.'),
      loading: z.string().optional().describe('A map being loaded beside this one (WAYMARK_MAP moved): it answers once loaded and warm.'),
      last_refused: z
        .object({ dir: z.string(), reason: z.string(), at: z.string() })
        .optional()
        .describe('The last map WAYMARK_MAP pointed at that failed to load; the map above kept serving.'),
      warming: z
        .boolean()
        .optional()
        .describe('True while the process sends itself warm-up requests: the first requests of a fresh process would pay for what they run.'),
      garbage_collected: z
        .array(
          z.object({
            ms: z.int(),
            semi_space_bytes: z
              .object({ before: z.int(), after: z.int() })
              .describe("A semi-space of the thread's young generation (V8's new space), before the collection and after it."),
          }),
        )
        .optional()
        .describe(
          "The warm-up's last step in each compute thread: a full garbage collection, so that the first requests do not pay for the warm-up's garbage.",
        ),
      request_warm_up: z
        .object({
          ms: z.int(),
          rounds: z.int().describe('Times the set of requests (each profile, 10 waypoints, steps, an avoided area, optimize, matrix, isochrone) ran.'),
          statuses: z.record(z.string(), z.int()).describe('Their answers by HTTP status (a 422: a sample point the profile cannot reach).'),
          socket: z
            .record(z.string(), z.int())
            .optional()
            .describe("The same set sent through the server's own socket (twice, before and after a garbage collection), answers by HTTP status."),
        })
        .optional()
        .describe("The requests this process ran through its own handlers before it listened (once per process; a swapped map's threads warm up as above)."),
      note: z.string().optional(),
    }),
    pool: part('The compute worker threads run.', { threads: z.int() }),
  })
  .meta({
    id: 'Readiness',
    description: 'Each part the service needs to answer requests, checked at the request.',
    examples: [
      {
        status: 'ready',
        database: { ok: true },
        migrations: { ok: true, pending: [] },
        map: { ok: true, profiles: ['driving-car', 'foot-walking'], expected: ['driving-car', 'foot-walking'] },
        pool: { ok: true, threads: 2 },
      },
    ],
  });

const noStore = { 'Cache-Control': { description: '`no-store`.', schema: { type: 'string' }, required: true } };

export const readyDoc: Operation = {
  operationId: 'getReadiness',
  tag: 'Operator',
  summary: 'Readiness',
  description:
    "Whether this process can answer requests now: the database answers, the migrations are applied, the map's profiles are loaded and the worker threads run. For load balancers and orchestrators (route traffic on this; /health is liveness). No key needed.",
  responses: {
    200: { description: 'Every part is ok.', schema: readinessSchema, headers: noStore },
    503: {
      description: 'A part is not ok: the same body, the failing parts with `ok: false`.',
      schema: readinessSchema,
      headers: noStore,
      example: {
        status: 'not ready',
        database: { ok: false, error: 'no answer within 2000 ms' },
        migrations: { ok: false, error: 'unknown while the database is unreachable' },
        map: { ok: true, profiles: ['driving-car'], expected: ['driving-car'] },
        pool: { ok: true, threads: 2 },
      },
    },
  },
};

/** GET /ready: 200 when every part is, 503 with the same body when one is not. GET /health stays the
 *  liveness check (the process answers), so an orchestrator restarts on that and routes on this. */
export function readyRoute(deps: ReadinessDeps): Route {
  return {
    method: 'GET',
    path: '/ready',
    public: true,
    openapi: readyDoc,
    handler: async () => {
      const body = await readiness(deps);
      return { status: body.status === 'ready' ? 200 : 503, body, headers: { 'Cache-Control': 'no-store' } };
    },
  };
}
