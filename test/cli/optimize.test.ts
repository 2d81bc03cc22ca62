// `waymark optimize` on VROOM's own example inputs (test/fixtures/vroom) and on a Waymark body routed on
// the Liechtenstein map, each answer read by the independent VROOM-format checker of vroom-check.ts.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.js';
import { testMapDir } from '../geo-api/support.js';
import { roadPoints } from '../optimize-api/support.js';
import { checkVroomOutput } from './vroom-check.js';

const run = promisify(execFile);
const fixture = (name: string) => join(projectRoot, 'test', 'fixtures', 'vroom', name);
const read = (name: string) => JSON.parse(readFileSync(fixture(name), 'utf8'));
/** Runs the CLI without a database (an unreachable DATABASE_URL proves none is needed). */
const optimize = async (...args: string[]) => {
  const env = { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', WAYMARK_MAP: process.env.WAYMARK_MAP ?? '' };
  return run(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'optimize', ...args], { env, maxBuffer: 64 << 20 });
};
const fails = async (...args: string[]): Promise<string> => {
  try {
    await optimize(...args);
  } catch (err: any) {
    expect(err.code).toBe(1);
    return err.stderr as string;
  }
  throw new Error('expected the command to fail');
};

/** Great-circle seconds at `kmh`, rounded as whole seconds per leg. */
const geodesic = (kmh: number) => (a: number[], b: number[]) => {
  const rad = Math.PI / 180, R = 6_371_008.8;
  const h = Math.sin(((b[1] - a[1]) * rad) / 2) ** 2 + Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(((b[0] - a[0]) * rad) / 2) ** 2;
  return Math.round((2 * R * Math.asin(Math.min(1, Math.sqrt(h)))) / ((kmh * 1000) / 3600));
};

describe('waymark optimize', () => {
  it('solves VROOM example 2 (a matrix) with --matrix to the cost of VROOM\'s own solution', async () => {
    const input = read('example_2.json');
    const { stdout, stderr } = await optimize(fixture('example_2.json'), '--matrix');
    const out = JSON.parse(stdout);
    const durations = input.matrices.car.durations;
    checkVroomOutput(input, out, (a, b) => durations[a][b]);
    expect(out.summary.cost).toBe(read('example_2_sol.json').summary.cost);
    expect(out.unassigned).toEqual([]);
    expect(stderr).toMatch(/solving 2 jobs with 1 vehicles/);
    expect(stderr).toMatch(/done: 1 routes, 2 of 2 jobs assigned, cost 5461/);
  });

  it('solves VROOM example 3 (coordinates, capacities, a starting plan) with --speed, to -o', async () => {
    const input = read('example_3.json');
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    const { stdout } = await optimize(fixture('example_3.json'), '--speed', '40', '-o', join(dir, 'out.json'));
    expect(stdout).toBe('');
    const out = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8'));
    checkVroomOutput(input, out, geodesic(40));
    // Two vans of 4 units and six deliveries of 2: two jobs cannot fit; the same file gives the same plan.
    expect(out.summary).toMatchObject({ routes: 2, unassigned: 2, delivery: [8] });
    const again = JSON.parse((await optimize(fixture('example_3.json'), '--speed', '40')).stdout);
    expect(again.routes).toEqual(out.routes);
  });

  it('refuses what it cannot honour, naming the field; --matrix refuses coordinates; --help', async () => {
    expect(await fails(fixture('example_1.json'), '--speed', '40')).toMatch(/example_1\.json: shipments: are not supported/);
    expect(await fails(fixture('example_3.json'), '--matrix')).toMatch(/--matrix: the file gives coordinates and no matrices/);
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    const two = read('example_2.json');
    two.jobs[0].delivery = [1, 2];
    await writeFile(join(dir, 'two.json'), JSON.stringify(two));
    expect(await fails(join(dir, 'two.json'))).toMatch(/jobs\.0\.delivery: has more than one dimension/);
    two.jobs[0].delivery = [1];
    two.jobs[0].location_index = 9;
    await writeFile(join(dir, 'two.json'), JSON.stringify(two));
    expect(await fails(join(dir, 'two.json'))).toMatch(/matrices: 4 rows, but the locations go up to index 9/);
    expect((await optimize('--help')).stdout).toMatch(/Usage: waymark optimize \[options\] <file>[\s\S]*Supported: jobs/);
  });

  it('routes a Waymark body on the road map and answers in VROOM\'s format', async () => {
    const mapDir = await testMapDir();
    const P = await roadPoints(mapDir, 14);
    const body = {
      vehicles: [{ id: 'north', start: P[0], end: P[0], capacity: 6 }, { id: 'south', start: P[1], capacity: 6 }],
      stops: P.slice(2).map((p, i) => ({ ...p, id: `s${i}`, service: 60, ...(i === 3 ? { time_windows: [['2031-03-04T09:00:00Z', '2031-03-04T10:00:00Z']] } : {}) })),
    };
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    await writeFile(join(dir, 'body.json'), JSON.stringify(body));
    const { stdout } = await run(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'optimize', join(dir, 'body.json')], {
      env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', WAYMARK_MAP: mapDir },
    });
    const out = JSON.parse(stdout);
    // Travel times come from the road matrix: the checker takes each leg from the growth of `duration`,
    // and checks the rest (arrivals, windows, loads, totals) against it.
    const legs = new Map<string, number>();
    for (const r of out.routes) r.steps.slice(1).forEach((s: any, k: number) => legs.set(`${r.steps[k].location}|${s.location}`, s.duration - r.steps[k].duration));
    const input = {
      vehicles: [{ id: 0, start: [P[0].longitude, P[0].latitude], end: [P[0].longitude, P[0].latitude], capacity: [6] }, { id: 1, start: [P[1].longitude, P[1].latitude], capacity: [6] }],
      jobs: body.stops.map((s, i) => ({ id: i, location: [s.longitude, s.latitude], service: 60, delivery: [1], ...(i === 3 ? { time_windows: [[Date.parse('2031-03-04T09:00:00Z') / 1000, Date.parse('2031-03-04T10:00:00Z') / 1000]] } : {}) })),
    };
    checkVroomOutput(input, out, (a, b) => legs.get(`${a}|${b}`)!);
    expect(out.summary.unassigned).toBe(0);
    expect(out.summary.distance).toBeGreaterThan(0);
    for (const r of out.routes) expect(['north', 'south']).toContain(r.description);
  });
});
