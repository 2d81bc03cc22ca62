import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { MISSING_ID, API_ONLY, allPages, expect422 } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
const created: Record<string, string[]> = { pois: [], attributes: [], categories: [] };
const COUNT = 17;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
  for (let i = 0; i < COUNT; i++) {
    created.pois.push((await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: `p${i}`, latitude: i, longitude: -i } })).body.data.id);
    created.attributes.push((await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: `a${i}` } })).body.data.id);
    created.categories.push((await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: `c${i}` } })).body.data.id);
  }
  // Another team's rows interleave by id but never show up.
  const other = await makeTeam(app);
  await api(app, 'POST', '/v1/pois', { key: other.key, body: { name: 'other', latitude: 0, longitude: 0 } });
  await api(app, 'POST', '/v1/attributes', { key: other.key, body: { name: 'other' } });
  await api(app, 'POST', '/v1/categories', { key: other.key, body: { name: 'other' } });
});
afterAll(() => app.close());

describe.each(['pois', 'attributes', 'categories'])('GET /v1/%s pagination', (resource) => {
  const path = `/v1/${resource}`;

  it('defaults to 15 per page, sorted by id, with next = the last id', async () => {
    const res = await api(app, 'GET', path, { key: team.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'next']);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(created[resource].slice(0, 15));
    expect(res.body.next).toBe(created[resource][14]);
    const rest = await api(app, 'GET', `${path}?cursor=${res.body.next}`, { key: team.key });
    expect(rest.body.data.map((r: { id: string }) => r.id)).toEqual(created[resource].slice(15));
    expect(rest.body.next).toBeNull();
  });

  it('walks every page for several limits', async () => {
    for (const limit of [1, 4, 16, 17, 100]) {
      const { ids, pages } = await allPages(app, team.key, path, limit);
      expect(ids).toEqual(created[resource]);
      expect(pages.length).toBe(Math.ceil(COUNT / limit));
    }
  });

  it('next is null when the last page is exactly full', async () => {
    const res = await api(app, 'GET', `${path}?limit=${COUNT}`, { key: team.key });
    expect(res.body.data).toHaveLength(COUNT);
    expect(res.body.next).toBeNull();
  });

  it('a cursor past the end gives an empty page; a lowercase cursor works', async () => {
    const last = created[resource][COUNT - 1];
    expect((await api(app, 'GET', `${path}?cursor=${last}`, { key: team.key })).body).toEqual({ data: [], next: null });
    const lower = await api(app, 'GET', `${path}?limit=2&cursor=${created[resource][0].toLowerCase()}`, { key: team.key });
    expect(lower.body.data.map((r: { id: string }) => r.id)).toEqual(created[resource].slice(1, 3));
    // Any well-formed ULID works as a position, even one that names no row.
    expect((await api(app, 'GET', `${path}?cursor=${MISSING_ID}`, { key: team.key })).status).toBe(200);
  });

  it('422 for an invalid limit or cursor', async () => {
    for (const limit of ['0', '101', '-1', '1.5', 'ten', '', '1e1']) {
      expect422(await api(app, 'GET', `${path}?limit=${limit}`, { key: team.key }), ['limit']);
    }
    for (const cursor of ['abc', '123', '', `${MISSING_ID}X`, '3f2c1e9a-0b7d-4c55-9a41-6f1d2e3c4b5a']) {
      expect422(await api(app, 'GET', `${path}?cursor=${cursor}`, { key: team.key }), ['cursor']);
    }
    expect422(await api(app, 'GET', `${path}?limit=0&cursor=bad`, { key: team.key }), ['limit', 'cursor']);
  });
});
