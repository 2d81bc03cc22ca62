import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { api } from '../support/app.js';

// Without DATABASE_URL the service runs on an embedded PGlite + PostGIS: what `npm start` does on a
// machine with no database.
const dataDir = mkdtempSync(join(tmpdir(), 'waymark-embedded-'));
let app: App & { url: string };

beforeAll(async () => {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const started = await startApp(loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1', WAYMARK_DATA_DIR: dataDir, WAYMARK_JOBS: 'off' }), pino({ level: 'silent' }));
  app = Object.assign(started, { url: `http://127.0.0.1:${started.port}` });
}, 180_000);

afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded database', () => {
  it('serves a POI round trip with distance filtering', async () => {
    expect(app.databaseUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
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
