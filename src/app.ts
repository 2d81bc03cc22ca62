import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { attributeRoutes } from './api/attributes/routes.js';
import { KeyStore, SERVER_APPLICATION } from './auth/authenticate.js';
import { infoRoutes } from './api/keys/routes.js';
import { RateLimiter } from './auth/rate-limit.js';
import { UsageRecorder } from './auth/usage.js';
import { categoryRoutes } from './api/categories/routes.js';
import { closePool, configurePool, pinGeneration } from './compute/pool.js';
import type { Config } from './config.js';
import { connect, openConnections, type Sql } from './db/client.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { embeddedOwnerUrl, OwnerBusyError, startEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { startGeocoding, type GeocodingRunner } from './geocoding/runner.js';
import { geoRoutes } from './api/geo/routes.js';
import { ensureDefaultMap, stderrProgress } from './map/build.js';
import { transparentHugePages } from './lib/host.js';
import { activeMap, collectThreadGarbage, loadedProfiles, loadMap } from './engine/engine.js';
import type { ThreadCollection } from './engine/warm-up.js';
import { MapSwaps } from './ops/map-swap.js';
import { Router, type Route } from './http/router.js';
import { docsRoutes } from './docs/routes.js';
import { z } from 'zod';
import type { Operation } from './http/openapi.js';
import { PROFILES } from './map/graphs/profiles.js';
import { assertNativeUws, startHttpServer } from './http/server.js';
import { importRoutes } from './api/imports/routes.js';
import { startJobRunner } from './job-kinds.js';
import { messagingRoutes } from './api/messaging/routes.js';
import { Metrics, metricsRoute } from './ops/metrics.js';
import { readyRoute } from './ops/ready.js';
import { warmAvoidanceReads } from './api/routes/avoid-selection.js';
import { addWarmUps, type HandlerWarmUp, WARM_UP_HEADER, warmHandlers, warmSocket, warmUpAuth } from './ops/warm-handlers.js';
import { poiRoutes } from './api/pois/routes.js';
import { clustersEndpoint } from './api/clusters/routes.js';
import { optimizeEndpoint } from './api/optimize/routes.js';
import { optimizationRoutes } from './api/optimizations/routes.js';
import { routesEndpoint } from './api/routes/routes.js';
import { detoursEndpoint } from './api/routes/detours.js';
import { matrixEndpoint } from './api/matrix/routes.js';
import { isochronesEndpoint } from './api/isochrones/routes.js';
import { nearestEndpoint } from './api/nearest/routes.js';
import { tileRoutes } from './api/tiles/routes.js';
import { backgroundError, setBackgroundLog } from './lib/background-errors.js';
import { collectGarbage } from './lib/gc.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseUnavailable } from './db/errors.js';

export interface App {
  port: number;
  sql: Sql;
  log: Logger;
  databaseUrl: string;
  /** The map directory loaded at start (links resolved); undefined when routing and geocoding are
   *  unavailable. A swap may have replaced it since: engine.ts' activeMap says which map answers. */
  mapDir: string | undefined;
  /** Loads the map WAYMARK_MAP's link points at now if it is not the one serving, a refused one too
   *  (SIGHUP); undefined when WAYMARK_MAP is not set (the bundled map, or off). */
  reloadMap?: () => Promise<void>;
  /** Background geocoding in this process: off with WAYMARK_JOBS=off or without a map. */
  geocoding: GeocodingRunner | undefined;
  /** Requests read and not yet answered (0 when idle: nothing leaks from a client that went away). */
  readonly inFlight: number;
  /** Graceful stop (see RunningServer.close and the shutdown timeout); safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens the database (the configured server, else the embedded one), migrates it. The embedded database
 * has one owner: with `share` (the CLI's commands) a process finding it owned goes through the owner's
 * connection, so what it writes is what the running service sees; without (`serve`, `start`) it refuses.
 */
export async function openDatabase(
  config: Config,
  log: Logger,
  opts: { share?: boolean; wait?: boolean } = {},
): Promise<{ sql: Sql; url: string; embedded?: EmbeddedDatabase }> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    for (;;) {
      const ownerUrl = opts.share ? await embeddedOwnerUrl(config.dataDir) : undefined;
      if (ownerUrl) {
        log.info({ dir: config.dataDir, url: ownerUrl }, 'the embedded database is owned by a running waymark: using its connection');
        url = ownerUrl;
        break;
      }
      log.info({ dir: config.dataDir }, 'no DATABASE_URL: starting the embedded PGlite database');
      try {
        embedded = await startEmbeddedDatabase(config.dataDir);
      } catch (err) {
        // Another process took it between the look and the start: go through it after all.
        if (err instanceof OwnerBusyError && opts.share) continue;
        if (err instanceof OwnerBusyError) {
          const { pid, url: at } = err.owner;
          throw new Error(
            `the embedded database in ${config.dataDir} is in use by waymark process ${pid}${at ? ` (${at})` : ''}: ` +
              'stop that process first, use another WAYMARK_DATA_DIR, or set DATABASE_URL to a PostgreSQL server',
            { cause: err },
          );
        }
        throw err;
      }
      url = embedded.url;
      break;
    }
  }
  // PGlite is one session: several connections would interleave their transactions in it.
  const sql = connect(url, config.databaseUrl ? config.dbPool : 1, { application_name: opts.share ? 'waymark cli' : SERVER_APPLICATION });
  try {
    const applied = await migrateWhenUp(sql, log, opts.wait && !embedded ? config.databaseWaitMs : 0);
    if (applied.length) log.info({ applied }, 'migrations applied');
  } catch (err) {
    await sql.end({ timeout: 1 }).catch((e) => backgroundError('start-cleanup', e, { step: 'database pool' }));
    await embedded?.stop().catch((e) => backgroundError('start-cleanup', e, { step: 'embedded database' }));
    throw err;
  }
  return { sql, url, embedded };
}

