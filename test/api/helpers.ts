import { expect } from 'vitest';
import { api, type ApiResponse } from '../support/app.js';

/** Shared expectations of the API contract (service-spec.md + DECISIONS.md). */

export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const UNAUTHENTICATED = 'Unauthenticated. Send an active API key in the X-API-KEY header.';
export const NO_PLAN = 'Your team does not have an active plan.';
export const lacks = (permission: string) => `This API key lacks the '${permission}' permission.`;

/** A well-formed ULID that no resource has. */
export const MISSING_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
export const MISSING_UUID = '3f2c1e9a-0b7d-4c55-9a41-6f1d2e3c4b5a';

type App = { url: string };

/** The API suites need neither background jobs nor the map: off in these processes, which keeps the
 *  rows as the tests set them and the start fast. */
export const API_ONLY = { WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off' };

/** A POI without the fields background geocoding may fill at any moment (a job runner in another test
 *  process may pick up any pending POI), for comparing a POI across requests. */
export function settled(poi: Record<string, unknown>): Record<string, unknown> {
  const { address: _address, updated_at: _updated, ...rest } = poi;
  return rest;
}

export function expectMessage(res: ApiResponse, status: number, message?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { message: message ?? expect.any(String) } });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

/** 422 `{message, errors}` carrying exactly these field paths (or at least them with `partial`). */
export function expect422(res: ApiResponse, fields: string[], partial = false): void {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.errors).toBeTypeOf('object');
  const keys = Object.keys(res.body.errors);
  if (partial) expect(keys).toEqual(expect.arrayContaining(fields));
  else expect(keys.sort()).toEqual([...fields].sort());
  for (const field of keys) {
    expect(Array.isArray(res.body.errors[field])).toBe(true);
    expect(res.body.errors[field].length).toBeGreaterThan(0);
    for (const msg of res.body.errors[field]) expect(msg).toBeTypeOf('string');
  }
}

export function expect404(res: ApiResponse, resource: string): void {
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ message: `${resource} not found.` });
}

export function expectRateHeaders(res: ApiResponse): { limit: number; remaining: number; reset: number } {
  const limit = res.headers.get('x-ratelimit-limit');
  const remaining = res.headers.get('x-ratelimit-remaining');
  const reset = res.headers.get('x-ratelimit-reset');
  expect(limit).toMatch(/^-?\d+$/);
  expect(remaining).toMatch(/^-?\d+$/);
  expect(reset).toMatch(/^\d+$/);
  return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
}

/** Follows `next` until null; checks the envelope and the id order on every page. */
export async function allPages(app: App, key: string, path: string, limit: number): Promise<{ ids: string[]; pages: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  for (let guard = 0; guard < 1000; guard++) {
    const res: ApiResponse = await api(app, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'next']);
    const pageIds = res.body.data.map((r: { id: string }) => r.id);
    expect(pageIds.length).toBeLessThanOrEqual(limit);
    pages.push(pageIds.length);
    ids.push(...pageIds);
    if (res.body.next === null) break;
    expect(res.body.next).toBe(pageIds[pageIds.length - 1]);
    cursor = res.body.next;
  }
  expect(ids).toEqual([...ids].sort());
  expect(new Set(ids).size).toBe(ids.length);
  return { ids, pages };
}

/** Geodesic distance on WGS84 (Vincenty inverse), meters. */
export function geodesic(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = 6378137,
    f = 1 / 298.257223563,
    b = a * (1 - f);
  const rad = Math.PI / 180;
  const L = (lon2 - lon1) * rad;
  const U1 = Math.atan((1 - f) * Math.tan(lat1 * rad));
  const U2 = Math.atan((1 - f) * Math.tan(lat2 * rad));
  const sinU1 = Math.sin(U1),
    cosU1 = Math.cos(U1),
    sinU2 = Math.sin(U2),
    cosU2 = Math.cos(U2);
  let lambda = L,
    sinSigma = 0,
    cosSigma = 0,
    sigma = 0,
    cos2Alpha = 0,
    cos2SigmaM = 0;
  for (let i = 0; i < 200; i++) {
    const sinL = Math.sin(lambda),
      cosL = Math.cos(lambda);
    sinSigma = Math.hypot(cosU2 * sinL, cosU1 * sinU2 - sinU1 * cosU2 * cosL);
    if (sinSigma === 0) return 0;
    cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL;
    sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinL) / sinSigma;
    cos2Alpha = 1 - sinAlpha * sinAlpha;
    cos2SigmaM = cos2Alpha ? cosSigma - (2 * sinU1 * sinU2) / cos2Alpha : 0;
    const C = (f / 16) * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha));
    const prev = lambda;
    lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)));
    if (Math.abs(lambda - prev) < 1e-12) break;
  }
  const u2 = (cos2Alpha * (a * a - b * b)) / (b * b);
  const A = 1 + (u2 / 16384) * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
  const B = (u2 / 1024) * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
  const dSigma =
    B *
    sinSigma *
    (cos2SigmaM +
      (B / 4) * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - (B / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)));
  return b * A * (sigma - dSigma);
}

/** Retries until the predicate holds (for cross-connection NOTIFY cache drops), up to ~3 s. */
export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await fn();
  for (let i = 0; i < 30 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await fn();
  }
  return v;
}
