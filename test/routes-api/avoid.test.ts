// POST /v1/routes with `avoid`, on the real Liechtenstein map: routes keep out of the circles (checked
// geometrically on the answer), unaffected routes stay as they were, the selection rules and limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { BALZERS, RUGGELL, SCHAAN, VADUZ, along, createPoi, expectRoute, haversine, insertPois, lineMeters, offset, plan, type At } from './helpers.js';

let app: App & { url: string };
let plain: any;

beforeAll(async () => {
  app = await startTestApp();
  const t = await makeTeam(app);
  plain = expectRoute(await plan(app, t.key, { waypoints: [VADUZ, SCHAAN] }), 2);
});
afterAll(() => app.close());

/** The selection box of Vaduz–Schaan: their box grown by 1 km on every side (10% of its 3 km diagonal,
 *  clamped up to 1 km); 1 km is 0.008993° of latitude and 0.013215° of longitude at 47.174°. */
const BOX = { south: 47.1393 - 0.008993, north: 47.165 + 0.008993, west: 9.5093 - 0.013215, east: 9.5215 + 0.013215 };

/** No point of the geometry (segments included) comes closer than radius − 1 m to any avoided POI. */
function expectClear(d: any, pois: At[], radius: number): void {
  for (const p of pois) expect(lineMeters(p, d.geometry.coordinates)).toBeGreaterThanOrEqual(radius - 1);
}

/** Points inside the selection box of Vaduz–Schaan, at least `meters` from the plain route. */
function awayFromRoute(meters: number): At[] {
  const out: At[] = [];
  for (let lat = BOX.south + 0.001; lat < BOX.north - 0.001; lat += 0.003) {
    for (let lon = BOX.west + 0.001; lon < BOX.east - 0.001; lon += 0.004) {
      const p = { latitude: lat, longitude: lon };
      if (lineMeters(p, plain.geometry.coordinates) > meters) out.push(p);
    }
  }
  return out;
}

