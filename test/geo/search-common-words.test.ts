// A query every word of which is on more objects than search looks at (4,000 candidates): "Join 77,
// Monaco" where thousands of streets are called Join and thousands lie in Monaco (the synthetic country's
// joins and copies of Monaco). The one street with both must not be left behind the cap. A hand-made map
// in the South Atlantic (no Natural Earth land).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSearchIndex, type SearchIndex } from '../../src/engine/geocoder/search.js';
import { buildGeocoderIndex } from '../../src/map/geocoder/index-build.js';
import { SyntheticOsm } from './synthetic-osm.js';

/** More than the candidates a query looks at, for each word. */
const MANY = 4200;

let dir: string;
let index: SearchIndex;

beforeAll(async () => {
  const osm = new SyntheticOsm();
  osm.boundary({ boundary: 'administrative', admin_level: '2', name: 'Nordland' }, -10.5, -25.5, -9.5, -24.5);
  osm.node([-10.2, -25.2], { place: 'town', name: 'Monaco' });
  osm.node([-9.8, -24.8], { place: 'town', name: 'Ostdorf' });
  // Short streets on a grid around each town (about 20 m apart): "Rue N" in Monaco, "Join N" in Ostdorf.
  const street = (town: [number, number], i: number, name: string) => {
    const lat = town[0] + (Math.floor(i / 70) - 35) * 0.0002,
      lon = town[1] + ((i % 70) - 35) * 0.0002;
    osm.way(
      [
        [lat, lon],
        [lat + 0.0001, lon],
      ],
      { highway: 'residential', name },
    );
  };
  for (let i = 0; i < MANY; i++) street([-10.2, -25.2], i, `Rue ${i + 1}`);
  for (let i = 0; i < MANY; i++) street([-9.8, -24.8], i, `Join ${i + 1}`);
  // The one Join in Monaco, last of all.
  street([-10.2, -25.2], MANY, 'Join 77');
  dir = await mkdtemp(join(tmpdir(), 'waymark-common-words-'));
  await buildGeocoderIndex(osm.build(), dir);
  index = await loadSearchIndex(dir);
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it('finds the one street holding every word of a query whose every word is on thousands of objects', () => {
  const [first] = index.search({ text: 'Join 77, Monaco', limit: 5 });
  expect(first).toMatchObject({ kind: 'street', name: 'Join 77', complete: true, address: { city: 'Monaco' } });
  // And its namesake in Ostdorf by its own town.
  expect(index.search({ text: 'Join 77, Ostdorf', limit: 5 })[0]).toMatchObject({ name: 'Join 77', address: { city: 'Ostdorf' } });
});
