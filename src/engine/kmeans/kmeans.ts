// Stop clustering for POST /v1/routes/clusters: validates the request's size rules, runs the k-means WASM
// kernel synchronously (so it also runs inside a pool worker) and summarises each cluster.
import { KERNEL_LAYOUTS, writeRecord } from '../../lib/kernel-records.js';
import { instantiate } from '../../lib/wasm.js';
import { greatCircleMeters } from '../../lib/geo/sphere.js';
import type { LatLon } from '../../lib/lat-lon.js';

/** Exactly one of `clusters` and `maxStops`. */
export interface ClusterOptions {
  clusters?: number;
  maxStops?: number;
  balanced?: boolean;
}

export interface Cluster {
  /** The mean of its stops' latitudes and longitudes. */
  centroid: LatLon;
  /** Indexes into the input points, ascending. */
  members: number[];
  /** Great-circle meters from the centroid to the farthest member. */
  radius: number;
}

export interface Clustering {
  /** For each input point, the index of its cluster in `clusters`. */
  assignment: Int32Array;
  /** Non-empty clusters, ordered by their first member. */
  clusters: Cluster[];
  /** Within-cluster sum of squared straight-line (chord) distances to the cluster means, m². */
  sse: number;
  /** Most stops a cluster can hold: the requested maxStops, or the balanced size; null when not capped. */
  maxStops: number | null;
}

export const MAX_CLUSTER_STOPS = 2_000;
export const MAX_CLUSTERS = 100;
/**
 * Plain k-means runs per request (the best sum of squares wins): many for few clusters, where one run is
 * cheap and a poor local optimum costs most, fewer for many clusters, where runs differ by a few percent.
 */
function restartsFor(k: number): number {
  return Math.min(12, Math.max(2, Math.floor(200 / k)));
}

const { modes: MODES, point: POINT } = KERNEL_LAYOUTS.kmeans;

interface KmeansKernel extends WebAssembly.Exports {
  memory: WebAssembly.Memory;
  input(n: number): number;
  solve(n: number, k: number, mode: number, cap: number, restarts: number, starts: number): number;
  assignment(): number;
}

let kernel: KmeansKernel | undefined;

/** Thrown for requests outside the clustering limits; the HTTP layer maps it to 422. */
export class ClusterRequestError extends RangeError {}

/** How many clusters a request asks for: `clusters`, or the fewest that hold every stop under `maxStops`. */
export function clusterCount(stops: number, opts: ClusterOptions): number {
  if (!Number.isInteger(stops) || stops < 1 || stops > MAX_CLUSTER_STOPS) {
    throw new ClusterRequestError(`between 1 and ${MAX_CLUSTER_STOPS} stops can be clustered`);
  }
  if ((opts.clusters === undefined) === (opts.maxStops === undefined)) {
    throw new ClusterRequestError('send either clusters or max_stops');
  }
  let k: number;
  if (opts.clusters !== undefined) {
    if (!Number.isInteger(opts.clusters) || opts.clusters < 1) {
      throw new ClusterRequestError('clusters must be a positive integer');
    }
    k = opts.clusters;
  } else {
    const m = opts.maxStops as number;
    if (!Number.isInteger(m) || m < 1) throw new ClusterRequestError('max_stops must be a positive integer');
    k = Math.ceil(stops / m);
  }
  if (k > MAX_CLUSTERS) throw new ClusterRequestError(`at most ${MAX_CLUSTERS} clusters`);
  if (k > stops) throw new ClusterRequestError('clusters cannot exceed the number of stops');
  return k;
}

/** Groups points by straight-line distance; deterministic for the same points in the same order. */
export function clusterPoints(points: readonly LatLon[], opts: ClusterOptions): Clustering {
  const n = points.length;
  const k = clusterCount(n, opts);
  const balanced = opts.balanced === true;
  const maxStops = opts.maxStops ?? (balanced ? Math.ceil(n / k) : null);
  const mode = balanced ? MODES.balanced : opts.maxStops !== undefined ? MODES.capped : MODES.plain;

  kernel ??= instantiate<KmeansKernel>('kmeans');
  const ptr = kernel.input(n);
  const view = new DataView(kernel.memory.buffer);
  for (let i = 0; i < n; i++) {
    const { lat: latitude, lon: longitude } = points[i];
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) {
      throw new ClusterRequestError(`stop ${i} has no valid position`);
    }
    writeRecord(view, ptr, i, POINT, { lat: latitude, lon: longitude });
  }
  // Capacitated runs start both from a bisection into equal parts and from the best plain k-means result:
  // in measurements each start won on some cluster counts, by up to a fifth of the sum of squares. More
  // plain runs than two did not improve the capacitated result.
  const restarts = mode === MODES.plain ? restartsFor(k) : Math.min(2, restartsFor(k));
  const starts = mode === MODES.plain ? 0 : 1;
  const sse = kernel.solve(n, k, mode, opts.maxStops ?? n, restarts, starts);
  const raw = new Int32Array(kernel.memory.buffer, kernel.assignment(), n);

  // Renumber by first member so the order follows the input, and drop empty clusters.
  const index = new Int32Array(k).fill(-1);
  const members: number[][] = [];
  const assignment = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let c = index[raw[i]];
    if (c < 0) {
      c = index[raw[i]] = members.length;
      members.push([]);
    }
    members[c].push(i);
    assignment[i] = c;
  }
  return { assignment, clusters: members.map((m) => summarise(points, m)), sse, maxStops };
}

function summarise(points: readonly LatLon[], members: number[]): Cluster {
  // Longitudes are unwrapped around the first member so a cluster across the antimeridian averages sanely;
  // for any other cluster this is the plain mean.
  const ref = points[members[0]].lon;
  let lat = 0;
  let lon = 0;
  for (const i of members) {
    lat += points[i].lat;
    lon += unwrap(points[i].lon, ref);
  }
  const centroid = { lat: lat / members.length, lon: normalizeLongitude(lon / members.length) };
  let radius = 0;
  for (const i of members) radius = Math.max(radius, greatCircleMeters(centroid.lat, centroid.lon, points[i].lat, points[i].lon));
  return { centroid, members, radius };
}

function unwrap(lon: number, ref: number): number {
  if (lon - ref > 180) return lon - 360;
  if (ref - lon > 180) return lon + 360;
  return lon;
}

function normalizeLongitude(lon: number): number {
  return lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon;
}
