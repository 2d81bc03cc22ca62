// Three `waymark serve` processes on one PostgreSQL behind the shipped proxy (Debian's nginx with
// deploy/nginx.conf, test/support/nginx.ts), under a closed loop of keep-alive clients: the team's rate
// limit stays exact across the three, a SIGTERM of one costs no 5xx, and a kill -9 of another costs at
// most the requests that were in flight on it — only POSTs, which nginx does not repeat; the rest it
// sends to another process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { hasNginx, type NginxProxy, startProxy } from '../support/nginx.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { freshDatabase, RawConnection } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let servers: ServerProcess[] = [];
let proxy: NginxProxy;

interface Answer {
  method: string;
  status: number | undefined;
  /** How a request without an answer ended (closed, ECONNRESET…). */
  lost?: string;
  id?: string;
  /** When it was sent and when its outcome came (performance.now()). */
  sentAt: number;
  doneAt: number;
}

const CONNECTIONS = 16;

/** A closed loop of CONNECTIONS keep-alive clients of the proxy, a POI create every third request, until `until` resolves. */
async function load(key: string, until: Promise<unknown>, answered?: (n: number) => void): Promise<Answer[]> {
  const answers: Answer[] = [];
  let stopped = false;
  void until.then(() => (stopped = true));
  let seq = 0;
  const headers = { 'X-API-KEY': key, 'Content-Type': 'application/json' };
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      let conn = new RawConnection(proxy.port);
      await conn.connected;
      while (!stopped) {
        const i = seq++;
        const post = i % 3 === 0;
        const sentAt = performance.now();
        const outcome = post
          ? await conn.request('POST', '/v1/pois', headers, JSON.stringify({ name: `load ${i}`, latitude: 47 + i * 1e-6, longitude: 9.5 }))
          : await conn.request('GET', i % 3 === 1 ? '/v1/pois?limit=3' : '/v1/categories', { 'X-API-KEY': key });
        const method = post ? 'POST' : 'GET';
        if (outcome.kind !== 'response') {
          answers.push({ method, sentAt, doneAt: performance.now(), status: undefined, lost: outcome.kind === 'error' ? outcome.code : 'closed' });
          conn = new RawConnection(proxy.port);
          await conn.connected;
          continue;
        }
        const { status, body } = outcome.response;
        answers.push({ method, sentAt, doneAt: performance.now(), status, id: status === 201 ? JSON.parse(body).data.id : undefined });
        answered?.(answers.length);
      }
      conn.destroy();
    }),
  );
  return answers;
}

/** Resolves once `n` answers have come in (counted through load's callback). */
function counter(): { at(n: number): Promise<void>; tick(n: number): void; readonly count: number } {
  const waits: { n: number; resolve(): void }[] = [];
  let count = 0;
  return {
    at: (n) => new Promise((resolve) => (count >= n ? resolve() : waits.push({ n, resolve }))),
    tick: (n) => {
      count = n;
      for (const w of waits) if (n >= w.n) w.resolve();
    },
    get count() {
      return count;
    },
  };
}

