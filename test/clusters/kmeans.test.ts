import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool, runTask } from '../../src/compute/pool.js';
import { clusterPoints, ClusterRequestError, type Clustering } from '../../src/engine/kmeans/kmeans.js';
import { addressPoints, d2, means, referenceLloyd, sse, toVectors, type Vec } from './fixtures.js';
import type { LatLon } from '../../src/lib/lat-lon.js';

let points: LatLon[];
let X: Vec[];

beforeAll(async () => {
  points = await addressPoints(2_000);
  X = toVectors(points);
});
afterAll(closePool);

function sizes(c: Clustering): number[] {
  return c.clusters.map((cl) => cl.members.length);
}

/** Every point in exactly one cluster, members ascending, assignment consistent with the members. */
function expectPartition(c: Clustering, n: number): void {
  const seen = new Int32Array(n).fill(-1);
  c.clusters.forEach((cl, j) => {
    expect(cl.members.length).toBeGreaterThan(0);
    for (let m = 1; m < cl.members.length; m++) expect(cl.members[m]).toBeGreaterThan(cl.members[m - 1]);
    for (const i of cl.members) {
      expect(seen[i]).toBe(-1);
      seen[i] = j;
    }
  });
  expect(Array.from(seen)).toEqual(Array.from(c.assignment));
}

/**
 * With the final centers fixed, no exchange of two stops between clusters lowers the sum of squares, nor
 * (under a size cap) does moving one stop into a cluster with room: the capacitated assignment is exact.
 */
function expectNoImprovingSwap(c: Clustering, cap?: number): void {
  const k = c.clusters.length;
  const centers = means(X, c.assignment, k);
  const own = X.map((x, i) => d2(x, centers[c.assignment[i]]));
  let worst = 0;
  if (cap !== undefined) {
    for (let i = 0; i < X.length; i++) {
      c.clusters.forEach((cl, b) => {
        if (cl.members.length < cap && b !== c.assignment[i]) worst = Math.min(worst, d2(X[i], centers[b]) - own[i]);
      });
    }
  }
  for (let i = 0; i < X.length; i++) {
    const a = c.assignment[i];
    for (let j = i + 1; j < X.length; j++) {
      const b = c.assignment[j];
      if (a === b) continue;
      const delta = d2(X[i], centers[b]) + d2(X[j], centers[a]) - own[i] - own[j];
      worst = Math.min(worst, delta);
    }
  }
  expect(worst).toBeGreaterThan(-1e-6);
}

/** Baseline balanced partition: split the longer side at the count-weighted median, recursively. */
function bisect(idx: number[], k: number, out: Int32Array, label: { next: number }): void {
  if (k === 1) {
    for (const i of idx) out[i] = label.next;
    label.next++;
    return;
  }
  const spread = (f: (i: number) => number) => Math.max(...idx.map(f)) - Math.min(...idx.map(f));
  const lat = (i: number) => points[i].lat;
  const lon = (i: number) => points[i].lon * Math.cos((47.1 * Math.PI) / 180);
  const key = spread(lat) > spread(lon) ? lat : lon;
  const sorted = [...idx].sort((a, b) => key(a) - key(b));
  const k1 = Math.floor(k / 2);
  const n1 = Math.round((idx.length * k1) / k);
  bisect(sorted.slice(0, n1), k1, out, label);
  bisect(sorted.slice(n1), k - k1, out, label);
}

