// GET /v1/geo/search and /v1/geo/autocomplete over HTTP on the Liechtenstein map: answers checked against
// the extract's own addr:* tags, the address object against what a POI placed at the result gets, the
// team's POIs as a layer, one 422 naming every bad parameter, permissions, and autocomplete's latency.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/lib/paths.js';
import { loadOsm, type OsmData } from '../../src/map/osm/osm-data.js';
import { expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { haversine } from '../support/geo.js';
import { UUID, geocoded, testMapDir } from './support.js';

const EXTRACT = join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf');
/** Post Vaduz: a node carrying addr:street Städtle, addr:housenumber 38, addr:postcode 9490, addr:city Vaduz. */
const POST_VADUZ = 326058701;

let app: App & { url: string };
let team: TestTeam;
let osm: OsmData;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir() });
  team = await makeTeam(app);
  osm = await loadOsm(EXTRACT);
}, 120_000);
afterAll(() => app?.close());

const get = (path: string, key = team.key) => api(app, 'GET', path, { key });
const search = (query: string, key = team.key) => get(`/v1/geo/search?${query}`, key);
const autocomplete = (query: string, key = team.key) => get(`/v1/geo/autocomplete?${query}`, key);
const ok = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as any[];
};
const withoutTime = (address: any) => ({ ...address, geocoded_at: 'set' });

describe('GET /v1/geo/search', () => {
  it('"Städtle 38 Vaduz" is the Post Vaduz node: its own tags, and the address a POI placed there gets', async () => {
    const node = osm.taggedNodes.find((n) => n.id === POST_VADUZ)!;
    const t = node.tags!;
    const [first] = ok(await search(`q=${encodeURIComponent('Städtle 38 Vaduz')}`));
    const street = `${t['addr:street']} ${t['addr:housenumber']}`;
    expect(first).toEqual({
      kind: 'address',
      name: street,
      latitude: expect.any(Number),
      longitude: expect.any(Number),
      bbox: [first.longitude, first.latitude, first.longitude, first.latitude],
      score: expect.any(Number),
      address: {
        display_name: `${street}, ${t['addr:postcode']} ${t['addr:city']}, Liechtenstein`,
        street,
        city: { id: expect.stringMatching(UUID), name: t['addr:city'] },
        country: { id: expect.stringMatching(UUID), name: 'Liechtenstein' },
        zipcode: { id: expect.stringMatching(UUID), code: t['addr:postcode'] },
        geocoded_at: expect.any(String),
      },
    });
    expect(haversine({ latitude: first.latitude, longitude: first.longitude }, { latitude: node.lat, longitude: node.lon })).toBeLessThan(60);
    const created = await api(app, 'POST', '/v1/pois', {
      key: team.key,
      body: { name: 'placed by search', latitude: first.latitude, longitude: first.longitude },
    });
    expect(created.status).toBe(201);
    const poi = await geocoded(app, team.key, created.body.data.id);
    expect(withoutTime(poi.address)).toEqual(withoutTime(first.address));
  });

  it('"9490 Vaduz", "Landstrasse, Triesen", "Schaan", structured fields, near and countrycodes', async () => {
    const [postcode] = ok(await search('q=9490%20Vaduz'));
    expect(postcode).toMatchObject({ kind: 'postcode', name: '9490', address: { zipcode: { code: '9490' }, city: { name: 'Vaduz' } } });
    const [west, south, east, north] = postcode.bbox;
    expect(west < east && south < north).toBe(true);
    const [street] = ok(await search('q=Landstrasse,%20Triesen'));
    expect(street).toMatchObject({ kind: 'street', name: 'Landstrasse', address: { city: { name: 'Triesen' }, street: 'Landstrasse' } });
    expect(ok(await search('q=schaan&limit=1'))[0]).toMatchObject({ kind: 'place', name: 'Schaan', address: { city: { name: 'Schaan' } } });
    const structured = ok(await search('street=stadtle&housenumber=38&postcode=9490&country=li'));
    expect(structured[0]).toMatchObject({ kind: 'address', name: 'Städtle 38' });
    expect(ok(await search('q=Vaduz&countrycodes=ch,at'))).toEqual([]);
    expect(ok(await search('q=Vaduz&countrycodes=LI')).length).toBeGreaterThan(0);
    // "Landstrasse" is in several municipalities: near= brings the one there first.
    const nearSchaan = ok(await search('q=Landstrasse&layers=street&near=47.165,9.509'));
    const nearBalzers = ok(await search('q=Landstrasse&layers=street&near=47.066,9.50'));
    expect(nearSchaan[0].address.city.name).toBe('Schaan');
    expect(nearBalzers[0].address.city.name).not.toBe('Schaan');
    expect(ok(await search('q=Schaan&layers=street')).every((r) => r.kind === 'street')).toBe(true);
  });

  it("layers=poi: the team's POIs by name (folded) or category name, never another team's", async () => {
    const mine = await makeTeam(app);
    const category = await api(app, 'POST', '/v1/categories', { key: mine.key, body: { name: 'Bäckerei' } });
    const made = await api(app, 'POST', '/v1/pois', { key: mine.key, body: { name: 'Café Städtle', latitude: 47.139, longitude: 9.5225 } });
    await api(app, 'POST', '/v1/pois', { key: mine.key, body: { name: 'Brot & mehr', category_id: category.body.data.id, latitude: 47.14, longitude: 9.52 } });
    await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'Café Städtle (theirs)', latitude: 47.139, longitude: 9.5225 } });
    const byName = ok(await search('q=cafe%20stadtle&layers=poi', mine.key));
    expect(byName).toEqual([expect.objectContaining({ kind: 'poi', name: 'Café Städtle', poi_id: made.body.data.id, latitude: 47.139, longitude: 9.5225 })]);
    expect(ok(await search('q=backerei&layers=poi', mine.key)).map((r) => r.name)).toEqual(['Brot & mehr']);
    const both = ok(await search('q=stadtle&layers=poi,street', mine.key));
    expect(new Set(both.map((r) => r.kind))).toEqual(new Set(['poi', 'street']));
  });

  it('one 422 naming every bad parameter; read-pois is enough, none 401', async () => {
    expect422(await search(''), ['q']);
    expect422(await search('q=a&street=b'), ['q']);
    expect422(await search('housenumber=3'), ['housenumber']);
    expect422(await search('q=x&near=47.1&countrycodes=liechtenstein&layers=address,house&limit=0'), ['near', 'countrycodes', 'layers', 'limit']);
    expect422(await search('q=x&near=91,9&limit=51'), ['near', 'limit']);
    expect422(await search('q=%2C%2C'), ['q']);
    expect422(await autocomplete('limit=3'), ['q']);
    expect((await search('q=Vaduz', await team.keyWith('read-pois'))).status).toBe(200);
    expect((await search('q=Vaduz', await team.keyWith('create-pois'))).status).toBe(403);
    expect((await autocomplete('q=Vaduz', await team.keyWith('create-pois'))).status).toBe(403);
    expect((await api(app, 'GET', '/v1/geo/search?q=Vaduz')).status).toBe(401);
  });
});

