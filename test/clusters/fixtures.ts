// Shared helpers for the clustering tests: real address points from the Liechtenstein extract, the same
// 3-D metric the kernel uses (computed independently here), and a plain reference k-means.
import { join } from 'node:path';
import { loadOsm } from '../../src/map/osm/osm-data.js';
import { projectRoot } from '../../src/lib/paths.js';
import type { LatLon } from '../../src/lib/lat-lon.js';

const R = 6371008.8;
const RAD = Math.PI / 180;

/**
 * `count` address points (nodes and building outlines tagged addr:housenumber), evenly spread over the
 * extract's list of them in file order. Liechtenstein has few address nodes, so outlines count too, each
 * by the mean of its corners.
 */
export async function addressPoints(count: number): Promise<LatLon[]> {
  const osm = await loadOsm(join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf'));
  const all: LatLon[] = [];
  for (const node of osm.taggedNodes) {
    if (node.tags?.['addr:housenumber']) all.push({ lat: node.lat, lon: node.lon });
  }
  for (const way of osm.ways) {
    if (!way.tags['addr:housenumber']) continue;
    const refs = way.refs.length > 1 && way.refs[0] === way.refs[way.refs.length - 1] ? way.refs.slice(0, -1) : way.refs;
    let lat = 0,
      lon = 0,
      m = 0;
    for (const ref of refs) {
      const c = osm.coord(ref);
      if (c) {
        lat += c[0];
        lon += c[1];
        m++;
      }
    }
    if (m > 0) all.push({ lat: lat / m, lon: lon / m });
  }
  if (all.length < count) throw new Error(`only ${all.length} address points in the extract`);
  return Array.from({ length: count }, (_, i) => all[Math.floor((i * all.length) / count)]);
}

export type Vec = [number, number, number];

export function toVectors(points: readonly LatLon[]): Vec[] {
  return points.map(({ lat: latitude, lon: longitude }) => {
    const la = latitude * RAD,
      lo = longitude * RAD;
    return [R * Math.cos(la) * Math.cos(lo), R * Math.cos(la) * Math.sin(lo), R * Math.sin(la)];
  });
}

export function d2(a: Vec, b: Vec): number {
  const x = a[0] - b[0],
    y = a[1] - b[1],
    z = a[2] - b[2];
  return x * x + y * y + z * z;
}

export function means(X: Vec[], assignment: ArrayLike<number>, k: number): Vec[] {
  const s = Array.from({ length: k }, () => [0, 0, 0, 0]);
  for (let i = 0; i < X.length; i++) {
    const c = s[assignment[i]];
    c[0] += X[i][0];
    c[1] += X[i][1];
    c[2] += X[i][2];
    c[3]++;
  }
  return s.map(([x, y, z, m]) => (m ? [x / m, y / m, z / m] : [NaN, NaN, NaN]) as Vec);
}

/** Within-cluster sum of squared distances to the cluster means, m². */
export function sse(X: Vec[], assignment: ArrayLike<number>, k: number): number {
  const c = means(X, assignment, k);
  let e = 0;
  for (let i = 0; i < X.length; i++) e += d2(X[i], c[assignment[i]]);
  return e;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Plain Lloyd from k-means++ starts drawn with `seed`; returns its sum of squares. */
export function referenceLloyd(X: Vec[], k: number, seed: number): number {
  const rnd = mulberry32(seed);
  const n = X.length;
  const C: Vec[] = [[...X[Math.floor(rnd() * n)]] as Vec];
  const D = X.map((p) => d2(p, C[0]));
  while (C.length < k) {
    const total = D.reduce((a, b) => a + b, 0);
    let r = rnd() * total;
    let pick = 0;
    for (; pick < n - 1; pick++) {
      r -= D[pick];
      if (r < 0) break;
    }
    C.push([...X[pick]] as Vec);
    for (let i = 0; i < n; i++) D[i] = Math.min(D[i], d2(X[i], X[pick]));
  }
  const a = new Int32Array(n).fill(-1);
  for (let it = 0; it < 1000; it++) {
    let changed = 0;
    for (let i = 0; i < n; i++) {
      let best = 0,
        bd = Infinity;
      for (let j = 0; j < k; j++) {
        const d = d2(X[i], C[j]);
        if (d < bd) {
          bd = d;
          best = j;
        }
      }
      if (a[i] !== best) {
        a[i] = best;
        changed++;
      }
    }
    if (changed === 0) break;
    means(X, a, k).forEach((c, j) => {
      if (!Number.isNaN(c[0])) C[j] = c;
    });
  }
  return sse(X, a, k);
}
