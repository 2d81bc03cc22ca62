// CSV rows placed by their address on the Liechtenstein map: free text or the address columns, checked
// against the extract's own address nodes (their addr:* tags and positions); rows that cannot be placed
// are row errors at their line; rows with coordinates are imported as before.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/lib/paths.js';
import { loadOsm } from '../../src/map/osm/osm-data.js';
import type { OsmNode } from '../../src/map/osm/osm-pbf.js';
import { testMapDir } from '../geo-api/support.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { haversine } from '../support/geo.js';
import { importCsv, upload } from './support.js';

let app: App & { url: string };
let team: TestTeam;
let houses: OsmNode[];

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: await testMapDir() });
  team = await makeTeam(app);
  const osm = await loadOsm(join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf'));
  const all = osm.taggedNodes.filter((n) => {
    const t = n.tags!;
    return t['addr:street'] && /^\d+[a-z]?$/.test(t['addr:housenumber'] ?? '') && t['addr:postcode'] && t['addr:city'];
  });
  // A spread of the extract's address nodes, one per street and number.
  const seen = new Set<string>();
  houses = all
    .filter((_, i) => i % Math.ceil(all.length / 40) === 0)
    .filter((n) => {
      const key = `${n.tags!['addr:street']} ${n.tags!['addr:housenumber']}`;
      return !seen.has(key) && seen.add(key);
    });
}, 120_000);
afterAll(() => app?.close());

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
const poisOf = (importId: string) =>
  app.sql<{ name: string; latitude: number; longitude: number }[]>`SELECT name, latitude, longitude FROM pois WHERE import_id = ${importId} ORDER BY name`;

describe('imports placed by address', () => {
  it('places free-text addresses ("<street> <number>, <postcode> <city>") at the extract\'s address nodes', async () => {
    const rows = houses.map((n, i) => {
      const t = n.tags!;
      return `house ${i},${quote(`${t['addr:street']} ${t['addr:housenumber']}, ${t['addr:postcode']} ${t['addr:city']}`)}`;
    });
    const done = await importCsv(app, team.key, ['name,address', ...rows, ''].join('\n'));
    expect(done.errors, JSON.stringify(done.errors)).toEqual([]);
    expect(done).toMatchObject({ status: 'completed', created: houses.length, failed: 0 });
    const pois = new Map((await poisOf(done.id)).map((p) => [p.name, p]));
    for (const [i, n] of houses.entries()) {
      const p = pois.get(`house ${i}`)!;
      expect(haversine(p, { latitude: n.lat, longitude: n.lon }), `${n.tags!['addr:street']} ${n.tags!['addr:housenumber']}`).toBeLessThan(60);
    }
  });

  it('places rows by street, housenumber, postcode, city, country columns, beside rows with coordinates', async () => {
    const rows = houses.slice(0, 10).map((n, i) => {
      const t = n.tags!;
      return `col ${i},,,${quote(t['addr:street'])},${t['addr:housenumber']},${t['addr:postcode']},${quote(t['addr:city'])},LI`;
    });
    rows.push('with coordinates,47.14,9.52,,,,,');
    const done = await importCsv(app, team.key, ['name,latitude,longitude,street,housenumber,postcode,city,country', ...rows, ''].join('\n'));
    expect(done).toMatchObject({ status: 'completed', created: 11, failed: 0, errors: [] });
    const pois = new Map((await poisOf(done.id)).map((p) => [p.name, p]));
    expect(pois.get('with coordinates')).toMatchObject({ latitude: 47.14, longitude: 9.52 });
    for (const [i, n] of houses.slice(0, 10).entries()) expect(haversine(pois.get(`col ${i}`)!, { latitude: n.lat, longitude: n.lon })).toBeLessThan(60);
  });

  it('reports a row it cannot place as a row error at its line, the others imported', async () => {
    const t = houses[0].tags!;
    const csv = [
      'name,address,street,housenumber,city',
      `ok,${quote(`${t['addr:street']} ${t['addr:housenumber']} ${t['addr:city']}`)},,,`,
      'nowhere,Qxqzvkw 5,,,',
      // The Landstrasse is in Triesen, but has no number 9999: the street is not the house the row asks for.
      'no such house,,Landstrasse,9999,Triesen',
      'city only,,,,Vaduz',
      'both,Vaduz,Landstrasse,,',
      'number alone,,,12,',
      '',
    ].join('\n');
    const done = await importCsv(app, team.key, csv);
    expect(done).toMatchObject({ status: 'completed', created: 2, failed: 4 });
    expect(done.errors.map((e: any) => e.line)).toEqual([3, 4, 6, 7]);
    expect(done.errors[0].message).toMatch(/^address: no place found for "Qxqzvkw 5"/);
    expect(done.errors[1].message).toMatch(/^address: "Landstrasse 9999, Triesen" found only as the street/);
    expect(done.errors[2].message).toMatch(/^address: give either address or street/);
    expect(done.errors[3].message).toBe('housenumber: needs street');
  });

  it('still refuses a header with neither coordinates nor an address column', async () => {
    const res = await upload(app, team.key, 'name,place\nx,Vaduz\n');
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/missing the required columns: latitude, longitude \(or an address/);
  });

  it('an attribute named like an address column keeps its column', async () => {
    const other = await makeTeam(app);
    expect((await api(app, 'POST', '/v1/attributes', { key: other.key, body: { name: 'city', type: 'string' } })).status).toBe(201);
    const done = await importCsv(app, other.key, 'name,latitude,longitude,city\nshop,47.14,9.52,Vaduz\n');
    expect(done).toMatchObject({ status: 'completed', created: 1 });
    const [poi] = (await api(app, 'GET', '/v1/pois', { key: other.key })).body.data;
    expect(poi.attributes).toEqual({ city: 'Vaduz' });
  });
});
