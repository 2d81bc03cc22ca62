// A part of shared memory built once by whichever thread gets to it first (lib/built-once.ts). Two pool
// threads building the geocoder's trees at once are checked in test/geo/liechtenstein.test.ts.
import { describe, expect, it } from 'vitest';
import { buildStates, claimBuild, whenBuilt } from '../../src/lib/built-once.js';

describe('a part built once (lib/built-once.ts)', () => {
  it('is built by the first claim only, and a build that failed is left to the next', () => {
    const state = buildStates(2);
    const built: string[] = [];
    expect(() =>
      claimBuild(state, 0, () => {
        throw new Error('out of memory');
      }),
    ).toThrow('out of memory');
    // Unbuilt again: the next claim builds it, and no claim after.
    expect(claimBuild(state, 0, () => built.push('0 by a claim'))).toBe(true);
    expect(claimBuild(state, 0, () => built.push('0 again'))).toBe(false);
    whenBuilt(state, 0, () => built.push('0 waited for'));
    // A part nobody claimed is built by the thread that needs it.
    whenBuilt(state, 1, () => built.push('1 when needed'));
    whenBuilt(state, 1, () => built.push('1 again'));
    expect(built).toEqual(['0 by a claim', '1 when needed']);
  });
});
