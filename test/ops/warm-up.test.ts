// What a fresh `serve` runs before /ready says 200 (ops/warm-handlers.ts, app.ts): its own requests through
// the handlers, each database connection opened and its session's first key read done, and requests
// through its own socket — none of it counted as traffic. Timings are bench/scale's (first request after
// ready); here, that each part ran and left no trace where it must not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, startTestApp } from '../support/app.js';
import { SCHAAN, VADUZ } from '../routes-api/helpers.js';

let app: App & { url: string };

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'driving-car,foot-walking' });
});
afterAll(async () => {
  await app?.close();
});

const metricsText = async () => (await fetch(`${app.url}/metrics`)).text();
const series = (text: string, name: string, labels: Record<string, string>) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));

describe('warm-up before ready', () => {
  it('opened every database connection before the first request', async () => {
    const text = await metricsText();
    const size = series(text, 'waymark_db_pool_size', { pool: 'queries' })[0];
    expect(size).toBeGreaterThan(1);
    expect(series(text, 'waymark_db_pool_connections', { pool: 'queries' })[0]).toBe(size);
    expect(series(text, 'waymark_db_pool_connections', { pool: 'reads' })[0]).toBe(series(text, 'waymark_db_pool_size', { pool: 'reads' })[0]);
  });

  it('ran each kind of request through the handlers, most of them answered, and /ready says so', async () => {
    const ready = await api(app, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.map.warming).toBeUndefined();
    const own = ready.body.map.request_warm_up;
    expect(own.rounds).toBeGreaterThanOrEqual(1);
    const total = Object.values(own.statuses as Record<string, number>).reduce((a, b) => a + b, 0);
    // Two profiles' routes, 10 waypoints, steps, polyline6, an avoided area, optimize, matrix, isochrone.
    // Each as many times at once as there are compute threads (ready's pool.threads).
    const threads = ready.body.pool.threads as number;
    expect(total).toBe(9 * own.rounds * threads);
    expect(own.statuses['200']).toBeGreaterThanOrEqual(6 * own.rounds * threads);
    expect(own.statuses.failed).toBeUndefined();
    expect(own.statuses['500']).toBeUndefined();
    // The same set through the socket, each on a new and on a kept-alive connection, answered as the
    // warm-up's team (200, or 422 where a sample point cannot be reached), never refused as unauthenticated.
    const socket = own.socket as Record<string, number>;
    expect(Object.values(socket).reduce((a, b) => a + b, 0)).toBe(9 * 2);
    expect(socket['200']).toBeGreaterThanOrEqual(6 * 2);
    expect(socket['401']).toBeUndefined();
    expect(socket['500']).toBeUndefined();
  });

  it("collected every compute thread's garbage last, leaving each thread's young generation at the size the warm-up grew it to", async () => {
    const ready = await api(app, 'GET', '/ready');
    const collected = ready.body.map.garbage_collected as Array<{ ms: number; semi_space_bytes: { before: number; after: number } }>;
    expect(collected).toHaveLength(ready.body.pool.threads);
    // V8 grows a thread's young generation as it allocates and shrinks it at a full collection, and a
    // fresh process's first requests then faulted its pages in as it grew back (16 MB a semi-space on this
    // map; more on a country's). compute/pool.ts sets its minimum to 16 "MB", which V8 doubles on 64-bit
    // builds without pointer compression (Node's): 32 MiB, its maximum, from the start.
    for (const c of collected) {
      expect(c.semi_space_bytes.before).toBe(32 * 2 ** 20);
      expect(c.semi_space_bytes.after).toBe(32 * 2 ** 20);
    }
  });

  it('leaves its own socket requests out of the metrics, and answers a client naming the header without the token as any client', async () => {
    const text = await metricsText();
    for (const status of ['200', '401', '422'])
      expect(series(text, 'waymark_http_requests_total', { route: '/v1/routes', method: 'POST', status })).toEqual([]);
    const res = await fetch(`${app.url}/v1/routes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': `wm_${'0'.repeat(40)}`, 'x-waymark-warm-up': 'guessed' },
      body: JSON.stringify({ profile: 'driving-car', waypoints: [VADUZ, SCHAAN] }),
    });
    expect(res.status).toBe(401);
    expect(series(await metricsText(), 'waymark_http_requests_total', { route: '/v1/routes', method: 'POST', status: '401' })).toEqual([1]);
  });
});
