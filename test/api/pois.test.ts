import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { MISSING_ID, API_ONLY, TIMESTAMP, ULID, expect404, expect422, expectMessage, settled } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
const attr = { rating: '', open: '', color: '' };
let category: { id: string; name: string; created_at: string; updated_at: string };

const EMPTY_ADDRESS = { display_name: null, street: null, city: null, country: null, zipcode: null, geocoded_at: null };

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
  category = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'Cafés' } })).body.data;
});
afterAll(() => app.close());

const create = (body: unknown, key = team.key) => api(app, 'POST', '/v1/pois', { key, body });
const update = (id: string, body: unknown) => api(app, 'PUT', `/v1/pois/${id}`, { key: team.key, body });
const get = (id: string) => api(app, 'GET', `/v1/pois/${id}`, { key: team.key });

/** Simulates the background geocoder's result, so that moves and renames can be checked against it. */
async function geocode(id: string): Promise<void> {
  const suffix = `${id.slice(-8)} ${Math.random().toString(36).slice(2)}`;
  const [country] = await app.sql`INSERT INTO countries (name) VALUES (${`Testland ${suffix}`}) RETURNING id`;
  const [city] = await app.sql`INSERT INTO cities (country_id, name) VALUES (${country.id}, 'Testville') RETURNING id`;
  const [zip] = await app.sql`INSERT INTO zipcodes (country_id, code) VALUES (${country.id}, '12345') RETURNING id`;
  await app.sql`
    UPDATE pois SET street = 'Main Street 1', display_name = 'Main Street 1, 12345 Testville, Testland',
      country_id = ${country.id}, city_id = ${city.id}, zipcode_id = ${zip.id}, geocoded_at = now(), geocode_pending = false
    WHERE id = ${id}`;
}

