import { afterAll, describe, expect, it } from 'vitest';
import { closePool, computePool, runTask } from '../src/compute/pool.js';

afterAll(closePool);

describe('compute pool', () => {
  it('runs the geodesy WASM kernel in a Piscina worker', async () => {
    // Vaduz → Schaan is about 3.9 km; a point to itself is 0.
    const d = await runTask<number[]>('distances', { from: [47.1410, 9.5209], points: [[47.1410, 9.5209], [47.1651, 9.5096], [0, 0]] });
    expect(d[0]).toBe(0);
    expect(d[1]).toBeGreaterThan(2_700);
    expect(d[1]).toBeLessThan(2_900);
    expect(d[2]).toBeGreaterThan(5_000_000);
  });

  it('survives a worker failing outside a task (Piscina reports it as an error event)', () => {
    expect(() => computePool().emit('error', new Error('worker died while idle'))).not.toThrow();
  });
});
