// The geocoder's rules on a hand-made map in the South Atlantic, where Natural Earth has no land:
// two countries sharing a border, each with a municipality called Rheinfelden.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGeocoderIndex } from '../../src/map/geocoder/index-build.js';
import { loadGeocoder, type Geocoder } from '../../src/engine/geocoder/reverse.js';
import { offset, SyntheticOsm, type LatLonPair } from './synthetic-osm.js';

const MAIN_STREET_5: LatLonPair = offset([-9.93, -24.95], 15, 0);
// A house number without addr:street, nearer an unnamed service road than the named Hill Road.
const HILL_ROAD = -9.975;
const NUMBER_ONLY: LatLonPair = offset([HILL_ROAD, -24.93], 45, 0);
const OBERDORF_12: LatLonPair = [-9.965, -24.915];
const LONE_NUMBER: LatLonPair = [-9.925, -24.975];
// Even numbers 2 to 10 along an addr:interpolation line 15 m north of Main Street, 160 m long.
const EVEN_2: LatLonPair = offset([-9.93, -24.925], 15, 0);
// A house number near Hill Road that an associatedStreet relation puts on Bay Lane.
const BAY_LANE_3: LatLonPair = offset([HILL_ROAD, -24.928], 45, 0);

function syntheticMap() {
  const osm = new SyntheticOsm();
  osm.boundary({ boundary: 'administrative', admin_level: '2', name: 'Nordland', 'name:en': 'Northland' }, -10.0, -25.0, -9.9, -24.8);
  osm.boundary({ boundary: 'administrative', admin_level: '2', name: 'Southland' }, -10.1, -25.0, -10.0, -24.8);
  // Northland: municipalities at level 8 with a level-6 district around them that must not count.
  osm.boundary({ boundary: 'administrative', admin_level: '6', name: 'Big District' }, -10.0, -25.0, -9.9, -24.8);
  osm.boundary({ boundary: 'administrative', admin_level: '8', name: 'Rheinfelden' }, -9.98, -24.98, -9.92, -24.9, [[-9.96, -24.96, -9.94, -24.94]]);
  osm.boundary({ boundary: 'administrative', admin_level: '8', name: 'Enclave' }, -9.96, -24.96, -9.94, -24.94);
  // Southland has no level 8: its municipalities are level 7, inside a level-6 district.
  osm.boundary({ boundary: 'administrative', admin_level: '6', name: 'Southern District' }, -10.1, -25.0, -10.0, -24.8);
  osm.boundary({ boundary: 'administrative', admin_level: '7', name: 'Rheinfelden' }, -10.08, -24.98, -10.02, -24.9);
  osm.boundary({ boundary: 'postal_code', postal_code: '9999' }, -10.08, -24.98, -10.02, -24.9);
  // A level-8 boundary cut by the extract's edge: one member way is missing.
  const cut = osm.way([
    [-10.1, -24.82],
    [-10.09, -24.82],
    [-10.09, -24.8],
  ]);
  osm.relation({ type: 'boundary', boundary: 'administrative', admin_level: '7', name: 'Cutville' }, [{ way: cut }, { missingWay: 999_999 }]);

  osm.way(
    [
      [-9.93, -24.97],
      [-9.93, -24.95],
      [-9.93, -24.91],
    ],
    { highway: 'residential', name: 'Main Street' },
  );
  osm.node(MAIN_STREET_5, { 'addr:street': 'Main Street', 'addr:housenumber': '5', 'addr:postcode': '1234' });
  osm.way(
    [
      [HILL_ROAD, -24.935],
      [HILL_ROAD, -24.925],
    ],
    { highway: 'residential', name: 'Hill Road' },
  );
  osm.way(
    [
      [HILL_ROAD + 0.0005, -24.935],
      [HILL_ROAD + 0.0005, -24.925],
    ],
    { highway: 'service' },
  );
  osm.node(NUMBER_ONLY, { 'addr:housenumber': '7' });
  osm.node(OBERDORF_12, { 'addr:place': 'Oberdorf', 'addr:housenumber': '12' });
  osm.node(LONE_NUMBER, { 'addr:housenumber': '99' });
  const two = osm.node(EVEN_2, { 'addr:street': 'Main Street', 'addr:housenumber': '2', 'addr:postcode': '1234' });
  const ten = osm.node(offset(EVEN_2, 0, 160), { 'addr:street': 'Main Street', 'addr:housenumber': '10', 'addr:postcode': '1234' });
  osm.wayThrough([two, ten], { 'addr:interpolation': 'even' });
  const bay3 = osm.node(BAY_LANE_3, { 'addr:housenumber': '3' });
  osm.relation({ type: 'associatedStreet', name: 'Bay Lane' }, [{ node: bay3, role: 'house' }]);
  osm.node([-9.91, -24.85], { place: 'village', name: 'Farville' });
  osm.node([-10.005, -24.85], { place: 'village', name: 'Borderton' });
  return osm.build();
}

