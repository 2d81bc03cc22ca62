// POST /v1/routes `geometry_format` and `overview` (extensions) on the real Liechtenstein map: encoded
// polylines decoded by @mapbox/polyline (the oracle) are the GeoJSON answer's line rounded to their
// precision, on every path a route takes (whole, split over two threads, raced around avoided POIs);
// `simplified` keeps the ends and the snapped waypoints and stays within its tolerance; `false` gives
// null; bad values are 422s naming the field. And the bytes a far route saves, printed.
import polyline from '@mapbox/polyline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { idleThreads } from '../../src/compute/pool.js';
import { joinPolylines, simplifyLine, writePolyline } from '../../src/engine/polyline.js';
import { expect422 } from '../api/helpers.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { BALZERS, BETWEEN, RUGGELL, SCHAAN, VADUZ, along, createPoi, expectRoute, haversine, lineMeters, plan, type At } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
});
afterAll(() => app.close());

/** [lon, lat] pairs of an encoded polyline, by the oracle. */
const decoded = (s: string, precision: number): number[][] => polyline.decode(s, precision).map(([lat, lon]) => [lon, lat]);
const rounded = (line: number[][], precision: number): number[][] => line.map((c) => c.map((x) => Math.round(x * 10 ** precision) / 10 ** precision));

/** Every coordinate of `a` within `tol` of `b`'s, point for point. */
function expectSameLine(a: number[][], b: number[][], tol: number): void {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i][0] - b[i][0]), Math.abs(a[i][1] - b[i][1]));
  expect(worst).toBeLessThanOrEqual(tol);
}

const PATHS: Array<[string, At[]]> = [
  ['2 waypoints', [VADUZ, SCHAAN]],
  // Five waypoints: split over two threads when two are idle (as here, one request at a time).
  ['5 waypoints (split)', [BALZERS, VADUZ, BETWEEN, SCHAAN, RUGGELL]],
];

/** Once two compute threads are idle (the split and raced paths need them; a race's loser may still be
 *  stopping when its answer is sent). */
async function idle(): Promise<void> {
  for (let i = 0; i < 500 && idleThreads() < 2; i++) await new Promise((r) => setTimeout(r, 10));
}

