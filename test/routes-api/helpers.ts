// Shared by the POST /v1/routes suites: real places on the Liechtenstein map, geometry checks done
// independently of the engine, and POI set-up.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { newId } from '../../src/lib/ids.js';
import { api, type ApiResponse } from '../support/app.js';
import { haversine, offset, type At } from '../support/geo.js';

export { haversine, offset, type At };

/** Rathaus Vaduz and Schaan's Landstrasse: about 3 km apart, both on roads. */
export const VADUZ: At = { latitude: 47.1393, longitude: 9.5215 };
export const SCHAAN: At = { latitude: 47.165, longitude: 9.5093 };
/** On the road between them, for a POI waypoint. */
export const BETWEEN: At = { latitude: 47.152, longitude: 9.515 };
/** The country's two ends, about 19 km apart. */
export const BALZERS: At = { latitude: 47.0666, longitude: 9.503 };
export const RUGGELL: At = { latitude: 47.238, longitude: 9.526 };

const R = 6371008.8;
const RAD = Math.PI / 180;

/** Meters from a point to the segment a–b ([lon, lat]), exactly on the segment (not only its ends), on a
 *  tangent plane at the point: under 1 mm of error for segments of a few hundred meters. */
export function segmentMeters(p: At, a: number[], b: number[]): number {
  const kx = R * RAD * Math.cos(p.latitude * RAD),
    ky = R * RAD;
  const ax = (a[0] - p.longitude) * kx,
    ay = (a[1] - p.latitude) * ky;
  const bx = (b[0] - p.longitude) * kx,
    by = (b[1] - p.latitude) * ky;
  const dx = bx - ax,
    dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

/** The closest any point of the line (every segment, not only vertices) comes to `p`. */
export function lineMeters(p: At, line: number[][]): number {
  let best = Infinity;
  for (let i = 0; i + 1 < line.length; i++) best = Math.min(best, segmentMeters(p, line[i], line[i + 1]));
  return line.length === 1 ? segmentMeters(p, line[0], line[0]) : best;
}

/** The point `meters` along a [lon, lat] line. */
export function along(line: number[][], meters: number): At {
  let left = meters;
  for (let i = 0; i + 1 < line.length; i++) {
    const a = { latitude: line[i][1], longitude: line[i][0] },
      b = { latitude: line[i + 1][1], longitude: line[i + 1][0] };
    const d = haversine(a, b);
    if (d >= left && d > 0) {
      const t = left / d;
      return { latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude) };
    }
    left -= d;
  }
  const last = line[line.length - 1];
  return { latitude: last[1], longitude: last[0] };
}

export function lineLength(line: number[][]): number {
  let total = 0;
  for (let i = 0; i + 1 < line.length; i++) {
    total += haversine({ latitude: line[i][1], longitude: line[i][0] }, { latitude: line[i + 1][1], longitude: line[i + 1][0] });
  }
  return total;
}

export const plan = (app: { url: string }, key: string, body: unknown): Promise<ApiResponse> => api(app, 'POST', '/v1/routes', { key, body });

/** The route with steps from `from` to `to` ([latitude, longitude]), its answer's `data`; a 200 expected. */
export async function routeWithSteps(app: { url: string }, key: string, from: [number, number], to: [number, number]): Promise<any> {
  const res = await plan(app, key, {
    waypoints: [
      { latitude: from[0], longitude: from[1] },
      { latitude: to[0], longitude: to[1] },
    ],
    steps: true,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function createPoi(app: { url: string }, key: string, at: At, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api(app, 'POST', '/v1/pois', { key, body: { name: 'p', ...at, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

/** Many POIs at once, straight into the table (the API would take a request each); not pending
 *  geocoding, so no geocoder changes them under the test. Returns the ids in order. */
export async function insertPois(app: App, teamId: string, points: At[]): Promise<string[]> {
  const rows = points.map((p) => ({ id: newId(), team_id: teamId, name: 'bulk', latitude: p.latitude, longitude: p.longitude, geocode_pending: false }));
  for (let i = 0; i < rows.length; i += 1000) await app.sql`INSERT INTO pois ${app.sql(rows.slice(i, i + 1000))}`;
  return rows.map((r) => r.id);
}

/** Checks the shape and the internal consistency of a route answer; returns its data. */
export function expectRoute(res: ApiResponse, waypointCount: number): any {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body)).toEqual(['data']);
  const d = res.body.data;
  expect(Object.keys(d).sort()).toEqual(['avoided', 'bbox', 'distance', 'duration', 'geometry', 'legs', 'profile', 'waypoints']);
  expect(d.distance).toBeGreaterThan(0);
  expect(d.duration).toBeGreaterThan(0);
  expect(d.geometry.type).toBe('LineString');
  const coords: number[][] = d.geometry.coordinates;
  expect(coords.length).toBeGreaterThanOrEqual(2);
  const [w, s, e, n] = d.bbox;
  for (const [lon, lat] of coords) {
    expect(lon).toBeGreaterThanOrEqual(w);
    expect(lon).toBeLessThanOrEqual(e);
    expect(lat).toBeGreaterThanOrEqual(s);
    expect(lat).toBeLessThanOrEqual(n);
  }
  // Exactly the geometry's box.
  const lons = coords.map((c) => c[0]),
    lats = coords.map((c) => c[1]);
  expect([Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)]).toEqual(d.bbox);
  expect(d.legs).toHaveLength(waypointCount - 1);
  d.legs.forEach((l: any, i: number) => {
    expect(l.from).toBe(i);
    expect(l.to).toBe(i + 1);
  });
  const sum = (k: 'distance' | 'duration') => d.legs.reduce((a: number, l: any) => a + l[k], 0);
  expect(sum('distance')).toBeCloseTo(d.distance, 6);
  expect(sum('duration')).toBeCloseTo(d.duration, 6);
  // Rounded to 0.1 m and 0.1 s.
  for (const v of [d.distance, d.duration, ...d.legs.flatMap((l: any) => [l.distance, l.duration])]) {
    expect(Math.abs(v * 10 - Math.round(v * 10))).toBeLessThan(1e-6);
  }
  // The geometry's length is the route's distance (the geometry is what was driven).
  expect(Math.abs(lineLength(coords) - d.distance)).toBeLessThan(Math.max(2, d.distance * 0.005));
  expect(d.waypoints).toHaveLength(waypointCount);
  return d;
}