describe('avoidance geometry', () => {
  it.each([
    ['driving-car', 50],
    ['driving-car', 120],
    ['cycling-regular', 80],
  ] as const)('%s, radius %i: POIs on the plain route are kept out of; one near a waypoint is skipped', async (profile, radius) => {
    const team = await makeTeam(app);
    const base = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], profile }), 2);
    const line = base.geometry.coordinates;
    // Three POIs right on the plain route, well away from both ends.
    const onRoute = [0.3, 0.5, 0.7].map((f) => along(line, f * base.distance));
    for (const p of onRoute) expect(lineMeters(p, line)).toBeLessThan(1);
    const ids = [];
    for (const p of onRoute) ids.push(await createPoi(app, team.key, p));
    const nearStart = await createPoi(app, team.key, offset(VADUZ, radius / 2, 90));

    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], profile, avoid: { radius } }), 2);
    expect(d.avoided).toEqual({ radius, count: 3, poi_ids: [...ids].sort(), skipped_poi_ids: [nearStart] });
    expectClear(d, onRoute, radius);
    // Detours cost time: never faster than the unrestricted route.
    expect(d.duration).toBeGreaterThanOrEqual(base.duration);
    expect(d.geometry.coordinates).not.toEqual(line);
    expect(haversine({ latitude: d.geometry.coordinates[0][1], longitude: d.geometry.coordinates[0][0] }, VADUZ)).toBeLessThan(500);
  });

  it('across the country with 80 POIs scattered along the way: clear of every circle, segment by segment', async () => {
    const team = await makeTeam(app);
    const via = { latitude: 47.17, longitude: 9.51 };
    const profile = 'cycling-regular'; // many parallel ways: dense circles still leave one open
    const base = expectRoute(await plan(app, team.key, { waypoints: [BALZERS, via, RUGGELL], profile }), 3);
    // Deterministic scatter: every 1/100 of the way in 80 places, up to 60 m to either side.
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const pois = Array.from({ length: 80 }, (_, i) => offset(along(base.geometry.coordinates, ((i + 10) / 100) * base.distance), rand() * 60, rand() * 360));
    const ids = await insertPois(app, team.teamId, pois);
    const radius = 25;
    const d = expectRoute(await plan(app, team.key, { waypoints: [BALZERS, via, RUGGELL], profile, avoid: { radius } }), 3);
    const skipped = new Set(d.avoided.skipped_poi_ids);
    expect(d.avoided.count + skipped.size).toBe(80);
    expect(d.avoided.count).toBeGreaterThan(70);
    expectClear(
      d,
      pois.filter((_, i) => !skipped.has(ids[i])),
      radius,
    );
    expect(d.duration).toBeGreaterThan(base.duration);
  });

  it('POIs away from the route change nothing: the same geometry, distance and duration as the plain route', async () => {
    const team = await makeTeam(app);
    const far = awayFromRoute(300).slice(0, 6);
    expect(far).toHaveLength(6);
    const ids = await insertPois(app, team.teamId, far);
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} }), 2);
    expect(d.avoided).toEqual({ radius: 50, count: 6, poi_ids: ids, skipped_poi_ids: [] });
    expect(d.geometry).toEqual(plain.geometry);
    expect([d.distance, d.duration, d.bbox, d.legs]).toEqual([plain.distance, plain.duration, plain.bbox, plain.legs]);
  });

  it('avoid {} with no POIs in the team: the plain route and an empty `avoided`; omitted avoid: `avoided` null', async () => {
    const team = await makeTeam(app);
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} }), 2);
    expect(d.avoided).toEqual({ radius: 50, count: 0, poi_ids: [], skipped_poi_ids: [] });
    expect(d.geometry).toEqual(plain.geometry);
    const o = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN] }), 2);
    expect(o.avoided).toBeNull();
  });

  it('a POI on the route is avoided with `avoid: {}` and ignored when avoid is omitted', async () => {
    const team = await makeTeam(app);
    const mid = along(plain.geometry.coordinates, plain.distance / 2);
    const id = await createPoi(app, team.key, mid);
    const omitted = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN] }), 2);
    expect(omitted.geometry).toEqual(plain.geometry);
    const avoiding = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} }), 2);
    expect(avoiding.avoided.poi_ids).toEqual([id]);
    expectClear(avoiding, [mid], 50);
  });

  it('every way out of a waypoint blocked by a ring of circles: 422 saying so, at the unreachable waypoint', async () => {
    const team = await makeTeam(app);
    // 24 POIs 300 m around Vaduz, 78 m apart: radius-100 circles overlap into a closed band from 208 to 392 m.
    const ring = Array.from({ length: 24 }, (_, i) => offset(VADUZ, 300, i * 15));
    await insertPois(app, team.teamId, ring);
    const res = await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: { radius: 100 } });
    expect422(res, ['waypoints.1']);
    expect(res.body.message).toMatch(/block/);
    expect(res.body.errors['waypoints.1'][0]).toMatch(/block/);
    // The same ring with smaller circles leaves gaps: a route exists and stays clear of them.
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: { radius: 20 } }), 2);
    expect(d.avoided.count).toBe(24);
    expectClear(d, ring, 20);
  });

  it('POIs within radius of a waypoint (a POI waypoint itself included) are skipped, not avoided', async () => {
    const team = await makeTeam(app);
    const at = await createPoi(app, team.key, SCHAAN);
    const near = await createPoi(app, team.key, offset(VADUZ, 90, 180));
    const res = await plan(app, team.key, { waypoints: [VADUZ, { poi_id: at }], avoid: { radius: 100 } });
    const d = expectRoute(res, 2);
    expect(d.avoided).toEqual({ radius: 100, count: 0, poi_ids: [], skipped_poi_ids: [at, near].sort() });
    // With a smaller radius the one 90 m away is avoided instead.
    const small = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, { poi_id: at }], avoid: { radius: 50 } }), 2);
    expect(small.avoided).toMatchObject({ count: 1, poi_ids: [near], skipped_poi_ids: [at] });
    expectClear(small, [offset(VADUZ, 90, 180)], 50);
  });
});

