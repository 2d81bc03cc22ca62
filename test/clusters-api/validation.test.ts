// POST /v1/routes/clusters: authentication, permissions and every 422 of the body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { API_ONLY, MISSING_ID, UNAUTHENTICATED, expect422, expectMessage, lacks } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { VADUZ, cluster, expectClustering, offset, plainStops, scatter } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
let poiId: string;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
  const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'p', ...VADUZ } });
  expect(res.status).toBe(201);
  poiId = res.body.data.id;
});
afterAll(() => app.close());

const run = (body: unknown) => cluster(app, team.key, body);
const three = scatter(VADUZ, 3, 1000, 2);

describe('authentication and permissions', () => {
  it('401 without a key or with an unknown one', async () => {
    for (const key of [undefined, `wm_${'x'.repeat(40)}`]) {
      expectMessage(await api(app, 'POST', '/v1/routes/clusters', { key, body: { stops: three, clusters: 1 } }), 401, UNAUTHENTICATED);
    }
  });

  it('403 without plan-routes, even with read-pois', async () => {
    const key = await team.keyWith('read-pois');
    expectMessage(await cluster(app, key, { stops: three, clusters: 1 }), 403, lacks('plan-routes'));
    expectMessage(await cluster(app, key, { pois: {}, clusters: 1 }), 403, lacks('plan-routes'));
  });

  it('plain coordinates need only plan-routes', async () => {
    const key = await team.keyWith('plan-routes');
    expectClustering(await cluster(app, key, { stops: three, clusters: 2 }), plainStops(three));
  });

  it('403 without read-pois when pois or a POI stop is sent, before the body is validated', async () => {
    const key = await team.keyWith('plan-routes');
    for (const body of [
      { pois: {}, clusters: 1 },
      { stops: [...three, { poi_id: poiId }], clusters: 1 },
      { pois: 'not filters', clusters: 0 },
      { stops: [{ poi_id: 42 }] },
    ]) {
      expectMessage(await cluster(app, key, body), 403, lacks('read-pois'));
    }
    const both = await team.keyWith('plan-routes,read-pois');
    expect((await cluster(app, both, { stops: [...three, { poi_id: poiId }], clusters: 1 })).status).toBe(200);
    expect((await cluster(app, both, { pois: {}, clusters: 1 })).status).toBe(200);
  });

  it('400 for a body that is not a JSON object', async () => {
    expectMessage(await run('{"stops": ['), 400);
    expectMessage(await run('[1, 2]'), 400);
  });
});

describe('422: either/or', () => {
  it('both stops and pois, or neither', async () => {
    expect422(await run({ stops: three, pois: {}, clusters: 1 }), ['pois']);
    expect422(await run({ clusters: 1 }), ['stops']);
  });

  it('both clusters and max_stops, or neither', async () => {
    expect422(await run({ stops: three, clusters: 1, max_stops: 2 }), ['max_stops']);
    expect422(await run({ stops: three }), ['clusters']);
    expect422(await run({ stops: three, balanced: true }), ['clusters']);
  });

  it('null counts as sent', async () => {
    expect422(await run({ stops: three, pois: null, clusters: 1 }), ['pois']);
    expect422(await run({ stops: three, clusters: 1, max_stops: null }), ['max_stops']);
  });

  it('every problem is reported at once', async () => {
    expect422(await run({}), ['stops', 'clusters']);
    expect422(await run({ stops: 'x', pois: {}, clusters: 0, max_stops: 2, balanced: 1, extra: true }), [
      'stops',
      'pois',
      'clusters',
      'max_stops',
      'balanced',
      'extra',
    ]);
  });
});

