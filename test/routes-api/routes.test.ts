// POST /v1/routes without avoidance, on the real Liechtenstein map: the answer's shape and consistency,
// POI waypoints, validation, authentication and permissions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, type TestTeam } from '../support/app.js';
import { startTestApp } from '../support/app.js';
import { MISSING_ID, NO_PLAN, UNAUTHENTICATED, expect422, lacks } from '../api/helpers.js';
import { BETWEEN, SCHAAN, VADUZ, createPoi, expectRoute, haversine, lineMeters, plan, type At } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
let betweenPoi: string;

beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
  betweenPoi = await createPoi(app, team.key, BETWEEN);
});
afterAll(() => app.close());

const first = (d: any): At => ({ latitude: d.geometry.coordinates[0][1], longitude: d.geometry.coordinates[0][0] });
const last = (d: any): At => {
  const c = d.geometry.coordinates[d.geometry.coordinates.length - 1];
  return { latitude: c[1], longitude: c[0] };
};

describe('plain routes', () => {
  it('Vaduz → Schaan by car: totals, legs, bbox and a geometry from snapped start to snapped end', async () => {
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN] }), 2);
    expect(d.profile).toBe('driving-car');
    expect(d.avoided).toBeNull();
    // 3 km apart as the crow flies: the road is longer, and not absurdly so.
    const crow = haversine(VADUZ, SCHAAN);
    expect(d.distance).toBeGreaterThan(crow);
    expect(d.distance).toBeLessThan(crow * 2);
    // Between 10 and 130 km/h on average.
    expect(d.distance / d.duration).toBeGreaterThan(10 / 3.6);
    expect(d.distance / d.duration).toBeLessThan(130 / 3.6);
    expect(haversine(first(d), VADUZ)).toBeLessThan(500);
    expect(haversine(last(d), SCHAAN)).toBeLessThan(500);
    expect(d.waypoints).toEqual([
      { poi_id: null, ...VADUZ },
      { poi_id: null, ...SCHAAN },
    ]);
  });

  it('each profile answers with its own route; walking is slower than driving', async () => {
    const by: Record<string, any> = {};
    for (const profile of ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking']) {
      by[profile] = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], profile }), 2);
      expect(by[profile].profile).toBe(profile);
    }
    expect(by['foot-walking'].duration).toBeGreaterThan(by['cycling-regular'].duration);
    expect(by['cycling-regular'].duration).toBeGreaterThan(by['driving-car'].duration);
    expect(by['driving-hgv'].duration).toBeGreaterThanOrEqual(by['driving-car'].duration);
  });

  it('3 waypoints with a POI in the middle: two legs through the POI, its id and position echoed', async () => {
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, { poi_id: betweenPoi.toLowerCase() }, SCHAAN] }), 3);
    expect(d.waypoints).toEqual([
      { poi_id: null, ...VADUZ },
      { poi_id: betweenPoi, ...BETWEEN },
      { poi_id: null, ...SCHAAN },
    ]);
    expect(d.legs.every((l: any) => l.distance > 0 && l.duration > 0)).toBe(true);
    expect(lineMeters(BETWEEN, d.geometry.coordinates)).toBeLessThan(500);
    // Two legs split at the middle waypoint: the first ends closer to it than to Schaan.
    expect(d.legs[0].distance).toBeGreaterThan(500);
    expect(d.legs[1].distance).toBeGreaterThan(500);
  });

  it('a round trip returns to its start; 50 waypoints are accepted', async () => {
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN, VADUZ] }), 3);
    expect(haversine(first(d), last(d))).toBeLessThan(1);
    const many = Array.from({ length: 50 }, (_, i) => (i % 2 ? SCHAAN : VADUZ));
    const m = expectRoute(await plan(app, team.key, { waypoints: many }), 50);
    expect(m.distance).toBeGreaterThan((40 * d.distance) / 2);
  });

  it('driving-hgv with a vehicle: a smaller lorry may take ways below the default one; a wide one keeps off narrow ways', async () => {
    const body = { waypoints: [VADUZ, SCHAAN], profile: 'driving-hgv' };
    const plainHgv = expectRoute(await plan(app, team.key, body), 2);
    const medium = expectRoute(await plan(app, team.key, { ...body, vehicle: { height: 3.2, width: 2.4, length: 10, weight: 12 } }), 2);
    expect(medium.duration).toBeLessThanOrEqual(plainHgv.duration);
    // From Eschen to Schaan's west, a van-sized lorry takes a way the default lorry is too big for.
    const across = {
      waypoints: [
        { latitude: 47.21544, longitude: 9.5297564 },
        { latitude: 47.1647245, longitude: 9.4917212 },
      ],
      profile: 'driving-hgv',
    };
    const big = expectRoute(await plan(app, team.key, across), 2);
    const van = expectRoute(await plan(app, team.key, { ...across, vehicle: { height: 2.5, width: 2, length: 6, weight: 3.5 } }), 2);
    expect(van.duration).toBeLessThan(big.duration - 10);
    expect(van.geometry).not.toEqual(big.geometry);
    // Liechtenstein's HGV ways with limits are 3 m or 5.5 m wide: a 6 m wide load keeps off them (a route
    // the same or longer), or has no route, said so at the unreachable waypoint.
    const wide = await plan(app, team.key, { ...body, vehicle: { width: 6 } });
    if (wide.status === 200) expect(wide.body.data.duration).toBeGreaterThanOrEqual(plainHgv.duration);
    else {
      expect422(wide, ['waypoints.1']);
      expect(wide.body.message).toMatch(/lorry of this size/);
    }
  });

  it('the same point twice is a route of length 0 with a two-position LineString', async () => {
    const res = await plan(app, team.key, { waypoints: [VADUZ, VADUZ] });
    expect(res.status).toBe(200);
    expect(res.body.data.distance).toBe(0);
    expect(res.body.data.duration).toBe(0);
    expect(res.body.data.geometry.coordinates).toHaveLength(2);
  });
});

