import { loadSearchIndex, type SearchHit, type SearchIndex, type SearchQuery } from './search.js';
import { loadGeocoder, type Address, type Geocoder } from './reverse.js';

// One geocoder per map directory per worker: map directories are versioned, so a path never changes content.
const geocoders = new Map<string, Promise<Geocoder>>();

/** Worker task `geocode`: reverse-geocodes a batch of points against the map in `mapDir`. */
export async function geocodeTask(input: { mapDir: string; points: Array<{ lat: number; lon: number }> }): Promise<Address[]> {
  let geocoder = geocoders.get(input.mapDir);
  if (!geocoder) {
    geocoder = loadGeocoder(input.mapDir);
    geocoders.set(input.mapDir, geocoder);
    // Forgotten so the next batch tries again; the failure itself reaches the caller through the await below.
    geocoder.catch(() => geocoders.delete(input.mapDir));
  }
  const g = await geocoder;
  return input.points.map((p) => g.reverseGeocode(p.lat, p.lon));
}

// The search index per map directory per thread: one read of search.bin, views over it.
const searchIndexes = new Map<string, SearchIndex>();

function searchIndex(mapDir: string): SearchIndex {
  let index = searchIndexes.get(mapDir);
  if (!index) {
    index = loadSearchIndex(mapDir);
    searchIndexes.set(mapDir, index);
  }
  return index;
}

/** Worker task `geoSearch`: forward geocoding or autocomplete against the map in `mapDir`. */
export const geoSearchTask = (input: { mapDir: string; query: SearchQuery }): SearchHit[] => searchIndex(input.mapDir).search(input.query);

/** Worker task `geoSearchMany`: a batch of searches (an import's rows), one task for all. */
export const geoSearchManyTask = (input: { mapDir: string; queries: SearchQuery[] }): SearchHit[][] =>
  input.queries.map((q) => searchIndex(input.mapDir).search(q));

/** The reverse geocoder and the search index of `mapDir` loaded in this thread and each lookup run once
 *  (a reverse lookup per sample point, a search and an autocomplete for the first street found), so that
 *  no request pays the loading. Returns the lookups made. */
export async function warmGeocoder(mapDir: string, samples: ReadonlyArray<{ lat: number; lon: number }>): Promise<{ geocode: number; search: number }> {
  const addresses = await geocodeTask({ mapDir, points: [...samples] });
  const street = addresses.find((a) => a.street)?.street ?? addresses.find((a) => a.city)?.city ?? 'a';
  geoSearchTask({ mapDir, query: { text: street, limit: 5 } });
  geoSearchTask({ mapDir, query: { text: street.slice(0, 3), prefix: true, limit: 5 } });
  return { geocode: samples.length, search: 2 };
}