describe('GET /v1/geo/autocomplete', () => {
  it('"Städ" offers the Städtle, "Landstr 1" Landstrasse numbers beginning with 1 that the extract tags', async () => {
    expect(ok(await autocomplete('q=St%C3%A4d')).map((r) => r.name)).toContain('Städtle');
    const hits = ok(await autocomplete('q=Landstr%201&limit=5'));
    expect(hits).toHaveLength(5);
    const tagged = new Set(
      [...osm.taggedNodes.map((n) => n.tags!), ...osm.ways.map((w) => w.tags)]
        .filter((t) => t['addr:street'] === 'Landstrasse' && t['addr:housenumber'])
        .map((t) => `Landstrasse ${t['addr:housenumber']}`),
    );
    for (const h of hits) {
      expect(h.kind).toBe('address');
      expect(h.name).toMatch(/^Landstrasse 1/);
    }
    expect(hits.filter((h) => tagged.has(h.name)).length).toBeGreaterThanOrEqual(4);
  });

  it('answers each keystroke about as fast as the reverse lookup answers a point (search too; p95s over HTTP printed)', async () => {
    const typed = ['Städtle 38 Vaduz', 'Landstrasse 10 Triesen', 'Kirchstrasse 41', 'Schaan', 'Zollstrasse', 'Feldkircher Strasse 2'];
    const keystrokes = typed.flatMap((t) => [...t].map((_, i) => t.slice(0, i + 1)).filter((p) => p.trim().length >= 2));
    // Interleaved, so that the machine's load (other builds share it) weighs on the three alike.
    const kinds = {
      reverse: keystrokes.map((_, i) => `/v1/geo/reverse?latitude=${47.1 + i * 0.0005}&longitude=9.52`),
      complete: keystrokes.map((p) => `/v1/geo/autocomplete?q=${encodeURIComponent(p)}`),
      searched: keystrokes.map((p) => `/v1/geo/search?q=${encodeURIComponent(p)}`),
    };
    const times: Record<keyof typeof kinds, number[]> = { reverse: [], complete: [], searched: [] };
    for (const k of Object.keys(kinds) as (keyof typeof kinds)[]) for (const p of kinds[k].slice(0, 10)) await get(p);
    for (let i = 0; i < keystrokes.length; i++) {
      for (const k of Object.keys(kinds) as (keyof typeof kinds)[]) {
        const t0 = performance.now();
        const res = await get(kinds[k][i]);
        times[k].push(performance.now() - t0);
        expect(res.status).toBe(200);
      }
    }
    const stats = (ms: number[]) => {
      ms.sort((a, b) => a - b);
      return { median: ms[ms.length >> 1], p95: ms[Math.floor(ms.length * 0.95)] };
    };
    const [reverse, complete, searched] = [stats(times.reverse), stats(times.complete), stats(times.searched)];
    const ms = (r: { median: number; p95: number }) => `median ${r.median.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms`;
    console.log(`over HTTP, LI, ${keystrokes.length} requests each: autocomplete ${ms(complete)}; search ${ms(searched)}; reverse ${ms(reverse)}`);
    // Absolute times swing with the machine's load; the index lookup must not add much to a request's own cost.
    expect(complete.median).toBeLessThan(reverse.median * 1.5 + 3);
    expect(searched.median).toBeLessThan(reverse.median * 1.5 + 3);
  });
});

describe('without a map', () => {
  let off: App & { url: string };
  beforeAll(async () => {
    off = await startTestApp({ WAYMARK_MAP: 'off' });
  });
  afterAll(() => off.close());

  it('503 for the map layers after validation; the poi layer still answers', async () => {
    const t = await makeTeam(off);
    expect422(await api(off, 'GET', '/v1/geo/search?limit=0', { key: t.key }), ['q', 'limit']);
    expect((await api(off, 'GET', '/v1/geo/search?q=Vaduz', { key: t.key })).status).toBe(503);
    expect((await api(off, 'GET', '/v1/geo/autocomplete?q=Vad', { key: t.key })).status).toBe(503);
    expect(ok(await api(off, 'GET', '/v1/geo/search?q=Vaduz&layers=poi', { key: t.key }))).toEqual([]);
  });
});
