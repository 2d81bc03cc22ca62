// Route options of issue 36 over HTTP on the Liechtenstein map: `exclude` on POST /v1/routes, /v1/matrix,
// /v1/routes/optimize and /v1/optimizations (its answers are the engine's, checked against a reference
// Dijkstra in test/routing/exclude.test.ts; here: that each endpoint takes it, and one 422 names every
// bad field).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { expect422, lacks } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { createPoi, lineMeters, SCHAAN, VADUZ, type At } from './helpers.js';

/** Planken, up the slope above Schaan: the shortest walk down takes forest tracks. */
const PLANKEN: At = { latitude: 47.185, longitude: 9.545 };
const ESCHEN: At = { latitude: 47.2105, longitude: 9.5222 };

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  // Detours price no turns (docs/reachability.md): the routes they are checked against here price none
  // either, so a detour's added time is what the routes through the POI measure.
  app = await startTestApp({ WAYMARK_TURN_PRICES: 'off' });
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
    const arrival = (r: typeof plain) => r.body.data.routes[0].steps.find((s: { type: string; id?: string }) => s.type === 'job' || s.id === 'north').arrival;
    expect(arrival(paved) > arrival(plain)).toBe(true);
    expect422(await post('/v1/routes/optimize', { ...plan, exclude: ['toll'] }), ['exclude.0']);
    expect422(await post('/v1/optimizations', { ...plan, exclude: ['toll'], vehicles: [{ start: PLANKEN, capacity: -1 }] }), [
      'exclude.0',
      'vehicles.0.capacity',
    ]);
  });
});

/** A closed square ring of `side` meters around a point ([longitude, latitude] positions). */
const ring = (c: At, side: number): number[][] => {
  const dLat = side / 2 / 111_320,
    dLon = side / 2 / (111_320 * Math.cos((c.latitude * Math.PI) / 180));
  return [
    [c.longitude - dLon, c.latitude - dLat],
    [c.longitude + dLon, c.latitude - dLat],
    [c.longitude + dLon, c.latitude + dLat],
    [c.longitude - dLon, c.latitude + dLat],
    [c.longitude - dLon, c.latitude - dLat],
  ];
};
/** Whether a [lon, lat] point lies in an axis-aligned square ring. */
const inRing = (p: number[], r: number[][]) => p[0] >= r[0][0] && p[0] <= r[1][0] && p[1] >= r[0][1] && p[1] <= r[2][1];

