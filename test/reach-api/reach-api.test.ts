// The reachability endpoints on the real Liechtenstein map: POST /v1/matrix, GET /v1/nearest,
// POST /v1/isochrones, GET /v1/pois by travel time and POST /v1/routes/detours — answers checked against
// POST /v1/routes (an independent path through the engine) and brute force, and every bad field named
// in one 422. Answers are also checked against the OpenAPI document by `api`.
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, type TestTeam } from '../support/app.js';
import { startTestApp } from '../support/app.js';
import { MISSING_ID, lacks } from '../api/helpers.js';
import { BALZERS, RUGGELL, SCHAAN, VADUZ, haversine, insertPois, plan, type At } from '../routes-api/helpers.js';

let app: App & { url: string };
let team: TestTeam;
let poiIds: string[];
let poiAt: At[];

/** Points spread over the country, from a fixed seed. */
function spread(n: number, seed: number): At[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return Array.from({ length: n }, () => ({ latitude: 47.06 + rand() * 0.17, longitude: 9.48 + rand() * 0.08 }));
}

beforeAll(async () => {
  // Matrices, travel times and detours price no turns (docs/reachability.md): the routes they are checked
  // against here price none either, so a cell equals its route.
  app = await startTestApp({ WAYMARK_TURN_PRICES: 'off' });
  team = await makeTeam(app);
  // On roads (the nearest road of random points), so that every POI has a route.
  poiAt = [];
  for (const p of spread(160, 11)) {
    const res = await api(app, 'GET', `/v1/nearest?latitude=${p.latitude}&longitude=${p.longitude}`, { key: team.key });
    if (res.body.data.length) poiAt.push(res.body.data[0].location);
  }
  poiIds = await insertPois(app, team.teamId, poiAt);
});
afterAll(() => app.close());

const routeOf = async (a: At, b: At, profile = 'driving-car') => {
  const res = await plan(app, team.key, { waypoints: [a, b], profile });
  return res.status === 200 ? res.body.data : null;
};

