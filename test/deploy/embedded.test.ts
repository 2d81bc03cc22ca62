import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ownerLockPath, socketPath } from '../../src/db/embedded.js';
import { projectRoot } from '../../src/lib/paths.js';
import { api } from '../support/app.js';

// Without DATABASE_URL the service runs on an embedded PGlite (no extension): what `npm start` does on a
// machine with no database.
const dataDir = mkdtempSync(join(tmpdir(), 'waymark-embedded-'));
let app: App & { url: string };

const { DATABASE_URL: _ignored, ...envWithoutDatabase } = process.env;
const run = promisify(execFile);
/** The CLI from dist/ on the same data directory, without DATABASE_URL. */
const waymark = (...args: string[]) =>
  run(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), ...args], {
    env: { ...envWithoutDatabase, WAYMARK_DATA_DIR: dataDir, WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    timeout: 60_000,
  });

beforeAll(async () => {
  // A lock left by an owner that was killed: its process is gone, so the start takes the directory over.
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  writeFileSync(
    ownerLockPath(dataDir),
    JSON.stringify({ pid: dead, token: 'dead', startedAt: new Date(0).toISOString(), url: 'postgres://postgres@127.0.0.1:1/postgres' }),
  );
  const env = envWithoutDatabase;
  const started = await startApp(
    loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1', WAYMARK_DATA_DIR: dataDir, WAYMARK_JOBS: 'off' }),
    pino({ level: 'silent' }),
  );
  app = Object.assign(started, { url: `http://127.0.0.1:${started.port}` });
}, 180_000);

afterAll(async () => {
  await app?.close().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

describe('one owner of the embedded database', () => {
  it('the running service owns it and publishes where it serves it', () => {
    const owner = JSON.parse(readFileSync(ownerLockPath(dataDir), 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, url: app.databaseUrl });
  });

  it('the CLI goes through the running service: what it writes, the service sees at once', async () => {
    const team = JSON.parse((await waymark('team', 'create', '--name', 'through the owner', '--plan', 'pro', '--json')).stdout);
    const key = JSON.parse((await waymark('key', 'create', '--team', team.id, '--name', 'k', '--permissions', 'all', '--json')).stdout);
    const info = await api(app, 'GET', '/v1/info', { key: key.key });
    expect(info.status).toBe(200);
    expect(info.body.data.id).toBe(key.id);
    const [row] = await app.sql`SELECT name FROM teams WHERE id = ${team.id}`;
    expect(row.name).toBe('through the owner');
  });

  it('a second server on the same directory refuses to start and says which process holds it', async () => {
    const err = await waymark('serve').then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain(`the embedded database in ${dataDir} is in use by waymark process ${process.pid}`);
    expect(err?.stderr).toContain('DATABASE_URL');
    // The refused start left the owner's lock alone.
    expect(JSON.parse(readFileSync(ownerLockPath(dataDir), 'utf8')).pid).toBe(process.pid);
  });
});

describe('embedded database', () => {
  it('listens on a Unix socket inside the 0700 data directory, on no TCP port', async () => {
    expect(app.databaseUrl).toBe(`postgres://postgres@localhost:5432/postgres?host=${encodeURIComponent(dataDir)}`);
    const socket = socketPath(dataDir);
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    // This process's listening TCP sockets (the kernel's table, state 0A = LISTEN, matched by inode): the
    // HTTP port only. The embedded database listened on a loopback port before.
    const inodes = new Set(
      readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          return [/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1]].filter(Boolean) as string[];
        } catch {
          return [];
        }
      }),
    );
    const listening = ['/proc/net/tcp', '/proc/net/tcp6']
      .flatMap((f) => readFileSync(f, 'utf8').trim().split('\n').slice(1))
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c[3] === '0A' && inodes.has(c[9]))
      .map((c) => Number.parseInt(c[1].split(':')[1], 16));
    expect(listening).toEqual([app.port]);
  });

  it('serves a POI round trip with distance filtering', async () => {
    const team = await createTeam(app.sql, { name: 'embedded', plan: 'pro' });
    const { key } = await createKey(app.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    const created = await api(app, 'POST', '/v1/pois', { key, body: { name: 'Vaduz Castle', latitude: 47.1399, longitude: 9.5243 } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const got = await api(app, 'GET', `/v1/pois/${id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id, name: 'Vaduz Castle', latitude: 47.1399, longitude: 9.5243 });
    const near = await api(app, 'GET', '/v1/pois?latitude=47.1410&longitude=9.5209&distance=1000', { key });
    expect(near.status).toBe(200);
    expect(near.body.data).toHaveLength(1);
    expect(near.body.data[0].distance).toBeGreaterThan(250);
    expect(near.body.data[0].distance).toBeLessThan(350);
    const far = await api(app, 'GET', '/v1/pois?latitude=47.1410&longitude=9.5209&distance=100', { key });
    expect(far.body.data).toHaveLength(0);
    expect((await api(app, 'DELETE', `/v1/pois/${id}`, { key })).status).toBe(204);
  });
});

describe('closing', () => {
  it('gives the directory up: no lock is left behind', async () => {
    await app.close();
    expect(existsSync(ownerLockPath(dataDir))).toBe(false);
  });
});
