// A full pool queue answers 503 with Retry-After. The queue limit is 0 in this process (forks isolate it),
// so every clustering request finds the queue full: deterministic, with the real pool.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { API_ONLY } from '../api/helpers.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { VADUZ, cluster, scatter } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  process.env.WAYMARK_POOL_QUEUE = '0';
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
});
afterAll(() => app.close());

it('503 {message} with Retry-After when the pool queue is full; validation still answers first', async () => {
  const stops = scatter(VADUZ, 10, 1000);
  const res = await cluster(app, team.key, { stops, clusters: 2 });
  expect(res.status).toBe(503);
  expect(Object.keys(res.body)).toEqual(['message']);
  expect(res.body.message).toMatch(/busy/i);
  expect(res.headers.get('retry-after')).toBe('1');
  expect((await cluster(app, team.key, { stops, clusters: 11 })).status).toBe(422);
});