/**
 * Migrates once PostgreSQL answers, trying again for up to `waitMs` while it does not: a service started
 * beside its database (compose, a host booting), or one whose start is starved of CPU: two starts of
 * `serve` in a row under a compiler on both cores stopped with CONNECT_TIMEOUT. Most likely the map's
 * load on the same thread kept it from its timers and its socket's events past the 5 s connect timeout,
 * and the timer ran first.
 */
async function migrateWhenUp(sql: Sql, log: Logger, waitMs: number): Promise<string[]> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrate(sql);
    } catch (err) {
      const waited = performance.now() - started;
      if (!isDatabaseUnavailable(err) || waited >= waitMs) throw err;
      log.warn({ attempt, waitedMs: Math.round(waited), waitMs, reason: (err as Error).message }, 'the database does not answer yet: trying again');
      await sleep(Math.min(1000, waitMs - waited));
    }
  }
}

/**
 * Loads the map (WAYMARK_MAP, else the bundled extract's, built on first use). A map that cannot be
 * served as configured stops the start with the reason: a server that says it is up and answers 503 to
 * every route helps nobody. WAYMARK_MAP=off runs without routing and geocoding on purpose.
 */
export async function openMap(config: Config, log: Logger): Promise<string | undefined> {
  if (config.mapDir === 'off') return undefined;
  const dir = config.mapDir ?? (await ensureDefaultMap(config.dataDir, process.stderr.isTTY ? stderrProgress() : undefined));
  const started = Date.now();
  const map = await loadMap(dir, config.profiles);
  // The kernel's huge pages mode goes with the load time: it sets most of it on a virtual machine (docs/operations.md).
  const hugePages = transparentHugePages();
  log.info(
    { id: map.id, dir: map.dir, bytes: map.bytes, profiles: map.profiles, ms: Date.now() - started, warmUpMs: map.warmUp.ms, hugePages },
    'map loaded (compute threads warmed up on it)',
  );
  return map.dir;
}

const healthSchema = z
  .object({
    status: z.literal('ok'),
    routing: z.object({ profiles: z.array(z.enum(PROFILES)).describe('The routing profiles this process serves (none without a map).') }),
  })
  .meta({ id: 'Health' });

export const healthDoc: Operation = {
  operationId: 'getHealth',
  tag: 'Service',
  summary: 'Liveness',
  description: 'No key needed.',
  responses: { 200: { description: 'The process is up.', schema: healthSchema } },
};

/** The operator's routes as a process without a map and with metrics off serves them: what the OpenAPI
 *  document is built from where no service runs (the build's docs/openapi.json, the contract tests), so
 *  that it has the same operations as the one a running service answers. */
const documentedOps = (sql: Sql): Route[] => [readyRoute({ sql, profiles: 'off' }), metricsRoute('off', async () => '')];

/** The files of the map answering now (this request's), for the routes that read them. */
const activeMapFiles = () => activeMap()?.files;

/** The API's routes (the ones the OpenAPI document describes), with `ops` (the operator's: readiness,
 *  metrics; stand-ins when not given), the document and its reference page. */