let dir: string;
let geocoder: Geocoder;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'waymark-geo-'));
  const counts = await buildGeocoderIndex(syntheticMap(), dir);
  // Main Street 5, Hill Road 7, Oberdorf 12; Main Street 2 and 10 and the 4, 6, 8 between; Bay Lane 3.
  expect(counts).toMatchObject({ countries: 2, municipalities: 3, postalAreas: 1, addresses: 9, streets: 2, places: 2 });
  geocoder = await loadGeocoder(dir);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reverse geocoding on a synthetic map', () => {
  it('tells apart two municipalities of the same name in different countries', () => {
    const north = geocoder.reverseGeocode(-9.97, -24.97);
    const south = geocoder.reverseGeocode(-10.05, -24.95);
    expect(north).toMatchObject({ city: 'Rheinfelden', country: 'Northland' });
    expect(south).toMatchObject({ city: 'Rheinfelden', country: 'Southland', zipcode: '9999' });
    expect(south.display_name).toBe('9999 Rheinfelden, Southland');
  });

  it('uses the finest municipality level of each country and respects holes', () => {
    expect(geocoder.reverseGeocode(-9.95, -24.95).city).toBe('Enclave');
    // In Northland outside any level-8 municipality, the level-6 district is not a city.
    expect(geocoder.reverseGeocode(-9.99, -24.99).city).toBeNull();
    // A relation the extract cuts is not a municipality.
    expect(geocoder.reverseGeocode(-10.095, -24.81)).toMatchObject({ city: null, country: 'Southland' });
  });

  it('gives the house number within 30 m, else the nearest street, and the nearest postcode within 500 m', () => {
    const atHouse = geocoder.reverseGeocode(...offset(MAIN_STREET_5, 5, 5));
    expect(atHouse).toEqual({
      street: 'Main Street 5',
      housenumber: '5',
      city: 'Rheinfelden',
      zipcode: '1234',
      country: 'Northland',
      display_name: 'Main Street 5, 1234 Rheinfelden, Northland',
    });
    const alongStreet = geocoder.reverseGeocode(...offset([-9.93, -24.95], -20, 150));
    expect(alongStreet).toMatchObject({ street: 'Main Street', housenumber: null, zipcode: '1234' });
    const farFromHouse = geocoder.reverseGeocode(...offset([-9.93, -24.95], 100, 600));
    expect(farFromHouse).toMatchObject({ street: 'Main Street', zipcode: null, city: 'Rheinfelden' });
    expect(geocoder.reverseGeocode(...offset([-9.93, -24.95], 250, 0)).street).toBeNull();
  });

  it('gives a house number without addr:street the nearest named street, as Nominatim parents it; addr:place stands for the street', () => {
    expect(geocoder.reverseGeocode(...offset(NUMBER_ONLY, 3, 3))).toMatchObject({ street: 'Hill Road 7', housenumber: '7', city: 'Rheinfelden' });
    expect(geocoder.reverseGeocode(...offset(OBERDORF_12, -3, 3))).toMatchObject({ street: 'Oberdorf 12', housenumber: '12' });
    // No named street within 200 m: the number alone is no address.
    expect(geocoder.reverseGeocode(...LONE_NUMBER)).toMatchObject({ street: null, housenumber: null });
  });

  it('interpolates house numbers along an addr:interpolation way, spaced by length, with the ends’ street and postcode', () => {
    expect(geocoder.reverseGeocode(...offset(EVEN_2, 3, 80))).toMatchObject({ street: 'Main Street 6', housenumber: '6', zipcode: '1234' });
    expect(geocoder.reverseGeocode(...offset(EVEN_2, -3, 42))).toMatchObject({ street: 'Main Street 4', housenumber: '4' });
    expect(geocoder.reverseGeocode(...offset(EVEN_2, 2, 118))).toMatchObject({ street: 'Main Street 8', housenumber: '8' });
    expect(geocoder.reverseGeocode(...offset(EVEN_2, 2, 158))).toMatchObject({ street: 'Main Street 10', housenumber: '10' });
  });

  it('puts a house of an associatedStreet relation without addr:street on the relation’s street, not the nearest one', () => {
    expect(geocoder.reverseGeocode(...offset(BAY_LANE_3, 3, 3))).toMatchObject({ street: 'Bay Lane 3', housenumber: '3' });
  });

  it('falls back to the nearest place of the same country within 10 km', () => {
    expect(geocoder.reverseGeocode(-9.915, -24.86)).toMatchObject({ city: 'Farville', country: 'Northland' });
    // Borderton is much closer but across the border; Farville is 9.5 km away.
    expect(geocoder.reverseGeocode(-9.995, -24.85)).toMatchObject({ city: 'Farville', country: 'Northland' });
    expect(geocoder.reverseGeocode(-10.01, -24.85)).toMatchObject({ city: 'Borderton', country: 'Southland' });
  });

  it('returns all nulls in the sea next to the map and far outside it', () => {
    const empty = { street: null, housenumber: null, city: null, zipcode: null, country: null, display_name: null };
    expect(geocoder.reverseGeocode(-9.86, -24.9)).toEqual(empty);
    expect(geocoder.reverseGeocode(-30, -25)).toEqual(empty);
    expect(geocoder.reverseGeocode(47.14, 9.52)).toEqual(empty);
  });
});