describe('POST /v1/pois', () => {
  it('creates a POI and answers 201 {data} with every field', async () => {
    const before = Date.now();
    const res = await create({
      name: 'Corner café',
      latitude: 52.520008,
      longitude: 13.404954,
      category_id: category.id,
      attributes: { rating: 4.5, open: true, [attr.color]: 'Red' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const poi = res.body.data;
    expect(Object.keys(poi).sort()).toEqual(['address', 'attributes', 'category', 'created_at', 'id', 'latitude', 'longitude', 'name', 'updated_at']);
    expect(poi.id).toMatch(ULID);
    expect(poi.name).toBe('Corner café');
    expect(poi.latitude).toBe(52.520008);
    expect(poi.longitude).toBe(13.404954);
    expect(poi.category).toEqual(category);
    expect(poi.attributes).toEqual({ rating: 4.5, open: true, color: 'Red' });
    expect(poi.address).toEqual(EMPTY_ADDRESS);
    expect(poi.created_at).toMatch(TIMESTAMP);
    expect(poi.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(poi.created_at)).toBeGreaterThanOrEqual(before - 5000);
    expect(Date.parse(poi.created_at)).toBeLessThanOrEqual(Date.now() + 5000);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('creates a minimal POI: no category, no attributes', async () => {
    const res = await create({ name: 'Bare', latitude: 0, longitude: 0 });
    expect(res.status).toBe(201);
    expect(res.body.data.category).toBeNull();
    expect(res.body.data.attributes).toEqual({});
    expect(res.body.data.address).toEqual(EMPTY_ADDRESS);
  });

  it('accepts a null category and lowercase ids', async () => {
    const res = await create({ name: 'Null cat', latitude: 1, longitude: 1, category_id: null });
    expect(res.status).toBe(201);
    expect(res.body.data.category).toBeNull();
    const lower = await create({
      name: 'Lower',
      latitude: 1,
      longitude: 1,
      category_id: category.id.toLowerCase(),
      attributes: { [attr.rating.toLowerCase()]: 2 },
    });
    expect(lower.status).toBe(201);
    expect(lower.body.data.category.id).toBe(category.id);
    expect(lower.body.data.attributes).toEqual({ rating: 2 });
  });

  it('accepts the coordinate bounds and a 255-character name', async () => {
    for (const [latitude, longitude] of [
      [90, 180],
      [-90, -180],
      [0.000001, -0.000001],
    ]) {
      const res = await create({ name: 'x'.repeat(255), latitude, longitude });
      expect(res.status).toBe(201);
      expect(res.body.data.latitude).toBe(latitude);
      expect(res.body.data.longitude).toBe(longitude);
      expect(res.body.data.name).toHaveLength(255);
    }
  });

  it('counts name length in characters: 255 emoji fit, 256 do not', async () => {
    const res = await create({ name: '🚲'.repeat(255), latitude: 1, longitude: 1 });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('🚲'.repeat(255));
    expect422(await create({ name: '🚲'.repeat(256), latitude: 1, longitude: 1 }), ['name']);
  });

  it('keeps integer-valued numbers and unicode names as sent', async () => {
    const res = await create({ name: 'Ünïcødé 🚲 名前', latitude: 48, longitude: 11, attributes: { rating: 4, open: false, color: '' } });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('Ünïcødé 🚲 名前');
    expect(res.body.data.latitude).toBe(48);
    expect(res.body.data.attributes).toEqual({ rating: 4, open: false, color: '' });
  });

  it('422 for invalid fields, with the field paths', async () => {
    const ok = { name: 'ok', latitude: 1, longitude: 1 };
    const cases: Array<[unknown, string[]]> = [
      [{ latitude: 1, longitude: 1 }, ['name']],
      [{ ...ok, name: '' }, ['name']],
      [{ ...ok, name: 'x'.repeat(256) }, ['name']],
      [{ ...ok, name: 42 }, ['name']],
      [{ ...ok, name: null }, ['name']],
      [{ name: 'ok', longitude: 1 }, ['latitude']],
      [{ name: 'ok', latitude: 1 }, ['longitude']],
      [{ ...ok, latitude: 90.0001 }, ['latitude']],
      [{ ...ok, latitude: -91 }, ['latitude']],
      [{ ...ok, longitude: 180.5 }, ['longitude']],
      [{ ...ok, longitude: -181 }, ['longitude']],
      [{ ...ok, latitude: '45' }, ['latitude']],
      [{ ...ok, longitude: null }, ['longitude']],
      [{ ...ok, longitude: true }, ['longitude']],
      [{}, ['name', 'latitude', 'longitude']],
      [{ ...ok, latitude: 100, longitude: 200 }, ['latitude', 'longitude']],
      [{ ...ok, extra: 1 }, ['extra']],
      [{ ...ok, id: MISSING_ID }, ['id']],
      [{ ...ok, category_id: MISSING_ID }, ['category_id']],
      [{ ...ok, category_id: 'nope' }, ['category_id']],
      [{ ...ok, category_id: 7 }, ['category_id']],
      [{ ...ok, attributes: [] }, ['attributes']],
      [{ ...ok, attributes: 'x' }, ['attributes']],
      [{ ...ok, attributes: { nope: 1 } }, ['attributes.nope']],
      [{ ...ok, attributes: { [MISSING_ID]: 1 } }, [`attributes.${MISSING_ID}`]],
      [{ ...ok, attributes: { Rating: 1 } }, ['attributes.Rating']],
      [{ ...ok, attributes: { rating: '4.5' } }, ['attributes.rating']],
      [{ ...ok, attributes: { rating: true } }, ['attributes.rating']],
      [{ ...ok, attributes: { open: 'true' } }, ['attributes.open']],
      [{ ...ok, attributes: { open: 1 } }, ['attributes.open']],
      [{ ...ok, attributes: { color: 5 } }, ['attributes.color']],
      [{ ...ok, attributes: { color: ['a'] } }, ['attributes.color']],
      [{ ...ok, attributes: { [attr.rating]: 'high' } }, [`attributes.${attr.rating}`]],
      [{ ...ok, attributes: { rating: 'x', color: 1 } }, ['attributes.rating', 'attributes.color']],
    ];
    for (const [body, fields] of cases) expect422(await create(body), fields);
    const list = await api(app, 'GET', '/v1/pois?limit=100', { key: team.key });
    expect(list.body.data.map((p: { name: string }) => p.name)).not.toContain('ok');
  });

  it('says which required fields are missing, and which have the wrong type', async () => {
    const missing = await create({});
    expect(missing.body.errors).toEqual({ name: ['is required'], latitude: ['is required'], longitude: ['is required'] });
    const wrong = await create({ name: 1, latitude: '1', longitude: 1 });
    expect(wrong.body.errors).toEqual({ name: ['must be a string'], latitude: ['must be a number between -90 and 90'] });
  });

  it('a null attribute value on creation sets nothing', async () => {
    const res = await create({ name: 'null value', latitude: 1, longitude: 1, attributes: { color: null, rating: 1 } });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toEqual({ rating: 1 });
  });

  it('422 when a category and attribute are both wrong, listing both', async () => {
    const res = await create({ name: 'ok', latitude: 1, longitude: 1, category_id: MISSING_ID, attributes: { nope: 1 } });
    expect422(res, ['category_id', 'attributes.nope']);
  });
});

describe('GET and DELETE /v1/pois/{id}', () => {
  it('returns the same resource as the create response', async () => {
    const created = await create({ name: 'Same', latitude: 10.5, longitude: -20.25, category_id: category.id, attributes: { open: false } });
    const res = await get(created.body.data.id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(settled(res.body.data)).toEqual(settled(created.body.data));
  });

  it('answers 204 with no body, then 404', async () => {
    const id = (await create({ name: 'Doomed', latitude: 1, longitude: 1, attributes: { rating: 1 } })).body.data.id;
    const res = await api(app, 'DELETE', `/v1/pois/${id}`, { key: team.key });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(res.headers.get('content-type')).toBeNull();
    expect404(await get(id), 'POI');
    expect404(await api(app, 'DELETE', `/v1/pois/${id}`, { key: team.key }), 'POI');
    const [{ n }] = await app.sql`SELECT count(*)::int AS n FROM pois WHERE id = ${id}`;
    expect(n).toBe(0);
  });

  it('accepts a lowercase id', async () => {
    const id = (await create({ name: 'Lowercase id', latitude: 1, longitude: 1 })).body.data.id;
    const res = await get(id.toLowerCase());
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(id);
  });
});

describe('PUT /v1/pois/{id}', () => {
  const full = () =>
    create({
      name: 'Full',
      latitude: 40.4168,
      longitude: -3.7038,
      category_id: category.id,
      attributes: { rating: 3.25, open: true, color: 'blue' },
    });

  it('changes only the fields sent', async () => {
    const original = (await full()).body.data;
    await new Promise((r) => setTimeout(r, 5));
    const res = await update(original.id, { name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    const poi = res.body.data;
    expect(poi.name).toBe('Renamed');
    expect(settled({ ...poi, name: original.name })).toEqual(settled(original));
    expect(poi.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(poi.updated_at)).toBeGreaterThan(Date.parse(original.updated_at));
    expect(poi.created_at).toBe(original.created_at);
    expect(settled((await get(original.id)).body.data)).toEqual(settled(poi));
  });

  it('an empty body changes nothing', async () => {
    const original = (await full()).body.data;
    const res = await update(original.id, {});
    expect(res.status).toBe(200);
    expect(settled(res.body.data)).toEqual(settled(original));
  });

  it('merges attributes: sent values change, others stay, null removes', async () => {
    const original = (await full()).body.data;
    const res = await update(original.id, { attributes: { rating: 4.75, color: null } });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({ rating: 4.75, open: true });
    const again = await update(original.id, { attributes: { [attr.color]: 'green', open: null } });
    expect(again.body.data.attributes).toEqual({ rating: 4.75, color: 'green' });
    const same = await update(original.id, { attributes: {} });
    expect(same.body.data.attributes).toEqual({ rating: 4.75, color: 'green' });
    // Removing a value that is not set is fine.
    const noop = await update(original.id, { attributes: { open: null } });
    expect(noop.status).toBe(200);
    expect(noop.body.data.attributes).toEqual({ rating: 4.75, color: 'green' });
  });

  it('sets, changes and removes the category', async () => {
    const other = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'Other PUT category' } })).body.data;
    const original = (await create({ name: 'Cat', latitude: 1, longitude: 1 })).body.data;
    const set = await update(original.id, { category_id: category.id });
    expect(set.body.data.category).toEqual(category);
    const changed = await update(original.id, { category_id: other.id });
    expect(changed.body.data.category).toEqual(other);
    const kept = await update(original.id, { name: 'Cat 2' });
    expect(kept.body.data.category).toEqual(other);
    const removed = await update(original.id, { category_id: null });
    expect(removed.status).toBe(200);
    expect(removed.body.data.category).toBeNull();
    expect((await get(original.id)).body.data.category).toBeNull();
  });

  it('a move empties the address; a rename or attribute change keeps it and the coordinates', async () => {
    const original = (await full()).body.data;
    await geocode(original.id);
    const geocoded = (await get(original.id)).body.data;
    expect(geocoded.address.geocoded_at).toMatch(TIMESTAMP);
    expect(geocoded.address.city).toEqual({ id: expect.any(String), name: 'Testville' });
    expect(geocoded.address.country).toEqual({ id: expect.any(String), name: expect.stringMatching(/^Testland /) });
    expect(geocoded.address.zipcode).toEqual({ id: expect.any(String), code: '12345' });
    expect(geocoded.address.street).toBe('Main Street 1');
    expect(geocoded.address.display_name).toBe('Main Street 1, 12345 Testville, Testland');

    const renamed = await update(original.id, { name: 'Still here', attributes: { rating: 1 }, category_id: null });
    expect(renamed.body.data.latitude).toBe(40.4168);
    expect(renamed.body.data.longitude).toBe(-3.7038);
    expect(renamed.body.data.address).toEqual(geocoded.address);

    const sameSpot = await update(original.id, { latitude: 40.4168, longitude: -3.7038 });
    expect(sameSpot.body.data.address).toEqual(geocoded.address);

    const moved = await update(original.id, { latitude: 41.3874 });
    expect(moved.status).toBe(200);
    expect(moved.body.data.latitude).toBe(41.3874);
    expect(moved.body.data.longitude).toBe(-3.7038);
    expect(moved.body.data.address).toEqual(EMPTY_ADDRESS);
    expect(moved.body.data.name).toBe('Still here');

    await geocode(original.id);
    const movedLon = await update(original.id, { longitude: 2.1686 });
    expect(movedLon.body.data.address).toEqual(EMPTY_ADDRESS);
    expect(movedLon.body.data.latitude).toBe(41.3874);
  });

  it('422 for invalid values, and changes nothing', async () => {
    const original = (await full()).body.data;
    const cases: Array<[unknown, string[]]> = [
      [{ name: '' }, ['name']],
      [{ name: 'x'.repeat(256) }, ['name']],
      [{ name: null }, ['name']],
      [{ latitude: 91 }, ['latitude']],
      [{ longitude: -180.01 }, ['longitude']],
      [{ latitude: '1' }, ['latitude']],
      [{ latitude: null }, ['latitude']],
      [{ category_id: MISSING_ID }, ['category_id']],
      [{ category_id: 5 }, ['category_id']],
      [{ attributes: { nope: 'x' } }, ['attributes.nope']],
      [{ attributes: { nope: null } }, ['attributes.nope']],
      [{ attributes: { rating: 'high' } }, ['attributes.rating']],
      [{ attributes: { open: 'yes' } }, ['attributes.open']],
      [{ attributes: null }, ['attributes']],
      [{ address: null }, ['address']],
      [{ name: 'New', latitude: 100 }, ['latitude']],
    ];
    for (const [body, fields] of cases) expect422(await update(original.id, body), fields);
    expect(settled((await get(original.id)).body.data)).toEqual(settled(original));
  });

  it("concurrent updates of different fields keep each other's changes", async () => {
    for (let i = 0; i < 10; i++) {
      const { id } = (await full()).body.data;
      const results = await Promise.all([update(id, { name: `Renamed ${i}` }), update(id, { latitude: 10 + i }), update(id, { category_id: null })]);
      for (const res of results) expect(res.status).toBe(200);
      const poi = (await get(id)).body.data;
      expect([poi.name, poi.latitude, poi.category]).toEqual([`Renamed ${i}`, 10 + i, null]);
    }
  });
});

describe('POI limit', () => {
  it('403 once the team holds its limit; a delete frees a slot', async () => {
    const t = await makeTeam(app, { plan: 'basic', poiLimit: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await create({ name: `p${i}`, latitude: 1, longitude: 1 }, t.key);
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    const refused = await create({ name: 'one too many', latitude: 1, longitude: 1 }, t.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'Your team has reached its limit of 3 POIs.' });
    expect((await api(app, 'GET', '/v1/pois', { key: t.key })).body.data).toHaveLength(3);
    // Updates are not creations.
    expect((await api(app, 'PUT', `/v1/pois/${ids[0]}`, { key: t.key, body: { name: 'renamed' } })).status).toBe(200);
    expect((await api(app, 'DELETE', `/v1/pois/${ids[1]}`, { key: t.key })).status).toBe(204);
    expect((await create({ name: 'fits again', latitude: 1, longitude: 1 }, t.key)).status).toBe(201);
    expect((await create({ name: 'full again', latitude: 1, longitude: 1 }, t.key)).status).toBe(403);
  });

  it('concurrent creates against a limit of N admit exactly N', async () => {
    const limit = 7;
    const t = await makeTeam(app, { plan: 'enterprise', poiLimit: limit });
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => create({ name: `race ${i}`, latitude: 1, longitude: 1 }, t.key)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 403)).toHaveLength(25 - limit);
    for (const r of results.filter((x) => x.status === 403)) expect(r.body).toEqual({ message: `Your team has reached its limit of ${limit} POIs.` });
    const list = await api(app, 'GET', '/v1/pois?limit=100', { key: t.key });
    expect(list.body.data).toHaveLength(limit);
  });

  it('the basic plan defaults to 1,000 POIs (message names the limit)', async () => {
    const t = await makeTeam(app, { plan: 'basic' });
    await app.sql`UPDATE teams SET poi_count = 1000 WHERE id = ${t.teamId}`;
    const res = await create({ name: 'over', latitude: 1, longitude: 1 }, t.key);
    expectMessage(res, 403, 'Your team has reached its limit of 1000 POIs.');
  });

  it('pro defaults to 100,000 POIs; enterprise has no limit', async () => {
    const pro = await makeTeam(app, { plan: 'pro' });
    await app.sql`UPDATE teams SET poi_count = 99999 WHERE id = ${pro.teamId}`;
    expect((await create({ name: 'last one', latitude: 1, longitude: 1 }, pro.key)).status).toBe(201);
    expectMessage(await create({ name: 'over', latitude: 1, longitude: 1 }, pro.key), 403, 'Your team has reached its limit of 100000 POIs.');
    const enterprise = await makeTeam(app, { plan: 'enterprise' });
    await app.sql`UPDATE teams SET poi_count = 50000000 WHERE id = ${enterprise.teamId}`;
    expect((await create({ name: 'unlimited', latitude: 1, longitude: 1 }, enterprise.key)).status).toBe(201);
  });

  it('a limit of 0 refuses every creation', async () => {
    const t = await makeTeam(app, { plan: 'pro', poiLimit: 0 });
    expectMessage(await create({ name: 'x', latitude: 1, longitude: 1 }, t.key), 403, 'Your team has reached its limit of 0 POIs.');
  });
});
