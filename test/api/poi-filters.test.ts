import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { MISSING_ID, MISSING_UUID, API_ONLY, expect422, geodesic } from './helpers.js';
import { distanceSql, poiFilterSql } from '../../src/api/pois/filters.js';

let app: App & { url: string };
let team: TestTeam;
const attr = { rating: '', open: '', color: '' };
const cat = { food: '', shop: '' };
/** POI name → id */
const poi: Record<string, string> = {};

// Search centre in Berlin; offsets chosen so that id order differs from distance order.
const C = { lat: 52.52, lon: 13.405 };
const north = (m: number) => C.lat + m / 111_200;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
  for (const [name, type] of [
    ['rating', 'number'],
    ['open', 'boolean'],
    ['color', 'string'],
  ] as const) {
    attr[name] = (await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name, type } })).body.data.id;
  }
  cat.food = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'Food' } })).body.data.id;
  cat.shop = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'Shop & more' } })).body.data.id;
  const make = async (name: string, latitude: number, longitude: number, extra: Record<string, unknown> = {}) => {
    const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name, latitude, longitude, ...extra } });
    expect(res.status).toBe(201);
    poi[name] = res.body.data.id;
  };
  await make('far1500', north(1500), C.lon, { category_id: cat.food, attributes: { rating: 4.5, open: true, color: 'red' } });
  await make('near500', north(500), C.lon, { category_id: cat.shop, attributes: { rating: 4.5, open: false, color: 'Red' } });
  await make('far5000', north(5000), C.lon, { attributes: { rating: 3, open: true } });
  await make('center', C.lat, C.lon, { category_id: cat.food, attributes: { rating: 4.25, color: 'red' } });
  await make('east900', C.lat, C.lon + 900 / 67_900, { category_id: cat.food, attributes: { open: false } });
  await make('elsewhere', -33.8688, 151.2093, { attributes: { rating: 4.5, color: 'red' } });
});
afterAll(() => app.close());

const names = (res: { body: { data: Array<{ id: string }> } }) => {
  const byId = Object.fromEntries(Object.entries(poi).map(([n, id]) => [id, n]));
  return res.body.data.map((p) => byId[p.id]);
};
const list = (query: string) => api(app, 'GET', `/v1/pois?${query}`, { key: team.key });
const order = (...ns: string[]) => [...ns].sort((a, b) => (poi[a] < poi[b] ? -1 : 1));

describe('attribute filters', () => {
  it('numbers compare numerically: 4.5 equals 4.50 and 4.500e0', async () => {
    for (const v of ['4.5', '4.50', '4.500e0', '+4.5', ' 4.5']) {
      const res = await list(`attributes[rating]=${encodeURIComponent(v)}`);
      expect(res.status, v).toBe(200);
      expect(names(res), v).toEqual(order('far1500', 'near500', 'elsewhere'));
    }
    expect(names(await list('attributes[rating]=3'))).toEqual(['far5000']);
    expect(names(await list('attributes[rating]=3.0'))).toEqual(['far5000']);
    expect(names(await list('attributes[rating]=4'))).toEqual([]);
  });

  it('booleans accept true/false/1/0/yes/no', async () => {
    for (const v of ['true', '1', 'yes']) expect(names(await list(`attributes[open]=${v}`)), v).toEqual(order('far1500', 'far5000'));
    for (const v of ['false', '0', 'no']) expect(names(await list(`attributes[open]=${v}`)), v).toEqual(order('near500', 'east900'));
  });

  it('strings compare exactly and case-sensitively', async () => {
    expect(names(await list('attributes[color]=red'))).toEqual(order('far1500', 'center', 'elsewhere'));
    expect(names(await list('attributes[color]=Red'))).toEqual(['near500']);
    expect(names(await list('attributes[color]=re'))).toEqual([]);
    expect(names(await list('attributes[color]=red%20'))).toEqual([]);
    expect(names(await list('attributes[color]=RED'))).toEqual([]);
  });

  it('keys may be attribute ids (any case)', async () => {
    expect(names(await list(`attributes[${attr.rating}]=4.50`))).toEqual(order('far1500', 'near500', 'elsewhere'));
    expect(names(await list(`attributes[${attr.open.toLowerCase()}]=no`))).toEqual(order('near500', 'east900'));
  });

  it('several attributes combine', async () => {
    expect(names(await list('attributes[rating]=4.5&attributes[open]=true'))).toEqual(['far1500']);
    expect(names(await list(`attributes[rating]=4.5&attributes[${attr.color}]=red`))).toEqual(order('far1500', 'elsewhere'));
  });

  it('422 for an unknown attribute or a value of the wrong type', async () => {
    expect422(await list('attributes[nope]=1'), ['attributes.nope']);
    expect422(await list('attributes[Rating]=1'), ['attributes.Rating']);
    expect422(await list(`attributes[${MISSING_ID}]=1`), [`attributes.${MISSING_ID}`]);
    expect422(await list('attributes[rating]=high'), ['attributes.rating']);
    expect422(await list('attributes[rating]='), ['attributes.rating']);
    expect422(await list('attributes[rating]=4,5'), ['attributes.rating']);
    expect422(await list('attributes[open]=maybe'), ['attributes.open']);
    expect422(await list('attributes[open]=2'), ['attributes.open']);
    expect422(await list('attributes[rating]=x&attributes[open]=y'), ['attributes.rating', 'attributes.open']);
    expect422(await list('attributes=red'), ['attributes'], true);
    expect422(await list('attributes[color]=re%00d'), ['attributes.color']);
    expect422(await list('attributes[co%00lor]=red'), ['attributes.co\u0000lor']);
  });
});