describe.skipIf(!hasNginx)('three serve processes behind the shipped proxy', () => {
  beforeAll(async () => {
    db = await freshDatabase('proxy_processes');
    servers = await Promise.all(
      [0, 1, 2].map(() => spawnServer({ DATABASE_URL: db.url, WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off', WAYMARK_TRUSTED_PROXIES: '127.0.0.1' })),
    );
    proxy = await startProxy(servers.map((s) => new URL(s.url).host));
  });
  afterAll(async () => {
    await proxy?.stop();
    await Promise.allSettled(servers.map((s) => s.stop('SIGKILL')));
    await db?.drop();
  });

  async function teamKey(rateLimit: number | null) {
    const team = await createTeam(db.sql, { name: 'behind nginx', plan: rateLimit === null ? 'enterprise' : 'pro', rateLimit });
    return { teamId: team.id, key: (await createKey(db.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key };
  }

  it('the rate limit stays exact across the three: of limit + 100 requests under load, exactly the limit are admitted', async () => {
    const limit = 500;
    const { key } = await teamKey(limit);
    let sent = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        const conn = new RawConnection(proxy.port);
        await conn.connected;
        while (sent < limit + 100) {
          sent++;
          const outcome = await conn.request('GET', '/v1/categories', { 'X-API-KEY': key });
          statuses.push(outcome.kind === 'response' ? outcome.response.status : 0);
        }
        conn.destroy();
      }),
    );
    expect(statuses).toHaveLength(limit + 100);
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100);
    // Every process answered some: nginx spread the load.
    for (const s of servers) {
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(metrics, s.url).toMatch(/waymark_http_requests_total\{[^}]*route="\/v1\/categories"[^}]*\} [1-9]/);
    }
  });

  it('a SIGTERM of one process under load costs no 5xx and no unanswered request; every 201 is a row', async () => {
    const { teamId, key } = await teamKey(null);
    const victim = servers[0];
    const exited = new Promise<number | null>((resolve) => victim.child.once('exit', resolve));
    const seen = counter();
    let stop!: () => void;
    const running = load(key, new Promise<void>((resolve) => (stop = resolve)), seen.tick);
    // The signal once 200 answers are in, the end once 300 more came after the process exited (not fixed
    // times: on a busy machine a second may hold few).
    await seen.at(200);
    victim.child.kill('SIGTERM');
    expect(await exited, victim.output()).toBe(0);
    await seen.at(seen.count + 300);
    stop();
    const answers = await running;
    expect(
      answers.filter((a) => a.lost),
      JSON.stringify(answers.filter((a) => a.lost)),
    ).toEqual([]);
    expect(answers.filter((a) => (a.status ?? 0) >= 500)).toEqual([]);
    expect(answers.length).toBeGreaterThanOrEqual(500);
    const rows = await db.sql<{ id: string }[]>`SELECT id FROM pois WHERE team_id = ${teamId} ORDER BY id`;
    expect(rows.map((r) => r.id)).toEqual(answers.flatMap((a) => (a.id ? [a.id] : [])).sort());
  });

  it('a kill -9 of another costs at most the POSTs in flight on it (502); every GET is answered by the third', async () => {
    const { teamId, key } = await teamKey(null);
    const victim = servers[1];
    const seen = counter();
    let stop!: () => void;
    const running = load(key, new Promise<void>((resolve) => (stop = resolve)), seen.tick);
    await seen.at(200);
    const killedAt = performance.now();
    victim.child.kill('SIGKILL');
    await new Promise((resolve) => victim.child.once('exit', resolve));
    // The kernel ends a killed process a moment after the signal: what was sent until its exit was seen may have reached it.
    const deadAt = performance.now();
    await seen.at(seen.count + 300);
    stop();
    const answers = await running;
    const failed = answers.filter((a) => a.lost || (a.status ?? 0) >= 500);
    // The client never loses a connection: nginx answers every request.
    expect(answers.filter((a) => a.lost)).toEqual([]);
    // Only requests nginx may not repeat fail, and no more than could be in flight on the killed process.
    expect(
      failed.every((a) => a.method === 'POST' && a.status === 502),
      JSON.stringify(failed),
    ).toBe(true);
    // In flight on it: sent before it was dead and answered after the kill. All POSTs in flight through the
    // proxy then bound those in flight on the victim.
    const inFlight = answers.filter((a) => a.method === 'POST' && a.sentAt < deadAt && a.doneAt > killedAt);
    expect(failed.every((a) => inFlight.includes(a))).toBe(true);
    expect(failed.length).toBeLessThanOrEqual(inFlight.length);
    expect(answers.filter((a) => a.method === 'GET').every((a) => a.status === 200)).toBe(true);
    // Every 201 is a row (a POST answered 502 may or may not have committed before the kill).
    const rows = new Set((await db.sql<{ id: string }[]>`SELECT id FROM pois WHERE team_id = ${teamId}`).map((r) => r.id));
    for (const a of answers) if (a.id) expect(rows.has(a.id)).toBe(true);
    expect(rows.size - answers.filter((a) => a.id).length).toBeLessThanOrEqual(failed.length);
  });
});
