// Shared by the POST /v1/routes/clusters suites: deterministic stop sets around Liechtenstein and a check of
// an answer's shape and internal consistency, computed independently of the service.
import { expect } from 'vitest';
import { api, type ApiResponse } from '../support/app.js';
import { haversine, offset, type At } from '../support/geo.js';

export { haversine, offset, type At };

export const VADUZ: At = { latitude: 47.1393, longitude: 9.5215 };

/** A seeded generator (Park–Miller), so every run uses the same points. */
export function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** `count` points scattered up to `meters` around `center`. */
export function scatter(center: At, count: number, meters: number, seed = 1): At[] {
  const rand = random(seed);
  return Array.from({ length: count }, () => offset(center, Math.sqrt(rand()) * meters, rand() * 360));
}

/** `perBlob` points within 300 m of each of `blobs` centers 5 km apart on a line: the natural clusters. */
export function blobs(blobCount: number, perBlob: number): { points: At[]; centers: At[] } {
  const centers = Array.from({ length: blobCount }, (_, i) => offset(VADUZ, i * 5000, 60));
  const points = centers.flatMap((c, i) => scatter(c, perBlob, 300, i + 11));
  return { points, centers };
}

export const cluster = (app: { url: string }, key: string, body: unknown): Promise<ApiResponse> => api(app, 'POST', '/v1/routes/clusters', { key, body });

export interface ExpectedStop {
  id: string | null;
  poi_id: string | null;
  latitude: number;
  longitude: number;
}

/**
 * Checks a 200 answer field by field against the stops it was asked about (in `index` order) and returns its
 * data: every stop exactly once, echoed as sent; ids from 1; counts; centroids the means of their stops; radii
 * the distance to the farthest stop; summary consistent.
 */
export function expectClustering(res: ApiResponse, stops: ExpectedStop[], balanced = false): any {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  expect(Object.keys(res.body)).toEqual(['data']);
  const d = res.body.data;
  expect(Object.keys(d)).toEqual(['summary', 'clusters']);
  expect(Object.keys(d.summary)).toEqual(['stops', 'clusters', 'balanced', 'max_stops']);
  expect(d.summary.stops).toBe(stops.length);
  expect(d.summary.clusters).toBe(d.clusters.length);
  expect(d.summary.balanced).toBe(balanced);
  expect(d.summary.max_stops === null || Number.isInteger(d.summary.max_stops)).toBe(true);
  const seen = new Set<number>();
  d.clusters.forEach((c: any, i: number) => {
    expect(Object.keys(c)).toEqual(['id', 'centroid', 'count', 'radius', 'stops']);
    expect(c.id).toBe(i + 1);
    expect(Object.keys(c.centroid)).toEqual(['latitude', 'longitude']);
    expect(c.count).toBe(c.stops.length);
    expect(c.count).toBeGreaterThan(0); // empty clusters are dropped
    if (d.summary.max_stops !== null) expect(c.count).toBeLessThanOrEqual(d.summary.max_stops);
    let lat = 0,
      lon = 0;
    for (const s of c.stops) {
      expect(Object.keys(s)).toEqual(['index', 'id', 'poi_id', 'latitude', 'longitude']);
      expect(Number.isInteger(s.index)).toBe(true);
      expect(seen.has(s.index)).toBe(false);
      seen.add(s.index);
      expect(s).toEqual({ index: s.index, ...stops[s.index] });
      lat += s.latitude;
      lon += s.longitude;
    }
    expect(c.centroid.latitude).toBeCloseTo(lat / c.count, 9);
    expect(c.centroid.longitude).toBeCloseTo(lon / c.count, 9);
    const farthest = Math.max(...c.stops.map((s: At) => haversine(c.centroid, s)));
    expect(Math.abs(c.radius - farthest)).toBeLessThanOrEqual(0.05 + 1e-6); // rounded to 0.1 m
    expect(Math.abs(c.radius * 10 - Math.round(c.radius * 10))).toBeLessThan(1e-6);
  });
  expect(seen.size).toBe(stops.length);
  return d;
}

/** Stops sent as plain coordinates, as the answer echoes them. */
export const plainStops = (points: At[]): ExpectedStop[] => points.map((p) => ({ id: null, poi_id: null, ...p }));

/** Sizes of the clusters, largest first. */
export const sizes = (d: any): number[] => d.clusters.map((c: any) => c.count).sort((a: number, b: number) => b - a);

/** Index sets of the clusters, as sorted arrays, in the answer's order. */
export const partition = (d: any): number[][] => d.clusters.map((c: any) => c.stops.map((s: any) => s.index).sort((a: number, b: number) => a - b));