describe('validation: 422 with field paths', () => {
  const bad = async (body: unknown, fields: string[]) => {
    const res = await plan(app, team.key, body);
    expect422(res, fields);
    return res;
  };

  it('waypoints: missing, too few, too many, not an array', async () => {
    await bad({}, ['waypoints']);
    await bad({ waypoints: [VADUZ] }, ['waypoints']);
    await bad({ waypoints: Array.from({ length: 51 }, () => VADUZ) }, ['waypoints']);
    const res = await bad({ waypoints: 'Vaduz' }, ['waypoints']);
    expect(res.body.errors.waypoints).toEqual(['must be an array of 2 to 50 locations']);
  });

  it('a location has exactly one form', async () => {
    await bad({ waypoints: [VADUZ, { ...SCHAAN, poi_id: betweenPoi }] }, ['waypoints.1']);
    await bad({ waypoints: [VADUZ, {}] }, ['waypoints.1']);
    await bad({ waypoints: [VADUZ, 5] }, ['waypoints.1']);
    await bad({ waypoints: [{ latitude: 47.1 }, SCHAAN] }, ['waypoints.0.longitude']);
    await bad({ waypoints: [VADUZ, { longitude: 9.5 }] }, ['waypoints.1.latitude']);
    await bad({ waypoints: [VADUZ, { ...SCHAAN, name: 'x' }] }, ['waypoints.1.name']);
  });

  it('coordinates are numbers in range', async () => {
    await bad({ waypoints: [VADUZ, { latitude: 91, longitude: 9.5 }] }, ['waypoints.1.latitude']);
    await bad({ waypoints: [{ latitude: 47, longitude: -180.5 }, SCHAAN] }, ['waypoints.0.longitude']);
    await bad({ waypoints: [VADUZ, { latitude: '47.1', longitude: 9.5 }] }, ['waypoints.1.latitude']);
  });

  it("an unknown POI id, or another team's POI, is 422 at waypoints.N.poi_id", async () => {
    await bad({ waypoints: [VADUZ, { poi_id: MISSING_ID }] }, ['waypoints.1.poi_id']);
    await bad({ waypoints: [{ poi_id: 'not-an-id' }, SCHAAN] }, ['waypoints.0.poi_id']);
    const other = await makeTeam(app);
    const res = await plan(app, other.key, { waypoints: [{ poi_id: betweenPoi }, SCHAAN] });
    expect422(res, ['waypoints.0.poi_id']);
  });

  it('profile: unknown values; unknown top-level fields', async () => {
    await bad({ waypoints: [VADUZ, SCHAAN], profile: 'driving-truck' }, ['profile']);
    await bad({ waypoints: [VADUZ, SCHAAN], profile: null }, ['profile']);
    await bad({ waypoints: [VADUZ, SCHAAN], optimize: true }, ['optimize']);
  });

  it('vehicle (extension): driving-hgv only, numbers in range, known fields only', async () => {
    await bad({ waypoints: [VADUZ, SCHAAN], vehicle: { height: 3.5 } }, ['vehicle']);
    await bad({ waypoints: [VADUZ, SCHAAN], profile: 'cycling-regular', vehicle: {} }, ['vehicle']);
    await bad({ waypoints: [VADUZ, SCHAAN], profile: 'driving-hgv', vehicle: { height: 0.2 } }, ['vehicle.height']);
    await bad({ waypoints: [VADUZ, SCHAAN], profile: 'driving-hgv', vehicle: { weight: '40t' } }, ['vehicle.weight']);
    await bad({ waypoints: [VADUZ, SCHAAN], profile: 'driving-hgv', vehicle: { width: 2.5, axles: 3 } }, ['vehicle.axles']);
    await bad({ waypoints: [VADUZ, SCHAAN], profile: 'driving-hgv', vehicle: 4 }, ['vehicle']);
  });

  it('avoid: radius 10–500 integer, known fields only, filter rules', async () => {
    const w = [VADUZ, SCHAAN];
    for (const radius of [9, 501, 50.5, '50', null]) await bad({ waypoints: w, avoid: { radius } }, ['avoid.radius']);
    await bad({ waypoints: w, avoid: { radious: 50 } }, ['avoid.radious']);
    await bad({ waypoints: w, avoid: [] }, ['avoid']);
    await bad({ waypoints: w, avoid: { category_id: MISSING_ID, category_name: 'x' } }, ['avoid.category_id']);
    await bad({ waypoints: w, avoid: { category_id: 'nope' } }, ['avoid.category_id']);
    await bad({ waypoints: w, avoid: { latitude: 47.1 } }, ['avoid.longitude']);
    for (const distance of [0, 0.5, 100_000.5, '10']) await bad({ waypoints: w, avoid: { latitude: 47.1, longitude: 9.5, distance } }, ['avoid.distance']);
    await bad({ waypoints: w, avoid: { distance: 10 } }, ['avoid.latitude', 'avoid.longitude']);
    await bad({ waypoints: w, avoid: { latitude: 95, longitude: 9.5 } }, ['avoid.latitude']);
    await bad({ waypoints: w, avoid: { attributes: { nope: 'x' } } }, ['avoid.attributes.nope']);
    await bad({ waypoints: w, avoid: { attributes: 'x' } }, ['avoid.attributes']);
    await bad({ waypoints: w, avoid: { country_id: 'x' } }, ['avoid.country_id']);
    await bad({ waypoints: w, avoid: { poi_ids: 'x' } }, ['avoid.poi_ids']);
    await bad({ waypoints: w, avoid: { poi_ids: [betweenPoi, MISSING_ID, 'bad'] } }, ['avoid.poi_ids.1', 'avoid.poi_ids.2']);
    await bad({ waypoints: w, avoid: { poi_ids: Array.from({ length: 501 }, () => betweenPoi) } }, ['avoid.poi_ids']);
  });

  it('a waypoint more than 500 m from a usable road is 422 at waypoints.N', async () => {
    // Lake Constance, far off the extract's roads.
    const res = await bad({ waypoints: [VADUZ, SCHAAN, { latitude: 47.6, longitude: 9.4 }] }, ['waypoints.2']);
    expect(res.body.errors['waypoints.2'][0]).toMatch(/500 m/);
  });

  it('"too far from a road" depends on the profile: a hillside path is walkable, not drivable', async () => {
    const hillside = { latitude: 47.142, longitude: 9.535 };
    const res = await bad({ waypoints: [hillside, SCHAAN] }, ['waypoints.0']);
    expect(res.body.errors['waypoints.0'][0]).toMatch(/driving-car/);
    expectRoute(await plan(app, team.key, { waypoints: [hillside, SCHAAN], profile: 'foot-walking' }), 2);
  });

  it('a waypoint the road network does not connect: 422 at that waypoint, saying so (not "blocked")', async () => {
    // A footpath above Vaduz that the extract does not link to the valley's network, with no path of
    // that network within 500 m.
    const res = await bad({ waypoints: [{ latitude: 47.152, longitude: 9.542 }, SCHAAN], profile: 'foot-walking' }, ['waypoints.1']);
    expect(res.body.message).toMatch(/does not connect/);
    expect(res.body.message).not.toMatch(/block/);
  });

  it('a waypoint beside a cut-off piece starts from the main network when the piece leads nowhere', async () => {
    // 3 m from a driveway the extract leaves unconnected (way 112392274); Alte Landstrasse is ~200 m away.
    const driveway = { latitude: 47.1288, longitude: 9.52 };
    const d = expectRoute(await plan(app, team.key, { waypoints: [driveway, VADUZ] }), 2);
    expect(haversine(first(d), driveway)).toBeGreaterThan(25);
    expect(haversine(first(d), driveway)).toBeLessThan(500);
    // And the paths above Vaduz: routable from the network's nearest path.
    expectRoute(await plan(app, team.key, { waypoints: [{ latitude: 47.155, longitude: 9.535 }, SCHAAN], profile: 'foot-walking' }), 2);
  });

  it('a body that is not JSON is 400', async () => {
    const res = await api(app, 'POST', '/v1/routes', { key: team.key, body: '{"waypoints": [' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBeTypeOf('string');
  });
});

describe('authentication and permissions', () => {
  const body = { waypoints: [VADUZ, SCHAAN] };

  it('401 without a key or with an unknown one', async () => {
    for (const key of [undefined, 'wm_unknown']) {
      const res = await api(app, 'POST', '/v1/routes', { key, body });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: UNAUTHENTICATED });
    }
  });

  it('403 without plan-routes, even with read-pois', async () => {
    const key = await team.keyWith('read-pois');
    const res = await plan(app, key, body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: lacks('plan-routes') });
  });

  it('plan-routes alone plans coordinate routes; POIs (waypoints or avoid) also need read-pois', async () => {
    const key = await team.keyWith('plan-routes');
    expectRoute(await plan(app, key, body), 2);
    for (const b of [
      { waypoints: [VADUZ, { poi_id: betweenPoi }] },
      { waypoints: [VADUZ, { poi_id: MISSING_ID }] },
      { ...body, avoid: {} },
      { ...body, avoid: { radius: 1 } },
    ]) {
      const res = await plan(app, key, b);
      expect(res.status, JSON.stringify(b)).toBe(403);
      expect(res.body).toEqual({ message: lacks('read-pois') });
    }
    const both = await team.keyWith('plan-routes,read-pois');
    expectRoute(await plan(app, both, { waypoints: [VADUZ, { poi_id: betweenPoi }], avoid: {} }), 2);
  });

  it('403 for a team without an active plan', async () => {
    const inactive = await makeTeam(app, { planActive: false });
    const res = await plan(app, inactive.key, body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: NO_PLAN });
  });
});
