// `waymark optimize` on VROOM's own example inputs (test/fixtures/vroom) and on a Waymark body routed on
// the Liechtenstein map, each answer read by the independent VROOM-format checker of vroom-check.ts.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/lib/paths.js';
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
  const rad = Math.PI / 180,
    R = 6_371_008.8;
  const h = Math.sin(((b[1] - a[1]) * rad) / 2) ** 2 + Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(((b[0] - a[0]) * rad) / 2) ** 2;
  return Math.round((2 * R * Math.asin(Math.min(1, Math.sqrt(h)))) / ((kmh * 1000) / 3600));
};

describe('waymark optimize', () => {
  it("solves VROOM example 2 (a matrix) with --matrix to the cost of VROOM's own solution", async () => {
    const input = read('example_2.json');
    const { stdout, stderr } = await optimize(fixture('example_2.json'), '--matrix');
    const out = JSON.parse(stdout);
    const durations = input.matrices.car.durations;
    checkVroomOutput(input, out, (a, b) => durations[a][b]);
    expect(out.summary.cost).toBe(read('example_2_sol.json').summary.cost);
    expect(out.unassigned).toEqual([]);
    expect(stderr).toMatch(/solving 2 jobs with 1 vehicles/);
    expect(stderr).toMatch(/done: 1 routes, 2 of 2 jobs assigned, cost 5461/);
    // One task per route, or less travel than both jobs need: one job is left out.
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    // Distances of 10 m per second of travel: a limit of 54,600 m is the same bar as 5,460 s.
    const distances = durations.map((row: number[]) => row.map((x) => 10 * x));
    for (const limit of [{ max_tasks: 1 }, { max_travel_time: 5460 }, { max_distance: 54_600 }]) {
      const limited = { ...input, matrices: { car: { durations, distances } }, vehicles: [{ ...input.vehicles[0], ...limit }] };
      await writeFile(join(dir, 'limited.json'), JSON.stringify(limited));
      const out = JSON.parse((await optimize(join(dir, 'limited.json'), '--matrix')).stdout);
      checkVroomOutput(limited, out, (a, b) => durations[a][b]);
      expect(out.unassigned, JSON.stringify(limit)).toHaveLength(1);
      if ('max_distance' in limit) expect(out.summary.distance).toBeLessThanOrEqual(54_600);
    }
    // A fleet twice as fast: every travel time halved (rounded), the plan's cost with it.
    const fast = { ...input, vehicles: [{ ...input.vehicles[0], speed_factor: 2 }] };
    await writeFile(join(dir, 'fast.json'), JSON.stringify(fast));
    const quick = JSON.parse((await optimize(join(dir, 'fast.json'), '--matrix')).stdout);
    checkVroomOutput(fast, quick, (a, b) => durations[a][b]);
    expect(quick.summary.cost).toBeLessThanOrEqual(Math.ceil(5461 / 2) + 2);
    // Each vehicle at its own speed: the faster one serves both jobs at half the cost.
    const mixed = { ...input, vehicles: [input.vehicles[0], { ...input.vehicles[0], id: 1, speed_factor: 2 }] };
    await writeFile(join(dir, 'mixed.json'), JSON.stringify(mixed));
    const both = JSON.parse((await optimize(join(dir, 'mixed.json'), '--matrix')).stdout);
    checkVroomOutput(mixed, both, (a, b) => durations[a][b]);
    expect(both.routes.map((r: any) => r.vehicle)).toEqual([1]);
    // Unless its km cost more than its hours save (10 m per second of travel: 54.6 km for the tour).
    const priced = {
      ...mixed,
      matrices: { car: { durations, distances } },
      vehicles: [mixed.vehicles[0], { ...mixed.vehicles[1], costs: { per_hour: 3600, per_km: 60 } }],
    };
    await writeFile(join(dir, 'priced.json'), JSON.stringify(priced));
    const dear = JSON.parse((await optimize(join(dir, 'priced.json'), '--matrix')).stdout);
    checkVroomOutput(priced, dear, (a, b) => durations[a][b]);
    expect(dear.routes.map((r: any) => r.vehicle)).toEqual([0]);
    // A cost per km without distances cannot be counted: refused, naming the field.
    const unmetered = { ...mixed, vehicles: [{ ...input.vehicles[0], costs: { per_km: 5 } }] };
    await writeFile(join(dir, 'unmetered.json'), JSON.stringify(unmetered));
    expect(await fails(join(dir, 'unmetered.json'), '--matrix')).toMatch(/vehicles\.0\.costs\.per_km: needs distances/);
    // A distance limit without distances cannot be kept: refused, naming the field.
    const blind = { ...input, vehicles: [{ ...input.vehicles[0], max_distance: 1000 }] };
    await writeFile(join(dir, 'blind.json'), JSON.stringify(blind));
    expect(await fails(join(dir, 'blind.json'), '--matrix')).toMatch(/vehicles\.0\.max_distance: needs distances \(matrices\.car\.distances, or coordinates\)/);
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

  it("plans amounts in two dimensions, the second one splitting the jobs across vehicles, in VROOM's output format", async () => {
    // Four jobs close together, far from the depot. As in VROOM, deliveries ride from the start and
    // pickups to the end: with one pallet place per vehicle the two deliveries cannot leave together,
    // so each vehicle delivers one and picks one up on the way back.
    const near = [
      [0, 900, 905, 910, 915],
      [900, 0, 5, 10, 15],
      [905, 5, 0, 5, 10],
      [910, 10, 5, 0, 5],
      [915, 15, 10, 5, 0],
    ];
    const input = {
      vehicles: [
        { id: 7, start_index: 0, end_index: 0, capacity: [100, 1] },
        { id: 8, start_index: 0, end_index: 0, capacity: [100, 1] },
      ],
      jobs: [
        { id: 1, location_index: 1, delivery: [10, 1] },
        { id: 2, location_index: 2, delivery: [10, 1] },
        { id: 3, location_index: 3, pickup: [5, 1] },
        { id: 4, location_index: 4, delivery: [1, 0], pickup: [0, 1] },
      ],
      matrices: { car: { durations: near } },
    };
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    await writeFile(join(dir, 'dims.json'), JSON.stringify(input));
    const out = JSON.parse((await optimize(join(dir, 'dims.json'), '--matrix', '--time-budget', '5')).stdout);
    checkVroomOutput(input, out, (a, b) => near[a][b]);
    expect(out.unassigned).toEqual([]);
    expect(out.routes.map((r: any) => r.steps.length)).toEqual([4, 4]);
    expect(out.summary).toMatchObject({ delivery: [21, 2], amount: [21, 2], pickup: [5, 2] });
    // With two pallet places one vehicle takes them all: the pickups after a delivery has made room
    // (summed from the start, as before, the four pallets would need both vehicles).
    input.vehicles.forEach((v) => (v.capacity = [100, 2]));
    await writeFile(join(dir, 'dims.json'), JSON.stringify(input));
    const one = JSON.parse((await optimize(join(dir, 'dims.json'), '--matrix', '--time-budget', '5')).stdout);
    checkVroomOutput(input, one, (a, b) => near[a][b]);
    expect(one.routes.length).toBe(1);
    expect(one.routes[0].steps[1]).toMatchObject({ type: 'job', load: [expect.any(Number), 1] });
    // A vehicle without a capacity beside capacitated ones carries nothing, as in VROOM: only the
    // capacitated one serves the jobs (with one pallet place: a delivery, then one pickup; two stay out).
    const mixed = {
      ...input,
      vehicles: [
        { id: 7, start_index: 0, end_index: 0 },
        { id: 8, start_index: 0, end_index: 0, capacity: [100, 1] },
      ],
    };
    await writeFile(join(dir, 'dims.json'), JSON.stringify(mixed));
    const zero = JSON.parse((await optimize(join(dir, 'dims.json'), '--matrix', '--time-budget', '5')).stdout);
    checkVroomOutput(mixed, zero, (a, b) => near[a][b]);
    expect(zero.routes.map((r: any) => r.vehicle)).toEqual([8]);
    expect(zero.unassigned).toHaveLength(2);
  });

  it('solves VROOM example 1 (a shipment, skills, time windows, a break) with --speed', async () => {
    const input = read('example_1.json');
    const { stdout, stderr } = await optimize(fixture('example_1.json'), '--speed', '50');
    const out = JSON.parse(stdout);
    checkVroomOutput(input, out, geodesic(50));
    expect(stderr).not.toMatch(/warning/);
    // Vehicle 2's break is taken inside its window (checkVroomOutput holds it to it).
    expect(
      out.routes
        .find((r: any) => r.vehicle === 2)
        .steps.filter((s: any) => s.type === 'break')
        .map((s: any) => s.id),
    ).toEqual([2]);
    expect(stderr).toMatch(/solving 4 jobs and 1 shipments with 2 vehicles/);
    expect(stderr).toMatch(/done: 2 routes, 6 of 6 stops assigned/);
    // As in VROOM's own solution: the shipment (skill 2) rides with vehicle 2, picked up, then delivered.
    const second = out.routes.find((r: any) => r.vehicle === 2);
    expect(second.steps.map((s: any) => `${s.type} ${s.id ?? ''}`.trim())).toEqual(expect.arrayContaining(['pickup 4', 'delivery 3']));
    expect(out.summary).toMatchObject({ unassigned: 0, delivery: [4], pickup: [2] });
    // At 40 km/h the four hours of vehicle 2 cannot hold the shipment and job 6 together: one of them is
    // left out, the shipment as both its stops.
    const slow = JSON.parse((await optimize(fixture('example_1.json'), '--speed', '40')).stdout);
    checkVroomOutput(input, slow, geodesic(40));
    expect(slow.unassigned.length).toBeGreaterThan(0);
    // max_load [0]: vehicle 2 takes its break only when empty, never with the shipment or job 6 on board.
    const empty = read('example_1.json');
    empty.vehicles[1].breaks[0].max_load = [0];
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    await writeFile(join(dir, 'empty.json'), JSON.stringify(empty));
    const light = JSON.parse((await optimize(join(dir, 'empty.json'), '--speed', '50')).stdout);
    checkVroomOutput(empty, light, geodesic(50));
    const breaks = light.routes.flatMap((r: any) => r.steps.filter((s: any) => s.type === 'break'));
    expect(breaks.map((s: any) => [s.id, s.load])).toEqual([[2, [0]]]);
  });

  it('refuses what it cannot honour, naming the field; --matrix refuses coordinates; --help', async () => {
    const one = read('example_1.json');
    one.shipments[0].pickup.id = 1;
    one.shipments.push(structuredClone(one.shipments[0]));
    const dir1 = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    await writeFile(join(dir1, 'one.json'), JSON.stringify(one));
    expect(await fails(join(dir1, 'one.json'), '--speed', '50')).toMatch(/one\.json: shipments\.1\.pickup\.id: 1 is the id of an earlier pickup/);
    one.shipments.pop();
    one.shipments[0].amount = [1, 1];
    await writeFile(join(dir1, 'one.json'), JSON.stringify(one));
    expect(await fails(join(dir1, 'one.json'), '--speed', '50')).toMatch(/shipments\.0\.amount: has 2 amounts, but vehicles\.0\.capacity has 1/);
    expect(await fails(fixture('example_3.json'), '--matrix')).toMatch(/--matrix: the file gives coordinates and no matrices/);
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    const two = read('example_2.json');
    two.vehicles[0].capacity = [3];
    two.jobs[0].delivery = [1, 2];
    await writeFile(join(dir, 'two.json'), JSON.stringify(two));
    expect(await fails(join(dir, 'two.json'))).toMatch(/jobs\.0\.delivery: has 2 amounts, but vehicles\.0\.capacity has 1/);
    two.jobs[0].delivery = [1];
    two.jobs[0].location_index = 9;
    await writeFile(join(dir, 'two.json'), JSON.stringify(two));
    expect(await fails(join(dir, 'two.json'))).toMatch(/matrices: 4 rows, but the locations go up to index 9/);
    expect((await optimize('--help')).stdout).toMatch(/Usage: waymark optimize \[options\] <file>[\s\S]*Supported: jobs/);
  });

  it('reads a Waymark batch body with amounts in two dimensions, a stop without demand carrying 1 in each', async () => {
    const at = (lon: number, lat: number) => ({ longitude: lon, latitude: lat });
    const body = {
      vehicles: [
        { id: 'a', start: at(9.52, 47.14), end: at(9.52, 47.14), capacity: [50, 2] },
        { id: 'b', start: at(9.52, 47.14), capacity: [50, 2] },
      ],
      stops: [at(9.51, 47.16), at(9.512, 47.161), at(9.514, 47.162)].map((p, i) => ({ ...p, id: `s${i}`, ...(i < 2 ? { demand: [5 + i, 1] } : {}) })),
    };
    const dir = await mkdtemp(join(tmpdir(), 'waymark-optimize-'));
    await writeFile(join(dir, 'body.json'), JSON.stringify(body));
    const out = JSON.parse((await optimize(join(dir, 'body.json'), '--speed', '30')).stdout);
    const input = {
      vehicles: body.vehicles.map((v, i) => ({
        id: i,
        start: [v.start.longitude, v.start.latitude],
        ...(v.end ? { end: [v.end.longitude, v.end.latitude] } : {}),
        capacity: v.capacity,
      })),
      jobs: body.stops.map((s, i) => ({ id: i, location: [s.longitude, s.latitude], delivery: s.demand ?? [1, 1] })),
    };
    checkVroomOutput(input, out, geodesic(30));
    expect(out.summary).toMatchObject({ unassigned: 0, routes: 2, delivery: [12, 3] });
    body.stops[1].demand = [6];
    await writeFile(join(dir, 'body.json'), JSON.stringify(body));
    expect(await fails(join(dir, 'body.json'), '--speed', '30')).toMatch(/stops\.1\.demand: must have 2 amounts, like the vehicles' capacities/);
  });

  it("routes a Waymark body on the road map and answers in VROOM's format", async () => {
    const mapDir = await testMapDir();
    const P = await roadPoints(mapDir, 14);
    const body = {
      vehicles: [
        { id: 'north', start: P[0], end: P[0], capacity: 6 },
        { id: 'south', start: P[1], capacity: 6 },
      ],
      stops: P.slice(2).map((p, i) => ({
        ...p,
        id: `s${i}`,
        service: 60,
        ...(i === 3 ? { time_windows: [['2031-03-04T09:00:00Z', '2031-03-04T10:00:00Z']] } : {}),
      })),
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
    for (const r of out.routes)
      r.steps.slice(1).forEach((s: any, k: number) => legs.set(`${r.steps[k].location}|${s.location}`, s.duration - r.steps[k].duration));
    const input = {
      vehicles: [
        { id: 0, start: [P[0].longitude, P[0].latitude], end: [P[0].longitude, P[0].latitude], capacity: [6] },
        { id: 1, start: [P[1].longitude, P[1].latitude], capacity: [6] },
      ],
      jobs: body.stops.map((s, i) => ({
        id: i,
        location: [s.longitude, s.latitude],
        service: 60,
        delivery: [1],
        ...(i === 3 ? { time_windows: [[Date.parse('2031-03-04T09:00:00Z') / 1000, Date.parse('2031-03-04T10:00:00Z') / 1000]] } : {}),
      })),
    };
    checkVroomOutput(input, out, (a, b) => legs.get(`${a}|${b}`)!);
    expect(out.summary.unassigned).toBe(0);
    expect(out.summary.distance).toBeGreaterThan(0);
    for (const r of out.routes) expect(['north', 'south']).toContain(r.description);
  });
});
