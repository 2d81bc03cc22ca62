// Monaco's OSM boundary runs out to sea beyond the extract, and Natural Earth draws Monaco several times
// too large: the land border from OSM must still keep French neighbours French.
import { describe, expect, it } from 'vitest';
import { useExtractGeocoder } from '../support/extract-geocoder.js';

const geo = useExtractGeocoder('monaco');

describe('reverse geocoding around Monaco', () => {
  it('keeps Monaco and its French neighbours apart', () => {
    expect(geo.geocoder.reverseGeocode(43.7311, 7.4197)).toMatchObject({ city: 'Monaco', country: 'Monaco', zipcode: '98000' }); // Monaco-Ville
    expect(geo.geocoder.reverseGeocode(43.7384, 7.4246)).toMatchObject({ city: 'Monaco', country: 'Monaco' }); // Monte-Carlo
    expect(geo.geocoder.reverseGeocode(43.725, 7.4)).toMatchObject({ city: "Cap-d'Ail", country: 'France', zipcode: '06320' });
    expect(geo.geocoder.reverseGeocode(43.745, 7.41)).toMatchObject({ city: 'La Turbie', country: 'France' });
  });

  it('returns all nulls in the sea', () => {
    expect(geo.geocoder.reverseGeocode(43.6, 7.45)).toMatchObject({ country: null, city: null, street: null, display_name: null });
  });
});
