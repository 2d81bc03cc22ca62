// Route options of issue 36 over HTTP on the Liechtenstein map: `exclude` on POST /v1/routes, /v1/matrix,
// /v1/routes/optimize and /v1/optimizations (its answers are the engine's, checked against a reference
// Dijkstra in test/routing/exclude.test.ts; here: that each endpoint takes it, and one 422 names every
// bad field).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { expect422, NO_JOBS } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { SCHAAN, VADUZ, type At } from './helpers.js';

/** Planken, up the slope above Schaan: the shortest walk down takes forest tracks. */
const PLANKEN: At = { latitude: 47.185, longitude: 9.545 };

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(NO_JOBS);
  team = await makeTeam(app);
});
afterAll(async () => {
  await app?.close();
});

const post = (path: string, body: unknown) => api(app, 'POST', path, { key: team.key, body });

describe('exclude', () => {
  it('POST /v1/routes: a walk down from Planken keeps off the forest tracks when asked, and is slower for it', async () => {
    const plain = await post('/v1/routes', { waypoints: [PLANKEN, SCHAAN], profile: 'foot-walking' });
    const paved = await post('/v1/routes', { waypoints: [PLANKEN, SCHAAN], profile: 'foot-walking', exclude: ['unpaved'] });
    expect(plain.status).toBe(200);
    expect(paved.status, JSON.stringify(paved.body)).toBe(200);
    expect(paved.body.data.duration).toBeGreaterThan(plain.body.data.duration);
    // The answer keeps its shape: nothing is added for the option.
    expect(Object.keys(paved.body.data).sort()).toEqual(Object.keys(plain.body.data).sort());
    // Another class the walk never takes changes nothing.
    const ferry = await post('/v1/routes', { waypoints: [PLANKEN, SCHAAN], profile: 'foot-walking', exclude: ['ferry'] });
    expect(ferry.body.data.duration).toBe(plain.body.data.duration);
    expect(ferry.body.data.geometry).toEqual(plain.body.data.geometry);
  });

  it('POST /v1/routes: one 422 names a class the profile cannot use, an unknown class and the other bad fields', async () => {
    const res = await post('/v1/routes', {
      waypoints: [VADUZ, { latitude: 95, longitude: 9.5 }],
      profile: 'cycling-regular',
      exclude: ['motorway', 'tolls'],
    });
    expect422(res, ['exclude.0', 'exclude.1', 'waypoints.1.latitude']);
    const bike = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], profile: 'cycling-regular', exclude: ['unpaved', 'toll'], steps: 'yes' });
    expect422(bike, ['exclude.1', 'steps']);
    expect(bike.body.errors['exclude.1']).toEqual(['is not a class the cycling-regular profile uses; it may exclude ferry, unpaved']);
    expect422(await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], exclude: 'toll' }), ['exclude']);
    expect422(await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], exclude: ['toll', 'toll', 'ferry', 'unpaved', 'motorway'] }), ['exclude']);
  });

  it('POST /v1/matrix: cells keep off the excluded class; a bad class is a 422 beside the other fields', async () => {
    const body = { sources: [PLANKEN, SCHAAN], profile: 'foot-walking' };
    const plain = await post('/v1/matrix', body);
    const paved = await post('/v1/matrix', { ...body, exclude: ['unpaved'] });
    expect(paved.status, JSON.stringify(paved.body)).toBe(200);
    expect(paved.body.data.durations[0][1]).toBeGreaterThan(plain.body.data.durations[0][1]);
    const route = await post('/v1/routes', { waypoints: [PLANKEN, SCHAAN], profile: 'foot-walking', exclude: ['unpaved'] });
    expect(paved.body.data.durations[0][1]).toBeCloseTo(route.body.data.duration, 0);
    expect422(await post('/v1/matrix', { ...body, exclude: ['motorway'], annotations: ['speed'] }), ['exclude.0', 'annotations.0']);
  });

  it('POST /v1/routes/optimize and /v1/optimizations take it, and refuse a class the profile cannot use', async () => {
    const plan = {
      profile: 'foot-walking',
      vehicles: [{ id: 'walker', start: PLANKEN }],
      stops: [{ id: 'north', ...SCHAAN }],
    };
    const plain = await post('/v1/routes/optimize', plan);
    const paved = await post('/v1/routes/optimize', { ...plan, exclude: ['unpaved'] });
    expect(paved.status, JSON.stringify(paved.body)).toBe(200);
    const arrival = (r: typeof plain) => r.body.data.routes[0].steps.find((s: { type: string }) => s.type === 'job' || s.id === 'north').arrival;
    expect(arrival(paved) > arrival(plain)).toBe(true);
    expect422(await post('/v1/routes/optimize', { ...plan, exclude: ['toll'] }), ['exclude.0']);
    expect422(await post('/v1/optimizations', { ...plan, exclude: ['toll'], vehicles: [{ start: PLANKEN, capacity: -1 }] }), ['exclude.0', 'vehicles.0.capacity']);
  });
});
