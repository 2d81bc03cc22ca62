import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { NearbyIndex } from '../../src/api/pois/nearby-index.js';
import { PoiReader } from '../../src/api/pois/poi-reader.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY } from './helpers.js';

// The in-process index that answers distance lists: what it serves must be what SQL answers, and a
// write must never leave it serving the old positions.
let app: App & { url: string };
let team: TestTeam;
let index: NearbyIndex;
const C = { latitude: 47.14, longitude: 9.52 };
const near = { ...C, distance: 2_000 };
const list = (query: string) => api(app, 'GET', `/v1/pois?${query}`, { key: team.key });
const version = async (teamId: string) =>
  (await app.sql<Array<{ version: string }>>`SELECT version::text FROM poi_versions WHERE team_id = ${teamId}`)[0]?.version;
const create = async (name: string, latitude: number, longitude: number) => {
  const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name, latitude, longitude } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};
/** The index's page, once it has caught up with the database. Rebuilds are spaced by at least 250 ms and
 *  ten times the last one's length: on a loaded CI host a rebuild of over half a second
 *  put the next one past a 5 s wait (twice, at 53a6c5f and af0dcf1), hence 20 s. */
const servedPage = async (cursor: string | null = null, limit = 15, around = near, teamId = team.teamId) => {
  const until = Date.now() + 20_000;
  for (;;) {
    const rows = (await index.page(teamId, around, cursor, limit))?.data;
    if (rows || Date.now() > until) return rows;
    await new Promise((r) => setTimeout(r, 25));
  }
};

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
  // 60 POIs on a spiral out to ~3 km: some inside the 2 km circle, some outside.
  for (let i = 0; i < 60; i++) {
    const r = 50 * i;
    await create(`p${i}`, C.latitude + (r * Math.cos(i)) / 111_195, C.longitude + (r * Math.sin(i)) / 75_800);
  }
  index = new NearbyIndex(app.sql, new PoiReader(app.sql));
});
afterAll(() => app.close());

