import { describe, expect, it } from 'vitest';
import { greatCircleMeters } from '../../src/lib/geo/sphere.js';
import { TeamPositions, type Near } from '../../src/api/pois/team-positions.js';

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Points around (lat, lon) within `spread` degrees, ids in ascending order. */
function team(n: number, lat: number, lon: number, spread: number, seed = 1) {
  const rnd = random(seed);
  const ids = Array.from({ length: n }, (_, i) => `01J${String(i).padStart(23, '0')}`);
  const lats = new Float64Array(n);
  const lons = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lats[i] = Math.max(-90, Math.min(90, lat + (rnd() - 0.5) * 2 * spread));
    lons[i] = ((lon + (rnd() - 0.5) * 2 * spread + 540) % 360) - 180;
  }
  return { positions: new TeamPositions(ids, lats, lons), ids, lats, lons };
}

const ids = (page: Array<{ id: string }> | undefined) => page!.map((p) => p.id);

/** What the SQL list selects: every POI within the distance, after the cursor, in id order. */
function bruteForce(t: ReturnType<typeof team>, near: Near, cursor: string | null, take: number): string[] {
  return t.ids
    .filter((id, i) => (cursor === null || id > cursor) && greatCircleMeters(near.latitude, near.longitude, t.lats[i], t.lons[i]) <= near.distance)
    .slice(0, take);
}

describe('TeamPositions.within', () => {
  it.each([
    ['a 500 m circle in a dense team', 20_000, 47.15, 9.55, 0.1, { latitude: 47.15, longitude: 9.55, distance: 500 }],
    ['a 100 km circle holding most of the team (walked in id order)', 20_000, 47.15, 9.55, 0.5, { latitude: 47.1, longitude: 9.5, distance: 100_000 }],
    ['a circle across the antimeridian', 5_000, 0, 179.99, 0.05, { latitude: 0, longitude: -179.995, distance: 3_000 }],
    ['a circle around the north pole', 5_000, 89.99, 0, 0.05, { latitude: 89.999, longitude: 120, distance: 5_000 }],
    ['a circle with no POIs', 2_000, 10, 10, 0.01, { latitude: -10, longitude: -10, distance: 1_000 }],
  ])('selects like the SQL filter: %s', (_, n, lat, lon, spread, near) => {
    const t = team(n, lat, lon, spread);
    const all = bruteForce(t, near, null, Infinity);
    expect(ids(t.positions.within(near, null, 16))).toEqual(all.slice(0, 16));
    // Every page after a cursor, to the end.
    let cursor: string | null = null;
    const walked: string[] = [];
    for (;;) {
      const page = ids(t.positions.within(near, cursor, 101));
      expect(page).toEqual(bruteForce(t, near, cursor, 101));
      walked.push(...page.slice(0, 100));
      if (page.length <= 100) break;
      cursor = page[99];
    }
    expect(walked).toEqual(all);
  });

  it('takes a cursor that is not one of the ids', () => {
    const t = team(1_000, 47.15, 9.55, 0.01);
    const near = { latitude: 47.15, longitude: 9.55, distance: 2_000 };
    expect(ids(t.positions.within(near, '01J00000000000000000000499Z', 10))).toEqual(bruteForce(t, near, '01J00000000000000000000499Z', 10));
    expect(ids(t.positions.within(near, 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ', 10))).toEqual([]);
  });

  it('answers for a team without POIs', () => {
    const empty = new TeamPositions([], new Float64Array(0), new Float64Array(0));
    expect(empty.size).toBe(0);
    expect(ids(empty.within({ latitude: 0, longitude: 0, distance: 100_000 }, null, 16))).toEqual([]);
  });

  // Cases a differential run against PostgreSQL found: V8's and glibc's sines differ in the last bit.
  it('leaves a POI on the edge of the circle to SQL', () => {
    // great_circle_m in PostgreSQL gives 1853.0000000000002 (outside), JavaScript exactly 1853.
    const p = new TeamPositions(['A1'], new Float64Array([47.142256923038055]), new Float64Array([9.478617966491196]));
    expect(p.within({ latitude: 47.14218153160597, longitude: 9.503117678089197, distance: 1853 }, null, 16)).toBeUndefined();
    expect(ids(p.within({ latitude: 47.14218153160597, longitude: 9.503117678089197, distance: 1854 }, null, 16))).toEqual(['A1']);
    expect(p.within({ latitude: 47.14218153160597, longitude: 9.503117678089197, distance: 1852 }, null, 16)).toEqual([]);
  });

  it('leaves a distance a hair from half a centimetre to SQL', () => {
    // PostgreSQL prints 1541.91, JavaScript's value rounds to 1541.9.
    const p = new TeamPositions(['A1'], new Float64Array([47.13552126933954]), new Float64Array([9.492855172330858]));
    expect(p.within({ latitude: 47.132435466003805, longitude: 9.512727625806841, distance: 1543 }, null, 16)).toBeUndefined();
  });

  it('keeps POIs that share one position', () => {
    const ids = ['A1', 'A2', 'A3'];
    const p = new TeamPositions(ids, new Float64Array([1, 1, 1]), new Float64Array([2, 2, 2]));
    expect(p.within({ latitude: 1, longitude: 2, distance: 1 }, 'A1', 16)).toEqual([
      { id: 'A2', meters: 0 },
      { id: 'A3', meters: 0 },
    ]);
  });
});