describe('422: types and ranges', () => {
  it('stops must be a non-empty array of at most 2,000 locations', async () => {
    for (const stops of ['x', 5, {}, null, [], true]) expect422(await run({ stops, clusters: 1 }), ['stops']);
    for (const stop of [5, 'x', null, [], {}]) expect422(await run({ stops: [...three, stop], clusters: 1 }), ['stops.3']);
  });

  it('clusters: an integer from 1 to 100', async () => {
    for (const clusters of [0, -1, 1.5, 101, '2', true, [2]]) expect422(await run({ stops: three, clusters }), ['clusters']);
  });

  it('max_stops: a positive integer', async () => {
    for (const max_stops of [0, -3, 2.5, '3', false]) expect422(await run({ stops: three, max_stops }), ['max_stops']);
  });

  it('balanced: a boolean', async () => {
    for (const balanced of ['true', 1, null]) expect422(await run({ stops: three, clusters: 1, balanced }), ['balanced']);
  });

  it('unknown fields in the body, a stop or pois', async () => {
    expect422(await run({ stops: three, clusters: 1, profile: 'driving-car' }), ['profile']);
    expect422(await run({ stops: [{ ...VADUZ, name: 'x' }], clusters: 1 }), ['stops.0.name']);
    expect422(await run({ pois: { radius: 50 }, clusters: 1 }), ['pois.radius']);
  });
});

describe('422: stops', () => {
  it('bad coordinates', async () => {
    expect422(await run({ stops: [VADUZ, { latitude: 91, longitude: 9 }], clusters: 1 }), ['stops.1.latitude']);
    expect422(await run({ stops: [VADUZ, { latitude: -90.5, longitude: 9 }], clusters: 1 }), ['stops.1.latitude']);
    expect422(await run({ stops: [{ latitude: 47, longitude: 180.1 }], clusters: 1 }), ['stops.0.longitude']);
    expect422(await run({ stops: [{ latitude: '47', longitude: 9 }], clusters: 1 }), ['stops.0.latitude']);
    expect422(await run({ stops: [{ latitude: 47 }], clusters: 1 }), ['stops.0.longitude']);
    expect422(await run({ stops: [{ longitude: 9 }], clusters: 1 }), ['stops.0.latitude']);
    expect422(await run({ stops: [{ ...VADUZ, poi_id: poiId }], clusters: 1 }), ['stops.0']);
    expect422(await run({ stops: [{ id: 'a' }], clusters: 1 }), ['stops.0']);
  });

  it('the poles and the antimeridian are valid positions', async () => {
    const edge = [
      { latitude: 90, longitude: 180 },
      { latitude: -90, longitude: -180 },
    ];
    expectClustering(await run({ stops: edge, clusters: 2 }), plainStops(edge));
  });

  it('duplicate ids: every repeat at its own position; ids are case-sensitive', async () => {
    const stops = ['a', 'b', 'a', 'A', undefined, 'b', 'a'].map((id, i) => ({ ...offset(VADUZ, i * 100, 0), ...(id === undefined ? {} : { id }) }));
    const res = await run({ stops, clusters: 2 });
    expect422(res, ['stops.2.id', 'stops.5.id', 'stops.6.id']);
    expect(res.body.errors['stops.2.id'][0]).toContain('stops.0.id');
    expect(res.body.errors['stops.5.id'][0]).toContain('stops.1.id');
  });

  it('ids: strings of 1 to 100 characters', async () => {
    expect((await run({ stops: [{ ...VADUZ, id: 'x'.repeat(100) }], clusters: 1 })).status).toBe(200);
    for (const id of ['x'.repeat(101), '', 7, null, ['a']]) expect422(await run({ stops: [VADUZ, { ...VADUZ, id }], clusters: 1 }), ['stops.1.id']);
  });

  it("unknown, malformed or another team's POI ids: 422 at stops.N.poi_id", async () => {
    const other = await makeTeam(app);
    const theirs = (await api(app, 'POST', '/v1/pois', { key: other.key, body: { name: 'q', ...VADUZ } })).body.data.id;
    const res = await run({ stops: [{ poi_id: poiId }, { poi_id: MISSING_ID }, VADUZ, { poi_id: 'nope' }, { poi_id: theirs }], clusters: 1 });
    expect422(res, ['stops.1.poi_id', 'stops.3.poi_id', 'stops.4.poi_id']);
    expect422(await run({ stops: [{ poi_id: 5 }], clusters: 1 }), ['stops.0.poi_id']);
  });
});
