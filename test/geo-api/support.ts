// Shared by the geolocation API tests: the Liechtenstein map (built once, cached by the extract's hash
// under data/test-maps), points at known addresses, and waiting for background geocoding.
import { join } from 'node:path';
import { expect } from 'vitest';
import { DEFAULT_EXTRACT, ensureMap } from '../../src/map/build.js';
import { projectRoot } from '../../src/lib/paths.js';
import { api } from '../support/app.js';

export const testMapDir = (): Promise<string> => ensureMap(join(projectRoot, 'data', 'test-maps'), DEFAULT_EXTRACT);

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A few meters off features of the extract carrying these addr:* tags (see test/geo/liechtenstein.test.ts),
 *  and points where only the country is known. */
export const PLACES = {
  vaduz: { latitude: 47.1365893, longitude: 9.5177419, street: 'Kirchstrasse 41', zipcode: '9490', city: 'Vaduz' },
  vaduzStaedtle: { latitude: 47.1392862, longitude: 9.5227962, street: 'Städtle 35', zipcode: '9490', city: 'Vaduz' },
  schaanPost: { latitude: 47.1676112, longitude: 9.5083971, street: 'Postplatz 2', zipcode: '9494', city: 'Schaan' },
  schaanDuxweg: { latitude: 47.1624721, longitude: 9.5163812, street: 'Duxweg 1', zipcode: '9494', city: 'Schaan' },
  triesenberg: { latitude: 47.1126299, longitude: 9.5711903, street: 'Sückastrasse 19', zipcode: '9497', city: 'Triesenberg' },
  balzers: { latitude: 47.0671067, longitude: 9.5002584, street: 'Fabrikstrasse', zipcode: '9496', city: 'Balzers' },
  eschen: { latitude: 47.2126274, longitude: 9.5233202, street: 'Sankt Martins-Ring 2', zipcode: '9492', city: 'Eschen' },
  /** Buchs SG, across the Rhine: Switzerland from the country fallback, nothing else. */
  buchs: { latitude: 47.168, longitude: 9.478 },
  /** "Am Schellenberg 17, 6800 Feldkirch": Austria, with an Austrian postcode. */
  feldkirch: { latitude: 47.22711, longitude: 9.55505 },
} as const;

export const at = (place: { latitude: number; longitude: number }) => ({ latitude: place.latitude, longitude: place.longitude });

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}

/** The POI once the background job has geocoded it. The bound is liveness, not speed: in a full suite on
 *  2 cores the job's task can wait behind other files' compute tasks (one wait ran past 15 s there). */
export function geocoded(app: { url: string }, key: string, id: string): Promise<any> {
  return waitFor(
    async () => {
      const res = await api(app, 'GET', `/v1/pois/${id}`, { key });
      expect(res.status).toBe(200);
      return res.body.data.address.geocoded_at ? res.body.data : undefined;
    },
    `POI ${id} to be geocoded`,
    45_000,
  );
}
