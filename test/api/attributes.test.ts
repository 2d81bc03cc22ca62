import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY, TIMESTAMP, ULID, expect404, expect422 } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
});
afterAll(() => app.close());

const create = (body: unknown, key = team.key) => api(app, 'POST', '/v1/attributes', { key, body });
const update = (id: string, body: unknown) => api(app, 'PUT', `/v1/attributes/${id}`, { key: team.key, body });
const poiWith = async (attributes: Record<string, unknown>) =>
  (await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'with attrs', latitude: 1, longitude: 1, attributes } })).body.data;
const getPoi = async (id: string) => (await api(app, 'GET', `/v1/pois/${id}`, { key: team.key })).body.data;

describe('POST /v1/attributes', () => {
  it('creates with every field, type defaulting to string', async () => {
    const res = await create({ name: 'wifi_ssid' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const a = res.body.data;
    expect(Object.keys(a).sort()).toEqual(['created_at', 'id', 'name', 'type', 'updated_at']);
    expect(a.id).toMatch(ULID);
    expect(a.name).toBe('wifi_ssid');
    expect(a.type).toBe('string');
    expect(a.created_at).toMatch(TIMESTAMP);
    expect(a.updated_at).toMatch(TIMESTAMP);
    const got = await api(app, 'GET', `/v1/attributes/${a.id}`, { key: team.key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ data: a });
  });

  it('creates each type', async () => {
    for (const type of ['string', 'number', 'boolean']) {
      const res = await create({ name: `typed_${type}`, type });
      expect(res.status).toBe(201);
      expect(res.body.data.type).toBe(type);
    }
  });

  it('accepts letters, digits and underscores, up to 255 characters', async () => {
    for (const name of ['A', '_', '9lives', 'Mixed_Case_09', 'a'.repeat(255), 'Limit', 'CURSOR', 'limits', 'cursor_']) {
      const res = await create({ name });
      expect(res.status, name).toBe(201);
      expect(res.body.data.name).toBe(name);
    }
  });

  it('422 for invalid names, reserved names and bad types', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['name']],
      [{ name: '' }, ['name']],
      [{ name: 'has space' }, ['name']],
      [{ name: 'dash-ed' }, ['name']],
      [{ name: 'dot.ted' }, ['name']],
      [{ name: 'brack[et]' }, ['name']],
      [{ name: 'ümlaut' }, ['name']],
      [{ name: ' padded' }, ['name']],
      [{ name: 'a'.repeat(256) }, ['name']],
      [{ name: 12 }, ['name']],
      [{ name: null }, ['name']],
      [{ name: 'limit' }, ['name']],
      [{ name: 'cursor' }, ['name']],
      [{ name: 'ok_name', type: 'date' }, ['type']],
      [{ name: 'ok_name', type: 'String' }, ['type']],
      [{ name: 'ok_name', type: null }, ['type']],
      [{ name: 'ok_name', type: 1 }, ['type']],
      [{ name: 'ok_name', unique: true }, ['unique']],
      [{ name: 'bad name', type: 'bad' }, ['name', 'type']],
    ];
    for (const [body, fields] of cases) expect422(await create(body), fields);
    expect((await create({})).body.errors).toEqual({ name: ['is required'] });
    expect((await create({ name: 12 })).body.errors.name).toEqual(['must be a string']);
    const names = (await api(app, 'GET', '/v1/attributes?limit=100', { key: team.key })).body.data.map((a: { name: string }) => a.name);
    expect(names).not.toContain('ok_name');
  });

  it('names are unique per team (case-sensitive), not across teams', async () => {
    expect((await create({ name: 'unique_me' })).status).toBe(201);
    expect422(await create({ name: 'unique_me' }), ['name']);
    expect422(await create({ name: 'unique_me', type: 'number' }), ['name']);
    expect((await create({ name: 'Unique_me' })).status).toBe(201);
    const other = await makeTeam(app);
    expect((await create({ name: 'unique_me' }, other.key)).status).toBe(201);
  });

  it('concurrent creates of one name admit exactly one', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ name: 'raced' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect422(r, ['name']);
  });
});

