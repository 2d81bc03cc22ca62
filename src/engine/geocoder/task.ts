// Pool tasks for geocoding: each compute thread builds its reverse geocoder and search index once, over the
// geocoder files the engine read into shared memory for the thread's pool generation (workerData.geocoder,
// map/map-dir.ts): no thread reads or copies the index itself.
import { workerData } from 'piscina';
import type { GeocoderFiles } from '../../map/map-dir.js';
import { geocoderFromFiles, type Address, type Geocoder } from './reverse.js';
import { searchIndexFromFiles, type SearchHit, type SearchIndex, type SearchQuery } from './search.js';

let geocoder: Geocoder | undefined;
let searchIndex: SearchIndex | undefined;

/** This thread's map's geocoder files; `mapDir` (the map the caller was pinned to) names it in the error. */
function files(mapDir: string): GeocoderFiles {
  const shared = (workerData as { geocoder?: GeocoderFiles } | undefined)?.geocoder;
  if (!shared) throw new Error(`the map in ${mapDir} has no geocoder index in this compute thread`);
  return shared;
}

const reverse = (mapDir: string): Geocoder => (geocoder ??= geocoderFromFiles(files(mapDir)));
const search = (mapDir: string): SearchIndex => (searchIndex ??= searchIndexFromFiles(files(mapDir)));

/** Worker task `geocode`: reverse-geocodes a batch of points against this thread's map (`mapDir`). */
export const geocodeTask = (input: { mapDir: string; points: Array<{ lat: number; lon: number }> }): Address[] =>
  input.points.map((p) => reverse(input.mapDir).reverseGeocode(p.lat, p.lon));

/** Worker task `geoSearch`: forward geocoding or autocomplete against this thread's map. */
export const geoSearchTask = (input: { mapDir: string; query: SearchQuery }): SearchHit[] => search(input.mapDir).search(input.query);

/** Worker task `geoSearchMany`: a batch of searches (an import's rows), one task for all. */
export const geoSearchManyTask = (input: { mapDir: string; queries: SearchQuery[] }): SearchHit[][] => input.queries.map((q) => search(input.mapDir).search(q));

/** The reverse geocoder and the search index of this thread's map built and each lookup run once (a
 *  reverse lookup per sample point, a search and an autocomplete for the first street found), so that no
 *  request pays the building. Returns the lookups made. */
export function warmGeocoder(mapDir: string, samples: ReadonlyArray<{ lat: number; lon: number }>): { geocode: number; search: number } {
  const addresses = geocodeTask({ mapDir, points: [...samples] });
  const street = addresses.find((a) => a.street)?.street ?? addresses.find((a) => a.city)?.city ?? 'a';
  geoSearchTask({ mapDir, query: { text: street, limit: 5 } });
  geoSearchTask({ mapDir, query: { text: street.slice(0, 3), prefix: true, limit: 5 } });
  return { geocode: samples.length, search: 2 };
}
