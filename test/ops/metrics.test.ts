// GET /metrics, read by a Prometheus text-format parser after a few real requests: requests by route
// template, method and status; a route computed by the pool shows up under its kernel; the database pool,
// the jobs and the process are there. Readable from this host only, unless the setting says otherwise.
import { networkInterfaces } from 'node:os';
import parse from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { isLoopback } from '../../src/ops/metrics.js';
import { API_ONLY } from '../api/helpers.js';
import { SCHAAN, VADUZ } from '../routes-api/helpers.js';
import { api, checkedFetch, makeTeam, startTestApp, type TestTeam } from '../support/app.js';

interface Family {
  name: string;
  type: string;
  metrics: Array<{ value?: string; labels?: Record<string, string> }>;
}

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'foot-walking', HOST: '0.0.0.0' });
  team = await makeTeam(app);
});
afterAll(() => app?.close());

/**
 * The families of a scrape by name. The parser folds a histogram's labelled series into one (it keeps
 * only the last labels' buckets), so each histogram is also read without its TYPE line: its _bucket,
 * _sum and _count series then come back as plain samples with their labels.
 */
async function scrape(base = app.url): Promise<Map<string, Family>> {
  const res = await checkedFetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const typed = parse(text) as Family[];
  const untyped = parse(text.replace(/^# TYPE \S+ histogram$/gm, '')) as Family[];
  // Read that way, a histogram's series interleave: the parser starts a family at each change of name.
  const byName = new Map<string, Family>();
  for (const f of untyped) {
    const seen = byName.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else byName.set(f.name, f);
  }
  for (const f of typed) byName.set(f.name, f);
  return byName;
}

const sample = (f: Family | undefined, labels: Record<string, string>) => f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

describe('GET /metrics', () => {
  it('counts requests and their durations by route template, method and status', async () => {
    const poi = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'Rathaus', ...VADUZ } });
    expect(poi.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await api(app, 'GET', `/v1/pois/${poi.body.data.id}`, { key: team.key })).status).toBe(200);
    expect((await api(app, 'GET', '/v1/pois/01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: team.key })).status).toBe(404);
    expect((await api(app, 'GET', '/v1/info')).status).toBe(401);
    expect((await api(app, 'GET', '/no/such/path/123')).status).toBe(404);
    const route = await api(app, 'POST', '/v1/routes', { key: team.key, body: { waypoints: [VADUZ, SCHAAN], profile: 'foot-walking' } });
    expect(route.status).toBe(200);

    const m = await scrape();
    const requests = m.get('waymark_http_requests_total');
    expect(requests?.type).toBe('COUNTER');
    expect(sample(requests, { route: '/v1/pois/{id}', method: 'GET', status: '200' })?.value).toBe('3');
    expect(sample(requests, { route: '/v1/pois/{id}', method: 'GET', status: '404' })?.value).toBe('1');
    expect(sample(requests, { route: '/v1/pois', method: 'POST', status: '201' })?.value).toBe('1');
    expect(sample(requests, { route: '/v1/info', method: 'GET', status: '401' })?.value).toBe('1');
    // A path no route matched is one series, whatever the path: no series per URL.
    expect(sample(requests, { route: 'unmatched', method: 'GET', status: '404' })?.value).toBe('1');
    expect(requests!.metrics.some((s) => s.labels?.route?.includes('01ARZ3'))).toBe(false);

    expect(m.get('waymark_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    const reads = { route: '/v1/pois/{id}', method: 'GET', status: '200' };
    expect(sample(m.get('waymark_http_request_duration_seconds_count'), reads)?.value).toBe('3');
    expect(Number(sample(m.get('waymark_http_request_duration_seconds_sum'), reads)?.value)).toBeGreaterThan(0);
    expect(sample(m.get('waymark_http_request_duration_seconds_bucket'), { ...reads, le: '+Inf' })?.value).toBe('3');

    expect(m.get('waymark_compute_task_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(Number(sample(m.get('waymark_compute_task_duration_seconds_count'), { kernel: 'routeJson', outcome: 'ok' })?.value)).toBeGreaterThanOrEqual(1);
    expect(m.get('waymark_compute_queue_depth')?.metrics[0].value).toBe('0');
    expect(Number(m.get('waymark_compute_threads')?.metrics[0].value)).toBeGreaterThan(0);

    expect(Number(sample(m.get('waymark_db_pool_size'), { pool: 'queries' })?.value)).toBe(10);
    expect(Number(sample(m.get('waymark_db_pool_connections'), { pool: 'queries' })?.value)).toBeGreaterThan(0);
    expect(sample(m.get('waymark_db_pool_in_use'), { pool: 'queries' })?.value).toEqual(expect.any(String));
    for (const state of ['queued', 'running', 'failed']) expect(Number(sample(m.get('waymark_jobs'), { state })?.value)).toBeGreaterThanOrEqual(0);

    expect(Number(m.get('process_resident_memory_bytes')?.metrics[0].value)).toBeGreaterThan(1e6);
    expect(m.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('counts the jobs the database holds, by state', async () => {
    const before = Number(sample((await scrape()).get('waymark_jobs'), { state: 'queued' })?.value);
    await app.sql`INSERT INTO jobs (id, kind, payload, run_at) VALUES (${`metrics-${Date.now()}`}, 'metrics-test', '{}', now() + interval '1 hour')`;
    expect(Number(sample((await scrape()).get('waymark_jobs'), { state: 'queued' })?.value)).toBe(before + 1);
    await app.sql`DELETE FROM jobs WHERE kind = 'metrics-test'`;
  });

  it('is not answered to clients on another host by default', async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === 'IPv4');
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('0000:0000:0000:0000:0000:0000:0000:0001')).toBe(true);
    expect(isLoopback('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe(true);
    expect(isLoopback('192.0.2.2')).toBe(false);
    expect(isLoopback('0000:0000:0000:0000:0000:ffff:c000:0202')).toBe(false);
    if (!external) return console.warn('no non-loopback IPv4 address on this machine: the remote refusal is covered by isLoopback alone');
    const res = await checkedFetch(`http://${external.address}:${app.port}/metrics`);
    expect(res.status).toBe(404);
    // The same server answers the API there: only /metrics is kept to this host.
    expect((await checkedFetch(`http://${external.address}:${app.port}/health`)).status).toBe(200);
  });

  it('WAYMARK_METRICS=off answers 404 also on this host; =on answers anyone', async () => {
    const off = await startTestApp({ ...API_ONLY, WAYMARK_METRICS: 'off' });
    try {
      expect((await checkedFetch(`${off.url}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
    const on = await startTestApp({ ...API_ONLY, WAYMARK_METRICS: 'on', HOST: '0.0.0.0' });
    try {
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && !a.internal && a.family === 'IPv4');
      expect((await checkedFetch(`http://${external?.address ?? '127.0.0.1'}:${on.port}/metrics`)).status).toBe(200);
    } finally {
      await on.close();
    }
  });
});