describe('PUT /v1/attributes/{id}', () => {
  it('renames, answers 200 {data}, and POI values follow the new name', async () => {
    const a = (await create({ name: 'stars', type: 'number' })).body.data;
    const p = await poiWith({ stars: 4.5 });
    await new Promise((r) => setTimeout(r, 5));
    const res = await update(a.id, { name: 'rating_stars' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...a, name: 'rating_stars', updated_at: expect.stringMatching(TIMESTAMP) });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(a.updated_at));
    expect((await api(app, 'GET', `/v1/attributes/${a.id}`, { key: team.key })).body.data).toEqual(res.body.data);

    expect((await getPoi(p.id)).attributes).toEqual({ rating_stars: 4.5 });
    const filtered = await api(app, 'GET', '/v1/pois?attributes[rating_stars]=4.50', { key: team.key });
    expect(filtered.body.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
    expect422(await api(app, 'GET', '/v1/pois?attributes[stars]=4.5', { key: team.key }), ['attributes.stars']);
    // The old name is free again; writing through the new name works.
    expect((await create({ name: 'stars' })).status).toBe(201);
    const put = await api(app, 'PUT', `/v1/pois/${p.id}`, { key: team.key, body: { attributes: { rating_stars: 2 } } });
    expect(put.body.data.attributes).toEqual({ rating_stars: 2 });
  });

  it('an empty body or the same name changes nothing', async () => {
    const a = (await create({ name: 'steady' })).body.data;
    expect((await update(a.id, {})).body).toEqual({ data: a });
    expect((await update(a.id, { name: 'steady' })).body).toEqual({ data: a });
  });

  it('the type cannot change: another type is 422, the same type is accepted as it is', async () => {
    const a = (await create({ name: 'fixed_type', type: 'number' })).body.data;
    expect422(await update(a.id, { type: 'string' }), ['type'], true);
    expect422(await update(a.id, { type: null }), ['type'], true);
    expect422(await update(a.id, { name: 'fixed_type_2', type: 'boolean' }), ['type'], true);
    expect((await api(app, 'GET', `/v1/attributes/${a.id}`, { key: team.key })).body.data).toEqual(a);
    expect((await update(a.id, { type: 'number' })).body).toEqual({ data: a });
    const renamed = await update(a.id, { name: 'fixed_type_3', type: 'number' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: a.id, name: 'fixed_type_3', type: 'number' });
  });

  it('422 for invalid or taken names', async () => {
    const a = (await create({ name: 'renamable' })).body.data;
    await create({ name: 'taken_name' });
    for (const name of ['', 'bad name', 'limit', 'cursor', 'a'.repeat(256), 7, null]) expect422(await update(a.id, { name }), ['name']);
    expect422(await update(a.id, { name: 'taken_name' }), ['name']);
    expect422(await update(a.id, { label: 'x' }), ['label']);
    expect((await api(app, 'GET', `/v1/attributes/${a.id}`, { key: team.key })).body.data).toEqual(a);
  });
});

describe('DELETE /v1/attributes/{id}', () => {
  it('answers 204 and removes the values from every POI', async () => {
    const gone = (await create({ name: 'doomed', type: 'boolean' })).body.data;
    await create({ name: 'survivor' });
    const p1 = await poiWith({ doomed: true, survivor: 'yes' });
    const p2 = await poiWith({ doomed: false });
    const p3 = await poiWith({ survivor: 'only' });
    const res = await api(app, 'DELETE', `/v1/attributes/${gone.id}`, { key: team.key });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect404(await api(app, 'GET', `/v1/attributes/${gone.id}`, { key: team.key }), 'Attribute');
    expect404(await api(app, 'DELETE', `/v1/attributes/${gone.id}`, { key: team.key }), 'Attribute');
    expect((await getPoi(p1.id)).attributes).toEqual({ survivor: 'yes' });
    expect((await getPoi(p2.id)).attributes).toEqual({});
    expect((await getPoi(p3.id)).attributes).toEqual({ survivor: 'only' });
    const [{ n }] = await app.sql`SELECT count(*)::int AS n FROM pois WHERE attrs ? ${gone.id}`;
    expect(n).toBe(0);
    expect422(await api(app, 'GET', '/v1/pois?attributes[doomed]=true', { key: team.key }), ['attributes.doomed']);
    expect422(await api(app, 'PUT', `/v1/pois/${p1.id}`, { key: team.key, body: { attributes: { doomed: true } } }), ['attributes.doomed']);
    // A new attribute with the same name starts empty.
    const again = await create({ name: 'doomed', type: 'boolean' });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(gone.id);
    expect((await getPoi(p1.id)).attributes).toEqual({ survivor: 'yes' });
  });
});

describe('awkward attribute names', () => {
  it('an attribute named __proto__ is stored, set on POIs and filtered like any other', async () => {
    const t = await makeTeam(app);
    const a = await create({ name: '__proto__' }, t.key);
    expect(a.status).toBe(201);
    const p = await api(app, 'POST', '/v1/pois', { key: t.key, body: '{"name":"proto","latitude":1,"longitude":1,"attributes":{"__proto__":"x"}}' });
    expect(p.status).toBe(201);
    expect(Object.entries(p.body.data.attributes)).toEqual([['__proto__', 'x']]);
    await api(app, 'POST', '/v1/pois', { key: t.key, body: { name: 'other', latitude: 1, longitude: 1 } });
    const hit = await api(app, 'GET', '/v1/pois?attributes[__proto__]=x', { key: t.key });
    expect(hit.body.data.map((x: { id: string }) => x.id)).toEqual([p.body.data.id]);
    expect((await api(app, 'GET', '/v1/pois?attributes[__proto__]=y', { key: t.key })).body.data).toEqual([]);
    const removed = await api(app, 'PUT', `/v1/pois/${p.body.data.id}`, { key: t.key, body: '{"attributes":{"__proto__":null}}' });
    expect(removed.body.data.attributes).toEqual({});
  });
});

describe('GET /v1/attributes', () => {
  it('pages through the team attributes sorted by id', async () => {
    const t = await makeTeam(app);
    const ids: string[] = [];
    for (let i = 0; i < 17; i++) ids.push((await create({ name: `attr_${String.fromCharCode(122 - i)}` }, t.key)).body.data.id);
    const first = await api(app, 'GET', '/v1/attributes', { key: t.key });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(15);
    expect(first.body.data[0]).toEqual({
      id: ids[0],
      name: 'attr_z',
      type: 'string',
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(first.body.next).toBe(ids[14]);
    const second = await api(app, 'GET', `/v1/attributes?cursor=${first.body.next}`, { key: t.key });
    expect(second.body.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(15));
    expect(second.body.next).toBeNull();
  });
});
