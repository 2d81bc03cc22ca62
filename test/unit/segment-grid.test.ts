import { describe, expect, it } from 'vitest';
import {
  buildSegmentGrid,
  gridSearched,
  geometryOfPoint,
  nearestSegment,
  RUN,
  segmentDistance,
  segmentsNearCircle,
  type GridView,
} from '../../src/map/graphs/segment-grid.js';
import { rng } from '../routing/helpers.js';
import type { Shapes } from '../../src/map/graphs/road-graph.js';

/** Random walks of 2–40 points (a few ways) near 47.1 N 9.5 E; every other geometry's segments are in use. */
function randomView(seed: number): { view: GridView; used: Uint8Array } {
  const rand = rng(seed);
  const points: number[] = [];
  const geomFirst: number[] = [];
  const geomLast: number[] = [];
  for (let g = 0; g < 300; g++) {
    let lat = 47.1 + rand() * 0.05,
      lon = 9.5 + rand() * 0.05;
    geomFirst.push(points.length / 2);
    const n = 2 + Math.floor(rand() * 39);
    for (let i = 0; i < n; i++) {
      // Steps of up to ~150 m: a way crosses several 250 m cells, with runs of segments in each.
      lat += (rand() - 0.5) * 0.0027;
      lon += (rand() - 0.5) * 0.004;
      points.push(Math.round(lat * 1e7), Math.round(lon * 1e7));
    }
    geomLast.push(points.length / 2 - 1);
  }
  const pointsE7 = Int32Array.from(points);
  const used = new Uint8Array(Math.ceil(pointsE7.length / 16) + 1);
  geomFirst.forEach((f, g) => {
    if (g % 2 === 0) for (let p = f; p < geomLast[g]; p++) used[p >> 3] |= 1 << (p & 7);
  });
  const { params, first, items } = buildSegmentGrid(used, pointsE7);
  const view: GridView = {
    // Only the grid's part of the shapes: what nearestSegment reads.
    shapes: { pointsE7, grid: params, gridFirst: first, gridItems: items } as Shapes,
    geomFirst: Uint32Array.from(geomFirst),
    geomLast: Uint32Array.from(geomLast),
  };
  return { view, used };
}

const isUsed = (used: Uint8Array, p: number) => (used[p >> 3] & (1 << (p & 7))) !== 0;

describe('segment grid', () => {
  it('stores runs of consecutive segments, and finds what a scan of every segment finds', () => {
    for (const seed of [1, 2, 3]) {
      const { view, used } = randomView(seed);
      const { pointsE7, gridItems } = view.shapes;
      // Runs are written: fewer items than segments listed per cell.
      expect(gridItems.some((item) => item >= RUN)).toBe(true);
      const rand = rng(seed + 100);
      for (let q = 0; q < 200; q++) {
        const lat = 47.09 + rand() * 0.07,
          lon = 9.49 + rand() * 0.07;
        const accept = (g: number) => g % 4 !== 2;
        let best = Infinity;
        for (let p = 0; p + 1 < pointsE7.length / 2; p++) {
          const g = geometryOfPoint(view, p);
          if (!isUsed(used, p) || g < 0 || !accept(g)) continue;
          best = Math.min(best, segmentDistance(pointsE7, p, lat, lon));
        }
        const hit = nearestSegment(view, lat, lon, 2_000, accept);
        if (best > 2_000) expect(hit).toBeNull();
        else {
          // The same distance (two segments that meet at the nearest point tie).
          expect(hit?.distance).toBeCloseTo(best, 6);
          expect(isUsed(used, hit!.point) && accept(hit!.geom)).toBe(true);
        }

        // Every used segment within the circle is offered (among others whose boxes meet the circle's).
        const radius = 50 + rand() * 400;
        const offered = new Set<number>();
        for (const p of segmentsNearCircle(view, lat, lon, radius, [])) offered.add(p);
        for (let p = 0; p + 1 < pointsE7.length / 2; p++) {
          if (isUsed(used, p) && segmentDistance(pointsE7, p, lat, lon) <= radius) expect(offered.has(p), `segment ${p}`).toBe(true);
        }
        for (const p of offered) expect(isUsed(used, p)).toBe(true);
      }
    }
  });

  it('looks in no cell for a point a hair from a pole, and in no more than the grid has for any point (the search near a pole used to spin)', () => {
    const { view } = randomView(1);
    const { rows, cols } = view.shapes.grid;
    const looked = (lat: number, lon: number, meters: number) => {
      const { rings, cells } = gridSearched;
      const hit = nearestSegment(view, lat, lon, meters, () => true);
      return { hit, rings: gridSearched.rings - rings, cells: gridSearched.cells - cells };
    };
    for (const lat of [-89.99999999999991, 89.99999999999993]) expect(looked(lat, 9.52591422805673, 500)).toEqual({ hit: null, rings: 0, cells: 0 });
    // Within the grid's rows but far east, with a reach that takes in everything: each ring up to the far
    // side of the grid, each cell, once at most.
    const far = looked(47.12, 30, 5_000_000);
    expect(far.hit).not.toBeNull();
    expect(far.cells).toBeGreaterThan(0);
    expect(far.cells).toBeLessThanOrEqual(rows * cols);
    expect(far.rings).toBeLessThanOrEqual(Math.ceil((30 - view.shapes.grid.minLon) / view.shapes.grid.cellLon) + 1);
  });
});