describe('avoid.polygons', () => {
  it('POST /v1/routes: the route goes around a square on the plain route, with plan-routes alone, and says it did', async () => {
    const plain = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN] });
    const line: number[][] = plain.body.data.geometry.coordinates;
    const mid = line[Math.floor(line.length / 2)];
    const square = ring({ latitude: mid[1], longitude: mid[0] }, 300);
    const onlyRoutes = await team.keyWith('plan-routes');
    const res = await api(app, 'POST', '/v1/routes', {
      key: onlyRoutes,
      body: { waypoints: [VADUZ, SCHAAN], avoid: { polygons: { type: 'Polygon', coordinates: [square] } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.duration).toBeGreaterThan(plain.body.data.duration);
    expect(res.body.data.avoided).toEqual({ radius: 50, count: 0, poi_ids: [], skipped_poi_ids: [], polygons: 1 });
    // Every point of the line, and the segments between them sampled each meter, stay outside the square.
    const got: number[][] = res.body.data.geometry.coordinates;
    for (let i = 0; i + 1 < got.length; i++) {
      const steps = Math.ceil(lineMeters({ latitude: got[i][1], longitude: got[i][0] }, [got[i + 1], got[i + 1]]));
      for (let k = 0; k <= steps; k++) {
        const t = k / Math.max(1, steps);
        expect(inRing([got[i][0] + t * (got[i + 1][0] - got[i][0]), got[i][1] + t * (got[i + 1][1] - got[i][1])], square)).toBe(false);
      }
    }
    // Any other field of avoid selects POIs as well, and needs read-pois.
    const denied = await api(app, 'POST', '/v1/routes', {
      key: onlyRoutes,
      body: { waypoints: [VADUZ, SCHAAN], avoid: { radius: 20, polygons: { type: 'Polygon', coordinates: [square] } } },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(lacks('read-pois'));
  });

  it('POST /v1/routes: polygons and POI circles together; a MultiPolygon', async () => {
    const plain = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN] });
    const line: number[][] = plain.body.data.geometry.coordinates;
    const a = line[Math.floor(line.length / 3)],
      b = line[Math.floor((2 * line.length) / 3)];
    const poi = await createPoi(app, team.key, { latitude: b[1], longitude: b[0] }, { name: 'Roadworks' });
    const square = ring({ latitude: a[1], longitude: a[0] }, 200);
    const both = await post('/v1/routes', {
      waypoints: [VADUZ, SCHAAN],
      avoid: { poi_ids: [poi], radius: 60, polygons: { type: 'MultiPolygon', coordinates: [[square], [ring({ latitude: 47.3, longitude: 9.6 }, 100)]] } },
    });
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    expect(both.body.data.avoided).toMatchObject({ count: 1, poi_ids: [poi], polygons: 2 });
    const got: number[][] = both.body.data.geometry.coordinates;
    expect(got.some((p) => inRing(p, square))).toBe(false);
    expect(lineMeters({ latitude: b[1], longitude: b[0] }, got)).toBeGreaterThan(59);
  });

  it('POST /v1/routes: one 422 for every bad polygon field, a waypoint inside a polygon, and the other problems', async () => {
    const open = ring(VADUZ, 200).slice(0, 4);
    const res = await post('/v1/routes', {
      waypoints: [VADUZ, SCHAAN],
      profile: 'bus',
      avoid: {
        polygons: {
          type: 'Polygon',
          coordinates: [
            open,
            [
              [9.5, 47.1],
              [9.6, 'x'],
              [9.6, 47.2],
              [9.5, 47.1],
            ],
          ],
        },
      },
    });
    expect422(res, ['profile', 'avoid.polygons.coordinates.0', 'avoid.polygons.coordinates.1.1']);
    const kinds = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], avoid: { polygons: { type: 'Point', coordinates: [9.5, 47.1] } } });
    expect422(kinds, ['avoid.polygons.type']);
    const huge = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], avoid: { polygons: { type: 'Polygon', coordinates: [ring(VADUZ, 40_000)] } } });
    expect422(huge, ['avoid.polygons']);
    expect(huge.body.errors['avoid.polygons'][0]).toMatch(/at most 1000 km²/);
    const many = Array.from({ length: 1001 }, (_, i) => [9.5 + 0.001 * Math.cos(i), 47.1 + 0.001 * Math.sin(i)]);
    many.push(many[0]);
    const dense = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], avoid: { polygons: { type: 'Polygon', coordinates: [many] } } });
    expect422(dense, ['avoid.polygons']);
    expect(dense.body.errors['avoid.polygons'][0]).toMatch(/at most 1000 positions/);
    const around = await post('/v1/routes', {
      waypoints: [VADUZ, SCHAAN, { latitude: 95, longitude: 9 }],
      avoid: { polygons: { type: 'Polygon', coordinates: [ring(SCHAAN, 300)] } },
    });
    expect422(around, ['waypoints.1', 'waypoints.2.latitude']);
    expect(around.body.errors['waypoints.1']).toEqual(['lies inside avoid.polygons: a route cannot reach it']);
  });

  it('POST /v1/routes: a waypoint walled in (a polygon with a hole around it) is the 422 named', async () => {
    const wall = [ring(SCHAAN, 2500), ring(SCHAAN, 1200).reverse()];
    const res = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN, VADUZ], avoid: { polygons: { type: 'Polygon', coordinates: wall } } });
    expect422(res, ['waypoints.1']);
    expect(res.body.errors['waypoints.1'][0]).toMatch(/avoided polygons .* block every way/);
  });

  it('POST /v1/matrix: a walled-in destination has no cell', async () => {
    const wall = [ring(SCHAAN, 2500), ring(SCHAAN, 1200).reverse()];
    const res = await post('/v1/matrix', { sources: [VADUZ], destinations: [SCHAAN, VADUZ], avoid: { polygons: { type: 'Polygon', coordinates: wall } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.durations[0][0]).toBeNull();
    expect(res.body.data.durations[0][1]).toBe(0);
  });
});