/** The same request's answers with the GeoJSON line and in `body`'s form, each sent with two threads idle. */
async function both(key: string, body: Record<string, unknown>, waypoints: number) {
  await idle();
  const geojson = expectRoute(await plan(app, key, body.avoid ? { waypoints: body.waypoints, avoid: body.avoid } : { waypoints: body.waypoints }), waypoints);
  await idle();
  const res = await plan(app, key, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { geojson, other: res.body.data };
}

describe('geometry_format', () => {
  it.each(PATHS)('%s: polyline and polyline6 decode to the GeoJSON line rounded to 1e-5 and 1e-6', async (_, waypoints) => {
    for (const [format, precision] of [
      ['polyline', 5],
      ['polyline6', 6],
    ] as const) {
      const { geojson, other } = await both(team.key, { waypoints, geometry_format: format }, waypoints.length);
      expect(typeof other.geometry).toBe('string');
      const line = decoded(other.geometry, precision);
      // polyline6 rounds the same 1e-7° integers as the GeoJSON, halves up: exactly its numbers.
      if (precision === 6) expect(line).toEqual(geojson.geometry.coordinates);
      // polyline rounds them once, the GeoJSON's 1e-6 rounded again may differ by one unit.
      expectSameLine(line, rounded(geojson.geometry.coordinates, precision), 1.0001 * 10 ** -precision);
      // Everything else is the GeoJSON answer's.
      expect({ ...other, geometry: null }).toEqual({ ...geojson, geometry: null });
    }
  });

  it('a route avoiding POIs (raced from both ends): the same line in polyline6', async () => {
    const t = await makeTeam(app);
    const plain = expectRoute(await plan(app, t.key, { waypoints: [VADUZ, SCHAAN] }), 2);
    await createPoi(app, t.key, along(plain.geometry.coordinates, plain.distance / 2));
    const { geojson, other } = await both(t.key, { waypoints: [VADUZ, SCHAAN], avoid: { radius: 50 }, geometry_format: 'polyline6' }, 2);
    expect(geojson.avoided.count).toBe(1);
    expect(geojson.geometry.coordinates).not.toEqual(plain.geometry.coordinates);
    expect(decoded(other.geometry, 6)).toEqual(geojson.geometry.coordinates);
    expect(other.avoided).toEqual(geojson.avoided);
  });

  it('geojson and full sent explicitly: the answer without them', async () => {
    const body = { waypoints: [VADUZ, BETWEEN, SCHAAN] };
    const plainAnswer = await plan(app, team.key, body);
    const explicit = await plan(app, team.key, { ...body, geometry_format: 'geojson', overview: 'full' });
    expect(explicit.body).toEqual(plainAnswer.body);
  });

  it('the encoder escapes the `\\` its alphabet holds, and the join of two halves is the whole line', () => {
    const encode = (v: Int32Array) => {
      const buf = new Uint8Array(200);
      return buf.slice(0, writePolyline(v, 6, buf));
    };
    const text = (parts: Uint8Array[]) => Buffer.concat(parts).toString('latin1');
    // A step of −15 × 1e-6° is zigzag 29, the character 63 + 29 = `\\` (92). Near (0, 0) a point's own
    // value is one too, as the join skips the second half's first point.
    const lines = [
      Int32Array.of(95_000_000, 471_000_000, 95_000_000, 470_999_850, 95_000_290, 471_000_290, 95_000_000, 470_990_000),
      Int32Array.of(0, 0, -150, -150, 0, 0, 290, -150, 290, 0),
    ];
    for (const line of lines) {
      const all = text([encode(line)]);
      expect(all).toContain('\\\\');
      const expected = Array.from({ length: line.length / 2 }, (_, i): [number, number] => [line[2 * i] / 1e7, line[2 * i + 1] / 1e7]);
      expect(decoded(JSON.parse(all), 6)).toEqual(expected);
      expect(
        polyline.encode(
          expected.map(([lon, lat]): [number, number] => [lat, lon]),
          6,
        ),
      ).toBe(JSON.parse(all));
      // Split at each inner point: the halves share it.
      for (let k = 1; k + 1 < line.length / 2; k++) {
        expect(text(joinPolylines(encode(line.subarray(0, 2 * k + 2)), encode(line.subarray(2 * k))))).toBe(all);
      }
    }
  });
});

describe('simplifyLine', () => {
  it('simplifies each stretch between waypoints on its own: the halves of a split route give the whole one', () => {
    // A wiggly line of 400 points at Liechtenstein's latitude, waypoints at points 0, 150, 260 and 399.
    const n = 400;
    const line = new Int32Array(2 * n);
    for (let i = 0; i < n; i++) {
      line[2 * i] = 95_000_000 + i * 2000 + Math.round(Math.sin(i / 7) * 3000);
      line[2 * i + 1] = 471_000_000 + Math.round(Math.cos(i / 11) * 5000) + i * 300;
    }
    const whole = simplifyLine(line, [0, 150, 260, 399], 20);
    const a = simplifyLine(line.subarray(0, 2 * 151), [0, 150], 20),
      b = simplifyLine(line.subarray(2 * 150), [0, 110, 249], 20);
    expect(Array.from(whole)).toEqual([...Array.from(a), ...Array.from(b.subarray(2))]);
    const points = (v: Int32Array) => Array.from({ length: v.length / 2 }, (_, i) => [v[2 * i] / 1e7, v[2 * i + 1] / 1e7]);
    const kept = points(whole);
    for (const k of [150, 260]) expect(kept).toContainEqual([line[2 * k] / 1e7, line[2 * k + 1] / 1e7]);
    expect(kept.length).toBeLessThan(n / 3);
    expect(farthest(points(line), kept)).toBeLessThanOrEqual(20.1);
  });
});

/** The largest distance (m) from any vertex of `full` to the line `simplified`. */
const farthest = (full: number[][], simplified: number[][]): number =>
  Math.max(...full.map(([lon, lat]) => lineMeters({ latitude: lat, longitude: lon }, simplified)));

/** The documented tolerance: the waypoints' box's larger side / 1000, at least 1 m. */
function tolerance(waypoints: At[]): number {
  const lats = waypoints.map((w) => w.latitude),
    lons = waypoints.map((w) => w.longitude);
  const [s, n, w, e] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
  const mid = (s + n) / 2;
  const wide = haversine({ latitude: mid, longitude: w }, { latitude: mid, longitude: e });
  const high = haversine({ latitude: s, longitude: w }, { latitude: n, longitude: w });
  return Math.max(1, Math.max(wide, high) / 1000);
}

describe('overview', () => {
  it.each(PATHS)('%s, simplified: fewer points, ends and snapped waypoints kept, within the tolerance of the full line', async (_, waypoints) => {
    const { geojson: full, other: simple } = await both(team.key, { waypoints, overview: 'simplified' }, waypoints.length);
    const line: number[][] = full.geometry.coordinates,
      s: number[][] = simple.geometry.coordinates;
    expect(simple.geometry.type).toBe('LineString');
    expect(s.length).toBeGreaterThanOrEqual(2);
    expect(s.length).toBeLessThan(line.length / 2);
    expect(s[0]).toEqual(line[0]);
    expect(s[s.length - 1]).toEqual(line[line.length - 1]);
    // A subsequence of the full line's points.
    let at = 0;
    for (const p of s) {
      while (at < line.length && (line[at][0] !== p[0] || line[at][1] !== p[1])) at++;
      expect(at, `point ${p} in order`).toBeLessThan(line.length);
    }
    // Each waypoint's snapped point (the full line's nearest point to it, where its legs meet) is a vertex.
    for (const w of waypoints) {
      const snappedM = lineMeters(w, line);
      const nearestVertex = Math.min(...s.map(([lon, lat]) => haversine(w, { latitude: lat, longitude: lon })));
      expect(nearestVertex - snappedM, `waypoint ${JSON.stringify(w)}`).toBeLessThan(0.5);
    }
    const tol = tolerance(waypoints);
    const worst = farthest(line, s);
    // The simplification works on a plane at each stretch's start: a fraction of a percent off the sphere.
    expect(worst).toBeLessThanOrEqual(tol * 1.01 + 0.2);
    console.log(`${_}: simplified ${line.length} → ${s.length} points, tolerance ${tol.toFixed(1)} m, farthest ${worst.toFixed(1)} m`);
    // The same points encoded.
    await idle();
    const p6 = await plan(app, team.key, { waypoints, overview: 'simplified', geometry_format: 'polyline6' });
    expect(decoded(p6.body.data.geometry, 6)).toEqual(s);
  });

  it('a simplified avoiding route keeps out of the circles as the full one does, within the tolerance', async () => {
    const t = await makeTeam(app);
    const plain = expectRoute(await plan(app, t.key, { waypoints: [VADUZ, SCHAAN] }), 2);
    await createPoi(app, t.key, along(plain.geometry.coordinates, plain.distance / 2));
    const { geojson: full, other: simple } = await both(t.key, { waypoints: [VADUZ, SCHAAN], avoid: { radius: 50 }, overview: 'simplified' }, 2);
    expect(simple.avoided).toEqual(full.avoided);
    expect(farthest(full.geometry.coordinates, simple.geometry.coordinates)).toBeLessThanOrEqual(tolerance([VADUZ, SCHAAN]) * 1.01 + 0.2);
  });

  it.each([false, 'false'])('overview %s: geometry null, every other field as with it', async (overview) => {
    for (const [, waypoints] of PATHS) {
      for (const geometry_format of [undefined, 'polyline6']) {
        const { geojson, other } = await both(team.key, { waypoints, overview, ...(geometry_format ? { geometry_format } : {}) }, waypoints.length);
        expect(other.geometry).toBeNull();
        expect(other).toEqual({ ...geojson, geometry: null });
      }
    }
  });

  it('bad values: a 422 naming the field', async () => {
    for (const [body, field] of [
      [{ geometry_format: 'polyline7' }, 'geometry_format'],
      [{ geometry_format: 6 }, 'geometry_format'],
      [{ overview: 'simple' }, 'overview'],
      [{ overview: true }, 'overview'],
      [{ overview: null }, 'overview'],
    ] as const) {
      const res = await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], ...body });
      expect422(res, [field]);
      expect(res.body.errors[field][0]).toBe(field === 'overview' ? 'must be one of full, simplified, false' : 'must be one of geojson, polyline, polyline6');
    }
  });
});

