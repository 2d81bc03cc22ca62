// Without a map (WAYMARK_MAP=off) optimizing answers 503; authentication, permissions and validation come first.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { expect422, lacks } from '../api/helpers.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { optimize, SCHAAN, VADUZ } from './support.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off' });
  team = await makeTeam(app);
});
afterAll(() => app.close());

it('503 {message} when no map is loaded, after permissions and validation', async () => {
  expect(app.mapDir).toBeUndefined();
  const body = { vehicles: [{ start: VADUZ }], stops: [{ ...SCHAAN }] };
  const res = await optimize(app, team.key, body);
  expect(res.status).toBe(503);
  expect(Object.keys(res.body)).toEqual(['message']);
  expect(res.body.message).toMatch(/no map/i);
  expect((await optimize(app, await team.keyWith('read-pois'), body)).body).toEqual({ message: lacks('plan-routes') });
  expect422(await optimize(app, team.key, { ...body, stops: [] }), ['stops']);
});