describe('distance lists from the in-process index', () => {
  it('serves the same pages as the SQL list, byte for byte', async () => {
    const rows = await servedPage(null, 100);
    expect(rows).toBeDefined();
    const viaApi = await list(`latitude=${C.latitude}&longitude=${C.longitude}&distance=2000&limit=100`);
    expect(viaApi.status).toBe(200);
    expect(viaApi.body.data.length).toBeGreaterThan(20);
    expect(viaApi.body.data.length).toBeLessThan(60);
    expect(rows!.map((r) => JSON.parse(r.json))).toEqual(viaApi.body.data);
    expect(viaApi.body.next).toBeNull();
    const firstTen = await index.page(team.teamId, near, null, 10);
    expect(firstTen!.data.map((r) => r.id)).toEqual(rows!.slice(0, 10).map((r) => r.id));
    expect(firstTen!.next).toBe(rows![9].id);

    // Page by page through the API, with the app's own index warm by now, against SQL-only rows.
    const sqlOnly = await app.sql<Array<{ id: string }>>`
      SELECT id FROM pois WHERE team_id = ${team.teamId}
      AND great_circle_m(${C.latitude}::float8, ${C.longitude}::float8, latitude, longitude) <= 2000 ORDER BY id`;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`latitude=${C.latitude}&longitude=${C.longitude}&distance=2000&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      for (const p of res.body.data) {
        expect(p.distance).toBeLessThanOrEqual(2000);
        seen.push(p.id);
      }
      cursor = res.body.next;
    } while (cursor);
    expect(seen).toEqual(sqlOnly.map((r) => r.id));
  });

  it('never serves a page after a POI is added, until it has rebuilt', async () => {
    expect(await servedPage()).toBeDefined();
    const id = await create('new at the centre', C.latitude, C.longitude);
    // The index still holds the old positions: it must decline, and the API must show the new POI at once.
    expect(await index.page(team.teamId, near, null, 100)).toBeUndefined();
    const res = await list(`latitude=${C.latitude}&longitude=${C.longitude}&distance=2000&limit=100`);
    expect(res.body.data.map((p: { id: string }) => p.id)).toContain(id);
    expect((await servedPage(null, 100))!.map((r) => r.id)).toContain(id);
  });

  it('declines after a move and after a delete, not after a rename', async () => {
    const id = await create('mover', C.latitude + 0.001, C.longitude);
    expect((await servedPage(null, 100))!.map((r) => r.id)).toContain(id);

    const before = await version(team.teamId);
    expect((await api(app, 'PUT', `/v1/pois/${id}`, { key: team.key, body: { name: 'renamed', attributes: {} } })).status).toBe(200);
    expect(await version(team.teamId)).toBe(before);
    const renamed = await index.page(team.teamId, near, null, 100);
    expect(renamed!.data.find((r) => r.id === id)!.json).toContain('"name":"renamed"');

    expect((await api(app, 'PUT', `/v1/pois/${id}`, { key: team.key, body: { latitude: 10 } })).status).toBe(200);
    expect(await index.page(team.teamId, near, null, 100)).toBeUndefined();
    const moved = await list(`latitude=${C.latitude}&longitude=${C.longitude}&distance=2000&limit=100`);
    expect(moved.body.data.map((p: { id: string }) => p.id)).not.toContain(id);
    expect((await servedPage(null, 100))!.map((r) => r.id)).not.toContain(id);

    const back = await create('to delete', C.latitude, C.longitude + 0.001);
    expect((await servedPage(null, 100))!.map((r) => r.id)).toContain(back);
    expect((await api(app, 'DELETE', `/v1/pois/${back}`, { key: team.key })).status).toBe(204);
    expect(await index.page(team.teamId, near, null, 100)).toBeUndefined();
    const gone = await list(`latitude=${C.latitude}&longitude=${C.longitude}&distance=2000&limit=100`);
    expect(gone.body.data.map((p: { id: string }) => p.id)).not.toContain(back);
  });

  it('serves an empty page for a circle without POIs, and for a team without any', async () => {
    expect(await servedPage(null, 15, { latitude: -40, longitude: 100, distance: 1000 })).toEqual([]);
    const empty = await makeTeam(app);
    expect(await servedPage(null, 15, near, empty.teamId)).toEqual([]);
  });

  it('leaves to SQL what JavaScript and PostgreSQL could decide or round apart', async () => {
    const other = await makeTeam(app);
    const at = async (latitude: number, longitude: number) =>
      (await api(app, 'POST', '/v1/pois', { key: other.key, body: { name: 'edge', latitude, longitude } })).body.data.id as string;
    await at(47.13552126933954, 9.492855172330858);
    await at(47.142256923038055, 9.478617966491196);
    expect(await servedPage(null, 15, near, other.teamId)).toBeDefined();
    const rounding = { latitude: 47.132435466003805, longitude: 9.512727625806841, distance: 1543 };
    const edge = { latitude: 47.14218153160597, longitude: 9.503117678089197, distance: 1853 };
    expect(await index.page(other.teamId, rounding, null, 15)).toBeUndefined();
    expect(await index.page(other.teamId, edge, null, 15)).toBeUndefined();
    // What the API answers (from SQL, the index declining) is PostgreSQL's selection and rounding.
    for (const q of [rounding, edge]) {
      const res = await api(app, 'GET', `/v1/pois?latitude=${q.latitude}&longitude=${q.longitude}&distance=${q.distance}`, { key: other.key });
      const truth = await app.sql<Array<{ id: string; distance: number }>>`
        SELECT id, round(great_circle_m(${q.latitude}::float8, ${q.longitude}::float8, latitude, longitude) * 100) / 100 AS distance
        FROM pois WHERE team_id = ${other.teamId}
        AND great_circle_m(${q.latitude}::float8, ${q.longitude}::float8, latitude, longitude) <= ${q.distance} ORDER BY id`;
      expect(res.body.data.map((p: { id: string; distance: number }) => ({ id: p.id, distance: p.distance }))).toEqual([...truth]);
    }
  });

  it('bumps the version once per statement, and lets a team with POIs be deleted', async () => {
    const other = await makeTeam(app);
    expect(await version(other.teamId)).toBeUndefined();
    await app.sql`
      INSERT INTO pois (id, team_id, name, latitude, longitude)
      SELECT ${other.teamId} || lpad(g::text, 6, '0'), ${other.teamId}, 'p' || g, 1, 1 FROM generate_series(1, 500) g`;
    expect(await version(other.teamId)).toBe('1');
    await app.sql`DELETE FROM pois WHERE team_id = ${other.teamId} AND name IN ('p1', 'p2')`;
    expect(await version(other.teamId)).toBe('2');
    await app.sql`UPDATE pois SET latitude = 2 WHERE team_id = ${other.teamId} AND name = 'p3'`;
    expect(await version(other.teamId)).toBe('3');
    await app.sql`DELETE FROM teams WHERE id = ${other.teamId}`;
    expect(await app.sql`SELECT 1 FROM pois WHERE team_id = ${other.teamId}`).toHaveLength(0);
  });
});
