// A geocoder built from one of the shared OSM extracts into a temporary map directory, for tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { buildGeocoderIndex } from '../../src/map/geocoder/index-build.js';
import { loadGeocoder, type Geocoder } from '../../src/engine/geocoder/reverse.js';
import { loadOsm } from '../../src/map/osm/osm-data.js';
import { projectRoot } from '../../src/lib/paths.js';

/** Builds the geocoder of `../shared/data/osm/<name>.osm.pbf`; `dispose` removes its directory. */
export async function extractGeocoder(name: string): Promise<{ geocoder: Geocoder; dispose: () => Promise<void> }> {
  const osm = await loadOsm(join(projectRoot, '..', 'shared', 'data', 'osm', `${name}.osm.pbf`));
  const dir = await mkdtemp(join(tmpdir(), `waymark-geo-${name}-`));
  await buildGeocoderIndex(osm, dir);
  return { geocoder: await loadGeocoder(dir), dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The geocoder of an extract for the test file that calls this: built before its tests, removed after. */
export function useExtractGeocoder(name: string): { readonly geocoder: Geocoder } {
  const holder = {} as { geocoder: Geocoder };
  let dispose = async (): Promise<void> => {};
  beforeAll(async () => {
    ({ geocoder: holder.geocoder, dispose } = await extractGeocoder(name));
  });
  afterAll(() => dispose());
  return holder;
}
