// What a POI keeps of the address the reverse geocoder gives its point, and the `address` object the API
// shows for it: one mapping for the background runner (POIs) and GET /v1/geo/reverse (a point).
import { poolSize, runTask } from '../compute/pool.js';
import { activeMapDir } from '../engine/engine.js';
import type { Address } from '../engine/geocoder/reverse.js';
import type { SearchHit, SearchQuery } from '../engine/geocoder/search.js';
import type { PlaceIds } from './places.js';

/** The geocoder's addresses of `points` (pool task `geocode`), in their order, from the map answering
 *  now (engine.ts, activeMapDir: the one this request is pinned to). */
export const geocodePoints = (points: Array<{ lat: number; lon: number }>): Promise<Address[]> =>
  runTask<Address[]>('geocode', { mapDir: activeMapDir(), points });

/** The columns of `pois` an address fills: the street carries the house number, the places are shared rows. */
export interface StoredAddress {
  street: string | null;
  displayName: string | null;
  countryId: string | null;
  cityId: string | null;
  zipcodeId: string | null;
}

export const storedAddress = (a: Address, places: PlaceIds): StoredAddress => ({
  street: a.street,
  displayName: a.display_name,
  countryId: places.countryId,
  cityId: places.cityId,
  zipcodeId: places.zipcodeId,
});

/** A POI's `address` as the API shows it (src/api/pois/store.ts builds the same from the stored columns). */
export interface AddressResource {
  display_name: string | null;
  street: string | null;
  city: { id: string; name: string } | null;
  country: { id: string; name: string } | null;
  zipcode: { id: string; code: string } | null;
  geocoded_at: string | null;
}

/** The `address` of a POI geocoded to `a` at `geocodedAt` (the places' rows are named by the address's parts). */
export function addressResource(a: Address, places: PlaceIds, geocodedAt: Date): AddressResource {
  const s = storedAddress(a, places);
  return {
    display_name: s.displayName,
    street: s.street,
    city: s.cityId === null || a.city === null ? null : { id: s.cityId, name: a.city },
    country: s.countryId === null || a.country === null ? null : { id: s.countryId, name: a.country },
    zipcode: s.zipcodeId === null || a.zipcode === null ? null : { id: s.zipcodeId, code: a.zipcode },
    // The API's timestamps: microseconds, of which the clock gives milliseconds.
    geocoded_at: geocodedAt.toISOString().replace('Z', '000Z'),
  };
}

/** Forward geocoding or autocomplete in a compute thread (pool task `geoSearch`). */
export const searchMap = (query: SearchQuery): Promise<SearchHit[]> => runTask<SearchHit[]>('geoSearch', { mapDir: activeMapDir(), query });

/** Many searches (an import's batch), answers in their order: one pool task (`geoSearchMany`) per
 *  thread, each a share of them, so that a batch takes every thread and not one. */
export async function searchMapMany(queries: SearchQuery[]): Promise<SearchHit[][]> {
  const mapDir = activeMapDir();
  const share = Math.ceil(queries.length / Math.max(1, poolSize()));
  const parts: Promise<SearchHit[][]>[] = [];
  for (let i = 0; i < queries.length; i += share) parts.push(runTask<SearchHit[][]>('geoSearchMany', { mapDir, queries: queries.slice(i, i + share) }));
  return (await Promise.all(parts)).flat();
}
