// "Every error at once" (issue 19): a 422 lists every invalid field, the body's own problems and the
// checks that need data (unknown POI ids, categories and attributes, locations too far from a road) alike,
// in every combination: unknown ids do not hide the locations far from a road, nor these the ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { MISSING_ID, expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { SCHAAN, VADUZ } from './helpers.js';

/** Far from any road of the Liechtenstein map. */
const OCEAN = { latitude: 0.5, longitude: -20 };
const ARCTIC = { latitude: 80, longitude: 10 };
const DESERT = { latitude: 23, longitude: 12 };

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp();
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

  it("POST /v1/routes: unknown POI ids beside the body's own problems", async () => {
    const res = await api(app, 'POST', '/v1/routes', {
      key: team.key,
      body: { waypoints: [{ poi_id: MISSING_ID }, { latitude: 200, longitude: 9.5 }, { poi_id: 'nope' }], profile: 'rocket' },
    });
    expect422(res, ['waypoints.0.poi_id', 'waypoints.1.latitude', 'waypoints.2.poi_id', 'profile']);
  });

  it('POST /v1/routes: unknown POI ids beside waypoints too far from a road, a POI waypoint among them', async () => {
    const arctic = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'Svalbard', ...ARCTIC } });
    expect(arctic.status).toBe(201);
    const res = await api(app, 'POST', '/v1/routes', {
      key: team.key,
      body: { waypoints: [{ poi_id: MISSING_ID }, VADUZ, OCEAN, { poi_id: arctic.body.data.id }, SCHAAN] },
    });
    expect422(res, ['waypoints.0.poi_id', 'waypoints.2', 'waypoints.3']);
    expect(res.body.errors['waypoints.2']).toEqual(['is more than 500 m from a road usable by the driving-car profile']);
  });

  it("POST /v1/routes: unknown avoided POI ids and the body's own problems beside a waypoint too far from a road", async () => {
    const ids = await api(app, 'POST', '/v1/routes', {
      key: team.key,
      body: { waypoints: [OCEAN, VADUZ], profile: 'foot-walking', avoid: { poi_ids: [MISSING_ID] } },
    });
    expect422(ids, ['avoid.poi_ids.0', 'waypoints.0']);
    expect(ids.body.errors['waypoints.0']).toEqual(['is more than 500 m from a road usable by the foot-walking profile']);
    const own = await api(app, 'POST', '/v1/routes', {
      key: team.key,
      body: { waypoints: [VADUZ, DESERT, { latitude: 91, longitude: 9.5 }], avoid: { radius: 5 } },
    });
    expect422(own, ['avoid.radius', 'waypoints.1', 'waypoints.2.latitude']);
    // A list wrong as a whole (too long) is reported as such, its waypoints not checked one by one.
    const long = await api(app, 'POST', '/v1/routes', { key: team.key, body: { waypoints: [OCEAN, ...new Array(50).fill(VADUZ)] } });
    expect422(long, ['waypoints']);
  });

  it('POST /v1/routes/optimize: unknown POI ids beside stops and vehicles too far from a road', async () => {
    const res = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: ARCTIC, end: VADUZ }], stops: [{ poi_id: MISSING_ID }, OCEAN, SCHAAN, { id: 'x', ...DESERT }] },
    });
    expect422(res, ['vehicles.0.start', 'stops.0.poi_id', 'stops.1', 'stops.3']);
  });

  it("POST /v1/routes/optimize: the body's own problems beside unknown POI ids and stops too far from a road", async () => {
    const res = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: VADUZ, capacity: -1 }], stops: [{ ...OCEAN, service: 'long' }, SCHAAN, { poi_id: MISSING_ID }] },
    });
    expect422(res, ['vehicles.0.capacity', 'stops.0.service', 'stops.0', 'stops.2.poi_id']);
  });

  it("POST /v1/optimizations: unknown POI ids and stops too far from a road beside the body's own problems, at submission", async () => {
    const res = await api(app, 'POST', '/v1/optimizations', {
      key: team.key,
      body: { time_budget: 0, vehicles: [{ start: VADUZ }], stops: [{ poi_id: MISSING_ID }, OCEAN, SCHAAN] },
    });
    expect422(res, ['time_budget', 'stops.0.poi_id', 'stops.1']);
    const valid = await api(app, 'POST', '/v1/optimizations', {
      key: team.key,
      body: { vehicles: [{ start: VADUZ }], stops: [{ poi_id: MISSING_ID }, OCEAN, SCHAAN] },
    });
    expect422(valid, ['stops.0.poi_id', 'stops.1']);
  });

  it("a location a hair from a pole is far from every road, answered at once (the road grid's search used to spin there)", async () => {
    // Answered at once: the road grid's search looks in no cell there (test/unit/segment-grid.test.ts counts them).
    const pole = { latitude: -89.99999999999991, longitude: 9.52591422805673 };
    expect422(await api(app, 'POST', '/v1/routes', { key: team.key, body: { waypoints: [pole, VADUZ] } }), ['waypoints.0']);
    expect422(
      await api(app, 'POST', '/v1/optimizations', {
        key: team.key,
        body: { time_budget: 0, vehicles: [{ start: pole }], stops: [{ latitude: 89.99999999999993, longitude: 9.47 }, SCHAAN] },
      }),
      ['time_budget', 'vehicles.0.start', 'stops.0'],
    );
  });

  it('POST /v1/routes/optimize: three unusable stops are all named', async () => {
    const res = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: VADUZ }], stops: [OCEAN, SCHAAN, ARCTIC, DESERT] },
    });
    expect422(res, ['stops.0', 'stops.2', 'stops.3']);
  });

  it("POST /v1/routes/optimize: unknown POI ids beside the body's own problems", async () => {
    const res = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: { poi_id: MISSING_ID }, capacity: -1 }], stops: [{ poi_id: MISSING_ID }, { ...SCHAAN, service: 'long' }] },
    });
    expect422(res, ['vehicles.0.start.poi_id', 'vehicles.0.capacity', 'stops.0.poi_id', 'stops.1.service']);
  });

  it("POST /v1/routes/clusters: unknown POI ids beside the body's own problems", async () => {
    const res = await api(app, 'POST', '/v1/routes/clusters', {
      key: team.key,
      body: { stops: [{ poi_id: MISSING_ID }, VADUZ, { poi_id: MISSING_ID }], clusters: 0 },
    });
    expect422(res, ['stops.0.poi_id', 'stops.2.poi_id', 'clusters']);
  });

  it("POST /v1/routes/clusters: unknown POI ids beside more clusters than stops (the request's own stops are counted)", async () => {
    const res = await api(app, 'POST', '/v1/routes/clusters', {
      key: team.key,
      body: { stops: [{ poi_id: MISSING_ID }, VADUZ], clusters: 3 },
    });
    expect422(res, ['stops.0.poi_id', 'clusters']);
    expect(res.body.errors.clusters).toEqual(['must not exceed the number of stops (2)']);
    // Unknown ids in a POI selection: the number of stops is not known, so only the ids are named.
    const selection = await api(app, 'POST', '/v1/routes/clusters', { key: team.key, body: { pois: { poi_ids: [MISSING_ID] }, clusters: 3 } });
    expect422(selection, ['pois.poi_ids.0']);
  });

  it("POST and PUT /v1/pois: an unknown category and unknown attributes beside the body's own problems", async () => {
    const res = await api(app, 'POST', '/v1/pois', {
      key: team.key,
      body: { name: '', latitude: 91, longitude: 9.5, category_id: MISSING_ID, attributes: { nope: 1, nada: 'x' } },
    });
    expect422(res, ['name', 'latitude', 'category_id', 'attributes.nope', 'attributes.nada']);
    const poi = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'Here', ...VADUZ } });
    expect(poi.status).toBe(201);
    const put = await api(app, 'PUT', `/v1/pois/${poi.body.data.id}`, {
      key: team.key,
      body: { longitude: 'east', category_id: MISSING_ID, attributes: { nope: null } },
    });
    expect422(put, ['longitude', 'category_id', 'attributes.nope']);
  });
});
