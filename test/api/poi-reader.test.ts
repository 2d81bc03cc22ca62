import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { PoiReader } from '../../src/api/pois/poi-reader.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY, settled } from './helpers.js';

// The reader keeps POIs' JSON between reads. It stands for another process here: every change made
// through the API (or by the geocoder, in SQL) must show in its very next read.
let app: App & { url: string };
let team: TestTeam;
let reader: PoiReader;
let poi: string;
let category: string;
let attribute: string;

const shown = async (id = poi) => {
  const json = (await reader.read(team.teamId, [id])).pois.get(id);
  return json === undefined ? undefined : JSON.parse(json);
};
const viaApi = async (id = poi) => (await api(app, 'GET', `/v1/pois/${id}`, { key: team.key })).body.data;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
  category = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'Bakery' } })).body.data.id;
  attribute = (await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: 'opens' } })).body.data.id;
  poi = (
    await api(app, 'POST', '/v1/pois', {
      key: team.key,
      body: { name: 'Corner', latitude: 47.14, longitude: 9.52, category_id: category, attributes: { opens: '7:00' } },
    })
  ).body.data.id;
  reader = new PoiReader(app.sql);
});
afterAll(() => app.close());

describe('POI JSON held between reads', () => {
  it('is not read again while nothing the team shows has changed', async () => {
    const first = await shown();
    const before = reader.rowsRead;
    const again = await shown();
    // A job runner of another test file may place the new POI between the two reads (seen in CI): that
    // address is a change the team shows, read once more.
    const placed = first.address.geocoded_at !== again.address.geocoded_at;
    expect(reader.rowsRead).toBe(before + (placed ? 1 : 0));
    if (!placed) expect(again).toEqual(first);
    expect(settled(again)).toEqual(settled(await viaApi()));
  });

  it('a geocoding lease (not shown) keeps it; the address the geocoder writes replaces it', async () => {
    await shown();
    const before = reader.rowsRead;
    await app.sql`UPDATE pois SET geocode_lease_until = now() + interval '1 minute', geocode_attempts = geocode_attempts + 1 WHERE id = ${poi}`;
    await shown();
    expect(reader.rowsRead).toBe(before);
    await app.sql`UPDATE pois SET street = 'Städtle 1', display_name = 'Städtle 1, Vaduz', geocoded_at = now(), geocode_pending = false WHERE id = ${poi}`;
    expect((await shown()).address.street).toBe('Städtle 1');
    expect(await shown()).toEqual(await viaApi());
  });

  it.each([
    ['a rename of the POI', () => api(app, 'PUT', `/v1/pois/${poi}`, { key: team.key, body: { name: 'Corner Café' } }), (p: any) => p.name === 'Corner Café'],
    [
      'a new attribute value',
      () => api(app, 'PUT', `/v1/pois/${poi}`, { key: team.key, body: { attributes: { opens: '6:30' } } }),
      (p: any) => p.attributes.opens === '6:30',
    ],
    [
      'a rename of its category',
      () => api(app, 'PUT', `/v1/categories/${category}`, { key: team.key, body: { name: 'Bäckerei' } }),
      (p: any) => p.category.name === 'Bäckerei',
    ],
    [
      'a rename of its attribute',
      () => api(app, 'PUT', `/v1/attributes/${attribute}`, { key: team.key, body: { name: 'opens_at' } }),
      (p: any) => p.attributes.opens_at === '6:30' && !('opens' in p.attributes),
    ],
    [
      'a move',
      () => api(app, 'PUT', `/v1/pois/${poi}`, { key: team.key, body: { latitude: 47.15 } }),
      // The address is not looked at: the geocoder may already have placed the moved POI again.
      (p: any) => p.latitude === 47.15,
    ],
    [
      'the deletion of its attribute',
      () => api(app, 'DELETE', `/v1/attributes/${attribute}`, { key: team.key }),
      (p: any) => Object.keys(p.attributes).length === 0,
    ],
    ['the deletion of its category', () => api(app, 'DELETE', `/v1/categories/${category}`, { key: team.key }), (p: any) => p.category === null],
  ])('shows %s in the next read', async (_, change, holds) => {
    await shown(); // held at the current counter
    const res = await change();
    expect(res.status).toBeLessThan(300);
    const next = await shown();
    expect(holds(next)).toBe(true);
    const answered = await viaApi();
    // Once moved, its address is pending: a job runner of another test file may place it between the two
    // reads (seen in CI), so then the rest is compared.
    if (next.address.geocoded_at === null || answered.address.geocoded_at === null) expect(settled(next)).toEqual(settled(answered));
    else expect(next).toEqual(answered);
  });

  it('a deleted POI is gone from the next read; one of another team is never shown', async () => {
    const other = await makeTeam(app);
    const theirs = (await api(app, 'POST', '/v1/pois', { key: other.key, body: { name: 'Theirs', latitude: 1, longitude: 1 } })).body.data.id;
    expect((await reader.read(other.teamId, [theirs])).pois.has(theirs)).toBe(true);
    expect((await reader.read(team.teamId, [theirs])).pois.has(theirs)).toBe(false);
    const gone = (await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'Short-lived', latitude: 1, longitude: 1 } })).body.data.id;
    expect(await shown(gone)).toBeDefined();
    expect((await api(app, 'DELETE', `/v1/pois/${gone}`, { key: team.key })).status).toBe(204);
    expect(await shown(gone)).toBeUndefined();
  });

  it("reads of one turn share one statement, each answer with its team's counters", async () => {
    const [a, b] = await Promise.all([reader.read(team.teamId, [poi]), reader.read(team.teamId, ['01ARZ3NDEKTSV4RRFFQ69G5FAV'])]);
    expect(a.pois.has(poi)).toBe(true);
    expect(b.pois.size).toBe(0);
    expect(a.content).toBe(b.content);
    const [row] = await app.sql`SELECT version::text, content::text FROM poi_versions WHERE team_id = ${team.teamId}`;
    expect({ version: a.version, content: a.content }).toEqual(row);
  });
});