describe('body size', () => {
  it('the longest route of the country: bytes of the body with GeoJSON, polyline6, polyline and simplified (printed)', async () => {
    const waypoints = [BALZERS, RUGGELL];
    const size = async (extra: Record<string, unknown>) => {
      const res = await plan(app, team.key, { waypoints, ...extra });
      expect(res.status).toBe(200);
      return { bytes: Buffer.byteLength(JSON.stringify(res.body)), d: res.body.data };
    };
    const g = await size({});
    const rows = [
      ['geojson', g.bytes],
      ['polyline6', (await size({ geometry_format: 'polyline6' })).bytes],
      ['polyline', (await size({ geometry_format: 'polyline' })).bytes],
      ['geojson simplified', (await size({ overview: 'simplified' })).bytes],
      ['polyline6 simplified', (await size({ geometry_format: 'polyline6', overview: 'simplified' })).bytes],
      ['overview false', (await size({ overview: false })).bytes],
    ] as const;
    console.log(
      `Balzers → Ruggell, ${(g.d.distance / 1000).toFixed(1)} km, ${g.d.geometry.coordinates.length} points:\n` +
        rows.map(([k, b]) => `  ${k.padEnd(22)} ${String(b).padStart(7)} bytes  ${(b / g.bytes).toFixed(3)} ×`).join('\n'),
    );
    expect(rows[1][1]).toBeLessThan(g.bytes);
  });
});
