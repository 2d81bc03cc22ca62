// Monaco's OSM boundary runs out to sea beyond the extract, and Natural Earth draws Monaco several times
// too large: the land border from OSM must still keep French neighbours French.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGeocoderIndex } from '../../src/geo/index-build.js';
import { loadGeocoder, type Geocoder } from '../../src/geo/reverse.js';
import { loadOsm } from '../../src/map/osm-data.js';
import { projectRoot } from '../../src/paths.js';

let dir: string;
let geocoder: Geocoder;

beforeAll(async () => {
  const osm = await loadOsm(join(projectRoot, '..', 'shared', 'data', 'osm', 'monaco.osm.pbf'));
  dir = await mkdtemp(join(tmpdir(), 'waymark-geo-mc-'));
  await buildGeocoderIndex(osm, dir);
  geocoder = await loadGeocoder(dir);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reverse geocoding around Monaco', () => {
  it('keeps Monaco and its French neighbours apart', () => {
    expect(geocoder.reverseGeocode(43.7311, 7.4197)).toMatchObject({ city: 'Monaco', country: 'Monaco', zipcode: '98000' }); // Monaco-Ville
    expect(geocoder.reverseGeocode(43.7384, 7.4246)).toMatchObject({ city: 'Monaco', country: 'Monaco' }); // Monte-Carlo
    expect(geocoder.reverseGeocode(43.725, 7.4)).toMatchObject({ city: "Cap-d'Ail", country: 'France', zipcode: '06320' });
    expect(geocoder.reverseGeocode(43.745, 7.41)).toMatchObject({ city: 'La Turbie', country: 'France' });
  });

  it('returns all nulls in the sea', () => {
    expect(geocoder.reverseGeocode(43.6, 7.45)).toMatchObject({ country: null, city: null, street: null, display_name: null });
  });
});
