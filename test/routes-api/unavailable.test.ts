// Without a map (WAYMARK_MAP=off) routing answers 503; requests are still authenticated and validated first.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { SCHAAN, VADUZ, plan } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: 'off' });
  team = await makeTeam(app);
});
afterAll(() => app.close());

it('503 {message} for plain and avoiding routes when no map is loaded', async () => {
  expect(app.mapDir).toBeUndefined();
  for (const body of [{ waypoints: [VADUZ, SCHAAN] }, { waypoints: [VADUZ, SCHAAN], avoid: {} }]) {
    const res = await plan(app, team.key, body);
    expect(res.status).toBe(503);
    expect(Object.keys(res.body)).toEqual(['message']);
    expect(res.body.message).toMatch(/no map/i);
  }
});

it('authentication, permissions and validation still come first', async () => {
  expect((await api(app, 'POST', '/v1/routes', { body: { waypoints: [VADUZ, SCHAAN] } })).status).toBe(401);
  expect((await plan(app, await team.keyWith('read-pois'), { waypoints: [VADUZ, SCHAAN] })).status).toBe(403);
  expect422(await plan(app, team.key, { waypoints: [VADUZ] }), ['waypoints']);
});
