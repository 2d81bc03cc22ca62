import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY, TIMESTAMP, ULID, allPages, expect404, expect422 } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
});
afterAll(() => app.close());

const create = (body: unknown, key = team.key) => api(app, 'POST', '/v1/categories', { key, body });
const update = (id: string, body: unknown) => api(app, 'PUT', `/v1/categories/${id}`, { key: team.key, body });
const poiIn = async (categoryId: string) =>
  (await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'in category', latitude: 1, longitude: 1, category_id: categoryId } })).body.data;
const getPoi = async (id: string) => (await api(app, 'GET', `/v1/pois/${id}`, { key: team.key })).body.data;

describe('POST and GET /v1/categories', () => {
  it('creates with every field', async () => {
    const res = await create({ name: 'Museums & Galleries' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const c = res.body.data;
    expect(Object.keys(c).sort()).toEqual(['created_at', 'id', 'name', 'updated_at']);
    expect(c.id).toMatch(ULID);
    expect(c.name).toBe('Museums & Galleries');
    expect(c.created_at).toMatch(TIMESTAMP);
    expect(c.updated_at).toMatch(TIMESTAMP);
    const got = await api(app, 'GET', `/v1/categories/${c.id}`, { key: team.key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ data: c });
    expect((await api(app, 'GET', `/v1/categories/${c.id.toLowerCase()}`, { key: team.key })).body).toEqual({ data: c });
  });

  it('accepts any characters up to 255', async () => {
    for (const name of ['x'.repeat(255), 'Café – ünïcødé 🍕', '100% _real_', 'a']) {
      const res = await create({ name });
      expect(res.status, name).toBe(201);
      expect(res.body.data.name).toBe(name);
    }
  });

  it('counts name length in characters: 255 emoji fit, 256 do not', async () => {
    expect((await create({ name: '🍕'.repeat(255) })).status).toBe(201);
    expect422(await create({ name: '🍕'.repeat(256) }), ['name']);
    const filtered = await api(app, 'GET', `/v1/pois?category_name=${encodeURIComponent('🍕'.repeat(255))}`, { key: team.key });
    expect(filtered.status).toBe(200);
    const search = await api(app, 'GET', `/v1/categories?name=${encodeURIComponent('🍕'.repeat(255))}`, { key: team.key });
    expect(search.body.data.map((c: { name: string }) => c.name)).toEqual(['🍕'.repeat(255)]);
  });

  it('422 for missing, empty, too long or non-string names and unknown fields', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['name']],
      [{ name: '' }, ['name']],
      [{ name: 'x'.repeat(256) }, ['name']],
      [{ name: 5 }, ['name']],
      [{ name: null }, ['name']],
      [{ name: ['a'] }, ['name']],
      [{ name: 'fine', color: 'red' }, ['color']],
    ];
    for (const [body, fields] of cases) expect422(await create(body), fields);
    expect((await create({})).body.errors).toEqual({ name: ['is required'] });
    expect((await create({ name: 5 })).body.errors.name).toEqual(['must be a string']);
  });

  it('names are unique per team, not across teams', async () => {
    expect((await create({ name: 'Parks' })).status).toBe(201);
    expect422(await create({ name: 'Parks' }), ['name']);
    const other = await makeTeam(app);
    expect((await create({ name: 'Parks' }, other.key)).status).toBe(201);
  });
});

