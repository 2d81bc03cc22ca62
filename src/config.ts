import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PROFILES, type ProfileName } from './map/graphs/profiles.js';
import { projectRoot } from './lib/paths.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** A map directory, 'off' (no routing or geocoding), or undefined: the bundled extract's map. */
  mapDir: string | undefined;
  /** Routing profiles to serve; all four by default. */
  profiles: ProfileName[];
  logLevel: string;
  /** Run the background job runner in this process (WAYMARK_JOBS=off for API-only processes). */
  jobs: boolean;
  /** Lease of a claimed job: how soon a job whose worker died is taken over. */
  jobLeaseMs: number;
  /** How long SIGTERM/SIGINT waits for requests in flight and running jobs before it closes what is left. */
  shutdownTimeoutMs: number;
  /** A request body that stops arriving for this long is answered 408. */
  bodyTimeoutMs: number;
  /** Compute worker threads and the tasks queued for them before routing answers 503. */
  workers: number;
  poolQueue: number;
  /** Whether routes price their turns (WAYMARK_TURN_PRICES). */
  turnPrices: boolean;
  /** PostgreSQL connections per process for queries. */
  dbPool: number;
  /** How long a service process (`serve`, `start`, `worker`) waits at start for PostgreSQL to answer. */
  databaseWaitMs: number;
  dashboardIdleMinutes: number;
  dashboardSecureCookie: boolean;
  /** Addresses of the reverse proxies whose X-Forwarded-Host and X-Forwarded-For are believed. */
  trustedProxies: string[];
  /** Who may read GET /metrics. */
  metrics: 'loopback' | 'on' | 'off';
}

/** A setting: its variable, its default as written in .env.example, what it means and what it expects. */
export interface Setting {
  name: string;
  default: string;
  meaning: string;
  expects: string;
  schema: z.ZodType;
}

const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER) => z.string().trim().regex(/^\d+$/).transform(Number).pipe(z.number().min(min).max(max));
const oneOf = <T extends string>(...values: [T, ...T[]]) => z.string().trim().pipe(z.enum(values));

const profileList = z.string().transform((raw, ctx) => {
  const names = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!names.length || names.some((p) => !(PROFILES as readonly string[]).includes(p))) {
    ctx.addIssue({ code: 'custom', message: 'unknown profile' });
    return z.NEVER;
  }
  return PROFILES.filter((p) => names.includes(p));
});

/** An existing directory, or 'off'. Checked here so that a typo stops the start before anything else runs. */
const mapPath = z
  .string()
  .trim()
  .refine((p) => p === 'off' || (existsSync(p) && statSync(p).isDirectory()));

const defaultWorkers = String(Math.max(1, Math.min(4, availableParallelism())));

