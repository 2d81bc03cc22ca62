import { afterAll, describe, expect, it } from 'vitest';
import { closePool, computePool, runTask } from '../src/compute/pool.js';

afterAll(closePool);

describe('compute pool', () => {
  it('runs a WASM kernel in a Piscina worker (k-means: two towns, two clusters)', async () => {
    const points = [
      { lat: 47.141, lon: 9.5209 },
      { lat: 47.1415, lon: 9.5215 },
      { lat: 47.1651, lon: 9.5096 },
      { lat: 47.1655, lon: 9.509 },
    ];
    const result = await runTask<{ assignment: Int32Array; clusters: { members: number[] }[] }>('clusters', { points, options: { clusters: 2 } });
    expect(result.clusters.map((c) => c.members)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(Array.from(result.assignment)).toEqual([0, 0, 1, 1]);
  });

  it('survives a worker failing outside a task (Piscina reports it as an error event)', () => {
    expect(() => computePool().emit('error', new Error('worker died while idle'))).not.toThrow();
  });
});