export function apiRoutes(sql: Sql, usage: UsageRecorder, readSql: Sql = sql, ops: Route[] = documentedOps(sql), mapDir?: string): Route[] {
  const routes: Route[] = [
    // Liveness, and the routing profiles this process answers for (WAYMARK_PROFILES may load a subset).
    {
      method: 'GET',
      path: '/health',
      public: true,
      openapi: healthDoc,
      handler: () => ({ status: 200, body: { status: 'ok', routing: { profiles: loadedProfiles() } } }),
    },
    ...infoRoutes(sql, usage),
    ...poiRoutes(sql, readSql),
    ...attributeRoutes(sql),
    ...categoryRoutes(sql),
    ...importRoutes(sql),
    ...geoRoutes(sql, mapDir),
    ...messagingRoutes(sql),
    ...routesEndpoint(sql),
    ...detoursEndpoint(sql),
    ...matrixEndpoint(sql),
    ...isochronesEndpoint(sql),
    ...nearestEndpoint(),
    ...optimizeEndpoint(sql),
    ...optimizationRoutes(sql),
    ...clustersEndpoint(sql),
    ...tileRoutes(mapDir === undefined ? () => undefined : activeMapFiles),
    ...ops,
  ];
  return [...routes, ...docsRoutes(routes)];
}

export function buildRouter(sql: Sql, usage: UsageRecorder, readSql: Sql = sql, config?: Config, ops?: Route[], mapDir?: string): Router {
  const router = new Router();
  const routes = apiRoutes(sql, usage, readSql, ops, mapDir);
  for (const route of routes) router.add(route);
  const dashboard = config && { idleMinutes: config.dashboardIdleMinutes, secureCookie: config.dashboardSecureCookie, trustedProxies: config.trustedProxies };
  for (const route of dashboardRoutes(sql, usage, routes, dashboard)) router.add(route);
  return router;
}

