import { describe, expect, it } from 'vitest';
import { BatchLoader } from '../../src/db/batch-loader.js';

const loaderWith = (calls: string[][], fail = false, maxBatch?: number) =>
  new BatchLoader<string, string>(
    async (keys) => {
      calls.push(keys);
      if (fail) throw new Error('database down');
      return new Map(keys.filter((k) => !k.startsWith('missing')).map((k) => [k, k.toUpperCase()]));
    },
    (k) => k,
    maxBatch,
  );

describe('BatchLoader', () => {
  it('answers the loads of one turn with one call, each with its own value', async () => {
    const calls: string[][] = [];
    const loader = loaderWith(calls);
    const values = await Promise.all([loader.load('a'), loader.load('b'), loader.load('missing'), loader.load('a')]);
    expect(values).toEqual(['A', 'B', undefined, 'A']);
    expect(calls).toEqual([['a', 'b', 'missing', 'a']]);
  });

  it('starts a new batch in the next turn', async () => {
    const calls: string[][] = [];
    const loader = loaderWith(calls);
    expect(await loader.load('a')).toBe('A');
    expect(await loader.load('b')).toBe('B');
    expect(calls).toEqual([['a'], ['b']]);
  });

  it('splits at the batch size', async () => {
    const calls: string[][] = [];
    const loader = loaderWith(calls, false, 2);
    expect(await Promise.all(['a', 'b', 'c'].map((k) => loader.load(k)))).toEqual(['A', 'B', 'C']);
    expect(calls).toEqual([['a', 'b'], ['c']]);
  });

  it('rejects every load of a failed batch', async () => {
    const loader = loaderWith([], true);
    const results = await Promise.allSettled([loader.load('a'), loader.load('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('database down');
  });
});