describe('avoid.polygons on isochrones and detours', () => {
  const square = (c: At, side: number) => ({ type: 'Polygon', coordinates: [ring(c, side)] });

  it('POST /v1/isochrones: {polygons} alone needs plan-routes only, shrinks the shape, and a location inside is named in the 422', async () => {
    const plain = await post('/v1/isochrones', { locations: [VADUZ], range: [300] });
    const kept = await post('/v1/isochrones', { locations: [VADUZ], range: [300], avoid: { polygons: square({ latitude: 47.143, longitude: 9.5225 }, 600) } });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.data.features[0].geometry).not.toEqual(plain.body.data.features[0].geometry);
    const inside = await post('/v1/isochrones', { locations: [VADUZ], range: [300], avoid: { polygons: square(VADUZ, 200) } });
    expect422(inside, ['locations.0']);
  });

  it('POST /v1/routes/detours: the route and the ways to and from each POI keep out; a POI inside is left out', async () => {
    // A square of 300 m on the plain route's middle, one POI inside it and one by the road west of it.
    const line: number[][] = (await post('/v1/routes', { waypoints: [VADUZ, SCHAAN] })).body.data.geometry.coordinates;
    const [lon, lat] = line[Math.floor(line.length / 2)];
    const middle = { latitude: lat, longitude: lon };
    const polygons = square(middle, 300);
    const outside = await createPoi(app, team.key, { latitude: 47.152, longitude: 9.516 }, { name: 'Detour outside' });
    const within = await createPoi(app, team.key, middle, { name: 'Detour inside' });
    const body = { waypoints: [VADUZ, SCHAAN], max_detour: 1800, limit: 100 };
    const plain = await post('/v1/routes/detours', body);
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.data.pois.map((p: { poi_id: string }) => p.poi_id)).toContain(within);
    const kept = await post('/v1/routes/detours', { ...body, avoid: { polygons } });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    const routed = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], avoid: { polygons } });
    expect(kept.body.data.route.duration).toBeCloseTo(routed.body.data.duration, 0);
    expect(kept.body.data.route.duration).toBeGreaterThan(plain.body.data.route.duration);
    const ids = kept.body.data.pois.map((p: { poi_id: string }) => p.poi_id);
    expect(ids).toContain(outside);
    expect(ids).not.toContain(within);
    // The ways to and from the POI outside are those of routes keeping out too.
    const mine = kept.body.data.pois.find((p: { poi_id: string }) => p.poi_id === outside);
    const there = await post('/v1/routes', { waypoints: [VADUZ, { poi_id: outside }], avoid: { polygons } });
    const back = await post('/v1/routes', { waypoints: [{ poi_id: outside }, SCHAAN], avoid: { polygons } });
    expect(mine.legs[0].duration).toBeCloseTo(there.body.data.duration, 0);
    expect(mine.legs[1].duration).toBeCloseTo(back.body.data.duration, 0);
    expect422(await post('/v1/routes/detours', { ...body, waypoints: [middle, SCHAAN], avoid: { polygons } }), ['waypoints.0']);
  });
});