/** Every setting the service reads, in the order .env.example lists them. */
export const SETTINGS: Setting[] = [
  { name: 'PORT', default: '8080', meaning: 'HTTP port (0 picks a free one)', expects: 'a port number from 0 to 65535', schema: wholeNumber(0, 65535) },
  { name: 'HOST', default: '0.0.0.0', meaning: 'listen address', expects: 'an IP address or host name', schema: z.string().trim().min(1) },
  {
    name: 'DATABASE_URL',
    default: '',
    meaning: 'PostgreSQL 15+ (no extension needed); empty: the embedded PGlite under WAYMARK_DATA_DIR',
    expects: 'a postgres:// or postgresql:// URL',
    schema: z
      .string()
      .trim()
      .regex(/^postgres(ql)?:\/\/\S+$/),
  },
  {
    name: 'WAYMARK_DATA_DIR',
    default: './data',
    meaning: 'embedded database, built maps, demo key and password (kept 0600 in a 0700 directory)',
    expects: 'a directory path',
    schema: z.string().trim().min(1),
  },
  {
    name: 'WAYMARK_MAP',
    default: '',
    meaning: "a map directory from `waymark map build`; 'off' runs without routing and geocoding; empty: the bundled extract's map, built on first start",
    expects: "an existing map directory or 'off'",
    schema: mapPath,
  },
  {
    name: 'WAYMARK_PROFILES',
    default: PROFILES.join(','),
    meaning: 'the routing profiles to load',
    expects: `a comma-separated list among ${PROFILES.join(', ')}`,
    schema: profileList,
  },
  {
    name: 'WAYMARK_JOBS',
    default: 'on',
    meaning: "'off' runs an API-only process (no import or geocoding jobs)",
    expects: "'on' or 'off'",
    schema: oneOf('on', 'off'),
  },
  {
    name: 'WAYMARK_JOB_LEASE_MS',
    default: '30000',
    meaning: 'lease of a claimed job: how soon a process on another host takes over from a dead one',
    expects: 'a whole number of milliseconds, at least 1',
    schema: wholeNumber(1),
  },
  {
    name: 'WAYMARK_SHUTDOWN_TIMEOUT',
    default: '10',
    meaning: 'seconds SIGTERM/SIGINT waits for requests in flight and running jobs',
    expects: 'a number of seconds',
    schema: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/)
      .transform((s) => Math.round(Number(s) * 1000)),
  },
  {
    name: 'WAYMARK_TURN_PRICES',
    default: 'on',
    meaning:
      "'on': routes of the driving and cycling profiles price their turns as OSRM's profiles do (docs/directions.md, \"Turns\"); 'off': no turn is priced, so a route's duration equals its matrix cell",
    expects: "'on' or 'off'",
    schema: oneOf('on', 'off'),
  },
  {
    name: 'WAYMARK_BODY_TIMEOUT_MS',
    default: '8000',
    meaning: 'a request body that stops arriving for this long is answered 408',
    expects: 'a whole number of milliseconds, at least 1',
    schema: wholeNumber(1),
  },
  {
    name: 'WAYMARK_WORKERS',
    default: defaultWorkers,
    meaning: 'compute worker threads (routing, clustering, optimization, geocoding); default min(4, cores)',
    expects: 'a whole number from 1 to 256',
    schema: wholeNumber(1, 256),
  },
  {
    name: 'WAYMARK_POOL_QUEUE',
    default: '256',
    meaning: 'queued compute tasks before routing answers 503',
    expects: 'a whole number, at least 0',
    schema: wholeNumber(0),
  },
  {
    name: 'WAYMARK_DB_POOL',
    default: '10',
    meaning: 'PostgreSQL connections per process for queries (plus one for the rate limiter and two for batched POI reads)',
    expects: 'a whole number from 1 to 1000',
    schema: wholeNumber(1, 1000),
  },
  {
    name: 'WAYMARK_DATABASE_WAIT',
    default: '60',
    meaning: 'seconds serve, start and worker wait at start for PostgreSQL to answer (started beside it, or slow under load) before they stop',
    expects: 'a whole number of seconds, at least 0',
    schema: wholeNumber(0),
  },
  {
    name: 'WAYMARK_DASHBOARD_IDLE_MINUTES',
    default: '30',
    meaning: 'minutes without a request after which a dashboard session ends',
    expects: 'a whole number of minutes, at least 1',
    schema: wholeNumber(1),
  },
  {
    name: 'WAYMARK_DASHBOARD_SECURE_COOKIE',
    default: '0',
    meaning: "'1' marks the session cookie Secure also without X-Forwarded-Proto: https",
    expects: "'0' or '1'",
    schema: oneOf('0', '1'),
  },
  {
    name: 'WAYMARK_TRUSTED_PROXIES',
    default: '',
    meaning:
      "addresses of the reverse proxies in front (comma-separated): only their X-Forwarded-Host (the dashboard's Origin check) and X-Forwarded-For (sign-in limit per client) are believed",
    expects: 'IP addresses separated by commas, e.g. 127.0.0.1,::1',
    schema: z.string().regex(/^\s*$|^\s*[0-9a-fA-F.:]+(\s*,\s*[0-9a-fA-F.:]+)*\s*$/),
  },
  {
    name: 'WAYMARK_METRICS',
    default: 'loopback',
    meaning: "who may read GET /metrics: 'loopback' (clients on this host), 'on' (anyone), 'off' (nobody)",
    expects: "'loopback', 'on' or 'off'",
    schema: oneOf('loopback', 'on', 'off'),
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    meaning: 'pino level; every request is logged at info with its request id',
    expects: 'one of fatal, error, warn, info, debug, trace, silent',
    schema: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  },
];

/** Bad settings, all of them named with what each expects. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** WAYMARK_MAP as written (the link `waymark map activate` moves), without reading the other settings. */
export function mapSettingAsWritten(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.WAYMARK_MAP?.trim() || undefined;
}

/** Reads and validates every setting once; throws ConfigError naming each bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const s of SETTINGS) {
    const raw = env[s.name];
    // An empty value means the default, as an unset one does (compose files write `VAR: ""`).
    const given = raw !== undefined && raw.trim() !== '';
    if (!given && s.default === '') continue;
    const parsed = s.schema.safeParse(given ? raw : s.default);
    if (parsed.success) values[s.name] = parsed.data;
    else
      problems.push(
        s.name === 'WAYMARK_MAP' && raw !== 'off'
          ? `WAYMARK_MAP: no map directory at '${raw}' (expects ${s.expects})`
          : `${s.name} must be ${s.expects}, not '${raw}'`,
      );
  }
  if (problems.length) throw new ConfigError(problems);
  return {
    port: values.PORT as number,
    host: values.HOST as string,
    databaseUrl: values.DATABASE_URL as string | undefined,
    // The default is the checkout's data/, wherever the process was started from.
    dataDir: env.WAYMARK_DATA_DIR?.trim() ? (values.WAYMARK_DATA_DIR as string) : join(projectRoot, 'data'),
    mapDir: values.WAYMARK_MAP as string | undefined,
    profiles: values.WAYMARK_PROFILES as ProfileName[],
    logLevel: values.LOG_LEVEL as string,
    jobs: values.WAYMARK_JOBS === 'on',
    jobLeaseMs: values.WAYMARK_JOB_LEASE_MS as number,
    shutdownTimeoutMs: values.WAYMARK_SHUTDOWN_TIMEOUT as number,
    bodyTimeoutMs: values.WAYMARK_BODY_TIMEOUT_MS as number,
    workers: values.WAYMARK_WORKERS as number,
    poolQueue: values.WAYMARK_POOL_QUEUE as number,
    turnPrices: values.WAYMARK_TURN_PRICES === 'on',
    dbPool: values.WAYMARK_DB_POOL as number,
    databaseWaitMs: (values.WAYMARK_DATABASE_WAIT as number) * 1000,
    dashboardIdleMinutes: values.WAYMARK_DASHBOARD_IDLE_MINUTES as number,
    dashboardSecureCookie: values.WAYMARK_DASHBOARD_SECURE_COOKIE === '1',
    trustedProxies: String(values.WAYMARK_TRUSTED_PROXIES ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
    metrics: values.WAYMARK_METRICS as Config['metrics'],
  };
}
