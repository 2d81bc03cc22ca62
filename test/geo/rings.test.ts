import { describe, expect, it } from 'vitest';
import { AreaIndex, flattenAreas, SCALE, type DegreeRings } from '../../src/map/geocoder/areas.js';
import { interiorPoint, ringsContain } from '../../src/map/geocoder/geometry.js';
import { assembleRings, closedRings } from '../../src/lib/geo/rings.js';

const square = (lat: number, lon: number, size: number): [number, number][] => [
  [lat, lon],
  [lat, lon + size],
  [lat + size, lon + size],
  [lat + size, lon],
  [lat, lon],
];
const contains = (index: AreaIndex, lat: number, lon: number) => index.containing(lat * SCALE, lon * SCALE);

describe('assembleRings', () => {
  it('joins unordered and reversed ways into one closed ring', () => {
    // Ring 1-2-3-4-5-6-1 split into three ways, the middle one reversed, listed out of order.
    const { rings, complete } = assembleRings([
      { role: 'outer', refs: [5, 6, 1] },
      { role: 'outer', refs: [1, 2, 3] },
      { role: 'outer', refs: [5, 4, 3] },
    ]);
    expect(complete).toBe(true);
    expect(rings).toHaveLength(1);
    const ring = rings[0];
    expect(ring[0]).toBe(ring[ring.length - 1]);
    expect(ring).toHaveLength(7);
    expect(new Set(ring)).toEqual(new Set([1, 2, 3, 4, 5, 6]));
    // Consecutive ids stay neighbours: the reversed way was flipped, not appended backwards.
    for (let i = 0; i + 1 < ring.length; i++) expect([1, 5]).toContain(Math.abs(ring[i] - ring[i + 1]));
  });

  it('keeps outer and inner rings, closed ways as they are', () => {
    const { rings, complete } = assembleRings([
      { role: 'inner', refs: [10, 11, 12] },
      { role: 'outer', refs: [1, 2, 3, 4, 1] },
      { role: 'inner', refs: [12, 13, 10] },
    ]);
    expect(complete).toBe(true);
    expect(rings).toHaveLength(2);
    expect(rings[0]).toEqual([1, 2, 3, 4, 1]);
    expect(new Set(rings[1])).toEqual(new Set([10, 11, 12, 13]));
  });

  it('joins a cut boundary into one chain even when the first way listed is at its end', () => {
    // The stub 3-9 is listed first and continues only at node 3: the chain must grow backwards too.
    const { chains, rings, complete } = assembleRings([
      { role: 'outer', refs: [3, 9] },
      { role: 'outer', refs: [1, 2, 3] },
      { role: 'outer', refs: [0, 1] },
    ]);
    expect(complete).toBe(false);
    expect(rings).toHaveLength(0);
    expect(chains).toEqual([[9, 3, 2, 1, 0]]);
  });

  it('reports a relation cut by the extract as incomplete', () => {
    expect(
      assembleRings([
        { role: 'outer', refs: [1, 2, 3] },
        { role: 'outer', refs: null },
      ]).complete,
    ).toBe(false);
    expect(
      assembleRings([
        { role: 'outer', refs: [1, 2, 3] },
        { role: 'outer', refs: [3, 4, 5] },
      ]).complete,
    ).toBe(false);
    expect(assembleRings([]).complete).toBe(false);
  });
});

describe("closedRings (the base map's areas)", () => {
  it('joins multipolygon member ways into closed rings, in either direction', () => {
    expect(
      closedRings([
        [1, 2, 3],
        [5, 4, 3],
        [5, 6, 1],
      ]),
    ).toEqual([[1, 2, 3, 4, 5, 6, 1]]);
    expect(
      closedRings([
        [1, 2, 3, 1],
        [7, 8],
      ]),
    ).toEqual([[1, 2, 3, 1]]);
  });
});

describe('AreaIndex', () => {
  // Area 0: a 1° square with a 0.2° hole; area 1: two separate squares (a multipolygon).
  const holed: DegreeRings = [square(10, 10, 1), square(10.4, 10.4, 0.2).reverse()];
  const parts: DegreeRings = [square(20, 20, 0.5), square(20, 22, 0.5)];
  const index = new AreaIndex(flattenAreas([holed, parts]));

  it('treats inner rings as holes', () => {
    expect(contains(index, 10.2, 10.2)).toEqual([0]);
    expect(contains(index, 10.5, 10.5)).toEqual([]);
    expect(contains(index, 10.5, 10.65)).toEqual([0]);
  });

  it('finds every part of a multipolygon and nothing between them', () => {
    expect(contains(index, 20.25, 20.25)).toEqual([1]);
    expect(contains(index, 20.25, 22.25)).toEqual([1]);
    expect(contains(index, 20.25, 21.25)).toEqual([]);
    expect(contains(index, 0, 0)).toEqual([]);
  });

  it('agrees with a plain even-odd test on a ring with many vertices', () => {
    // A star with 400 spikes exercises the banded edge lookup.
    const star: [number, number][] = [];
    for (let i = 0; i <= 800; i++) {
      const angle = (i / 800) * 2 * Math.PI;
      const r = i % 2 === 0 ? 1 : 0.6;
      star.push([r * Math.sin(angle), r * Math.cos(angle)]);
    }
    star[800] = star[0];
    const starIndex = new AreaIndex(flattenAreas([[star]]));
    let inside = 0;
    for (let k = 0; k < 2000; k++) {
      const lat = Math.sin(k * 12.9898) * 1.1;
      const lon = Math.sin(k * 78.233) * 1.1;
      const expected = ringsContain([star], Math.round(lat * SCALE) / SCALE, Math.round(lon * SCALE) / SCALE);
      expect(starIndex.containing(Math.round(lat * SCALE), Math.round(lon * SCALE)).length === 1).toBe(expected);
      if (expected) inside++;
    }
    expect(inside).toBeGreaterThan(200);
  });
});

describe('interiorPoint', () => {
  it('lies inside the area, not in its hole or between its parts', () => {
    const holed: DegreeRings = [square(0, 0, 1), square(0.1, 0.1, 0.8)];
    const p = interiorPoint(holed)!;
    expect(ringsContain(holed, p[0], p[1])).toBe(true);
    const parts: DegreeRings = [square(0, 0, 0.1), square(5, 5, 1)];
    const q = interiorPoint(parts)!;
    expect(ringsContain(parts, q[0], q[1])).toBe(true);
  });
});
