// POST /v1/routes/clusters with `pois`: every filter, the order by id, the 2,000 limit and its 422s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { newId } from '../../src/lib/ids.js';
import { API_ONLY, MISSING_ID, expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { VADUZ, cluster, expectClustering, offset, scatter, type At, type ExpectedStop } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
/** POI name → its id and position */
const poi: Record<string, { id: string } & At> = {};
let foodId = '';

// Created in an order unrelated to their names; the answer must follow the ids.
const PLACES: Array<[string, number, number, Record<string, unknown>]> = [
  ['north2k', 2000, 0, { category: 'food', attributes: { color: 'red', rating: 4 } }],
  ['center', 0, 0, { category: 'food', attributes: { color: 'blue' } }],
  ['east700', 700, 90, { category: 'shop', attributes: { color: 'red', rating: 4 } }],
  ['south9k', 9000, 180, { attributes: { color: 'red', rating: 2 } }],
  ['west300', 300, 270, { category: 'food', attributes: { color: 'Red' } }],
];

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
  for (const [name, type] of [
    ['color', 'string'],
    ['rating', 'number'],
  ]) {
    expect((await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name, type } })).status).toBe(201);
  }
  const cats: Record<string, string> = {};
  for (const name of ['food', 'shop']) cats[name] = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name } })).body.data.id;
  foodId = cats.food;
  for (const [name, meters, bearing, extra] of PLACES) {
    const at = offset(VADUZ, meters, bearing);
    const { category, ...rest } = extra;
    const res = await api(app, 'POST', '/v1/pois', {
      key: team.key,
      body: { name, ...at, ...rest, ...(category ? { category_id: cats[category as string] } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    poi[name] = { id: res.body.data.id, latitude: res.body.data.latitude, longitude: res.body.data.longitude };
  }
});
afterAll(() => app.close());

const run = (body: unknown) => cluster(app, team.key, body);

/** The stops a selection of these POIs should give, in id order. */
function selected(...names: string[]): ExpectedStop[] {
  return names
    .map((n) => poi[n])
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map(({ id, latitude, longitude }) => ({ id: null, poi_id: id, latitude, longitude }));
}

/** Names of the POIs in the answer, by index. */
function namesOf(d: any): string[] {
  const byId = Object.fromEntries(Object.entries(poi).map(([n, p]) => [p.id, n]));
  return d.clusters
    .flatMap((c: any) => c.stops)
    .sort((a: any, b: any) => a.index - b.index)
    .map((s: any) => byId[s.poi_id]);
}

describe('selection', () => {
  it('{} selects every POI, indexed by id order, with id null and poi_id set', async () => {
    const all = Object.keys(poi);
    const d = expectClustering(await run({ pois: {}, clusters: 2 }), selected(...all));
    expect(d.summary).toEqual({ stops: 5, clusters: 2, balanced: false, max_stops: null });
    // Index order is id order, which is creation order here (monotonic ULIDs), not name order.
    expect(namesOf(d)).toEqual(PLACES.map(([n]) => n));
    // The far one is alone.
    expect(d.clusters.find((c: any) => c.count === 1).stops[0].poi_id).toBe(poi.south9k.id);
  });

  it('attributes: exact, case-sensitive strings, numbers, combined', async () => {
    let d = expectClustering(await run({ pois: { attributes: { color: 'red' } }, clusters: 1 }), selected('north2k', 'east700', 'south9k'));
    expect(namesOf(d)).toEqual(['north2k', 'east700', 'south9k']);
    d = expectClustering(await run({ pois: { attributes: { color: 'red', rating: 4 } }, clusters: 1 }), selected('north2k', 'east700'));
    expect(namesOf(d)).toEqual(['north2k', 'east700']);
    d = expectClustering(await run({ pois: { attributes: { color: 'Red' } }, max_stops: 1 }), selected('west300'));
    expect(d.summary).toEqual({ stops: 1, clusters: 1, balanced: false, max_stops: 1 });
  });

  it('category_id and category_name', async () => {
    const food = selected('north2k', 'center', 'west300');
    expectClustering(await run({ pois: { category_id: foodId }, clusters: 3 }), food);
    expectClustering(await run({ pois: { category_id: foodId.toLowerCase() }, clusters: 3 }), food);
    expectClustering(await run({ pois: { category_name: 'shop' }, clusters: 1 }), selected('east700'));
  });

  it('latitude, longitude and distance (meters, fractional allowed; 1000 by default)', async () => {
    expectClustering(await run({ pois: { ...VADUZ, distance: 750.5 }, clusters: 1 }), selected('center', 'east700', 'west300'));
    expectClustering(await run({ pois: { ...VADUZ }, clusters: 1 }), selected('center', 'east700', 'west300'));
    expectClustering(await run({ pois: { ...VADUZ, distance: 500 }, clusters: 1 }), selected('center', 'west300'));
    expectClustering(await run({ pois: { ...VADUZ, distance: 100_000 }, clusters: 1 }), selected(...Object.keys(poi)));
  });

  it('poi_ids, in any order and case, repeated ids selected once', async () => {
    const ids = [poi.south9k.id, poi.center.id.toLowerCase(), poi.south9k.id];
    const d = expectClustering(await run({ pois: { poi_ids: ids }, clusters: 2 }), selected('center', 'south9k'));
    expect(namesOf(d)).toEqual(['center', 'south9k']);
  });

  it('filters combine', async () => {
    expectClustering(await run({ pois: { attributes: { color: 'red' }, category_name: 'food', ...VADUZ, distance: 3000 }, clusters: 1 }), selected('north2k'));
    expectClustering(await run({ pois: { category_id: foodId, poi_ids: [poi.center.id, poi.east700.id] }, clusters: 1 }), selected('center'));
  });

  it('place filters (country, city, zip code) select nothing before geocoding: 422 at pois', async () => {
    expect422(await run({ pois: { country_id: '3f2c1e9a-0b7d-4c55-9a41-6f1d2e3c4b5a' }, clusters: 1 }), ['pois']);
  });

  it("another team's POIs are never selected", async () => {
    const other = await makeTeam(app);
    expect422(await cluster(app, other.key, { pois: {}, clusters: 1 }), ['pois']);
    expect422(await cluster(app, other.key, { pois: { poi_ids: [poi.center.id] }, clusters: 1 }), ['pois.poi_ids.0']);
  });
});

describe('422', () => {
  it('an empty selection', async () => {
    const res = await run({ pois: { category_name: 'nothing here' }, clusters: 1 });
    expect422(res, ['pois']);
  });

  it('more clusters than selected POIs', async () => {
    expect422(await run({ pois: { category_id: foodId }, clusters: 4 }), ['clusters']);
  });

  it('invalid filters, each at its path', async () => {
    expect422(await run({ pois: { attributes: { nope: 'x' } }, clusters: 1 }), ['pois.attributes.nope']);
    expect422(await run({ pois: { attributes: { rating: 'high' } }, clusters: 1 }), ['pois.attributes.rating']);
    expect422(await run({ pois: { attributes: [1] }, clusters: 1 }), ['pois.attributes']);
    expect422(await run({ pois: { category_id: 'x' }, clusters: 1 }), ['pois.category_id']);
    expect422(await run({ pois: { category_id: foodId, category_name: 'food' }, clusters: 1 }), ['pois.category_id']);
    expect422(await run({ pois: { latitude: 47 }, clusters: 1 }), ['pois.longitude']);
    expect422(await run({ pois: { distance: 10 }, clusters: 1 }), ['pois.latitude', 'pois.longitude']);
    expect422(await run({ pois: { ...VADUZ, distance: 0.5 }, clusters: 1 }), ['pois.distance']);
    expect422(await run({ pois: { ...VADUZ, distance: 100_001 }, clusters: 1 }), ['pois.distance']);
    expect422(await run({ pois: { latitude: 95, longitude: 9 }, clusters: 1 }), ['pois.latitude']);
    expect422(await run({ pois: { city_id: 'x' }, clusters: 1 }), ['pois.city_id']);
    expect422(await run({ pois: { poi_ids: 'x' }, clusters: 1 }), ['pois.poi_ids']);
    expect422(await run({ pois: { poi_ids: [poi.center.id, 'bad', MISSING_ID] }, clusters: 1 }), ['pois.poi_ids.1', 'pois.poi_ids.2']);
    expect422(await run({ pois: [], clusters: 1 }), ['pois']);
  });
});

describe('the 2,000 limit', () => {
  it('more than 2,000 selected POIs is 422; 2,000 of them cluster', async () => {
    const big = await makeTeam(app);
    const points = scatter(offset(VADUZ, 20_000, 0), 2001, 5000, 13);
    const rows = points.map((p) => ({ id: newId(), team_id: big.teamId, name: 'bulk', latitude: p.latitude, longitude: p.longitude, geocode_pending: false }));
    for (let i = 0; i < rows.length; i += 1000) await app.sql`INSERT INTO pois ${app.sql(rows.slice(i, i + 1000))}`;

    const res = await cluster(app, big.key, { pois: {}, clusters: 10 });
    expect422(res, ['pois']);
    expect(res.body.errors.pois[0]).toContain('2000');

    const ids = rows.map((r) => r.id);
    expect422(await cluster(app, big.key, { pois: { poi_ids: ids }, clusters: 10 }), ['pois.poi_ids']);
    const kept = ids.slice(1);
    const d = expectClustering(
      await cluster(app, big.key, { pois: { poi_ids: kept }, clusters: 100, balanced: true }),
      rows.slice(1).map((r) => ({ id: null, poi_id: r.id, latitude: r.latitude, longitude: r.longitude })),
      true,
    );
    expect(d.summary).toEqual({ stops: 2000, clusters: 100, balanced: true, max_stops: 20 });
  });
});
