// "Every error at once" (issue 19): a 422 lists every invalid field, the body's own problems and the
// checks that need data (unknown POI ids, categories and attributes, locations too far from a road) alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { MISSING_ID, NO_JOBS, expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { SCHAAN, VADUZ } from './helpers.js';

/** Far from any road of the Liechtenstein map. */
const OCEAN = { latitude: 0.5, longitude: -20 };
const ARCTIC = { latitude: 80, longitude: 10 };
const DESERT = { latitude: 23, longitude: 12 };

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(NO_JOBS);
  team = await makeTeam(app);
});

afterAll(async () => {
  await app?.close();
});

describe('every error at once', () => {
  it('POST /v1/routes: every waypoint too far from a road', async () => {
    const res = await api(app, 'POST', '/v1/routes', { key: team.key, body: { waypoints: [OCEAN, VADUZ, ARCTIC, SCHAAN, DESERT] } });
    expect422(res, ['waypoints.0', 'waypoints.2', 'waypoints.4']);
  });

  it('POST /v1/routes: unknown POI ids beside the body\'s own problems', async () => {
    const res = await api(app, 'POST', '/v1/routes', {
      key: team.key,
      body: { waypoints: [{ poi_id: MISSING_ID }, { latitude: 200, longitude: 9.5 }, { poi_id: 'nope' }], profile: 'rocket' },
    });
    expect422(res, ['waypoints.0.poi_id', 'waypoints.1.latitude', 'waypoints.2.poi_id', 'profile']);
  });

  it('POST /v1/routes/optimize: three unusable stops are all named', async () => {
    const res = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: VADUZ }], stops: [OCEAN, SCHAAN, ARCTIC, DESERT] },
    });
    expect422(res, ['stops.0', 'stops.2', 'stops.3']);
  });

  it('POST /v1/routes/optimize: unknown POI ids beside the body\'s own problems', async () => {
    const res = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: { poi_id: MISSING_ID }, capacity: -1 }], stops: [{ poi_id: MISSING_ID }, { ...SCHAAN, service: 'long' }] },
    });
    expect422(res, ['vehicles.0.start.poi_id', 'vehicles.0.capacity', 'stops.0.poi_id', 'stops.1.service']);
  });

  it('POST /v1/routes/clusters: unknown POI ids beside the body\'s own problems', async () => {
    const res = await api(app, 'POST', '/v1/routes/clusters', {
      key: team.key, body: { stops: [{ poi_id: MISSING_ID }, VADUZ, { poi_id: MISSING_ID }], clusters: 0 },
    });
    expect422(res, ['stops.0.poi_id', 'stops.2.poi_id', 'clusters']);
  });

  it('POST and PUT /v1/pois: an unknown category and unknown attributes beside the body\'s own problems', async () => {
    const res = await api(app, 'POST', '/v1/pois', {
      key: team.key, body: { name: '', latitude: 91, longitude: 9.5, category_id: MISSING_ID, attributes: { nope: 1, nada: 'x' } },
    });
    expect422(res, ['name', 'latitude', 'category_id', 'attributes.nope', 'attributes.nada']);
    const poi = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'Here', ...VADUZ } });
    expect(poi.status).toBe(201);
    const put = await api(app, 'PUT', `/v1/pois/${poi.body.data.id}`, { key: team.key, body: { longitude: 'east', category_id: MISSING_ID, attributes: { nope: null } } });
    expect422(put, ['longitude', 'category_id', 'attributes.nope']);
  });
});
