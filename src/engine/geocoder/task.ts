// Pool tasks for geocoding: each compute thread makes its reverse geocoder and search index once, over the
// geocoder files the engine read into shared memory for the thread's pool generation (workerData.geocoder,
// map/map-dir.ts), and the spatial trees the generation's threads build once between them
// (workerData.geocoderTrees, trees.ts): no thread reads or copies the index itself.
import { workerData } from 'piscina';
import type { GeocoderIndexData } from '../../map/geocoder/index-format.js';
import type { GeocoderFiles } from '../../map/map-dir.js';
import { Geocoder, geocoderData, type Address } from './reverse.js';
import { searchIndexFromFiles, type SearchHit, type SearchIndex, type SearchQuery } from './search.js';
import { sharedTrees, treeBuilds, treeRoom, type TreeRoom } from './trees.js';

let shared: { files: GeocoderFiles; trees: TreeRoom; data: GeocoderIndexData } | undefined;
let geocoder: Geocoder | undefined;
let searchIndex: SearchIndex | undefined;

/** What a generation of compute threads is given of a map's geocoder (`undefined`: the map has none):
 *  its files, and room for the trees its threads build (trees.ts). */
export const geocoderWorkerData = (files: GeocoderFiles | undefined): { geocoder?: GeocoderFiles; geocoderTrees?: TreeRoom } => ({
  geocoder: files,
  geocoderTrees: files && treeRoom(geocoderData(files).arrays),
});

/** This thread's map's geocoder files, their index and its trees' room, read once; `mapDir` (the map the
 *  caller was pinned to) names it in the error. */
function mapIndex(mapDir: string): { files: GeocoderFiles; trees: TreeRoom; data: GeocoderIndexData } {
  if (!shared) {
    const given = workerData as { geocoder?: GeocoderFiles; geocoderTrees?: TreeRoom } | undefined;
    if (!given?.geocoder || !given.geocoderTrees) throw new Error(`the map in ${mapDir} has no geocoder index in this compute thread`);
    shared = { files: given.geocoder, trees: given.geocoderTrees, data: geocoderData(given.geocoder) };
  }
  return shared;
}

function reverse(mapDir: string): Geocoder {
  if (!geocoder) {
    const { data, trees } = mapIndex(mapDir);
    geocoder = new Geocoder(data, sharedTrees(trees, data.arrays));
  }
  return geocoder;
}
const search = (mapDir: string): SearchIndex => (searchIndex ??= searchIndexFromFiles(mapIndex(mapDir).files));

/** Worker task `geocode`: reverse-geocodes a batch of points against this thread's map (`mapDir`). */
export const geocodeTask = (input: { mapDir: string; points: Array<{ lat: number; lon: number }> }): Address[] =>
  input.points.map((p) => reverse(input.mapDir).reverseGeocode(p.lat, p.lon));

/** Worker task `geoSearch`: forward geocoding or autocomplete against this thread's map. */
export const geoSearchTask = (input: { mapDir: string; query: SearchQuery }): SearchHit[] => search(input.mapDir).search(input.query);

/** Worker task `geoSearchMany`: a batch of searches (an import's rows), one task for all. */
export const geoSearchManyTask = (input: { mapDir: string; queries: SearchQuery[] }): SearchHit[][] => input.queries.map((q) => search(input.mapDir).search(q));

/** The building of this thread's map's spatial trees, one task per tree, for the warm-up's threads to take
 *  in turn while the others warm their routes (each thread built them all for itself before: 32x32, 2.3 s). */
export function geocoderBuilds(mapDir: string): Array<() => boolean> {
  const { trees, data } = mapIndex(mapDir);
  return treeBuilds(trees, data.arrays);
}

/** The reverse geocoder and the search index of this thread's map made and each lookup run once (a
 *  reverse lookup per sample point, a search and an autocomplete for the first street found), so that no
 *  request pays the building. Returns the lookups made. */
export function warmGeocoder(mapDir: string, samples: ReadonlyArray<{ lat: number; lon: number }>): { geocode: number; search: number } {
  const addresses = geocodeTask({ mapDir, points: [...samples] });
  const street = addresses.find((a) => a.street)?.street ?? addresses.find((a) => a.city)?.city ?? 'a';
  geoSearchTask({ mapDir, query: { text: street, limit: 5 } });
  geoSearchTask({ mapDir, query: { text: street.slice(0, 3), prefix: true, limit: 5 } });
  return { geocode: samples.length, search: 2 };
}
