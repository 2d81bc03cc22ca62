// A batch optimization survives its process: a server killed (SIGKILL) mid-search, then a new server
// takes the job over at once and finishes it from the last checkpoint (the best plan so far), never
// running it in two places at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import type { Sql } from '../../src/db/client.js';
import { api } from '../support/app.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { testMapDir, waitFor } from '../geo-api/support.js';
import { checkPlan, roadPoints } from '../optimize-api/support.js';
import { freshDatabase } from '../faults/support.js';
import { fleetRequest } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: Sql;
let key: string;
let mapDir: string;
const servers: ServerProcess[] = [];

const start = async () => {
  const server = await spawnServer({ DATABASE_URL: db.url, WAYMARK_MAP: mapDir, WAYMARK_JOB_LEASE_MS: '2000' });
  servers.push(server);
  return server;
};

beforeAll(async () => {
  mapDir = await testMapDir();
  db = await freshDatabase('optcrash');
  sql = db.sql;
  const team = await createTeam(sql, { name: 'crash', plan: 'enterprise' });
  key = (await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key;
});
afterAll(async () => {
  const running = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
  await Promise.allSettled(running.map((s) => s.stop('SIGKILL')));
  await db?.drop();
});

describe('an optimization across a crash', () => {
  it('resumes from its checkpoint on another server after SIGKILL and completes once', async () => {
    const req = fleetRequest(await roadPoints(mapDir, 130), 8, 120, 6);
    const first = await start();
    const res = await api(first, 'POST', '/v1/optimizations', { key, body: req });
    expect(res.status).toBe(202);
    const id = res.body.data.id;
    const row = async () => (await sql`SELECT status, runs, checkpoint, progress FROM optimizations WHERE id = ${id}`)[0];
    // Killed mid-search, after at least one checkpoint and well before the budget is spent.
    const before = await waitFor(
      async () => {
        const r = await row();
        return r.checkpoint && r.checkpoint.searchedMs >= 1000 ? r : undefined;
      },
      'a checkpoint',
      30_000,
      20,
    );
    expect(await first.stop('SIGKILL')).toBe(null);
    const last = await row();
    expect(last.status).toBe('running');
    expect(last.checkpoint.searchedMs).toBeGreaterThanOrEqual(before.checkpoint.searchedMs);
    expect(last.checkpoint.searchedMs).toBeLessThan(5000);
    expect(last.checkpoint.routes.length).toBeGreaterThan(0);

    const second = await start();
    // The new server sees the dead worker's lease on this host and takes the job at once; its first
    // checkpoint continues the search time of the last one (a search started over would be back at
    // one slice, no more than the last checkpoint).
    const resumed = await waitFor(
      async () => {
        const r = await row();
        return (r.runs === 2 && r.checkpoint && r.checkpoint.searchedMs !== last.checkpoint.searchedMs) || r.status === 'completed' ? r : undefined;
      },
      'the job to resume',
      30_000,
      20,
    );
    expect(resumed.runs).toBe(2);
    if (resumed.checkpoint) expect(resumed.checkpoint.searchedMs).toBeGreaterThan(last.checkpoint.searchedMs);
    const done = await waitFor(
      async () => {
        const d = (await api(second, 'GET', `/v1/optimizations/${id}`, { key })).body.data;
        return d.status === 'completed' || d.status === 'failed' ? d : undefined;
      },
      'the job to complete',
      60_000,
      100,
    );
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.runs).toBe(2);
    const plan = checkPlan(req, { status: 200, body: { data: done.result }, headers: new Headers() }, { suffix: '+01:00' });
    expect(plan.summary.assigned).toBe(120);
    const [left] = await sql`SELECT count(*)::int AS n FROM jobs`;
    expect(left.n).toBe(0);
    expect(await second.stop('SIGTERM')).toBe(0);
  });
});