describe('POST /v1/matrix', () => {
  it('every cell equals the route between the snapped points, for every profile', async () => {
    const sources = [VADUZ, SCHAAN, BALZERS];
    const destinations = [RUGGELL, VADUZ];
    for (const profile of ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking']) {
      const res = await api(app, 'POST', '/v1/matrix', { key: team.key, body: { profile, sources, destinations } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const d = res.body.data;
      expect(d.durations).toHaveLength(3);
      expect(d.durations[0]).toHaveLength(2);
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 2; j++) {
          const r = await routeOf(d.sources[i].location, d.destinations[j].location, profile);
          if (!r) expect(d.durations[i][j]).toBeNull();
          else {
            expect(Math.abs(d.durations[i][j] - r.duration)).toBeLessThanOrEqual(0.11);
            expect(Math.abs(d.distances[i][j] - r.distance)).toBeLessThanOrEqual(0.11);
          }
        }
      }
      // Snapped within 500 m, with the road's name where it has one.
      for (const s of d.sources) expect(s.snapped_distance).toBeLessThanOrEqual(500);
      expect(d.sources.some((s: any) => typeof s.name === 'string' && s.name.length > 0)).toBe(true);
    }
  });

  it('sources alone is all to all, zero on the diagonal; annotations choose the matrices; POIs as locations', async () => {
    const res = await api(app, 'POST', '/v1/matrix', {
      key: team.key,
      body: { sources: [VADUZ, { poi_id: poiIds[0] }, SCHAAN], annotations: ['distance'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const d = res.body.data;
    expect(d.durations).toBeUndefined();
    expect(d.distances.map((r: number[], i: number) => r[i])).toEqual([0, 0, 0]);
    expect(d.destinations).toEqual(d.sources);
    expect(d.sources[1].poi_id).toBe(poiIds[0]);
  });

  it('avoiding POIs: every cell at least the plain one, and each equals the avoiding route', async () => {
    // Ten sources: the rows are shared out over the threads (a search each while avoiding).
    const sources = [BALZERS, VADUZ, ...poiAt.slice(0, 8)],
      destinations = [RUGGELL, SCHAAN];
    const plain = await api(app, 'POST', '/v1/matrix', { key: team.key, body: { sources, destinations } });
    const res = await api(app, 'POST', '/v1/matrix', { key: team.key, body: { sources, destinations, avoid: { radius: 30 } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const d = res.body.data;
    expect(d.avoided.count).toBeGreaterThan(0);
    let compared = 0;
    for (let i = 0; i < sources.length; i++)
      for (let j = 0; j < 2; j++) {
        const r = await plan(app, team.key, {
          waypoints: [d.sources[i].location, d.destinations[j].location],
          avoid: { poi_ids: d.avoided.poi_ids, radius: 30 },
        });
        // Where the route avoids the same circles (it also skips those around its snapped ends), the same answer.
        if (r.status === 200 && [...r.body.data.avoided.poi_ids].sort().join() !== [...d.avoided.poi_ids].sort().join()) continue;
        if (d.durations[i][j] === null) expect(r.status).toBe(422);
        else {
          expect(d.durations[i][j]).toBeGreaterThanOrEqual(plain.body.data.durations[i][j] - 0.05);
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          expect(Math.abs(r.body.data.duration - d.durations[i][j])).toBeLessThanOrEqual(0.11);
        }
        compared++;
      }
    expect(compared).toBeGreaterThan(0);
  });

  it('one 422 names every bad field: too many, unknown POIs, off-road points, bad annotations', async () => {
    const many = Array.from({ length: 101 }, () => VADUZ);
    let res = await api(app, 'POST', '/v1/matrix', { key: team.key, body: { sources: many } });
    expect(res.status).toBe(422);
    expect(res.body.errors.sources[0]).toMatch(/at most 100/);
    res = await api(app, 'POST', '/v1/matrix', {
      key: team.key,
      body: {
        sources: [VADUZ, { poi_id: MISSING_ID }, { latitude: 47.2, longitude: 9.2 }],
        destinations: [
          { latitude: 95, longitude: 9 },
          { latitude: 47.12, longitude: 9.3 },
        ],
        annotations: ['speed'],
      },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['annotations.0', 'destinations.0.latitude', 'destinations.1', 'sources.1.poi_id', 'sources.2'].sort());
  });

  it('needs plan-routes, and read-pois for POI locations', async () => {
    const reader = await makeTeam(app, {}, 'read-pois');
    let res = await api(app, 'POST', '/v1/matrix', { key: reader.key, body: { sources: [VADUZ] } });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(lacks('plan-routes'));
    const planner = await makeTeam(app, {}, 'plan-routes');
    res = await api(app, 'POST', '/v1/matrix', { key: planner.key, body: { sources: [{ poi_id: MISSING_ID }] } });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(lacks('read-pois'));
  });
});

describe('GET /v1/nearest', () => {
  it('the nearest roads, nearest first, distinct, with names and bearings', async () => {
    const res = await api(app, 'GET', `/v1/nearest?latitude=${VADUZ.latitude}&longitude=${VADUZ.longitude}&number=5`, { key: team.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const d = res.body.data;
    expect(d.length).toBe(5);
    for (let i = 1; i < d.length; i++) expect(d[i].distance).toBeGreaterThanOrEqual(d[i - 1].distance);
    for (const r of d) {
      expect(r.bearing).toBeGreaterThanOrEqual(0);
      expect(r.bearing).toBeLessThan(360);
      expect(Math.abs(haversine(r.location, VADUZ) - r.distance)).toBeLessThan(1);
    }
    expect(d.some((r: any) => r.name)).toBe(true);
    // The first is where a route from here starts.
    const m = await api(app, 'POST', '/v1/matrix', { key: team.key, body: { sources: [VADUZ] } });
    expect(haversine(m.body.data.sources[0].location, d[0].location)).toBeLessThan(1);
  });

  it('an empty list far from roads; 422 naming each bad parameter', async () => {
    let res = await api(app, 'GET', '/v1/nearest?latitude=0&longitude=0', { key: team.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    res = await api(app, 'GET', '/v1/nearest?latitude=91&longitude=x&number=11&profile=boat', { key: team.key });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['latitude', 'longitude', 'number', 'profile']);
  });
});

describe('POST /v1/isochrones', () => {
  it('bands contain the points reached within them and leave out far ones', async () => {
    const res = await api(app, 'POST', '/v1/isochrones', { key: team.key, body: { locations: [VADUZ], range: [300, 600] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const fc = res.body.data;
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features.map((f: any) => f.properties.value)).toEqual([300, 600]);
    expect(fc.features[0].properties.area).toBeLessThan(fc.features[1].properties.area);
    const probe = poiAt.slice(0, 40);
    const matrix = await api(app, 'POST', '/v1/matrix', { key: team.key, body: { sources: [VADUZ], destinations: probe } });
    expect(matrix.status).toBe(200);
    let inside = 0;
    probe.forEach((_, j) => {
      const t = matrix.body.data.durations[0][j];
      const at = [matrix.body.data.destinations[j].location.longitude, matrix.body.data.destinations[j].location.latitude];
      for (const f of fc.features) {
        // Every snapped point reached within the value lies inside its band.
        if (t !== null && t <= f.properties.value) {
          expect(booleanPointInPolygon(at, f.geometry), `${at} at ${t} s in ${f.properties.value}`).toBe(true);
          inside++;
        }
      }
    });
    expect(inside).toBeGreaterThan(3);
    // Ruggell is 10+ minutes away: well outside the 5-minute band.
    expect(booleanPointInPolygon([RUGGELL.longitude, RUGGELL.latitude], fc.features[0].geometry)).toBe(false);
  });

  it('intervals make bands; distances work; one 422 names every bad field', async () => {
    let res = await api(app, 'POST', '/v1/isochrones', {
      key: team.key,
      body: { locations: [VADUZ, { poi_id: poiIds[1] }], range_type: 'distance', range: [3000], interval: 1000 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.features.map((f: any) => [f.properties.group_index, f.properties.value])).toEqual([
      [0, 1000],
      [0, 2000],
      [0, 3000],
      [1, 1000],
      [1, 2000],
      [1, 3000],
    ]);
    expect(res.body.data.features[3].properties.poi_id).toBe(poiIds[1]);
    res = await api(app, 'POST', '/v1/isochrones', {
      key: team.key,
      body: {
        locations: [VADUZ, { poi_id: MISSING_ID }, { latitude: 47.2, longitude: 9.2 }, VADUZ, VADUZ, VADUZ],
        range: [4000, 100],
        profile: 'car',
      },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['locations', 'locations.1.poi_id', 'profile', 'range.0', 'range.1'].sort());
    res = await api(app, 'POST', '/v1/isochrones', {
      key: team.key,
      body: { locations: [{ poi_id: MISSING_ID }, { latitude: 47.2, longitude: 9.2 }], range: [600], interval: 10 },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['interval', 'locations.0.poi_id', 'locations.1'].sort());
  });
});

describe('GET /v1/pois by travel time', () => {
  it('equals a brute-force ranking over the matrix, fastest first, paged', async () => {
    const limit = 420;
    const m = await api(app, 'POST', '/v1/matrix', { key: team.key, body: { sources: [VADUZ], destinations: poiAt } });
    expect(m.status).toBe(200);
    const expected = poiIds
      .map((id, j) => ({ id, t: m.body.data.durations[0][j] as number | null }))
      .filter((p) => p.t !== null && p.t <= limit)
      .sort((a, b) => a.t! - b.t! || (a.id < b.id ? -1 : 1));
    expect(expected.length).toBeGreaterThan(10);
    const got: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api(
        app,
        'GET',
        `/v1/pois?latitude=${VADUZ.latitude}&longitude=${VADUZ.longitude}&profile=driving-car&max_travel_time=${limit}&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
        { key: team.key },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      got.push(...res.body.data);
      cursor = res.body.next;
    } while (cursor);
    expect(got.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    got.forEach((p, k) => expect(Math.abs(p.travel_time - expected[k].t!)).toBeLessThanOrEqual(0.11));
  });

  it('a POI added or removed shows in the next list at once (the in-process positions are checked against the rows)', async () => {
    const list = async () =>
      (await api(app, 'GET', `/v1/pois?latitude=${VADUZ.latitude}&longitude=${VADUZ.longitude}&max_travel_time=120&limit=100`, { key: team.key })).body;
    await list();
    const created = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'right here', ...VADUZ } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await list()).data.map((p: any) => p.id)).toContain(id);
    expect((await api(app, 'DELETE', `/v1/pois/${id}`, { key: team.key })).status).toBe(204);
    expect((await list()).data.map((p: any) => p.id)).not.toContain(id);
  });

  it('combines with the other filters; one 422 names every bad parameter', async () => {
    const res = await api(app, 'GET', `/v1/pois?latitude=${VADUZ.latitude}&longitude=${VADUZ.longitude}&max_travel_time=600&distance=1500`, { key: team.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const p of res.body.data) expect(haversine(p, VADUZ)).toBeLessThanOrEqual(1500.01);
    const bad = await api(app, 'GET', '/v1/pois?max_travel_time=7200&profile=boat&cursor=x', { key: team.key });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['cursor', 'latitude', 'longitude', 'max_travel_time', 'profile']);
  });
});

describe('POST /v1/routes/detours', () => {
  /** The endpoint's ranking against brute force over the matrix, for a team's POIs at `at`. */
  async function checkDetours(key: string, ids: string[], at: At[], waypoints: At[], limit: number) {
    const res = await api(app, 'POST', '/v1/routes/detours', { key, body: { waypoints, max_detour: 600, limit } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const d = res.body.data;
    expect(d.pois.length).toBe(limit);
    for (let i = 1; i < d.pois.length; i++) expect(d.pois[i].detour_duration).toBeGreaterThanOrEqual(d.pois[i - 1].detour_duration);
    for (const p of d.pois) {
      expect(p.detour_duration).toBeLessThanOrEqual(600);
      expect(p.legs[0].duration + p.legs[1].duration - d.route.legs[p.leg].duration).toBeCloseTo(p.detour_duration, 0);
    }
    // Brute force: the detour of every POI in the best leg, by matrix rows (at most 100 a call).
    const added = new Map<string, number>();
    for (let k = 0; k < at.length; k += 100) {
      const part = at.slice(k, k + 100);
      const to = await api(app, 'POST', '/v1/matrix', { key, body: { sources: waypoints.slice(0, -1), destinations: part } });
      const from = await api(app, 'POST', '/v1/matrix', { key, body: { sources: part, destinations: waypoints.slice(1) } });
      part.forEach((_, j) => {
        const best = Math.min(...d.route.legs.map((l: any, i: number) => to.body.data.durations[i][j] + from.body.data.durations[j][i] - l.duration));
        added.set(ids[k + j], best);
      });
    }
    const sorted = [...added.values()].sort((x, y) => x - y);
    // POIs on the route tie at no detour: the values are compared, and each POI's own detour.
    d.pois.forEach((p: any, k: number) => {
      expect(Math.abs(p.detour_duration - Math.max(0, sorted[k]))).toBeLessThanOrEqual(0.3);
      expect(Math.abs(p.detour_duration - Math.max(0, added.get(p.poi_id)!))).toBeLessThanOrEqual(0.3);
    });
  }

  it('ranks POIs by the time they add, as routes through them measure it (a few POIs: by matrices)', async () => {
    await checkDetours(team.key, poiIds, poiAt, [BALZERS, RUGGELL], 5);
  });

  it("many POIs (by searches from each leg's ends) rank as brute force does, over several legs", async () => {
    const many = await makeTeam(app);
    // The team's road points, four times over, a few meters apart: more POIs than the matrices take.
    const at = [0, 1, 2, 3].flatMap((k) => poiAt.map((p) => ({ latitude: p.latitude + k * 1e-5, longitude: p.longitude })));
    const ids = await insertPois(app, many.teamId, at);
    await checkDetours(many.key, ids, at, [BALZERS, VADUZ, RUGGELL], 20);
  });

  it('one 422 names every bad field', async () => {
    const res = await api(app, 'POST', '/v1/routes/detours', {
      key: team.key,
      body: { waypoints: [VADUZ, { poi_id: MISSING_ID }, { latitude: 47.2, longitude: 9.2 }], max_detour: 9999, limit: 0 },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['limit', 'max_detour', 'waypoints.1.poi_id', 'waypoints.2'].sort());
  });
});
