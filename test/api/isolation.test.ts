import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY, expect404, expect422, settled } from './helpers.js';

let app: App & { url: string };
let mine: TestTeam;
let theirs: TestTeam;
const their = { poi: null as any, attribute: null as any, category: null as any };
const my = { attribute: '', category: '' };

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  mine = await makeTeam(app);
  theirs = await makeTeam(app);
  their.attribute = (await api(app, 'POST', '/v1/attributes', { key: theirs.key, body: { name: 'secret', type: 'number' } })).body.data;
  their.category = (await api(app, 'POST', '/v1/categories', { key: theirs.key, body: { name: 'Hidden' } })).body.data;
  their.poi = (
    await api(app, 'POST', '/v1/pois', {
      key: theirs.key,
      body: { name: 'Their POI', latitude: 5, longitude: 5, category_id: their.category.id, attributes: { secret: 42 } },
    })
  ).body.data;
  my.attribute = (await api(app, 'POST', '/v1/attributes', { key: mine.key, body: { name: 'mine', type: 'number' } })).body.data.id;
  my.category = (await api(app, 'POST', '/v1/categories', { key: mine.key, body: { name: 'Hidden' } })).body.data.id;
});
afterAll(() => app.close());

describe('another team’s resources are 404', () => {
  it('POIs: GET, PUT, DELETE', async () => {
    const path = `/v1/pois/${their.poi.id}`;
    expect404(await api(app, 'GET', path, { key: mine.key }), 'POI');
    expect404(await api(app, 'PUT', path, { key: mine.key, body: { name: 'taken over' } }), 'POI');
    expect404(await api(app, 'DELETE', path, { key: mine.key }), 'POI');
    expect(settled((await api(app, 'GET', path, { key: theirs.key })).body.data)).toEqual(settled(their.poi));
  });

  it('POIs read in the same batch stay with their team', async () => {
    // Concurrent reads are fetched in one query: each team still sees only its own POI.
    const mineOwn = (await api(app, 'POST', '/v1/pois', { key: mine.key, body: { name: 'My POI', latitude: 6, longitude: 6 } })).body.data;
    const path = (id: string) => `/v1/pois/${id}`;
    const [a, b, c, d] = await Promise.all([
      api(app, 'GET', path(their.poi.id), { key: mine.key }),
      api(app, 'GET', path(their.poi.id), { key: theirs.key }),
      api(app, 'GET', path(mineOwn.id), { key: theirs.key }),
      api(app, 'GET', path(mineOwn.id), { key: mine.key }),
    ]);
    expect404(a, 'POI');
    expect(b.body.data.name).toBe('Their POI');
    expect404(c, 'POI');
    expect(d.body.data.name).toBe('My POI');
  });

  it('attributes: GET, PUT, DELETE', async () => {
    const path = `/v1/attributes/${their.attribute.id}`;
    expect404(await api(app, 'GET', path, { key: mine.key }), 'Attribute');
    expect404(await api(app, 'PUT', path, { key: mine.key, body: { name: 'renamed' } }), 'Attribute');
    expect404(await api(app, 'DELETE', path, { key: mine.key }), 'Attribute');
    expect((await api(app, 'GET', path, { key: theirs.key })).body.data).toEqual(their.attribute);
    expect((await api(app, 'GET', `/v1/pois/${their.poi.id}`, { key: theirs.key })).body.data.attributes).toEqual({ secret: 42 });
  });

  it('categories: GET, PUT, DELETE', async () => {
    const path = `/v1/categories/${their.category.id}`;
    expect404(await api(app, 'GET', path, { key: mine.key }), 'Category');
    expect404(await api(app, 'PUT', path, { key: mine.key, body: { name: 'renamed' } }), 'Category');
    expect404(await api(app, 'DELETE', path, { key: mine.key }), 'Category');
    expect((await api(app, 'GET', path, { key: theirs.key })).body.data).toEqual(their.category);
  });
});

describe('another team’s ids in bodies and filters', () => {
  it('a POI with their category id is 422, on create and update', async () => {
    expect422(await api(app, 'POST', '/v1/pois', { key: mine.key, body: { name: 'x', latitude: 1, longitude: 1, category_id: their.category.id } }), [
      'category_id',
    ]);
    const p = (await api(app, 'POST', '/v1/pois', { key: mine.key, body: { name: 'x', latitude: 1, longitude: 1 } })).body.data;
    expect422(await api(app, 'PUT', `/v1/pois/${p.id}`, { key: mine.key, body: { category_id: their.category.id } }), ['category_id']);
  });

  it('their attribute, by id or by name, is unknown', async () => {
    const body = { name: 'x', latitude: 1, longitude: 1, attributes: { [their.attribute.id]: 1 } };
    expect422(await api(app, 'POST', '/v1/pois', { key: mine.key, body }), [`attributes.${their.attribute.id}`]);
    expect422(await api(app, 'POST', '/v1/pois', { key: mine.key, body: { ...body, attributes: { secret: 1 } } }), ['attributes.secret']);
    expect422(await api(app, 'GET', '/v1/pois?attributes[secret]=42', { key: mine.key }), ['attributes.secret']);
    expect422(await api(app, 'GET', `/v1/pois?attributes[${their.attribute.id}]=42`, { key: mine.key }), [`attributes.${their.attribute.id}`]);
  });

  it('category filters never reach their POIs, even with the same category name', async () => {
    expect((await api(app, 'GET', `/v1/pois?category_id=${their.category.id}`, { key: mine.key })).body.data).toEqual([]);
    await api(app, 'POST', '/v1/pois', { key: mine.key, body: { name: 'mine hidden', latitude: 1, longitude: 1, category_id: my.category } });
    const byName = await api(app, 'GET', '/v1/pois?category_name=Hidden', { key: mine.key });
    expect(byName.body.data.map((p: { name: string }) => p.name)).toEqual(['mine hidden']);
    const theirsByName = await api(app, 'GET', '/v1/pois?category_name=Hidden', { key: theirs.key });
    expect(theirsByName.body.data.map((p: { id: string }) => p.id)).toEqual([their.poi.id]);
  });

  it('lists and distance searches show only the team’s own rows', async () => {
    for (const path of ['/v1/pois?limit=100', '/v1/attributes?limit=100', '/v1/categories?limit=100', '/v1/pois?latitude=5&longitude=5&distance=100000']) {
      const res = await api(app, 'GET', path, { key: mine.key });
      const ids = res.body.data.map((r: { id: string }) => r.id);
      for (const id of [their.poi.id, their.attribute.id, their.category.id]) expect(ids).not.toContain(id);
    }
    const near = await api(app, 'GET', '/v1/pois?latitude=5&longitude=5&distance=10', { key: theirs.key });
    expect(near.body.data.map((r: { id: string }) => r.id)).toEqual([their.poi.id]);
  });

  it('their attribute of the same name does not collide with mine', async () => {
    const res = await api(app, 'POST', '/v1/attributes', { key: mine.key, body: { name: 'secret' } });
    expect(res.status).toBe(201);
    const p = await api(app, 'POST', '/v1/pois', { key: mine.key, body: { name: 's', latitude: 1, longitude: 1, attributes: { secret: 'text' } } });
    expect(p.status).toBe(201);
    expect(p.body.data.attributes).toEqual({ secret: 'text' });
    expect((await api(app, 'GET', `/v1/pois/${their.poi.id}`, { key: theirs.key })).body.data.attributes).toEqual({ secret: 42 });
  });
});