describe('waypoint radius, bearing and approach', () => {
  /** In the forest east of Vaduz, about 800 m from the nearest road a car may use. */
  const FOREST: At = { latitude: 47.155, longitude: 9.6 };

  it('radius: a waypoint beyond the default 500 m is routed within its radius or with null; refused within a smaller one', async () => {
    const far = await post('/v1/routes', { waypoints: [VADUZ, FOREST] });
    expect422(far, ['waypoints.1']);
    const near = await post('/v1/routes', { waypoints: [VADUZ, { ...FOREST, radius: 100 }] });
    expect422(near, ['waypoints.1']);
    expect(near.body.errors['waypoints.1']).toEqual(['has no road usable by the driving-car profile within 100 m']);
    const unlimited = await post('/v1/routes', { waypoints: [VADUZ, { ...FOREST, radius: null }] });
    expect(unlimited.status, JSON.stringify(unlimited.body)).toBe(200);
    const snapped = unlimited.body.data.geometry.coordinates.at(-1);
    const gap = lineMeters(FOREST, [snapped, snapped]);
    expect(gap).toBeGreaterThan(500);
    const within = await post('/v1/routes', { waypoints: [VADUZ, { ...FOREST, radius: Math.ceil(gap) + 1 }] });
    expect(within.status).toBe(200);
    expect(within.body.data.duration).toBe(unlimited.body.data.duration);
  });

  it('approach curb and a bearing change the route where they must, and the answer keeps its shape', async () => {
    const plain = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN] });
    const curb = await post('/v1/routes', { waypoints: [VADUZ, { ...SCHAAN, approach: 'curb' }] });
    const unrestricted = await post('/v1/routes', { waypoints: [VADUZ, { ...SCHAAN, approach: 'unrestricted' }] });
    expect(curb.status, JSON.stringify(curb.body)).toBe(200);
    expect(unrestricted.body).toEqual(plain.body);
    expect(curb.body.data.duration).toBeGreaterThanOrEqual(plain.body.data.duration);
    expect(Object.keys(curb.body.data).sort()).toEqual(Object.keys(plain.body.data).sort());
    // Leaving Vaduz northward and southward: two different first directions.
    const north = await post('/v1/routes', { waypoints: [{ ...VADUZ, bearing: { value: 0, range: 60 } }, SCHAAN] });
    const south = await post('/v1/routes', { waypoints: [{ ...VADUZ, bearing: { value: 180, range: 60 } }, SCHAAN] });
    expect(north.status).toBe(200);
    expect(south.status).toBe(200);
    const [a, b] = north.body.data.geometry.coordinates;
    const [c, d] = south.body.data.geometry.coordinates;
    expect(b[1] - a[1]).toBeGreaterThan(0);
    expect(d[1] - c[1]).toBeLessThan(0);
  });

  it('a 422 for another problem names a waypoint too far for its own radius, and one near excluded ways only', async () => {
    // `language` without `steps` is the other problem: the far-from-road hint goes with it.
    const tight = await post('/v1/routes', { waypoints: [VADUZ, { ...FOREST, radius: 100 }], language: 'de' });
    expect422(tight, ['language', 'waypoints.1']);
    expect(tight.body.errors['waypoints.1']).toEqual(['has no road usable by the driving-car profile within 100 m']);
    const wide = await post('/v1/routes', { waypoints: [VADUZ, { ...FOREST, radius: 5000 }], language: 'de' });
    expect422(wide, ['language']);
    // On the slopes above Vaduz a walker is within 500 m of forest tracks, not of a paved way.
    const slope: At = { latitude: 47.135, longitude: 9.59 };
    const walk = { waypoints: [VADUZ, slope], profile: 'foot-walking', language: 'de' };
    expect422(await post('/v1/routes', walk), ['language']);
    const paved = await post('/v1/routes', { ...walk, exclude: ['unpaved'] });
    expect422(paved, ['language', 'waypoints.1']);
    expect(paved.body.errors['waypoints.1']).toEqual(['is more than 500 m from a road usable by the foot-walking profile']);
    // And the route itself, asked right, says the same of that waypoint.
    const routed = await post('/v1/routes', { waypoints: [VADUZ, slope], profile: 'foot-walking', exclude: ['unpaved'] });
    expect422(routed, ['waypoints.1']);
    // Both optimize endpoints the same, with another problem (a negative capacity) and without one.
    const plan = { profile: 'foot-walking', exclude: ['unpaved'], vehicles: [{ id: 'walker', start: VADUZ }], stops: [{ id: 'slope', ...slope }] };
    const bad = { ...plan, vehicles: [{ id: 'walker', start: VADUZ, capacity: -1 }] };
    for (const path of ['/v1/routes/optimize', '/v1/optimizations']) {
      expect422(await post(path, bad), ['vehicles.0.capacity', 'stops.0']);
      expect422(await post(path, { ...bad, exclude: undefined }), ['vehicles.0.capacity']);
    }
    const planned = await post('/v1/routes/optimize', plan);
    expect422(planned, ['stops.0']);
    expect(planned.body.errors['stops.0']).toEqual(['is more than 500 m from a road usable by the foot-walking profile']);
  });

  it('one 422 names every bad option beside the other problems', async () => {
    const res = await post('/v1/routes', {
      waypoints: [
        { ...VADUZ, radius: 5001 },
        { ...SCHAAN, bearing: { value: 400, range: 10 }, approach: 'kerb' },
        { poi_id: 'nope', bearing: { value: 10 } },
        { ...VADUZ, radius: -1, side: 'left' },
      ],
      exclude: ['ferry', 'boats'],
    });
    expect422(res, [
      'waypoints.0.radius',
      'waypoints.1.bearing.value',
      'waypoints.1.approach',
      'waypoints.2.poi_id',
      'waypoints.2.bearing.range',
      'waypoints.3.radius',
      'waypoints.3.side',
      'exclude.1',
    ]);
  });
});