export async function startApp(config: Config, log: Logger = pino({ level: config.logLevel })): Promise<App> {
  assertNativeUws();
  setBackgroundLog(log);
  configurePool(config);
  // The map loads (files read and checked, compute workers started on their kernels) while the database
  // starts: with the embedded database each is about half of a start, and they use different threads.
  const mapLoading = openMap(config, log);
  mapLoading.catch(() => {}); // awaited below; a failure then stops the start
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(config, log, { wait: true });
  } catch (err) {
    // The database's failure is the one the start reports; the map's, if any, would come second.
    await mapLoading.catch(() => {});
    await closePool();
    throw err;
  }
  const { sql, url, embedded } = database;
  // The limiter's trips get their own connection so they never queue behind data queries; PGlite is
  // one session, so the embedded database shares the single connection. Its takes commit without
  // waiting for the disk: the flush (1–8 ms here) was paid by every team's first request after a quiet
  // second, and only a crash of PostgreSQL itself can lose a take (docs/operations.md, "What an operator can count on").
  const limiterSql = embedded ? sql : connect(url, 1, { synchronous_commit: 'off' });
  // Batched POI reads get two connections of their own: their batches pipeline there rather than each
  // waking another idle connection of the pool (≈20% more reads per second in bench/http). Their one
  // statement always has the same good plan; left to choose, PostgreSQL planned it anew for every batch
  // (~1 ms of its CPU each, ten times the execution).
  const readSql = embedded ? sql : connect(url, 2, { plan_cache_mode: 'force_generic_plan' });
  const keys = new KeyStore(sql);
  const limiter = new RateLimiter(limiterSql);
  const usage = new UsageRecorder(sql);
  // A map named by WAYMARK_MAP may be swapped while serving (ops/map-swap.ts); the bundled one is not.
  const swaps = config.mapDir && config.mapDir !== 'off' ? new MapSwaps({ link: config.mapDir, profiles: config.profiles, log }) : undefined;
  const metrics = new Metrics({
    sql,
    pools: embedded ? { queries: sql } : { queries: sql, 'rate-limit': limiterSql, reads: readSql },
    access: config.metrics,
    swaps,
  });
  let jobs: Awaited<ReturnType<typeof startJobRunner>> | undefined;
  let geocoding: App['geocoding'];
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  // Also what a start that fails part-way runs, so nothing it opened is left behind. The HTTP drain and
  // the background work stop side by side within the shutdown timeout; what needs the database to close
  // (usage counts, unused rate-limit leases) goes after the last request, and the database last.
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const grace = config.shutdownTimeoutMs;
      swaps?.stop();
      await Promise.allSettled([server?.close(grace), geocoding?.stop(), jobs?.stop(grace)]);
      metrics.close();
      await Promise.allSettled([usage.close(), limiter.close(), keys.close(), closePool()]);
      const pools = [...new Set([limiterSql, readSql, sql])];
      await Promise.allSettled(pools.map((p) => p.end({ timeout: 2 })));
      await embedded?.stop();
    })());
  try {
    await keys.listen();
    usage.start();
    const mapDir = await mapLoading;
    jobs = config.jobs ? await startJobRunner(sql, log, { leaseMs: config.jobLeaseMs, mapDir }) : undefined;
    geocoding =
      config.jobs && mapDir ? await startGeocoding(sql, { mapDir, log: log.child({ component: 'geocoding' }), leaseMs: config.jobLeaseMs }) : undefined;
    const own: { warming: boolean; handlers?: HandlerWarmUp; collected?: ThreadCollection[] } = { warming: Boolean(mapDir) };
    const warmToken = randomBytes(16).toString('hex');
    const warmAuth = warmUpAuth();
    const ops = [readyRoute({ sql, profiles: mapDir ? config.profiles : 'off', swaps, requests: () => own }), metrics.route()];
    const router = buildRouter(sql, usage, readSql, config, ops, mapDir);
    // A fresh process's first requests would pay for what runs here (ops/warm-handlers.ts): it is paid
    // before the server listens, so before /ready can say 200.
    await Promise.all([...new Set([sql, limiterSql, readSql])].map(openConnections));
    await Promise.all([keys.warm(sql.options.max), limiter.warm(), mapDir && warmAvoidanceReads(sql, sql.options.max)]);
    if (mapDir) {
      own.handlers = await warmHandlers(router, log, warmAuth);
      log.info(own.handlers, 'request handlers warmed up');
    }
    server = await startHttpServer(
      {
        router,
        keys,
        limiter,
        usage,
        log,
        observe: (ctx, route, status, started) => metrics.observe(ctx, route, status, started),
        // The process's own warm-up requests (warmSocket), answered as the warm-up's team: not the traffic
        // the metrics, the log and the usage count.
        own: (ctx) => (own.warming && ctx.headers[WARM_UP_HEADER] === warmToken ? warmAuth : undefined),
        // Every request answers from the map current when it arrived, all its compute tasks included,
        // and says which (a swap meanwhile does not reach it).
        scope: (ctx, run) =>
          pinGeneration(() => {
            const map = activeMap();
            if (map) ctx.responseHeaders['X-Waymark-Map'] = map.id;
            return run();
          }),
      },
      config.host,
      config.port,
      { bodyTimeoutMs: config.bodyTimeoutMs },
    );
    if (own.warming) {
      const socket = await warmSocket(config.host, server.port, warmToken);
      log.info({ socket }, 'request reading and sending warmed up');
      // The warm-up's garbage, every thread's, is collected now rather than during the first requests (a
      // 33–64 ms pause of the main thread on the 10x10 country; its key lookup 33–49 ms instead of 1). A
      // full collection also throws away compiled code that held on to what it freed: one more round of
      // the handlers compiles it again, and leaves little garbage. Not of the socket: reading its own far
      // routes' answers (0.4–1.1 MB each) grew the heap to where the first request after ready met a full
      // collection (32x32: 21 ms of the main thread's marking during it).
      own.collected = await collectThreadGarbage();
      collectGarbage();
      // The POI reads' rows again: the warm-up's team has none, and V8's trace showed the driver's row
      // parsing (DataRow, readInt32BE…) optimised during the first two avoiding routes after ready.
      if (mapDir) await warmAvoidanceReads(sql, 1);
      const again = await warmHandlers(router, log, warmAuth, { rounds: 1 });
      own.handlers = { ...addWarmUps(own.handlers!, again), socket };
      log.info({ threads: own.collected, againMs: again.ms }, 'warm-up garbage collected, the handlers warmed once more');
    }
    own.warming = false;
    log.info({ port: server.port, map: activeMap()?.id }, 'listening');
    swaps?.watch();
    const running = server;
    return {
      port: server.port,
      sql,
      log,
      databaseUrl: url,
      mapDir,
      reloadMap: swaps && (() => swaps.check(true)),
      geocoding,
      close: stop,
      get inFlight() {
        return running.inFlight;
      },
    };
  } catch (err) {
    await stop().catch((e) => backgroundError('start-cleanup', e, { step: 'stop' }));
    throw err;
  }
}
