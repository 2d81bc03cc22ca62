// GET /v1/geo/reverse answers the address a POI at the point gets from background geocoding, checked against
// the OSM node's own addr:* tags; GET /v1/pois?q= finds names ignoring case and diacritics, with the
// list's other filters, its paging and the list by travel time. Without a map, the reverse lookup is a 503.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/lib/paths.js';
import { loadOsm } from '../../src/map/osm/osm-data.js';
import { expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { PLACES, UUID, at, geocoded, testMapDir } from './support.js';

const EXTRACT = join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf');
/** Post Vaduz: a node carrying addr:street Städtle, addr:housenumber 38, addr:postcode 9490, addr:city Vaduz. */
const POST_VADUZ = 326058701;

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir() });
  team = await makeTeam(app);
});
afterAll(() => app.close());

const reverse = (query: string, key = team.key) => api(app, 'GET', `/v1/geo/reverse?${query}`, { key });
const createPoi = async (body: Record<string, unknown>) => {
  const res = await api(app, 'POST', '/v1/pois', { key: team.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};
const withoutTime = (address: any) => ({ ...address, geocoded_at: 'set' });

describe('GET /v1/geo/reverse', () => {
  it('answers the address of an OSM address node in Vaduz: its own tags, and what a POI there gets', async () => {
    const osm = await loadOsm(EXTRACT);
    const node = osm.taggedNodes.find((n) => n.id === POST_VADUZ)!;
    const tags = node.tags!;
    expect(tags['addr:street']).toBe('Städtle');
    const point = { latitude: node.lat, longitude: node.lon };

    const res = await reverse(`latitude=${point.latitude}&longitude=${point.longitude}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const address = res.body.data;
    const street = `${tags['addr:street']} ${tags['addr:housenumber']}`;
    expect(address).toEqual({
      display_name: `${street}, ${tags['addr:postcode']} ${tags['addr:city']}, Liechtenstein`,
      street,
      city: { id: expect.stringMatching(UUID), name: tags['addr:city'] },
      country: { id: expect.stringMatching(UUID), name: 'Liechtenstein' },
      zipcode: { id: expect.stringMatching(UUID), code: tags['addr:postcode'] },
      geocoded_at: expect.any(String),
    });
    expect(Date.now() - Date.parse(address.geocoded_at)).toBeLessThan(60_000);

    const poi = await geocoded(app, team.key, (await createPoi({ name: 'Post Vaduz', ...point })).id);
    expect(withoutTime(address)).toEqual(withoutTime(poi.address));
  });

  it('gives a point across the border, and one off the map, the parts a POI there gets', async () => {
    const offMap = { latitude: 0, longitude: 0 };
    for (const point of [at(PLACES.buchs), offMap, at(PLACES.schaanPost)]) {
      const res = await reverse(`latitude=${point.latitude}&longitude=${point.longitude}`);
      expect(res.status).toBe(200);
      const poi = await geocoded(app, team.key, (await createPoi({ name: 'somewhere', ...point })).id);
      expect(withoutTime(res.body.data)).toEqual(withoutTime(poi.address));
    }
    const sea = (await reverse('latitude=0&longitude=0')).body.data;
    expect(sea).toEqual({ display_name: null, street: null, city: null, country: null, zipcode: null, geocoded_at: expect.any(String) });
    const buchs = (await reverse(`latitude=${PLACES.buchs.latitude}&longitude=${PLACES.buchs.longitude}`)).body.data;
    expect([buchs.country?.name, buchs.street, buchs.city]).toEqual(['Switzerland', null, null]);
  });

  it('422 naming latitude and longitude when missing or out of range; read-pois is enough, none 401', async () => {
    expect422(await reverse(''), ['latitude', 'longitude']);
    expect422(await reverse('latitude=47.1'), ['longitude']);
    expect422(await reverse('latitude=91&longitude=9.5'), ['latitude']);
    expect422(await reverse('latitude=47.1&longitude=-180.5'), ['longitude']);
    expect422(await reverse('latitude=abc&longitude=&'), ['latitude', 'longitude']);
    expect((await reverse('latitude=47.1&longitude=9.5', await team.keyWith('read-pois'))).status).toBe(200);
    expect((await reverse('latitude=47.1&longitude=9.5', await team.keyWith('create-pois'))).status).toBe(403);
    expect((await api(app, 'GET', '/v1/geo/reverse?latitude=47.1&longitude=9.5')).status).toBe(401);
  });
});

describe('GET /v1/pois?q=', () => {
  let searcher: TestTeam;
  const ids: Record<string, string> = {};
  const names = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.map((p: any) => p.name);
  };
  const list = async (query: string) => names(await api(app, 'GET', `/v1/pois?${query}`, { key: searcher.key }));

  beforeAll(async () => {
    searcher = await makeTeam(app);
    const category = await api(app, 'POST', '/v1/categories', { key: searcher.key, body: { name: 'Cafés' } });
    expect(category.status).toBe(201);
    const cafes = category.body.data.id;
    // Points in Vaduz's centre, near the Städtle, all reachable by car within a few minutes.
    const pois = [
      ['Café am Städtle', cafes, 47.1393, 9.5226],
      ['STADTLE Shop', null, 47.1398, 9.5228],
      ['Städtle-Bäckerei', cafes, 47.1403, 9.5226],
      ['Hauptstraße Kiosk', null, 47.1388, 9.522],
      ['Rathaus', cafes, 47.1393, 9.5215],
      ['100% Städtle_Bar', null, 47.1408, 9.5224],
    ] as const;
    for (const [name, category_id, latitude, longitude] of pois) {
      const res = await api(app, 'POST', '/v1/pois', { key: searcher.key, body: { name, category_id, latitude, longitude } });
      expect(res.status).toBe(201);
      ids[name] = res.body.data.id;
    }
    // Another team's POI of a matching name is never listed.
    await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'Städtle elsewhere', latitude: 47.14, longitude: 9.522 } });
  });

  it('matches names containing the text, ignoring case and diacritics, in id order', async () => {
    const all = ['Café am Städtle', 'STADTLE Shop', 'Städtle-Bäckerei', '100% Städtle_Bar'];
    expect(await list('q=stadtle&limit=100')).toEqual(all);
    expect(await list(`q=${encodeURIComponent('STÄDTLE')}&limit=100`)).toEqual(all);
    expect(await list(`q=${encodeURIComponent('städtle')}&limit=100`)).toEqual(all);
    expect(await list('q=cafe')).toEqual(['Café am Städtle']);
    expect(await list('q=backerei')).toEqual(['Städtle-Bäckerei']);
    expect(await list('q=strasse')).toEqual(['Hauptstraße Kiosk']);
    expect(await list(`q=${encodeURIComponent('straße')}`)).toEqual(['Hauptstraße Kiosk']);
    // LIKE's wildcards are literal.
    expect(await list('q=%25')).toEqual(['100% Städtle_Bar']);
    expect(await list('q=e_b')).toEqual(['100% Städtle_Bar']);
    expect(await list('q=nothing')).toEqual([]);
    expect(await list('q=&limit=100')).toHaveLength(6);
    expect422(await api(app, 'GET', `/v1/pois?q=${'x'.repeat(256)}`, { key: searcher.key }), ['q']);
  });

  it('combines with the category and pages with cursors', async () => {
    const cafes = (await api(app, 'GET', `/v1/pois/${ids.Rathaus}`, { key: searcher.key })).body.data.category.id;
    expect(await list(`q=stadtle&category_id=${cafes}&limit=100`)).toEqual(['Café am Städtle', 'Städtle-Bäckerei']);
    expect(await list(`q=stadtle&category_name=${encodeURIComponent('Cafés')}`)).toEqual(['Café am Städtle', 'Städtle-Bäckerei']);
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const res: any = await api(app, 'GET', `/v1/pois?q=STADTLE&limit=3${next ? `&cursor=${next}` : ''}`, { key: searcher.key });
      seen.push(...names(res));
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      next = res.body.next;
    } while (next);
    expect(seen).toEqual(['Café am Städtle', 'STADTLE Shop', 'Städtle-Bäckerei', '100% Städtle_Bar']);
    // With the distance filter (not the distance index, which knows no names).
    expect(await list('q=stadtle&latitude=47.1393&longitude=9.5226&distance=60&limit=100')).toEqual(['Café am Städtle', 'STADTLE Shop']);
  });

  it('combines with the list by travel time', async () => {
    const base = 'latitude=47.1393&longitude=9.5215&max_travel_time=900&limit=100';
    const reachable = await list(base);
    expect(reachable).toHaveLength(6);
    const found = await list(`${base}&q=stadtle`);
    expect([...found].sort()).toEqual(['100% Städtle_Bar', 'Café am Städtle', 'STADTLE Shop', 'Städtle-Bäckerei'].sort());
    // Same order as the unfiltered list.
    expect(found).toEqual(reachable.filter((n: string) => found.includes(n)));
    const cafes = (await api(app, 'GET', `/v1/pois/${ids.Rathaus}`, { key: searcher.key })).body.data.category.id;
    expect([...(await list(`${base}&q=stadtle&category_id=${cafes}`))].sort()).toEqual(['Café am Städtle', 'Städtle-Bäckerei']);
    const first = await api(app, 'GET', `/v1/pois?${base.replace('limit=100', 'limit=2')}&q=stadtle`, { key: searcher.key });
    expect(names(first)).toEqual(found.slice(0, 2));
    const second = await api(app, 'GET', `/v1/pois?${base.replace('limit=100', 'limit=2')}&q=stadtle&cursor=${first.body.next}`, { key: searcher.key });
    expect(names(second)).toEqual(found.slice(2, 4));
  });
});

describe('without a map', () => {
  let off: App & { url: string };
  beforeAll(async () => {
    off = await startTestApp({ WAYMARK_MAP: 'off' });
  });
  afterAll(() => off.close());

  it('503 for the reverse lookup, after validation', async () => {
    const key = (await makeTeam(off)).key;
    const res = await api(off, 'GET', '/v1/geo/reverse?latitude=47.14&longitude=9.52', { key });
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/no map/i);
    expect422(await api(off, 'GET', '/v1/geo/reverse?latitude=95&longitude=9.52', { key }), ['latitude']);
  });
});