it('a POI near where an off-road waypoint lands on the road is skipped too (else no route could start)', async () => {
  const team = await makeTeam(app);
  // On the fields by the Rhine, about 230 m from the nearest road a car may use.
  const field = { latitude: 47.145, longitude: 9.502 };
  const base = expectRoute(await plan(app, team.key, { waypoints: [field, SCHAAN] }), 2);
  const landed = { latitude: base.geometry.coordinates[0][1], longitude: base.geometry.coordinates[0][0] };
  expect(haversine(field, landed)).toBeGreaterThan(150);
  const byRoad = offset(landed, 10, 0);
  const id = await createPoi(app, team.key, byRoad);
  const d = expectRoute(await plan(app, team.key, { waypoints: [field, SCHAAN], avoid: { radius: 50 } }), 2);
  expect(d.avoided).toEqual({ radius: 50, count: 0, poi_ids: [], skipped_poi_ids: [id] });
  expect(d.geometry).toEqual(base.geometry);
});

describe('selection', () => {
  let team: TestTeam;
  const ids: Record<string, string> = {};
  const spots = (): At[] =>
    awayFromRoute(300)
      .filter((_, i) => i % 3 === 0)
      .slice(0, 5);

  beforeAll(async () => {
    team = await makeTeam(app);
    const key = team.key;
    for (const [name, type] of [
      ['color', 'string'],
      ['rating', 'number'],
      ['open', 'boolean'],
    ] as const) {
      expect((await api(app, 'POST', '/v1/attributes', { key, body: { name, type } })).status).toBe(201);
    }
    const cat = async (name: string) => (await api(app, 'POST', '/v1/categories', { key, body: { name } })).body.data.id as string;
    const food = await cat('Food'),
      shop = await cat('Shop');
    const s = spots();
    ids.redFood = await createPoi(app, key, s[0], { category_id: food, attributes: { color: 'red', rating: 4.5, open: true } });
    ids.blueFood = await createPoi(app, key, s[1], { category_id: food, attributes: { color: 'blue', rating: 3 } });
    ids.redShop = await createPoi(app, key, s[2], { category_id: shop, attributes: { color: 'red', open: false } });
    ids.plain = await createPoi(app, key, s[3]);
    ids.placed = await createPoi(app, key, s[4]);
    // Inside the box: 800 m north of Schaan (the box grows 1 km here: 10% of a 3 km diagonal, clamped up).
    ids.northIn = await createPoi(app, key, offset(SCHAAN, 800, 0), { attributes: { color: 'red' } });
    // Outside it: 1.2 km north of Schaan, 1.2 km west of the westmost waypoint, far away in Zurich.
    ids.northOut = await createPoi(app, key, offset(SCHAAN, 1200, 0), { attributes: { color: 'red' } });
    ids.westOut = await createPoi(app, key, offset({ latitude: 47.15, longitude: SCHAAN.longitude }, 1200, 270), { attributes: { color: 'red' } });
    ids.zurich = await createPoi(app, key, { latitude: 47.37, longitude: 8.54 }, { attributes: { color: 'red' } });
    // A place set as geocoding would, and no longer pending, so that no geocoder changes it.
    const [country] = await app.sql`INSERT INTO countries (name) VALUES (${`Testland ${team.teamId}`}) RETURNING id`;
    const [city] = await app.sql`INSERT INTO cities (country_id, name) VALUES (${country.id}, 'Testcity') RETURNING id`;
    const [zip] = await app.sql`INSERT INTO zipcodes (country_id, code) VALUES (${country.id}, '9490') RETURNING id`;
    await app.sql`UPDATE pois SET country_id = ${country.id}, city_id = ${city.id}, zipcode_id = ${zip.id}, geocode_pending = false,
      geocoded_at = now() WHERE id = ${ids.placed}`;
    Object.assign(ids, { country: country.id, city: city.id, zip: zip.id });
  });

  const avoided = async (avoid: Record<string, unknown>): Promise<string[]> => {
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid }), 2);
    expect(d.avoided.count).toBe(d.avoided.poi_ids.length);
    expect(d.avoided.poi_ids).toEqual([...d.avoided.poi_ids].sort());
    return d.avoided.poi_ids;
  };
  const sorted = (...names: string[]) => names.map((n) => ids[n]).sort();

  it('{} takes every POI of the team inside the grown box of the waypoints, none outside it', async () => {
    expect(await avoided({})).toEqual(sorted('redFood', 'blueFood', 'redShop', 'plain', 'placed', 'northIn'));
  });

  it('attributes (string, number, boolean), combined', async () => {
    expect(await avoided({ attributes: { color: 'red' } })).toEqual(sorted('redFood', 'redShop', 'northIn'));
    expect(await avoided({ attributes: { rating: 4.5 } })).toEqual(sorted('redFood'));
    expect(await avoided({ attributes: { rating: '3.0' } })).toEqual(sorted('blueFood'));
    expect(await avoided({ attributes: { open: false } })).toEqual(sorted('redShop'));
    expect(await avoided({ attributes: { color: 'red', open: true } })).toEqual(sorted('redFood'));
  });

  it('category by id and by name, combined with attributes', async () => {
    const cats = (await api(app, 'GET', '/v1/categories', { key: team.key })).body.data as Array<{ id: string; name: string }>;
    const food = cats.find((c) => c.name === 'Food')!.id;
    expect(await avoided({ category_id: food })).toEqual(sorted('redFood', 'blueFood'));
    expect(await avoided({ category_name: 'Shop' })).toEqual(sorted('redShop'));
    expect(await avoided({ category_name: 'Food', attributes: { color: 'red' } })).toEqual(sorted('redFood'));
    expect(await avoided({ category_name: 'Nothing' })).toEqual([]);
  });

  it('point and distance', async () => {
    const s = spots();
    expect(await avoided({ latitude: s[1].latitude, longitude: s[1].longitude, distance: 10 })).toEqual(sorted('blueFood'));
    // A float, as the spec types avoid.distance: 1.6 m reaches the POI 1.5 m away, 1.4 m does not.
    const close = offset(s[1], 1.5, 90);
    expect(await avoided({ latitude: close.latitude, longitude: close.longitude, distance: 1.6 })).toEqual(sorted('blueFood'));
    expect(await avoided({ latitude: close.latitude, longitude: close.longitude, distance: 1.4 })).toEqual([]);
    const reach = Math.ceil(haversine(s[1], s[2]));
    expect(await avoided({ latitude: s[1].latitude, longitude: s[1].longitude, distance: reach + 1 })).toEqual(
      sorted(
        ...['redFood', 'blueFood', 'redShop', 'plain', 'placed', 'northIn'].filter((n) => {
          const at = { redFood: s[0], blueFood: s[1], redShop: s[2], plain: s[3], placed: s[4], northIn: offset(SCHAAN, 800, 0) }[n]!;
          return haversine(s[1], at) <= reach + 1;
        }),
      ),
    );
    // A point far away: the distance filter and the box must both hold.
    expect(await avoided({ latitude: 47.37, longitude: 8.54, distance: 1000 })).toEqual([]);
  });

  it('country, city and zip code', async () => {
    expect(await avoided({ country_id: ids.country })).toEqual(sorted('placed'));
    expect(await avoided({ city_id: ids.city })).toEqual(sorted('placed'));
    expect(await avoided({ zipcode_id: ids.zip, country_id: ids.country })).toEqual(sorted('placed'));
  });

  it('poi_ids: only these, and only inside the box; combined with other filters', async () => {
    expect(await avoided({ poi_ids: [ids.blueFood, ids.plain.toLowerCase(), ids.zurich] })).toEqual(sorted('blueFood', 'plain'));
    expect(await avoided({ poi_ids: [ids.blueFood, ids.redShop], attributes: { color: 'red' } })).toEqual(sorted('redShop'));
    // Another team's POI is unknown here.
    const other = await makeTeam(app);
    expect422(await plan(app, other.key, { waypoints: [VADUZ, SCHAAN], avoid: { poi_ids: [ids.plain] } }), ['avoid.poi_ids.0']);
  });
});

