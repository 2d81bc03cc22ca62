// `waymark matrix`, `waymark isochrone`, `waymark nearest` run as the built CLI on the Liechtenstein
// map, without a database: the answers against the engine's own (as the API's `data`), and the exit codes
// (2 for a bad flag or file field, 1 for a point more than 500 m from a road).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../src/compute/pool.js';
import { loadMap, matrix, nearest } from '../../src/engine/engine.js';
import { projectRoot } from '../../src/lib/paths.js';
import { PLACES, testMapDir } from '../geo-api/support.js';
import { roadPoints } from '../optimize-api/support.js';

const execFileP = promisify(execFile);
let mapDir: string;
let dir: string;

/** Runs the CLI with the test map as WAYMARK_MAP and an unreachable database (none is needed). */
const waymark = (...args: string[]) =>
  execFileP(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), ...args], {
    env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', WAYMARK_MAP: mapDir },
    maxBuffer: 256 << 20,
  });
/** The exit code and stderr of a run that must fail. */
const failing = async (...args: string[]): Promise<{ code: number; stderr: string }> => {
  try {
    await waymark(...args);
  } catch (err: any) {
    return { code: err.code, stderr: err.stderr };
  }
  throw new Error('expected the command to fail');
};
const file = async (name: string, body: unknown) => {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(body));
  return path;
};
const tenths = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
const THREE = [PLACES.vaduz, PLACES.schaanPost, PLACES.balzers].map(({ latitude, longitude }) => ({ latitude, longitude }));
const OFF_ROAD = { latitude: 47.3, longitude: 9.8 };

beforeAll(async () => {
  mapDir = await testMapDir();
  dir = await mkdtemp(join(tmpdir(), 'waymark-reach-'));
  await loadMap(mapDir, ['driving-car']);
});
afterAll(closePool);