describe('GET /v1/categories?name=', () => {
  let t: Awaited<ReturnType<typeof makeTeam>>;
  const all: Record<string, string> = {};

  beforeAll(async () => {
    t = await makeTeam(app);
    for (const name of ['Coffee Shop', 'coffee bar', 'Tea 100%', 'Tea 100x', 'a_b', 'axb', 'back\\slash', 'Bakery']) {
      all[name] = (await create({ name }, t.key)).body.data.id;
    }
  });
  const search = async (q: string) => {
    const res = await api(app, 'GET', `/v1/categories?name=${encodeURIComponent(q)}&limit=100`, { key: t.key });
    expect(res.status).toBe(200);
    return res.body.data.map((c: { name: string }) => c.name);
  };

  it('returns the categories whose name contains the text, sorted by id', async () => {
    expect(await search('offee')).toEqual(['Coffee Shop', 'coffee bar']);
    expect(await search('Coffee')).toEqual(expect.arrayContaining(['Coffee Shop']));
    expect(await search('Bakery')).toEqual(['Bakery']);
    expect(await search('nothing like it')).toEqual([]);
    expect(await search('')).toHaveLength(8);
  });

  it('treats % and _ and \\ as literal characters', async () => {
    expect(await search('%')).toEqual(['Tea 100%']);
    expect(await search('100%')).toEqual(['Tea 100%']);
    expect(await search('_')).toEqual(['a_b']);
    expect(await search('a_b')).toEqual(['a_b']);
    expect(await search('\\')).toEqual(['back\\slash']);
  });

  it('422 for a filter over 255 characters or with NUL', async () => {
    expect422(await api(app, 'GET', `/v1/categories?name=${'x'.repeat(256)}`, { key: t.key }), ['name']);
    expect422(await api(app, 'GET', '/v1/categories?name=a%00b', { key: t.key }), ['name']);
    expect((await api(app, 'GET', `/v1/categories?name=${'x'.repeat(255)}`, { key: t.key })).body).toEqual({ data: [], next: null });
  });

  it('pages the filtered list', async () => {
    const { ids, pages } = await allPages(app, t.key, '/v1/categories?name=e', 2);
    expect(ids).toEqual([all['Coffee Shop'], all['coffee bar'], all['Tea 100%'], all['Tea 100x'], all.Bakery]);
    expect(pages).toEqual([2, 2, 1]);
  });
});

describe('PUT /v1/categories/{id}', () => {
  it('renames, answers 200 {data}; POIs keep the category under its new name', async () => {
    const c = (await create({ name: 'Old name' })).body.data;
    const p = await poiIn(c.id);
    await new Promise((r) => setTimeout(r, 5));
    const res = await update(c.id, { name: 'New name' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...c, name: 'New name', updated_at: expect.stringMatching(TIMESTAMP) });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(c.updated_at));
    expect((await getPoi(p.id)).category).toEqual(res.body.data);
    const byName = await api(app, 'GET', `/v1/pois?category_name=${encodeURIComponent('New name')}`, { key: team.key });
    expect(byName.body.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
    expect((await api(app, 'GET', `/v1/pois?category_name=${encodeURIComponent('Old name')}`, { key: team.key })).body.data).toEqual([]);
  });

  it('an empty body or the same name changes nothing', async () => {
    const c = (await create({ name: 'Stable' })).body.data;
    expect((await update(c.id, {})).body).toEqual({ data: c });
    expect((await update(c.id, { name: 'Stable' })).body).toEqual({ data: c });
  });

  it('422 for invalid or taken names', async () => {
    const c = (await create({ name: 'Renamable' })).body.data;
    await create({ name: 'Taken' });
    for (const name of ['', 'x'.repeat(256), 3, null]) expect422(await update(c.id, { name }), ['name']);
    expect422(await update(c.id, { name: 'Taken' }), ['name']);
    expect((await api(app, 'GET', `/v1/categories/${c.id}`, { key: team.key })).body.data).toEqual(c);
  });
});

describe('DELETE /v1/categories/{id}', () => {
  it('answers 204 and keeps its POIs, without a category', async () => {
    const c = (await create({ name: 'Temporary' })).body.data;
    const keep = (await create({ name: 'Kept' })).body.data;
    const p1 = await poiIn(c.id);
    const p2 = await poiIn(keep.id);
    const res = await api(app, 'DELETE', `/v1/categories/${c.id}`, { key: team.key });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect404(await api(app, 'GET', `/v1/categories/${c.id}`, { key: team.key }), 'Category');
    expect404(await api(app, 'DELETE', `/v1/categories/${c.id}`, { key: team.key }), 'Category');
    const after = await api(app, 'GET', `/v1/pois/${p1.id}`, { key: team.key });
    expect(after.status).toBe(200);
    expect(after.body.data.category).toBeNull();
    expect(after.body.data.name).toBe('in category');
    expect((await getPoi(p2.id)).category).toEqual(keep);
    expect((await api(app, 'GET', `/v1/pois?category_id=${c.id}`, { key: team.key })).body.data).toEqual([]);
    expect422(await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'x', latitude: 1, longitude: 1, category_id: c.id } }), ['category_id']);
  });
});