describe('limits', () => {
  it('more than 500 POIs to avoid around the route: 422; exactly 500: routed', async () => {
    const team = await makeTeam(app);
    // A 25 × 21 grid 10 m apart, off the route, well inside the box.
    const base = awayFromRoute(400).find(
      (p) => p.latitude > BOX.south + 0.003 && p.latitude < BOX.north - 0.003 && p.longitude > BOX.west + 0.004 && p.longitude < BOX.east - 0.004,
    )!;
    const grid: At[] = [];
    for (let i = 0; i < 25; i++) for (let j = 0; j < 21; j++) grid.push(offset(offset(base, i * 10 - 120, 0), j * 10 - 100, 90));
    const ids = await insertPois(app, team.teamId, grid);
    const res = await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} });
    expect422(res, ['avoid']);
    expect(res.body.errors.avoid[0]).toMatch(/500/);
    await app.sql`DELETE FROM pois WHERE id = ANY(${ids.slice(500)})`;
    const d = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} }), 2);
    expect(d.avoided.count).toBe(500);
    // Skipped POIs do not count: 10 more at Vaduz are skipped, the 500 still avoided.
    const skipped = await insertPois(
      app,
      team.teamId,
      Array.from({ length: 10 }, (_, i) => offset(VADUZ, i * 3, 0)),
    );
    const s = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} }), 2);
    expect(s.avoided.count).toBe(500);
    expect(s.avoided.skipped_poi_ids).toEqual(skipped);
    // More skipped POIs than the box's first query leaves room for (100): the box is read again.
    const more = await insertPois(
      app,
      team.teamId,
      Array.from({ length: 120 }, (_, i) => offset(VADUZ, (i % 40) + 1, Math.floor(i / 40) * 90)),
    );
    const m = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} }), 2);
    expect(m.avoided.count).toBe(500);
    expect(m.avoided.skipped_poi_ids).toEqual([...skipped, ...more].sort());
    await insertPois(app, team.teamId, [grid[500]]);
    expect422(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], avoid: {} }), ['avoid']);
  });

  it('with a POI avoided, the waypoints may be at most 150 km apart in straight lines, summed', async () => {
    const team = await makeTeam(app);
    // On the hillside east of Vaduz, inside the box, away from the valley roads.
    const hill = await createPoi(app, team.key, { latitude: 47.12, longitude: 9.54 });
    const leg = haversine(BALZERS, RUGGELL);
    const trip = (legs: number) => Array.from({ length: legs + 1 }, (_, i) => (i % 2 ? RUGGELL : BALZERS));
    const over = Math.ceil(150_000 / leg); // legs that sum past 150 km
    expect(over * leg).toBeGreaterThan(150_000);
    expect((over - 1) * leg).toBeLessThanOrEqual(150_000);

    const tooFar = await plan(app, team.key, { waypoints: trip(over), avoid: { poi_ids: [hill] } });
    expect422(tooFar, ['waypoints']);
    expect(tooFar.body.errors.waypoints[0]).toMatch(/150 km/);

    const ok = expectRoute(await plan(app, team.key, { waypoints: trip(over - 1), avoid: { poi_ids: [hill] } }), over);
    expect(ok.avoided.poi_ids).toEqual([hill]);
    // Without a POI to avoid there is no such limit.
    expectRoute(await plan(app, team.key, { waypoints: trip(over) }), over + 1);
    expectRoute(await plan(app, team.key, { waypoints: trip(over), avoid: { category_name: 'none' } }), over + 1);
  });
});
