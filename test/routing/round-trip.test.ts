// Round trips (issue 36) that keep off the road already taken, on Liechtenstein with real kernels: the same
// loops (places from src/api/routes/round-trip.ts) routed leg by leg as plain routes and as round trips; the
// round trips run over fewer meters of road twice (away from the start, where every loop leaves and comes
// home by its own street) and never more (foot, 4 km asked: 25.9 km twice plainly over 8 loops, 24.4 km
// as round trips; car, 12 km: 60.7 and 49.5 km).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../src/compute/pool.js';
import { loadMap, route, type ProfileName, type RouteResult } from '../../src/engine/engine.js';
import { roundTripPlaces } from '../../src/api/routes/round-trip.js';
import { greatCircleMeters } from '../../src/lib/geo/sphere.js';
import { testMap } from './helpers.js';

beforeAll(async () => {
  await loadMap((await testMap()).dir);
});
afterAll(closePool);

const VADUZ = { lat: 47.1393, lon: 9.5215 };

/** Meters of the line's segments (either way round, 1e-7° ends) run over more than once, but those within `home` m of the start. */
function twice(r: RouteResult, home: number): number {
  const seen = new Map<string, number>();
  let meters = 0;
  const e7 = (x: number) => Math.round(x * 1e7);
  for (let i = 0; i + 3 < r.geometry.length; i += 2) {
    const [lon1, lat1, lon2, lat2] = [r.geometry[i], r.geometry[i + 1], r.geometry[i + 2], r.geometry[i + 3]];
    if (greatCircleMeters(VADUZ.lat, VADUZ.lon, lat1, lon1) < home || greatCircleMeters(VADUZ.lat, VADUZ.lon, lat2, lon2) < home) continue;
    const a = `${e7(lon1)},${e7(lat1)}`,
      b = `${e7(lon2)},${e7(lat2)}`;
    if (a === b) continue;
    const key = a < b ? `${a} ${b}` : `${b} ${a}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n === 2) meters += 2 * greatCircleMeters(lat1, lon1, lat2, lon2);
    else if (n > 2) meters += greatCircleMeters(lat1, lon1, lat2, lon2);
  }
  return meters;
}

describe('round trips keep off the road already taken', () => {
  it.each([
    ['foot-walking', 4000],
    ['driving-car', 12000],
  ] as Array<[ProfileName, number]>)('%s, %i m loops from Vaduz: fewer meters run twice than the same places routed plainly', async (profile, length) => {
    let plainTwice = 0,
      loopTwice = 0,
      better = 0;
    for (let seed = 0; seed < 8; seed++) {
      const places = roundTripPlaces(VADUZ, length, 3, seed);
      const waypoints = [VADUZ, ...places, VADUZ];
      const waypointOptions = [null, ...places.map(() => ({ radius: Infinity })), null];
      const plain = await route({ profile, waypoints, waypointOptions });
      const loop = await route({ profile, waypoints, waypointOptions, roundTrip: true });
      expect(loop.legs).toHaveLength(waypoints.length - 1);
      expect(loop.snapped).toEqual(plain.snapped);
      const [p, l] = [twice(plain, 300), twice(loop, 300)];
      // Never more road twice (a way taken again weighs 5 times its time: a leg keeps off it only for less).
      expect(l).toBeLessThanOrEqual(p + 1);
      if (l < p - 100) better++;
      plainTwice += p;
      loopTwice += l;
    }
    console.log(`${profile}: ${Math.round(plainTwice)} m run twice plainly, ${Math.round(loopTwice)} m as round trips`);
    // Most of what is left is a place at a dead end: in and out by the same way, whatever the weights.
    expect(better).toBeGreaterThanOrEqual(2);
    expect(loopTwice).toBeLessThan(plainTwice);
  });
});
