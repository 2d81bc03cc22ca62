// The geocoder over the Andorra extract: its three address points (all with addr:street) and the
// streets and parishes around them, the expected addresses written from the extract's tags by hand.
import { describe, expect, it } from 'vitest';
import { useExtractGeocoder } from '../support/extract-geocoder.js';

const geo = useExtractGeocoder('andorra');

describe('reverse geocoding in Andorra', () => {
  it.each([
    [42.508416, 1.537057, 'Avinguda Carlemany 93', '93'], // node 1397132076, hotel Les Closes
    [42.4630693, 1.4911522, 'Plaça Major 4', '4'], // node 1407150629, Pizzeria Uruguayana
    [42.5080426, 1.5243707, 'Avinguda Meritxell 11', '11'], // node 1578367368, Pyrénées (AD500 Andorra la Vella)
  ] as const)('finds the address point at %f, %f: %s', (lat, lon, street, housenumber) => {
    expect(geo.geocoder.reverseGeocode(lat + 0.00002, lon - 0.00002)).toMatchObject({ street, housenumber, country: 'Andorra' });
  });

  it('gives the Pyrénées store its parish and postcode', () => {
    expect(geo.geocoder.reverseGeocode(42.5080426, 1.5243707)).toMatchObject({ city: 'Andorra la Vella', zipcode: 'AD500' });
  });
});
