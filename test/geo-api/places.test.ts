// GET /v1/geo/countries, /v1/geo/cities, /v1/geo/zipcodes over places filled by real background geocoding:
// filters, UUID cursor pages sorted by id, and team isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { MISSING_UUID, expect422, expectMessage, lacks } from '../api/helpers.js';
import { PLACES, at, geocoded, testMapDir } from './support.js';

let app: App & { url: string };
let a: TestTeam;
let b: TestTeam;
/** Place ids by name, as the geocoder assigned them. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir() });
  a = await makeTeam(app);
  b = await makeTeam(app);
  // Team a: four municipalities of Liechtenstein and Buchs SG (Switzerland, no city or zip code known).
  // Team b: Vaduz as well, plus Eschen and Feldkirch (Austria), which team a has no POI in.
  const pois: Array<[TestTeam, keyof typeof PLACES]> = [
    [a, 'vaduz'],
    [a, 'vaduzStaedtle'],
    [a, 'schaanPost'],
    [a, 'triesenberg'],
    [a, 'balzers'],
    [a, 'buchs'],
    [b, 'vaduz'],
    [b, 'eschen'],
    [b, 'feldkirch'],
  ];
  const created = [];
  for (const [team, place] of pois) {
    const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: place, ...at(PLACES[place]) } });
    expect(res.status).toBe(201);
    created.push([team, res.body.data.id] as const);
  }
  for (const [team, id] of created) {
    const { address } = await geocoded(app, team.key, id);
    for (const place of [address.country, address.city]) if (place) ids[place.name] = place.id;
    if (address.zipcode) ids[address.zipcode.code] = address.zipcode.id;
  }
  expect(Object.keys(ids).sort()).toEqual([
    '6800',
    '9490',
    '9492',
    '9494',
    '9496',
    '9497',
    'Austria',
    'Balzers',
    'Eschen',
    'Liechtenstein',
    'Schaan',
    'Switzerland',
    'Triesenberg',
    'Vaduz',
  ]);
});
afterAll(() => app.close());

const list = async (team: TestTeam, path: string) => {
  const res = await api(app, 'GET', path, { key: team.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'next']);
  return res.body as { data: Array<{ id: string; name?: string; code?: string }>; next: string | null };
};
/** The items expected for these place names, sorted by id as the lists are. */
const places = (names: string[], field: 'name' | 'code' = 'name') => names.map((n) => ({ id: ids[n], [field]: n })).sort((x, y) => (x.id < y.id ? -1 : 1));

describe('GET /v1/geo/countries', () => {
  it("lists the countries of the team's POIs, sorted by id", async () => {
    expect(await list(a, '/v1/geo/countries?limit=100')).toEqual({ data: places(['Liechtenstein', 'Switzerland']), next: null });
    expect(await list(b, '/v1/geo/countries?limit=100')).toEqual({ data: places(['Austria', 'Liechtenstein']), next: null });
  });

  it('filters by a case-insensitive part of the name', async () => {
    expect((await list(a, '/v1/geo/countries?name=SWITZ')).data).toEqual(places(['Switzerland']));
    expect((await list(a, '/v1/geo/countries?name=stein')).data).toEqual(places(['Liechtenstein']));
    expect((await list(a, '/v1/geo/countries?name=Austria')).data).toEqual([]);
    expect((await list(a, '/v1/geo/countries?name=%25')).data).toEqual([]);
  });

  it('pages with UUID cursors', async () => {
    const first = await list(a, '/v1/geo/countries?limit=1');
    expect(first.data).toEqual(places(['Liechtenstein', 'Switzerland']).slice(0, 1));
    expect(first.next).toBe(first.data[0].id);
    const second = await list(a, `/v1/geo/countries?limit=1&cursor=${first.next}`);
    expect(second).toEqual({ data: places(['Liechtenstein', 'Switzerland']).slice(1), next: null });
  });
});

