// A full pool queue answers 503 with Retry-After. The queue limit is set to 0 for this process, so every
// routing request finds the queue full: deterministic, with the real pool and map.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { SCHAAN, VADUZ, plan } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  process.env.WAYMARK_POOL_QUEUE = '0';
  app = await startTestApp();
  team = await makeTeam(app);
});
afterAll(() => app.close());

it('503 {message} with Retry-After when the pool queue is full', async () => {
  expect(app.mapDir).toBeDefined();
  const res = await plan(app, team.key, { waypoints: [VADUZ, SCHAAN] });
  expect(res.status).toBe(503);
  expect(Object.keys(res.body)).toEqual(['message']);
  expect(res.body.message).toMatch(/busy/i);
  expect(res.headers.get('retry-after')).toBe('1');
});
