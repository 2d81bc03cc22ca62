import { join } from 'node:path';
import { PROFILES, type ProfileName } from './map/profiles.js';
import { projectRoot } from './paths.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  mapDir: string | undefined;
  /** Routing profiles to serve (WAYMARK_PROFILES=driving-car,foot-walking); all four by default. */
  profiles: ProfileName[];
  logLevel: string;
  /** Run the background job runner in this process (WAYMARK_JOBS=off for API-only processes). */
  jobs: boolean;
  /** Lease of a claimed job (WAYMARK_JOB_LEASE_MS): how soon a job whose worker died is taken over. */
  jobLeaseMs: number;
  /** WAYMARK_SHUTDOWN_TIMEOUT (seconds, default 10): how long SIGTERM/SIGINT waits for requests in
   *  flight and running jobs before it closes what is left. */
  shutdownTimeoutMs: number;
  /** WAYMARK_BODY_TIMEOUT_MS: a request body that stops arriving for this long is answered 408. */
  bodyTimeoutMs: number;
}

/** A whole number from the environment; a typo must stop the start, not become NaN (a NaN lease
 *  makes the job heartbeat fire every millisecond). */
function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) throw new Error(`${name} must be an integer of at least ${min}, not '${raw}'`);
  return Number(raw);
}

/** A duration in seconds (fractions allowed) from the environment, as milliseconds. */
function secondsVar(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback * 1000;
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) throw new Error(`${name} must be a number of seconds, not '${raw}'`);
  return Math.round(Number(raw) * 1000);
}

/** A comma-separated list of profile names; an unknown name stops the start. */
function profilesVar(env: NodeJS.ProcessEnv): ProfileName[] {
  const raw = env.WAYMARK_PROFILES?.trim();
  if (!raw) return [...PROFILES];
  const names = raw.split(',').map((p) => p.trim()).filter(Boolean);
  const unknown = names.filter((p) => !(PROFILES as readonly string[]).includes(p));
  if (unknown.length || names.length === 0) throw new Error(`WAYMARK_PROFILES must list profiles among ${PROFILES.join(', ')}, not '${raw}'`);
  return PROFILES.filter((p) => names.includes(p));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: intVar(env, 'PORT', 8080, 0),
    host: env.HOST ?? '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.WAYMARK_DATA_DIR ?? join(projectRoot, 'data'),
    mapDir: env.WAYMARK_MAP || undefined,
    profiles: profilesVar(env),
    logLevel: env.LOG_LEVEL ?? 'info',
    jobs: env.WAYMARK_JOBS !== 'off',
    jobLeaseMs: intVar(env, 'WAYMARK_JOB_LEASE_MS', 30_000, 1),
    shutdownTimeoutMs: secondsVar(env, 'WAYMARK_SHUTDOWN_TIMEOUT', 10),
    bodyTimeoutMs: intVar(env, 'WAYMARK_BODY_TIMEOUT_MS', 8_000, 1),
  };
}