describe('category filters', () => {
  it('category_id', async () => {
    expect(names(await list(`category_id=${cat.food}`))).toEqual(order('far1500', 'center', 'east900'));
    expect(names(await list(`category_id=${cat.shop.toLowerCase()}`))).toEqual(['near500']);
    expect(names(await list(`category_id=${MISSING_ID}`))).toEqual([]);
  });

  it('category_name is exact', async () => {
    expect(names(await list('category_name=Food'))).toEqual(order('far1500', 'center', 'east900'));
    expect(names(await list(`category_name=${encodeURIComponent('Shop & more')}`))).toEqual(['near500']);
    expect(names(await list('category_name=Foo'))).toEqual([]);
    expect(names(await list('category_name=Food%20'))).toEqual([]);
  });

  it('422 for both together, a malformed id or a name over 255 characters', async () => {
    expect422(await list(`category_id=${cat.food}&category_name=Food`), ['category_id'], true);
    expect422(await list('category_id=not-an-id'), ['category_id']);
    expect422(await list(`category_name=${'x'.repeat(256)}`), ['category_name']);
    expect((await list(`category_name=${'x'.repeat(255)}`)).status).toBe(200);
    expect422(await list('category_name=Fo%00od'), ['category_name']);
  });
});

describe('distance filter', () => {
  it('defaults to 1000 m, adds a geodesic distance in meters, and stays sorted by id', async () => {
    const res = await list(`latitude=${C.lat}&longitude=${C.lon}`);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(order('near500', 'center', 'east900'));
    for (const p of res.body.data) {
      expect(p.distance).toBeTypeOf('number');
      const expected = geodesic(C.lat, C.lon, p.latitude, p.longitude);
      expect(Math.abs(p.distance - expected)).toBeLessThanOrEqual(Math.max(0.5, expected * 0.005));
    }
    const byName = Object.fromEntries(res.body.data.map((p: { id: string; distance: number }) => [p.id, p.distance]));
    expect(byName[poi.center]).toBe(0);
    expect(byName[poi.near500]).toBeGreaterThan(490);
    expect(byName[poi.near500]).toBeLessThan(510);
  });

  it('honours the radius', async () => {
    expect(names(await list(`latitude=${C.lat}&longitude=${C.lon}&distance=2000`))).toEqual(order('far1500', 'near500', 'center', 'east900'));
    expect(names(await list(`latitude=${C.lat}&longitude=${C.lon}&distance=100000`))).toEqual(order('far1500', 'near500', 'far5000', 'center', 'east900'));
    expect(names(await list(`latitude=${C.lat}&longitude=${C.lon}&distance=1`))).toEqual(['center']);
    expect(names(await list(`latitude=-33.8688&longitude=151.2093&distance=5`))).toEqual(['elsewhere']);
  });

  it('finds POIs across the antimeridian and around a pole', async () => {
    const t = await makeTeam(app);
    const make = async (name: string, latitude: number, longitude: number) =>
      (await api(app, 'POST', '/v1/pois', { key: t.key, body: { name, latitude, longitude } })).body.data.id as string;
    const east = await make('east of the line', 0, 179.9995);
    const pole = await make('near the pole', 89.9999, 0);
    const search = async (q: string) => (await api(app, 'GET', `/v1/pois?${q}`, { key: t.key })).body.data as Array<{ id: string; distance: number }>;
    const across = await search('latitude=0&longitude=-179.9995&distance=200');
    expect(across.map((p) => p.id)).toEqual([east]);
    expect(Math.abs(across[0].distance - geodesic(0, -179.9995, 0, 179.9995))).toBeLessThan(1);
    const overPole = await search('latitude=89.9999&longitude=180&distance=50');
    expect(overPole.map((p) => p.id)).toEqual([pole]);
    expect(overPole[0].distance).toBeGreaterThan(15);
    expect(overPole[0].distance).toBeLessThan(30);
    expect(await search('latitude=0&longitude=-179.9995&distance=50')).toEqual([]);
  });

  it('the distance filter and the distance are answered from the spatial index alone', async () => {
    // What keeps a distance list fast (bench/http): every column the filter and the distance read is in
    // pois_location, so the scan never visits the table. A team with enough POIs for the planner to
    // prefer the spatial index over its own rows, the table vacuumed as autovacuum would. Bitmap scans
    // are off for the plan: other suites write to pois meanwhile, and pages they touch are no longer
    // all-visible, which can make a bitmap scan look cheaper; an index-only plan is possible only when
    // the index covers every column read, which is what this checks.
    const big = await makeTeam(app);
    await app.sql`
      INSERT INTO pois (id, team_id, name, latitude, longitude, geocode_pending)
      SELECT ${big.teamId} || lpad(g::text, 6, '0'), ${big.teamId}, 'p' || g, 48 + (g % 100) * 0.001, 11 + (g / 100) * 0.001, false
      FROM generate_series(1, 5000) g`;
    await app.sql`VACUUM ANALYZE pois`;
    const near = { latitude: 48.05, longitude: 11.025, distance: 200 };
    const [row] = await app.sql.begin(async (tx) => {
      await tx`SET LOCAL enable_bitmapscan = off`;
      return tx`EXPLAIN (FORMAT JSON)
        SELECT p.id, ${distanceSql(app.sql, near)} AS distance FROM pois p
        WHERE ${poiFilterSql(app.sql, big.teamId, { attributes: [], near })} ORDER BY p.id LIMIT 16`;
    });
    const scans: string[] = [];
    const walk = (node: { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] }) => {
      if (node['Node Type'].includes('Scan')) scans.push(`${node['Node Type']} ${node['Index Name'] ?? ''}`.trim());
      for (const child of node.Plans ?? []) walk(child as typeof node);
    };
    walk((row['QUERY PLAN'] as Array<{ Plan: Parameters<typeof walk>[0] }>)[0].Plan);
    expect(scans).toEqual(['Index Only Scan pois_location']);
  });

  it('lists without a distance filter carry no distance field', async () => {
    const res = await list('limit=100');
    expect(res.body.data.length).toBe(6);
    for (const p of res.body.data) expect(p).not.toHaveProperty('distance');
  });

  it('422 for a missing, out-of-range or malformed search point or radius', async () => {
    expect422(await list(`latitude=${C.lat}`), ['longitude']);
    expect422(await list(`longitude=${C.lon}`), ['latitude']);
    expect422(await list('distance=500'), ['latitude', 'longitude']);
    expect422(await list(`latitude=91&longitude=${C.lon}`), ['latitude']);
    expect422(await list(`latitude=-90.5&longitude=${C.lon}`), ['latitude']);
    expect422(await list(`latitude=${C.lat}&longitude=181`), ['longitude']);
    expect422(await list(`latitude=abc&longitude=${C.lon}`), ['latitude']);
    expect422(await list(`latitude=&longitude=${C.lon}`), ['latitude']);
    for (const d of ['0', '100001', '-5', '1.5', 'far', '']) {
      expect422(await list(`latitude=${C.lat}&longitude=${C.lon}&distance=${d}`), ['distance']);
    }
    expect((await list(`latitude=90&longitude=-180&distance=1`)).status).toBe(200);
  });
});

