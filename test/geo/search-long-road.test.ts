// A road from one village to the next is found with either village: the address a POI beside any part of
// it gets (its city is the village nearest the POI) finds the road. A hand-made map in the South Atlantic
// (no Natural Earth land): one country, no municipalities, three villages along a 17 km road of two long
// segments (as the synthetic country's "Join" roads between tiles are) whose middle is nearest Westdorf.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadGeocoder, type Geocoder } from '../../src/engine/geocoder/reverse.js';
import { loadSearchIndex, type SearchIndex } from '../../src/engine/geocoder/search.js';
import { buildGeocoderIndex } from '../../src/map/geocoder/index-build.js';
import { SyntheticOsm, type LatLonPair } from './synthetic-osm.js';

const ROAD_LAT = -9.951;
/** Each village, and a point beside the road nearer it than the others. */
const VILLAGES: Array<{ name: string; at: LatLonPair; beside: LatLonPair }> = [
  { name: 'Westdorf', at: [-9.95, -24.92], beside: [ROAD_LAT + 0.0002, -24.93] },
  { name: 'Mitteldorf', at: [-9.953, -24.86], beside: [ROAD_LAT + 0.0002, -24.86] },
  { name: 'Ostdorf', at: [-9.95, -24.82], beside: [ROAD_LAT + 0.0002, -24.824] },
];

let dir: string;
let geocoder: Geocoder;
let index: SearchIndex;

beforeAll(async () => {
  const osm = new SyntheticOsm();
  osm.boundary({ boundary: 'administrative', admin_level: '2', name: 'Nordland' }, -10.0, -25.0, -9.9, -24.8);
  for (const v of VILLAGES) osm.node(v.at, { place: 'village', name: v.name });
  osm.way(
    [
      [ROAD_LAT, -24.98],
      [ROAD_LAT, -24.9],
      [ROAD_LAT, -24.822],
    ],
    { highway: 'trunk', name: 'Join 7' },
  );
  dir = await mkdtemp(join(tmpdir(), 'waymark-long-road-'));
  await buildGeocoderIndex(osm.build(), dir);
  geocoder = await loadGeocoder(dir);
  index = await loadSearchIndex(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it('finds a long road by each village along it, as reverse geocoding names it there', () => {
  for (const v of VILLAGES) {
    // What a POI beside the road there gets: the road, and the village nearest it.
    expect(geocoder.reverseGeocode(...v.beside), v.name).toMatchObject({ street: 'Join 7', city: v.name, country: 'Nordland' });
    const [first] = index.search({ text: `Join 7, ${v.name}`, limit: 5 });
    expect(first, v.name).toMatchObject({ kind: 'street', name: 'Join 7', complete: true });
  }
  // A village the road does not reach is still no part of its address.
  expect(index.search({ text: 'Join 7, Nowhere', limit: 5 }).filter((h) => h.complete)).toEqual([]);
});
