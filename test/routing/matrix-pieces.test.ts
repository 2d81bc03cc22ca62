// A batch-size matrix (more than 2,048 points: over 4,096 target seeds) computed in pieces and packed
// equals the nested matrix of the same points entry for entry, on the real car graph.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../src/compute/pool.js';
import { loadMap, matrix, matrixInPieces } from '../../src/engine/engine.js';
import { travelOf } from '../../src/api/optimize/problem.js';
import { rng, testMap } from './helpers.js';
import type { LatLon } from '../../src/lib/lat-lon.js';

let points: LatLon[];

beforeAll(async () => {
  const map = await testMap();
  await loadMap(map.dir, ['driving-car']);
  const g = map.graphs['driving-car'];
  const random = rng(11);
  points = Array.from({ length: 2_100 }, () => {
    let v = Math.floor(random() * g.nodeCount);
    // A node no edge of the profile touches has no position (nodePositionsE7 leaves it at 0, 0).
    while (g.nodeE7[2 * v] === 0 && g.nodeE7[2 * v + 1] === 0) v = Math.floor(random() * g.nodeCount);
    // A little off the node, so points snap onto edges (two seeds each) as real stops do.
    return { lat: g.nodeCoords[2 * v] + 0.0001, lon: g.nodeCoords[2 * v + 1] + 0.0001 };
  });
});
afterAll(closePool);

describe('matrixInPieces', () => {
  it('answers 2,100 × 2,100 in packed pieces, equal to the nested matrix of the same points', async () => {
    const percents: number[] = [];
    const m = await matrixInPieces({ profile: 'driving-car', points }, (p) => {
      percents.push(p);
    });
    expect(percents).toEqual([10, 19, 29, 38, 48, 57, 67, 76, 86, 95, 100]);
    expect(m.packed!.durations.length).toBe(points.length ** 2);
    const packed = travelOf(m);
    // The nested matrix of a sample of the same points (the engine snaps each point the same way).
    const random = rng(5);
    const sample = Array.from({ length: 40 }, () => Math.floor(random() * points.length));
    const nested = travelOf(await matrix({ profile: 'driving-car', points: sample.map((i) => points[i]) }));
    let reachable = 0;
    sample.forEach((a, i) =>
      sample.forEach((b, j) => {
        expect(packed.duration(a, b), `duration ${a} → ${b}`).toBe(nested.duration(i, j));
        expect(packed.distance(a, b), `distance ${a} → ${b}`).toBe(nested.distance(i, j));
        if (nested.duration(i, j) !== null) reachable++;
      }),
    );
    expect(reachable).toBeGreaterThan(1000);
  });
});
