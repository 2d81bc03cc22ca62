import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY } from './helpers.js';

// Writers of one team's POIs all end on the team's poi_versions row (their triggers bump it): each must
// take it last, or two of them wait for each other and PostgreSQL kills one (a 500).
let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
});
afterAll(() => app.close());

const create = (name: string, attributes?: Record<string, unknown>) =>
  api(app, 'POST', '/v1/pois', { key: team.key, body: { name, latitude: 47.14, longitude: 9.52, attributes } });

describe('concurrent writers of one team', () => {
  it('creates and deletes never deadlock', async () => {
    const statuses: number[] = [];
    const worker = async (w: number) => {
      for (let i = 0; i < 12; i++) {
        const created = await create(`w${w}-${i}`);
        statuses.push(created.status);
        if (created.status === 201) statuses.push((await api(app, 'DELETE', `/v1/pois/${created.body.data.id}`, { key: team.key })).status);
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    expect(statuses.filter((s) => s !== 201 && s !== 204)).toEqual([]);
    expect(statuses).toHaveLength(8 * 12 * 2);
  });

  it('updates of POIs while their attribute is deleted never deadlock', async () => {
    for (let round = 0; round < 4; round++) {
      const attr = (await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: `a${round}` } })).body.data.id;
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await create(`p${round}-${i}`, { [`a${round}`]: 'x' })).body.data.id);
      const statuses = await Promise.all([
        ...ids.map((id, i) => api(app, 'PUT', `/v1/pois/${id}`, { key: team.key, body: { name: `renamed ${i}` } }).then((r) => r.status)),
        api(app, 'DELETE', `/v1/attributes/${attr}`, { key: team.key }).then((r) => r.status),
        ...ids.map((id) => api(app, 'DELETE', `/v1/pois/${id}`, { key: team.key }).then((r) => r.status)),
      ]);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
    }
  });
});