describe('waymark matrix', () => {
  it("answers 3 Liechtenstein points all to all with the engine's matrix, in tenths, snapped points named", async () => {
    const { stdout } = await waymark('matrix', await file('three.json', { sources: THREE }));
    const out = JSON.parse(stdout);
    const m = await matrix({ profile: 'driving-car', points: THREE.map((p) => ({ lat: p.latitude, lon: p.longitude })) });
    expect(out.profile).toBe('driving-car');
    expect(out.durations).toEqual(m.durations.map((r) => r.map(tenths)));
    expect(out.distances).toEqual(m.distances.map((r) => r.map(tenths)));
    expect(out.durations[0][0]).toBe(0);
    expect(out.durations[0][1]).toBeGreaterThan(60);
    expect(out.sources).toHaveLength(3);
    out.sources.forEach((s: any, i: number) => {
      expect(s.location).toEqual({ latitude: Math.round(m.snapped[i].lat * 1e6) / 1e6, longitude: Math.round(m.snapped[i].lon * 1e6) / 1e6 });
      expect(s.snapped_distance).toBe(Math.round(m.offsets[i] * 10) / 10);
      expect(s.snapped_distance).toBeLessThan(500);
      expect(s.poi_id).toBeNull();
    });
    expect(out.sources[0].name).toBe('Kirchstrasse');
    expect(out.destinations).toEqual(out.sources);
  });

  it('answers sources × destinations, only the annotations asked for, to -o', async () => {
    const out = join(dir, 'rect.out.json');
    await waymark('matrix', await file('rect.json', { sources: THREE.slice(0, 2), destinations: THREE, annotations: ['distance'] }), '-o', out);
    const answer = JSON.parse(await readFile(out, 'utf8'));
    const at = (ps: typeof THREE) => ps.map((p) => ({ lat: p.latitude, lon: p.longitude }));
    const m = await matrix({ profile: 'driving-car', points: at(THREE.slice(0, 2)), targets: at(THREE) });
    expect(answer.durations).toBeUndefined();
    expect(answer.distances).toEqual(m.distances.map((r) => r.map(tenths)));
    expect(answer.sources).toHaveLength(2);
    expect(answer.destinations).toHaveLength(3);
    expect(answer.destinations[2].name).toBe('Fabrikstrasse');
  });

  it('answers a matrix of more than 400,000 cells by pieces of rows, with progress on stderr, equal to one call', async () => {
    const points = await roadPoints(mapDir, 640, 3);
    const { stdout, stderr } = await waymark('matrix', await file('big.json', { sources: points }));
    expect(stderr).toMatch(/matrix 98% \(625 of 640 rows/);
    expect(stderr).toMatch(/matrix 100% \(640 of 640 rows/);
    const out = JSON.parse(stdout);
    expect(out.durations).toHaveLength(640);
    expect(out.durations.every((r: unknown[], i: number) => r.length === 640 && r[i] === 0)).toBe(true);
    // A sample across both pieces against the engine's matrix of the same points in one call.
    const sample = [0, 1, 300, 624, 625, 639];
    const m = await matrix({ profile: 'driving-car', points: sample.map((i) => ({ lat: points[i].latitude, lon: points[i].longitude })) });
    const pick = (rows: Array<Array<number | null>>) => sample.map((i) => sample.map((j) => rows[i][j]));
    expect(pick(out.durations)).toEqual(m.durations.map((r) => r.map(tenths)));
    expect(pick(out.distances)).toEqual(m.distances.map((r) => r.map(tenths)));
    expect(sample.map((i) => out.destinations[i])).toEqual(sample.map((i) => out.sources[i]));
  });

  it('exits 2 naming every bad field of the file (coordinates only: no poi_id, no avoid)', async () => {
    const bad = await file('bad.json', {
      profile: 'driving-tank',
      sources: [THREE[0], { latitude: 147, longitude: 9.5 }, THREE[1], { poi_id: '01J0000000000000000000000' }],
      avoid: { category_name: 'Fuel' },
    });
    const { code, stderr } = await failing('matrix', bad);
    expect(code).toBe(2);
    expect(stderr).toMatch(/profile: must be one of driving-car/);
    expect(stderr).toMatch(/sources\.1\.latitude: must be between -90 and 90/);
    expect(stderr).toMatch(/sources\.3\.poi_id: the CLI takes coordinates only/);
    expect(stderr).toMatch(/avoid: not supported by the CLI/);
    expect(stderr).not.toMatch(/sources\.0|sources\.2/);
    expect((await failing('matrix', await file('empty.json', { sources: [] }))).stderr).toMatch(/sources: must be an array of 1 to 2000 locations/);
    expect((await failing('matrix', join(dir, 'missing.json'))).code).toBe(2);
    expect((await failing('matrix')).code).toBe(2);
    expect((await failing('matrix', await file('ok.json', { sources: THREE }), '--map', join(dir, 'nomap'))).stderr).toMatch(/--map: no map directory/);
  });

  it('exits 1 naming the points more than 500 m from a road', async () => {
    const { code, stderr } = await failing('matrix', await file('far.json', { sources: THREE, destinations: [THREE[0], OFF_ROAD] }));
    expect(code).toBe(1);
    expect(stderr).toMatch(/destinations\.1 \(47\.3, 9\.8\) is more than 500 m from a road usable by the driving-car profile/);
    expect(stderr).not.toMatch(/sources\./);
  });
});

describe('waymark isochrone', () => {
  it('answers a GeoJSON FeatureCollection with one growing feature per value asked', async () => {
    const { latitude, longitude } = PLACES.vaduz;
    const { stdout } = await waymark('isochrone', '--latitude', String(latitude), '--longitude', String(longitude), '--range', '300,600');
    const out = JSON.parse(stdout);
    expect(out.type).toBe('FeatureCollection');
    expect(out.features.map((f: any) => f.properties.value)).toEqual([300, 600]);
    for (const f of out.features) {
      expect(f.type).toBe('Feature');
      expect(['Polygon', 'MultiPolygon']).toContain(f.geometry.type);
      expect(f.properties).toMatchObject({ group_index: 0, poi_id: null, range_type: 'time' });
      expect(f.properties.center.latitude).toBeCloseTo(latitude, 3);
      const [w, s, e, n] = f.bbox;
      expect(w <= longitude && longitude <= e && s <= latitude && latitude <= n).toBe(true);
    }
    expect(out.features[1].properties.area).toBeGreaterThan(out.features[0].properties.area);
    expect(out.bbox).toEqual(out.features[1].bbox);
    const bands = JSON.parse(
      (
        await waymark(
          'isochrone',
          '--latitude',
          String(latitude),
          '--longitude',
          String(longitude),
          '--range-type',
          'distance',
          '--range',
          '3000',
          '--interval',
          '1000',
        )
      ).stdout,
    );
    expect(bands.features.map((f: any) => [f.properties.value, f.properties.range_type])).toEqual([
      [1000, 'distance'],
      [2000, 'distance'],
      [3000, 'distance'],
    ]);
  });

  it('exits 2 for a bad flag value, naming the flag, and 1 for a point off the roads', async () => {
    const at = ['--latitude', '47.14', '--longitude', '9.52'];
    for (const [args, message] of [
      [['--latitude', '95', '--longitude', '9.52'], /--latitude must be between -90 and 90/],
      [['--latitude', 'north', '--longitude', '9.52'], /--latitude must be a number/],
      [['--longitude', '9.52'], /required option '--latitude <lat>'/],
      [[...at, '--range', '600,4000'], /--range: 4000 \(value 2\) must be at most 3600 seconds/],
      [[...at, '--range', '600,300'], /--range: 300 \(value 2\) must be greater than the value before it/],
      [[...at, '--range-type', 'fuel'], /--range-type <type>' argument 'fuel' is invalid/],
      [[...at, '--profile', 'rocket'], /--profile <profile>' argument 'rocket' is invalid/],
    ] as const) {
      const { code, stderr } = await failing('isochrone', ...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(message);
    }
    const off = await failing('isochrone', '--latitude', String(OFF_ROAD.latitude), '--longitude', String(OFF_ROAD.longitude));
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/the point \(47\.3, 9\.8\) is more than 500 m from a road usable by the driving-car profile/);
  });
});

describe('waymark nearest', () => {
  it("answers the nearest roads, nearest first, as the engine's", async () => {
    const { latitude, longitude } = PLACES.vaduzStaedtle;
    const { stdout } = await waymark('nearest', '--latitude', String(latitude), '--longitude', String(longitude), '--number', '5');
    const out = JSON.parse(stdout);
    expect(out.length).toBeGreaterThan(1);
    expect(out.length).toBeLessThanOrEqual(5);
    const distances = out.map((r: any) => r.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    const roads = await nearest({ profile: 'driving-car', point: { lat: latitude, lon: longitude }, count: 5 });
    expect(distances).toEqual(roads.map((r) => Math.round(r.distance * 10) / 10));
    for (const r of out) expect(Object.keys(r).sort()).toEqual(['bearing', 'distance', 'location', 'name', 'ref']);
    // Far from every road: an empty list (the API's answer), with a note on stderr.
    const far = await waymark('nearest', '--latitude', String(OFF_ROAD.latitude), '--longitude', String(OFF_ROAD.longitude));
    expect(JSON.parse(far.stdout)).toEqual([]);
    expect(far.stderr).toMatch(/no road of the driving-car profile within 500 m/);
  });

  it('exits 2 for a bad --number', async () => {
    for (const n of ['0', '11', 'many']) {
      const { code, stderr } = await failing('nearest', '--latitude', '47.14', '--longitude', '9.52', '--number', n);
      expect(code).toBe(2);
      expect(stderr).toMatch(/--number/);
    }
  });
});