describe('place filters', () => {
  it('a valid UUID matches nothing until geocoded; malformed ids are 422', async () => {
    for (const f of ['country_id', 'city_id', 'zipcode_id']) {
      const res = await list(`${f}=${MISSING_UUID}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], next: null });
      expect422(await list(`${f}=not-a-uuid`), [f]);
      expect422(await list(`${f}=${MISSING_ID}`), [f]);
    }
  });

  it('matches geocoded POIs by country, city and zip code', async () => {
    const [country] = await app.sql`INSERT INTO countries (name) VALUES (${`Filterland ${Date.now()}`}) RETURNING id`;
    const [city] = await app.sql`INSERT INTO cities (country_id, name) VALUES (${country.id}, 'Filtertown') RETURNING id`;
    const [zip] = await app.sql`INSERT INTO zipcodes (country_id, code) VALUES (${country.id}, '10115') RETURNING id`;
    // As the geocoder would leave them (not pending, so no job elsewhere touches them).
    await app.sql`UPDATE pois SET country_id = ${country.id}, city_id = ${city.id}, zipcode_id = ${zip.id}, geocoded_at = now(), geocode_pending = false
      WHERE id IN ${app.sql([poi.center, poi.near500])}`;
    await app.sql`UPDATE pois SET country_id = ${country.id}, geocoded_at = now(), geocode_pending = false WHERE id = ${poi.east900}`;
    try {
      expect(names(await list(`country_id=${country.id}`))).toEqual(order('near500', 'center', 'east900'));
      expect(names(await list(`city_id=${city.id}`))).toEqual(order('near500', 'center'));
      expect(names(await list(`zipcode_id=${String(zip.id).toUpperCase()}`))).toEqual(order('near500', 'center'));
      expect(names(await list(`country_id=${country.id}&category_id=${cat.food}`))).toEqual(order('center', 'east900'));
      const one = await api(app, 'GET', `/v1/pois/${poi.center}`, { key: team.key });
      expect(one.body.data.address.city).toEqual({ id: city.id, name: 'Filtertown' });
      expect(one.body.data.address.zipcode).toEqual({ id: zip.id, code: '10115' });
    } finally {
      await app.sql`UPDATE pois SET country_id = NULL, city_id = NULL, zipcode_id = NULL, geocoded_at = NULL WHERE team_id = ${team.teamId}`;
    }
  });
});

describe('combined filters', () => {
  it('a POI must match every filter sent', async () => {
    const near = `latitude=${C.lat}&longitude=${C.lon}&distance=2000`;
    expect(names(await list(`${near}&attributes[rating]=4.5`))).toEqual(order('far1500', 'near500'));
    expect(names(await list(`${near}&attributes[rating]=4.5&category_name=Food`))).toEqual(['far1500']);
    expect(names(await list(`${near}&category_id=${cat.food}&attributes[open]=no`))).toEqual(['east900']);
    expect(names(await list(`${near}&category_id=${cat.shop}&attributes[open]=yes`))).toEqual([]);
    const res = await list(`${near}&attributes[color]=red&limit=1`);
    expect(names(res)).toEqual([order('far1500', 'center')[0]]);
    expect(res.body.next).toBe(res.body.data[0].id);
    const rest = await list(`${near}&attributes[color]=red&limit=1&cursor=${res.body.next}`);
    expect(names(rest)).toEqual([order('far1500', 'center')[1]]);
    expect(rest.body.data[0].distance).toBeTypeOf('number');
    expect(rest.body.next).toBeNull();
  });

  it('reports every invalid filter at once', async () => {
    const res = await list('attributes[nope]=1&category_id=x&latitude=100&longitude=0&country_id=y&limit=0');
    expect422(res, ['attributes.nope', 'category_id', 'latitude', 'country_id', 'limit']);
  });
});
