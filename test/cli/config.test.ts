import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../../src/config.js';
import { projectRoot } from '../../src/lib/paths.js';

describe('loadConfig', () => {
  it('reads whole numbers and falls back to the defaults', () => {
    expect(loadConfig({ PORT: '9090', WAYMARK_JOB_LEASE_MS: '2000' })).toMatchObject({ port: 9090, jobLeaseMs: 2000 });
    expect(loadConfig({})).toMatchObject({ port: 8080, jobLeaseMs: 30_000 });
  });

  it('refuses a number that is not one, naming the variable', () => {
    expect(() => loadConfig({ WAYMARK_JOB_LEASE_MS: '30s' })).toThrow(/WAYMARK_JOB_LEASE_MS/);
    expect(() => loadConfig({ WAYMARK_JOB_LEASE_MS: '0' })).toThrow(/WAYMARK_JOB_LEASE_MS/);
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT/);
  });
});

describe('every setting in one place', () => {
  it('names each bad variable with what it expects, all at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'http',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://x',
        WAYMARK_JOBS: 'maybe',
        WAYMARK_PROFILES: 'driving-car,rocket',
        WAYMARK_METRICS: 'public',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      "PORT must be a port number from 0 to 65535, not 'http'",
      "DATABASE_URL must be a postgres:// or postgresql:// URL, not 'mysql://x'",
      "WAYMARK_PROFILES must be a comma-separated list among driving-car, driving-hgv, cycling-regular, foot-walking, not 'driving-car,rocket'",
      "WAYMARK_JOBS must be 'on' or 'off', not 'maybe'",
      "WAYMARK_METRICS must be 'loopback', 'on' or 'off', not 'public'",
      "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not 'loud'",
    ]);
  });

  it('refuses a map path that does not exist; takes an existing directory or off', () => {
    expect(() => loadConfig({ WAYMARK_MAP: '/nonexistent/map' })).toThrow("WAYMARK_MAP: no map directory at '/nonexistent/map'");
    expect(loadConfig({ WAYMARK_MAP: projectRoot }).mapDir).toBe(projectRoot);
    expect(loadConfig({ WAYMARK_MAP: 'off' }).mapDir).toBe('off');
  });

  it('reads the settings other modules used to read themselves', () => {
    expect(
      loadConfig({
        WAYMARK_WORKERS: '3',
        WAYMARK_POOL_QUEUE: '0',
        WAYMARK_DB_POOL: '4',
        WAYMARK_DASHBOARD_IDLE_MINUTES: '5',
        WAYMARK_DASHBOARD_SECURE_COOKIE: '1',
      }),
    ).toMatchObject({ workers: 3, poolQueue: 0, dbPool: 4, dashboardIdleMinutes: 5, dashboardSecureCookie: true, metrics: 'loopback' });
    expect(() => loadConfig({ WAYMARK_WORKERS: '0' })).toThrow(/WAYMARK_WORKERS/);
    expect(() => loadConfig({ WAYMARK_DB_POOL: 'ten' })).toThrow(/WAYMARK_DB_POOL/);
  });

  it('.env.example lists every setting with its default and meaning, and nothing else', () => {
    const example = readFileSync(join(projectRoot, '.env.example'), 'utf8');
    const listed = [...example.matchAll(/^#?\s*([A-Z_]+)=(.*)$/gm)].map((m) => ({ name: m[1], value: m[2] }));
    expect(listed.map((l) => l.name)).toEqual(SETTINGS.map((s) => s.name));
    for (const s of SETTINGS) {
      expect(listed.find((l) => l.name === s.name)?.value, s.name).toBe(s.name === 'WAYMARK_WORKERS' ? '' : s.default);
      expect(example, s.name).toContain(s.meaning);
    }
    // The defaults, as written there, are valid settings.
    expect(() => loadConfig(Object.fromEntries(listed.map((l) => [l.name, l.value])))).not.toThrow();
  });

  it('the source reads the environment nowhere but in config.ts (and the kernels test switch)', () => {
    const offenders = execFileSync('grep', ['-rln', 'process\\.env', join(projectRoot, 'src')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    // lib/wasm.ts reads WAYMARK_CHECKED_KERNELS, which only `npm run test:kernels-checked` sets: every
    // compute thread loads its kernels there and reads no configuration, and lib/ imports nothing above it.
    expect(offenders.map((f) => f.slice(projectRoot.length + 1)).sort()).toEqual(['src/config.ts', 'src/lib/wasm.ts']);
    const reads = [...readFileSync(join(projectRoot, 'src/lib/wasm.ts'), 'utf8').matchAll(/process\.env\.(\w+)/g)].map((m) => m[1]);
    expect(reads).toEqual(['WAYMARK_CHECKED_KERNELS']);
  });
});