describe('GET /v1/geo/cities', () => {
  const mine = ['Balzers', 'Schaan', 'Triesenberg', 'Vaduz'];

  it("lists the cities of the team's POIs only", async () => {
    expect(await list(a, '/v1/geo/cities?limit=100')).toEqual({ data: places(mine), next: null });
    expect(await list(b, '/v1/geo/cities?limit=100')).toEqual({ data: places(['Eschen', 'Vaduz']), next: null });
  });

  it('filters by country and by name', async () => {
    expect((await list(a, `/v1/geo/cities?limit=100&country_id=${ids.Liechtenstein}`)).data).toEqual(places(mine));
    expect((await list(a, `/v1/geo/cities?country_id=${ids.Switzerland}`)).data).toEqual([]);
    expect((await list(a, `/v1/geo/cities?country_id=${MISSING_UUID}`)).data).toEqual([]);
    expect((await list(a, '/v1/geo/cities?name=tries')).data).toEqual(places(['Triesenberg']));
    expect((await list(a, `/v1/geo/cities?name=a&country_id=${ids.Liechtenstein.toUpperCase()}`)).data).toEqual(places(['Balzers', 'Schaan', 'Vaduz']));
  });

  it('walks every page in id order, with no repeats and a null next at the end', async () => {
    for (const limit of [1, 3]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await list(a, `/v1/geo/cities?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.data.length).toBeLessThanOrEqual(limit);
        seen.push(...page.data.map((c) => c.id));
        cursor = page.next;
        pages++;
      } while (cursor);
      expect(seen).toEqual(places(mine).map((c) => c.id));
      expect(pages).toBe(Math.ceil(mine.length / limit));
    }
  });
});

describe('GET /v1/geo/zipcodes', () => {
  it("lists the zip codes of the team's POIs as {id, code}", async () => {
    expect(await list(a, '/v1/geo/zipcodes?limit=100')).toEqual({ data: places(['9490', '9494', '9496', '9497'], 'code'), next: null });
    expect(await list(b, '/v1/geo/zipcodes?limit=100')).toEqual({ data: places(['6800', '9490', '9492'], 'code'), next: null });
  });

  it('filters by city, country and code', async () => {
    expect((await list(a, `/v1/geo/zipcodes?city_id=${ids.Schaan}`)).data).toEqual(places(['9494'], 'code'));
    expect((await list(a, `/v1/geo/zipcodes?city_id=${ids.Eschen}`)).data).toEqual([]);
    expect((await list(b, `/v1/geo/zipcodes?country_id=${ids.Austria}`)).data).toEqual(places(['6800'], 'code'));
    expect((await list(a, '/v1/geo/zipcodes?limit=100&name=949')).data).toEqual(places(['9490', '9494', '9496', '9497'], 'code'));
    expect((await list(a, '/v1/geo/zipcodes?name=90')).data).toEqual(places(['9490'], 'code'));
    expect((await list(a, `/v1/geo/zipcodes?name=9&city_id=${ids.Vaduz}&country_id=${ids.Liechtenstein}`)).data).toEqual(places(['9490'], 'code'));
  });

  it('drops a place once no POI of the team is in it', async () => {
    const res = await api(app, 'POST', '/v1/pois', { key: b.key, body: { name: 'Ruggell', latitude: 47.2397575, longitude: 9.526287100000001 } });
    const poi = await geocoded(app, b.key, res.body.data.id);
    expect(poi.address.zipcode.code).toBe('9491');
    expect((await list(b, '/v1/geo/zipcodes?name=9491')).data).toEqual([poi.address.zipcode]);
    expect((await api(app, 'DELETE', `/v1/pois/${poi.id}`, { key: b.key })).status).toBe(204);
    expect((await list(b, '/v1/geo/zipcodes?name=9491')).data).toEqual([]);
  });
});

describe('validation and permissions', () => {
  it.each([
    ['/v1/geo/countries?cursor=abc', ['cursor']],
    ['/v1/geo/countries?limit=0', ['limit']],
    ['/v1/geo/countries?cursor=01ARZ3NDEKTSV4RRFFQ69G5FAV', ['cursor']],
    ['/v1/geo/cities?country_id=nope', ['country_id']],
    ['/v1/geo/cities?country_id=nope&limit=101', ['country_id', 'limit']],
    ['/v1/geo/zipcodes?city_id=123&country_id=x', ['city_id', 'country_id']],
    [`/v1/geo/zipcodes?name=${'9'.repeat(256)}`, ['name']],
  ])('%s is 422', async (path, fields) => {
    expect422(await api(app, 'GET', path, { key: a.key }), fields);
  });

  it('needs read-pois', async () => {
    const key = await a.keyWith('create-pois');
    for (const path of ['/v1/geo/countries', '/v1/geo/cities', '/v1/geo/zipcodes']) {
      expectMessage(await api(app, 'GET', path, { key }), 403, lacks('read-pois'));
      expect((await api(app, 'GET', path)).status).toBe(401);
      expect((await api(app, 'GET', path, { key: await a.keyWith('read-pois') })).status).toBe(200);
    }
  });
});
