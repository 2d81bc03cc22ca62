// GET /ready against a PostgreSQL of its own: 200 while every part is up, 503 (same JSON) as soon as the
// database stops or a migration is missing, 200 again once it is back. GET /health stays 200 throughout;
// /metrics answers with the database down, leaving out what only the database knows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { connect, type Sql } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { api, startTestApp } from '../support/app.js';
import { throwawayCluster, type Cluster } from '../support/cluster.js';

let cluster: Cluster | undefined;
let app: App & { url: string };
let direct: Sql;

beforeAll(async () => {
  cluster = await throwawayCluster();
  if (!cluster) throw new Error('this test needs PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/<version>/bin');
  direct = connect(cluster.url, 1);
  await migrate(direct);
  app = await startTestApp({ DATABASE_URL: cluster.url, WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'foot-walking' });
});
afterAll(async () => {
  await app?.close();
  await direct?.end({ timeout: 1 });
  await cluster?.remove();
});

const ready = () => api(app, 'GET', '/ready');
const metricsText = async () => (await fetch(`${app.url}/metrics`)).text();

async function until(status: number, withinMs: number) {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const res = await ready();
    if (res.status === status || performance.now() > deadline) return res;
    await new Promise((done) => setTimeout(done, 50));
  }
}

describe('GET /ready', () => {
  it('is 200 naming each part when all are up', async () => {
    const res = await ready();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      status: 'ready',
      database: { ok: true },
      migrations: { ok: true, pending: [] },
      map: { ok: true, profiles: ['foot-walking'], expected: ['foot-walking'] },
      pool: { ok: true },
    });
    expect(res.body.pool.threads).toBeGreaterThan(0);
  });

  it('is 503 with the same JSON while the database is stopped, and 200 once it is back', async () => {
    await cluster!.stop();
    const down = await until(503, 5000);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'not ready', database: { ok: false }, migrations: { ok: false }, map: { ok: true }, pool: { ok: true } });
    expect(down.body.database.error).toEqual(expect.any(String));
    // Liveness is not readiness: the process itself is fine.
    expect((await api(app, 'GET', '/health')).status).toBe(200);
    // Metrics still answer; the job counts, which only the database knows, are left out rather than read as 0.
    const metrics = await metricsText();
    expect(metrics).toMatch(/^waymark_database_up 0$/m);
    expect(metrics).toMatch(/^# TYPE waymark_jobs gauge$/m);
    expect(metrics).not.toMatch(/^waymark_jobs\{/m);

    await cluster!.start();
    const up = await until(200, 5000);
    expect(up.status).toBe(200);
    expect(up.body.status).toBe('ready');
    const again = await metricsText();
    expect(again).toMatch(/^waymark_database_up 1$/m);
    expect(again).toMatch(/^waymark_jobs\{state="queued"\} 0$/m);
  });

  it('is 503 while a migration this code expects is not applied', async () => {
    const [last] = await direct`SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1`;
    await direct`DELETE FROM schema_migrations WHERE name = ${last.name}`;
    try {
      const res = await ready();
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'not ready', database: { ok: true }, migrations: { ok: false, pending: [last.name] } });
    } finally {
      await direct`INSERT INTO schema_migrations (name) VALUES (${last.name})`;
    }
    expect((await ready()).status).toBe(200);
  });
});