describe('alternatives', () => {
  it('POST /v1/routes: alternatives shaped like the route, within the stretch, after the unchanged main route', async () => {
    // Vaduz to Eschen, 10 km: the way by Schaan or along the Rhine (Vaduz to Schaan, 3 km, has no
    // locally optimal other way, and answers an empty list).
    const none = await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], alternatives: 2 });
    expect(none.body.data.alternatives).toEqual([]);
    const plain = await post('/v1/routes', { waypoints: [VADUZ, ESCHEN] });
    const res = await post('/v1/routes', { waypoints: [VADUZ, ESCHEN], alternatives: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { alternatives, ...main } = res.body.data;
    expect(main).toEqual(plain.body.data);
    expect(alternatives.length).toBeGreaterThan(0);
    expect(alternatives.length).toBeLessThanOrEqual(2);
    for (const alt of alternatives) {
      expect(Object.keys(alt).sort()).toEqual(Object.keys(main).sort());
      expect(alt.duration).toBeLessThanOrEqual(1.4 * main.duration + 0.1);
      expect(alt.geometry.coordinates[0]).toEqual(main.geometry.coordinates[0]);
      expect(alt.geometry.coordinates.at(-1)).toEqual(main.geometry.coordinates.at(-1));
      expect(alt.geometry).not.toEqual(main.geometry);
    }
    // In the geometry form asked for too.
    const encoded = await post('/v1/routes', { waypoints: [VADUZ, ESCHEN], alternatives: 1, geometry_format: 'polyline6' });
    expect(typeof encoded.body.data.alternatives[0].geometry).toBe('string');
  });

  it('POST /v1/routes: alternatives only between 2 waypoints, 1 to 3, in one 422 with the other problems', async () => {
    expect422(await post('/v1/routes', { waypoints: [VADUZ, SCHAAN, VADUZ], alternatives: 1 }), ['alternatives']);
    expect422(await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], alternatives: 4, exclude: ['x'] }), ['alternatives', 'exclude.0']);
    expect422(await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], alternatives: 1.5 }), ['alternatives']);
  });
});

describe('round_trip', () => {
  it('POST /v1/routes: a loop from Vaduz and back of about the length asked, the same for the same seed', async () => {
    for (const [profile, length] of [
      ['driving-car', 12_000],
      ['foot-walking', 4_000],
      ['cycling-regular', 20_000],
    ] as const) {
      const ask = (seed: number) => post('/v1/routes', { waypoints: [VADUZ], profile, round_trip: { length, points: 3, seed } });
      const res = await ask(1);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const d = res.body.data;
      const line: number[][] = d.geometry.coordinates;
      expect(line[0]).toEqual(line.at(-1));
      expect(d.legs).toHaveLength(4);
      expect(d.waypoints).toHaveLength(5);
      expect(d.waypoints[0]).toEqual(d.waypoints[4]);
      console.log(`round trip ${profile}: ${length} m asked, ${d.distance} m driven`);
      expect(d.distance).toBeGreaterThan(0.5 * length);
      expect(d.distance).toBeLessThan(1.6 * length);
      expect((await ask(1)).body).toEqual(res.body);
      expect((await ask(2)).body.data.geometry).not.toEqual(d.geometry);
    }
  });

  it('POST /v1/routes: one waypoint needs round_trip and round_trip one waypoint; bad fields in one 422', async () => {
    expect422(await post('/v1/routes', { waypoints: [VADUZ] }), ['waypoints']);
    expect422(await post('/v1/routes', { waypoints: [VADUZ, SCHAAN], round_trip: { length: 5000 } }), ['round_trip']);
    expect422(await post('/v1/routes', { waypoints: [VADUZ], round_trip: { length: 5000 }, alternatives: 2 }), ['alternatives']);
    expect422(await post('/v1/routes', { waypoints: [VADUZ], round_trip: { length: 100, points: 11, seed: -1, loops: 2 }, exclude: ['x'] }), [
      'round_trip.length',
      'round_trip.points',
      'round_trip.seed',
      'round_trip.loops',
      'exclude.0',
    ]);
  });
});