describe('clusterPoints', () => {
  it('is deterministic for the same stops in the same order', () => {
    for (const opts of [{ clusters: 100 }, { clusters: 13, balanced: true }, { maxStops: 37 }]) {
      const a = clusterPoints(points, opts);
      const b = clusterPoints(
        points.map((p) => ({ ...p })),
        opts,
      );
      expect(Array.from(b.assignment)).toEqual(Array.from(a.assignment));
      expect(b.clusters).toEqual(a.clusters);
      expect(b.sse).toBe(a.sse);
    }
  });

  it('reports the sum of squares of its assignment and summarises clusters per the spec', () => {
    const c = clusterPoints(points, { clusters: 100 });
    expectPartition(c, points.length);
    expect(c.clusters).toHaveLength(100);
    expect(c.maxStops).toBeNull();
    expect(c.sse).toBeCloseTo(sse(X, c.assignment, 100), -2);
    // Ordered by first member: the first stop is in cluster 0, and first members ascend.
    expect(c.assignment[0]).toBe(0);
    const firsts = c.clusters.map((cl) => cl.members[0]);
    expect(firsts).toEqual([...firsts].sort((x, y) => x - y));
    for (const cl of c.clusters.slice(0, 10)) {
      const lat = cl.members.reduce((s, i) => s + points[i].lat, 0) / cl.members.length;
      const lon = cl.members.reduce((s, i) => s + points[i].lon, 0) / cl.members.length;
      expect(cl.centroid.lat).toBeCloseTo(lat, 12);
      expect(cl.centroid.lon).toBeCloseTo(lon, 12);
      expect(cl.radius).toBeGreaterThanOrEqual(0);
      expect(cl.radius).toBeLessThan(10_000); // Liechtenstein is 25 km long; 100 clusters are local
    }
  });

  it('beats the best of 10 seeded restarts of plain Lloyd on 2,000 real address points', () => {
    for (const k of [10, 100]) {
      const ours = sse(X, clusterPoints(points, { clusters: k }).assignment, k);
      const reference = Math.min(...Array.from({ length: 10 }, (_, s) => referenceLloyd(X, k, s + 1)));
      expect(ours).toBeLessThanOrEqual(reference * (1 + 1e-9));
    }
  });

  it('balanced: sizes differ by at most one, for 100 clusters and for a count that does not divide n', () => {
    for (const k of [100, 7]) {
      const c = clusterPoints(points, { clusters: k, balanced: true });
      expectPartition(c, points.length);
      expect(c.clusters).toHaveLength(k);
      expect(Math.max(...sizes(c)) - Math.min(...sizes(c))).toBeLessThanOrEqual(1);
      expect(c.maxStops).toBe(Math.ceil(points.length / k));
      expectNoImprovingSwap(c);
    }
  });

  it('balanced clusters stay compact: well below recursive coordinate bisection into equal parts', () => {
    for (const k of [10, 100]) {
      const c = clusterPoints(points, { clusters: k, balanced: true });
      const parts = new Int32Array(points.length);
      bisect(
        points.map((_, i) => i),
        k,
        parts,
        { next: 0 },
      );
      expect(c.sse).toBeLessThan(sse(X, parts, k) * 0.9);
    }
  });

  it('max_stops: the fewest clusters that hold every stop, none above max_stops', () => {
    for (const maxStops of [37, 25, 2_000]) {
      const c = clusterPoints(points, { maxStops });
      expectPartition(c, points.length);
      expect(c.clusters).toHaveLength(Math.ceil(points.length / maxStops));
      expect(Math.max(...sizes(c))).toBeLessThanOrEqual(maxStops);
      expect(c.maxStops).toBe(maxStops);
      expectNoImprovingSwap(c, maxStops);
    }
  });

  it('max_stops with balanced: fewest clusters, sizes differ by at most one and stay within max_stops', () => {
    const c = clusterPoints(points, { maxStops: 37, balanced: true });
    expectPartition(c, points.length);
    expect(c.clusters).toHaveLength(55);
    const s = sizes(c);
    expect(Math.max(...s)).toBeLessThanOrEqual(37);
    expect(Math.max(...s) - Math.min(...s)).toBeLessThanOrEqual(1);
    expect(c.maxStops).toBe(37);
  });

  it('one cluster: the mean position, and the radius to the farthest stop', () => {
    const c = clusterPoints(points, { clusters: 1 });
    expect(c.clusters).toHaveLength(1);
    expect(c.clusters[0].members).toHaveLength(points.length);
    const lat = points.reduce((s, p) => s + p.lat, 0) / points.length;
    expect(c.clusters[0].centroid.lat).toBeCloseTo(lat, 12);
    // Liechtenstein's address points span roughly 9–16 km from their middle.
    expect(c.clusters[0].radius).toBeGreaterThan(5_000);
    expect(c.clusters[0].radius).toBeLessThan(25_000);
  });

  it('as many clusters as stops: one stop each, zero spread', () => {
    const few = points.slice(0, 100);
    for (const balanced of [false, true]) {
      const c = clusterPoints(few, { clusters: 100, balanced });
      expect(sizes(c)).toEqual(new Array(100).fill(1));
      expect(c.clusters.every((cl) => cl.radius === 0)).toBe(true);
      expect(c.sse).toBe(0);
    }
  });

  it('stops at one position: empty clusters are dropped; balanced still splits them evenly', () => {
    const same = Array.from({ length: 10 }, () => ({ lat: 47.14, lon: 9.52 }));
    const plain = clusterPoints(same, { clusters: 3 });
    expect(plain.clusters).toHaveLength(1);
    expect(plain.clusters[0].members).toEqual([...Array(10).keys()]);
    expect(plain.clusters[0].radius).toBeLessThan(1e-6);
    expect(plain.clusters[0].centroid.lat).toBeCloseTo(47.14, 12);
    expect(plain.clusters[0].centroid.lon).toBeCloseTo(9.52, 12);

    // Five places with four stops each, asked for eight clusters: five come back, one per place.
    const places = Array.from({ length: 20 }, (_, i) => points[(i % 5) * 300]);
    const five = clusterPoints(places, { clusters: 8 });
    expect(five.clusters).toHaveLength(5);
    expect(sizes(five)).toEqual([4, 4, 4, 4, 4]);
    expect(five.sse).toBeLessThan(1e-6);

    // 2,000 stops at three places into 100 clusters: three come back, whatever rounding does to the means.
    const three = Array.from({ length: 2_000 }, (_, i) => points[(i % 3) * 500]);
    expect(sizes(clusterPoints(three, { clusters: 100 }))).toEqual([667, 667, 666]);
    const piled = clusterPoints(
      Array.from({ length: 2_000 }, () => points[0]),
      { clusters: 100, balanced: true },
    );
    expect(sizes(piled)).toEqual(new Array(100).fill(20));

    const balanced = clusterPoints(same, { clusters: 3, balanced: true });
    expect(sizes(balanced).sort()).toEqual([3, 3, 4]);
    const capped = clusterPoints(same, { maxStops: 4 });
    expect(capped.clusters).toHaveLength(3);
    expect(Math.max(...sizes(capped))).toBeLessThanOrEqual(4);
  });

  it('handles the limits: 2,000 stops into 100 clusters, plain and balanced', () => {
    const plain = clusterPoints(points, { clusters: 100 });
    expect(plain.clusters).toHaveLength(100);
    const balanced = clusterPoints(points, { clusters: 100, balanced: true });
    expect(sizes(balanced)).toEqual(new Array(100).fill(20));
    expect(balanced.sse).toBeGreaterThan(plain.sse);
  });

  it('averages longitudes across the antimeridian', () => {
    const c = clusterPoints(
      [
        { lat: 0, lon: 179.9 },
        { lat: 0, lon: -179.9 },
      ],
      { clusters: 1 },
    );
    expect(Math.abs(c.clusters[0].centroid.lon)).toBeCloseTo(180, 9);
    expect(c.clusters[0].radius).toBeLessThan(12_000);
  });

  it('refuses requests outside the limits', () => {
    const few = points.slice(0, 5);
    expect(() => clusterPoints(few, { clusters: 6 })).toThrow(ClusterRequestError);
    expect(() => clusterPoints(few, {})).toThrow(ClusterRequestError);
    expect(() => clusterPoints(few, { clusters: 2, maxStops: 2 })).toThrow(ClusterRequestError);
    expect(() => clusterPoints(points, { clusters: 101 })).toThrow(ClusterRequestError);
    expect(() => clusterPoints(points, { maxStops: 19 })).toThrow(ClusterRequestError); // needs 106 clusters
    expect(() => clusterPoints([...points, ...points.slice(0, 1)], { clusters: 2 })).toThrow(ClusterRequestError);
    expect(() => clusterPoints([], { clusters: 1 })).toThrow(ClusterRequestError);
    expect(() => clusterPoints(few, { clusters: 1.5 })).toThrow(ClusterRequestError);
  });
});

describe('clusters pool task', () => {
  it('runs the kernel in a worker with the same result as in-thread', async () => {
    const few = points.slice(0, 300);
    const local = clusterPoints(few, { clusters: 12, balanced: true });
    const remote = await runTask<Clustering>('clusters', { points: few, options: { clusters: 12, balanced: true } });
    expect(Array.from(remote.assignment)).toEqual(Array.from(local.assignment));
    expect(remote.sse).toBe(local.sse);
    expect(remote.maxStops).toBe(25);
  });
});
