import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { closePool, runTask } from '../../src/compute/pool.js';
import { KERNEL_LAYOUTS, writeRecord } from '../../src/lib/kernel-records.js';
import { instantiate } from '../../src/lib/wasm.js';
import { distPath, projectRoot } from '../../src/lib/paths.js';
import { scheduleRoute } from '../../src/engine/vrp/schedule.js';
import { solveVrp, unassignedReason } from '../../src/engine/vrp/solver.js';
import { applyBreaks, placeBreaks } from '../../src/engine/vrp/breaks.js';
import type { VrpJob, VrpProblem, VrpSolution, VrpVehicle } from '../../src/engine/vrp/solver.js';

afterAll(closePool);

// ---------- independent checker: re-derives every rule from the problem, trusts nothing but the job order ----------
function checkPlan(p: VrpProblem, sol: VrpSolution): string[] {
  const errs: string[] = [];
  const n = p.durations instanceof Int32Array ? Math.sqrt(p.durations.length) : p.durations.length;
  const base = (a: number, b: number) => (p.durations instanceof Int32Array ? p.durations[a * n + b] : (p.durations as number[][])[a][b]);
  const meters = (a: number, b: number) => (p.distances ? (p.distances as number[][])[a][b] : 0);
  const capacitated = p.vehicles.some((v) => v.capacity != null);
  const units = (a: number | readonly number[]) => (typeof a === 'number' ? [a] : [...a]);
  const dims = Math.max(
    1,
    ...p.vehicles.map((v) => (v.capacity == null ? 1 : units(v.capacity).length)),
    ...p.jobs.map((j) => (j.demand === undefined ? 1 : units(j.demand).length)),
    ...p.jobs.map((j) => (j.pickup === undefined ? 1 : units(j.pickup).length)),
    ...(p.shipments ?? []).map((s) => (s.amount === undefined ? 1 : units(s.amount).length)),
  );
  // A shipment's amount comes on at its pickup and leaves at its delivery.
  const change = new Map<number, number[]>();
  for (const s of p.shipments ?? []) {
    const amount = s.amount === undefined ? new Array<number>(dims).fill(0) : units(s.amount);
    change.set(s.pickup, amount);
    change.set(
      s.delivery,
      amount.map((x) => -x),
    );
  }
  const where = new Map<number, [number, number]>();
  const deliveryOf = (job: VrpJob) => (job.demand === undefined ? new Array<number>(dims).fill(1) : units(job.demand));
  const pickupOf = (job: VrpJob) => (job.pickup === undefined ? new Array<number>(dims).fill(0) : units(job.pickup));
  const seen = new Map<number, number>();
  let total = 0;
  const vehiclesUsed = new Set<number>();
  for (const route of sol.routes) {
    const v = p.vehicles[route.vehicle];
    // The vehicle's own travel times: each leg of the matrix divided by its speed factor, to the nearest second.
    const d = (a: number, b: number) => Math.round(base(a, b) / (v.speedFactor ?? 1));
    if (vehiclesUsed.has(route.vehicle)) errs.push(`vehicle ${route.vehicle} has two routes`);
    if (!route.feasible) errs.push(`vehicle ${route.vehicle} reported infeasible: ${route.violation}`);
    vehiclesUsed.add(route.vehicle);
    const [hs, he] = v.hours ?? [0, Infinity];
    const open = v.end == null || v.end < 0;
    if (route.start < hs) errs.push(`vehicle ${route.vehicle} leaves before its hours`);
    let t = route.start;
    let at = v.start;
    // Deliveries leave the start on board; each stop takes its delivery off and its pickup on.
    const load = new Array<number>(dims).fill(0);
    for (const j of route.jobs) deliveryOf(p.jobs[j]).forEach((x, k) => (load[k] += x));
    const loads = [[...load]];
    let travel = 0;
    route.jobs.forEach((j, i) => {
      seen.set(j, (seen.get(j) ?? 0) + 1);
      const job = p.jobs[j];
      for (const s of job.skills ?? []) if (!(v.skills ?? []).includes(s)) errs.push(`job ${j} needs ${s}`);
      const arrival = t + d(at, job.location);
      travel += d(at, job.location);
      if (route.arrivals[i] !== arrival) errs.push(`job ${j}: arrival ${route.arrivals[i]} != ${arrival}`);
      const begin = arrival + route.waits[i];
      if (route.waits[i] < 0) errs.push(`job ${j}: negative wait`);
      const ws = job.timeWindows ?? [];
      if (ws.length > 0) {
        if (!ws.some(([s, e]) => s <= begin && begin <= e && arrival <= e)) errs.push(`job ${j}: service at ${begin} outside windows`);
        if (route.waits[i] > 0 && (ws.some(([s, e]) => s <= arrival && arrival <= e) || !ws.some(([s]) => s === begin))) errs.push(`job ${j}: needless wait`);
      } else if (route.waits[i] !== 0) errs.push(`job ${j}: waits without windows`);
      const departure = begin + (job.service ?? 0);
      if (route.departures[i] !== departure) errs.push(`job ${j}: departure ${route.departures[i]} != ${departure}`);
      if (departure > he) errs.push(`job ${j} served past the hours`);
      if (i === 0 && route.waits[0] !== 0) errs.push(`job ${j}: waits at the first stop instead of leaving later`);
      t = departure;
      at = job.location;
      where.set(j, [route.vehicle, i]);
      const pickup = change.get(j) ?? pickupOf(job);
      deliveryOf(job).forEach((x, k) => (load[k] += pickup[k] - x));
      loads.push([...load]);
    });
    if (!open) {
      travel += d(at, v.end as number);
      t += d(at, v.end as number);
      if (route.end !== t) errs.push(`vehicle ${route.vehicle}: end ${route.end} != ${t}`);
    } else if (route.end !== route.arrivals[route.arrivals.length - 1]) errs.push(`vehicle ${route.vehicle}: open end is not the last arrival`);
    if (route.end > he) errs.push(`vehicle ${route.vehicle} ends after hours`);
    for (const [i, l] of loads.entries())
      if (capacitated && v.capacity != null && units(v.capacity).some((c, k) => l[k] > c))
        errs.push(`vehicle ${route.vehicle} overloaded after stop ${i}: ${l} > ${v.capacity}`);
    if (capacitated && JSON.stringify([route.initialLoad, ...route.loads]) !== JSON.stringify(loads))
      errs.push(`vehicle ${route.vehicle}: loads ${JSON.stringify([route.initialLoad, ...route.loads])} for ${JSON.stringify(loads)}`);
    if (route.duration !== travel) errs.push(`vehicle ${route.vehicle}: duration ${route.duration} != ${travel}`);
    if (v.maxJobs != null && route.jobs.length > v.maxJobs) errs.push(`vehicle ${route.vehicle}: ${route.jobs.length} jobs > ${v.maxJobs}`);
    if (v.maxTravel != null && travel > v.maxTravel) errs.push(`vehicle ${route.vehicle}: travel ${travel} > ${v.maxTravel}`);
    const places = [v.start, ...route.jobs.map((j) => p.jobs[j].location), ...(open ? [] : [v.end as number])];
    const covered = places.slice(1).reduce((a, to, i) => a + meters(places[i], to), 0);
    if (v.maxDistance != null && covered > v.maxDistance) errs.push(`vehicle ${route.vehicle}: ${covered} m > ${v.maxDistance}`);
    // VROOM's cost: fixed + per_hour × hours + per_km × km of the vehicle's own travel.
    total += (v.fixed ?? 0) + ((v.perHour ?? 3600) * travel) / 3600 + ((v.perKm ?? 0) * covered) / 1000;
  }
  for (const [j, c] of seen) if (c > 1) errs.push(`job ${j} served ${c} times`);
  for (const [k, s] of (p.shipments ?? []).entries()) {
    const [a, b] = [where.get(s.pickup), where.get(s.delivery)];
    if (!a !== !b) errs.push(`shipment ${k}: only one of its stops is served`);
    else if (a && b && (a[0] !== b[0] || a[1] > b[1])) errs.push(`shipment ${k}: delivered before its pickup or by another vehicle`);
  }
  for (const j of sol.unassigned) if (seen.has(j)) errs.push(`job ${j} both served and unassigned`);
  if (seen.size + sol.unassigned.length !== p.jobs.length) errs.push('jobs missing from the plan');
  if (Math.abs(sol.cost - total) > 1e-6 * Math.max(1, total)) errs.push(`cost ${sol.cost} != ${total}`);
  return errs;
}

/** Euclidean matrix (rounded up, so the triangle inequality holds within 1 s) over points. */
function matrix(points: Array<[number, number]>): number[][] {
  return points.map(([x1, y1]) => points.map(([x2, y2]) => Math.ceil(Math.hypot(x1 - x2, y1 - y2))));
}

function solveChecked(p: VrpProblem, opts = { iterations: 3000, timeLimitMs: 60_000 }): VrpSolution {
  const sol = solveVrp(p, opts);
  expect(checkPlan(p, sol)).toEqual([]);
  return sol;
}

// ---------- small hand-made cases ----------
describe('solveVrp on hand-made problems', () => {
  const line = matrix([
    [0, 0],
    [10, 0],
    [20, 0],
    [30, 0],
    [1000, 0],
  ]);

  it('serves everything it can and explains each job left out, reason by reason', () => {
    const p: VrpProblem = {
      durations: line,
      vehicles: [
        { start: 0, end: 0, capacity: 5, hours: [0, 500], skills: ['cold'] },
        { start: 0, end: 0, capacity: 3, hours: [0, 500] },
      ],
      jobs: [
        { location: 1, demand: 2 },
        { location: 2, demand: 10 }, // too heavy for both
        { location: 3, demand: 1, skills: ['hazmat'] }, // nobody has it
        { location: 1, demand: 1, timeWindows: [[600, 700]] }, // after everyone's hours
        { location: 4, demand: 1, timeWindows: [[0, 200]] }, // 1000 s away
      ],
    };
    const sol = solveChecked(p);
    expect(sol.unassigned).toEqual([1, 2, 3, 4]);
    expect(sol.unassigned.map((j) => unassignedReason(p.jobs[j], p))).toEqual([
      'demand exceeds every capacity',
      'no vehicle has the required skills',
      "time windows fall outside every vehicle's working hours",
      'no vehicle can reach it in time with the capacity and hours left',
    ]);
  });

  it('lets a vehicle without capacity carry any amount, and ignores demand when nobody has a capacity', () => {
    const withUnlimited: VrpProblem = {
      durations: line,
      vehicles: [
        { start: 0, end: 0, capacity: 2 },
        { start: 0, end: 0 },
      ],
      jobs: [{ location: 1, demand: 50 }],
    };
    const a = solveChecked(withUnlimited);
    expect(a.unassigned).toEqual([]);
    expect(a.routes[0].vehicle).toBe(1);
    expect(unassignedReason(withUnlimited.jobs[0], withUnlimited)).not.toBe('demand exceeds every capacity');
    const noCapacities: VrpProblem = {
      durations: line,
      vehicles: [{ start: 0 }],
      jobs: [
        { location: 1, demand: 99 },
        { location: 2, demand: 99 },
      ],
    };
    expect(solveChecked(noCapacities).unassigned).toEqual([]);
  });

  it('leaves a job out when the capacity left is too small, with the reach reason', () => {
    const p: VrpProblem = {
      durations: line,
      vehicles: [{ start: 0, end: 0, capacity: 4 }],
      jobs: [
        { location: 1, demand: 3 },
        { location: 2, demand: 3 },
      ],
    };
    const sol = solveChecked(p);
    expect(sol.unassigned).toHaveLength(1);
    expect(unassignedReason(p.jobs[sol.unassigned[0]], p)).toBe('no vehicle can reach it in time with the capacity and hours left');
  });

  it('ends open routes at the last stop and closed ones back at their end', () => {
    const jobs: VrpJob[] = [{ location: 2 }, { location: 1 }, { location: 3 }];
    const open = solveChecked({ durations: line, vehicles: [{ start: 0 }], jobs });
    expect(open.routes[0].jobs).toEqual([1, 0, 2]);
    expect(open.cost).toBe(30);
    expect(open.routes[0].end).toBe(30);
    const closed = solveChecked({ durations: line, vehicles: [{ start: 0, end: 0 }], jobs });
    expect(closed.cost).toBe(60);
    expect(closed.routes[0].end).toBe(60);
    // An open route only needs to reach its last stop within the hours, a closed one its end.
    const tight: VrpVehicle = { start: 0, hours: [0, 30] };
    expect(solveChecked({ durations: line, vehicles: [tight], jobs }).unassigned).toEqual([]);
    expect(solveChecked({ durations: line, vehicles: [{ ...tight, end: 0 }], jobs }).unassigned).toEqual([0, 2]);
  });

  it('gives each job to a vehicle with all its skills', () => {
    const p: VrpProblem = {
      durations: line,
      vehicles: [
        { start: 0, end: 0, skills: ['cold'] },
        { start: 3, end: 3, skills: ['lift', 'cold'] },
        { start: 0, end: 0 },
      ],
      jobs: [
        { location: 1, skills: ['lift'] }, // only vehicle 1, although vehicle 0 is closer
        { location: 3, skills: ['cold'] },
        { location: 1 },
      ],
    };
    const sol = solveChecked(p);
    expect(sol.unassigned).toEqual([]);
    const byJob = new Map(sol.routes.flatMap((r) => r.jobs.map((j) => [j, r.vehicle] as const)));
    expect(byJob.get(0)).toBe(1);
    expect([0, 1]).toContain(byJob.get(1));
  });

  it('supports more than 64 skills', () => {
    const skills = Array.from({ length: 80 }, (_, i) => `s${i}`);
    const p: VrpProblem = {
      durations: line,
      vehicles: [
        { start: 0, end: 0, skills: skills.slice(0, 79) },
        { start: 0, end: 0, skills: skills.slice(1) },
      ],
      jobs: [
        { location: 1, skills: ['s79'] },
        { location: 2, skills: ['s0'] },
        { location: 3, skills: ['s0', 's79'] },
      ],
    };
    const sol = solveChecked(p);
    const byJob = new Map(sol.routes.flatMap((r) => r.jobs.map((j) => [j, r.vehicle] as const)));
    expect(byJob.get(0)).toBe(1);
    expect(byJob.get(1)).toBe(0);
    expect(sol.unassigned).toEqual([2]);
    expect(unassignedReason(p.jobs[2], p)).toBe('no vehicle has the required skills');
  });

  it('picks the earliest window still open among five, and waits for it', () => {
    // Job 0 must come first (its window closes at 10); job 1 is then reached at 10 + 5 + 20 = 35.
    const d = matrix([
      [0, 0],
      [10, 0],
      [10, 20],
    ]);
    const p: VrpProblem = {
      durations: d,
      vehicles: [{ start: 0, end: 0, hours: [0, 1000] }],
      jobs: [
        { location: 1, service: 5, timeWindows: [[10, 10]] },
        {
          location: 2,
          service: 3,
          timeWindows: [
            [80, 90],
            [0, 10],
            [40, 50],
            [20, 30],
            [60, 70],
          ],
        },
      ],
    };
    const sol = solveChecked(p);
    const r = sol.routes[0];
    expect(r.jobs).toEqual([0, 1]);
    expect(r.arrivals).toEqual([10, 35]);
    expect(r.waits).toEqual([0, 5]);
    expect(r.departures).toEqual([15, 43]);
    expect(r.waiting).toBe(5);
    expect(r.end).toBe(43 + 23);
  });

  it('delays the departure instead of waiting at the first stop', () => {
    const p: VrpProblem = { durations: line, vehicles: [{ start: 0, end: 0, hours: [0, 1000] }], jobs: [{ location: 1, timeWindows: [[100, 200]] }] };
    const r = solveChecked(p).routes[0];
    expect(r.start).toBe(90);
    expect(r.arrivals).toEqual([100]);
    expect(r.waits).toEqual([0]);
  });

  it('reports the times of a one-stop open route after the later departure', () => {
    const p: VrpProblem = { durations: line, vehicles: [{ start: 0, hours: [0, 1000] }], jobs: [{ location: 1, service: 7, timeWindows: [[100, 200]] }] };
    const r = solveChecked(p).routes[0];
    expect([r.start, r.arrivals, r.waits, r.departures, r.end]).toEqual([90, [100], [0], [107], 100]);
    expect(scheduleRoute(p, 0, [0]).end).toBe(100);
  });

  it('finishes every service within the working hours instead of waiting past their end', () => {
    const vehicles: VrpVehicle[] = [{ start: 0, hours: [0, 100] }];
    const jobs: VrpJob[] = [
      { location: 1, timeWindows: [[150, 300]] }, // opens after the hours: no overnight wait
      { location: 2, service: 20, timeWindows: [[90, 300]] }, // opens in time, but the service would end at 110
      {
        location: 3,
        service: 10,
        timeWindows: [
          [10, 20],
          [90, 300],
        ],
      }, // only the second window is reachable: done at 100
    ];
    const p: VrpProblem = { durations: line, vehicles, jobs };
    const sol = solveChecked(p);
    expect(sol.unassigned).toEqual([0, 1]);
    expect(sol.unassigned.map((j) => unassignedReason(p.jobs[j], p))).toEqual([
      "time windows fall outside every vehicle's working hours",
      "time windows fall outside every vehicle's working hours",
    ]);
    const r = sol.routes[0];
    expect([r.start, r.arrivals, r.departures, r.end]).toEqual([60, [90], [100], 90]);
    expect(scheduleRoute(p, 0, [0]).violation).toMatch(/job 0 is served past the working hours/);
    expect(scheduleRoute(p, 0, [1]).violation).toMatch(/job 1 is served past the working hours/);
    // Closed, the same stop also needs the 30 s drive back within the hours; the windows are not to blame.
    const closed: VrpProblem = { durations: line, vehicles: [{ ...vehicles[0], end: 0 }], jobs: [jobs[2]] };
    expect(solveChecked(closed).unassigned).toEqual([0]);
    expect(scheduleRoute(closed, 0, [0]).violation).toMatch(/end is reached after the working hours/);
    expect(unassignedReason(closed.jobs[0], closed)).toBe('no vehicle can reach it in time with the capacity and hours left');
  });

  it('gives a late stop to the vehicle whose hours cover its service', () => {
    const p: VrpProblem = {
      durations: line,
      vehicles: [
        { start: 0, hours: [0, 200] },
        { start: 0, hours: [0, 400] },
      ],
      jobs: [
        { location: 1, service: 50, timeWindows: [[180, 300]] },
        { location: 2, service: 50, timeWindows: [[100, 150]] },
      ],
    };
    const sol = solveChecked(p);
    expect(sol.unassigned).toEqual([]);
    expect(sol.routes.find((r) => r.jobs.includes(0))?.vehicle).toBe(1);
    // Without the long day, the late stop has no window that leaves time for its service.
    const short = { ...p, vehicles: [p.vehicles[0]] };
    expect(solveChecked(short).unassigned).toEqual([0]);
    expect(unassignedReason(p.jobs[0], short)).toBe("time windows fall outside every vehicle's working hours");
  });

  it('reads priorities and a warm start from the problem record', () => {
    // One job per route: the far job with a priority is served, not the near one that costs less.
    const one: VrpVehicle = { start: 0, end: 0, maxJobs: 1 };
    const jobs: VrpJob[] = [{ location: 1 }, { location: 4 }];
    expect(solveChecked({ durations: line, vehicles: [one], jobs }).routes.map((r) => r.jobs)).toEqual([[0]]);
    expect(solveChecked({ durations: line, vehicles: [one], jobs: [jobs[0], { ...jobs[1], priority: 10 }] }).routes.map((r) => r.jobs)).toEqual([[1]]);
    // A warm start and no iterations: the given route on the given vehicle (a cold start uses the first), the
    // job it misses put at the first place where it adds nothing (out to job 2 past job 1's place on the line).
    const p: VrpProblem = {
      durations: line,
      vehicles: [
        { start: 0, end: 0 },
        { start: 0, end: 0 },
      ],
      jobs: [{ location: 1 }, { location: 2 }, { location: 3 }],
    };
    const warm = solveVrp(p, { iterations: 0, timeLimitMs: 60_000, warmStart: [{ vehicle: 1, jobs: [2, 0] }] });
    expect(checkPlan(p, warm)).toEqual([]);
    expect(warm.routes.map((r) => [r.vehicle, r.jobs])).toEqual([[1, [1, 2, 0]]]);
    expect(solveVrp(p, { iterations: 0, timeLimitMs: 60_000 }).routes.map((r) => r.vehicle)).toEqual([0]);
  });

  it('is deterministic for a given seed and iteration budget', () => {
    const p = randomProblem(7, 60);
    const a = solveVrp(p, { iterations: 1500, timeLimitMs: 60_000, seed: 3 });
    const b = solveVrp(p, { iterations: 1500, timeLimitMs: 60_000, seed: 3 });
    expect(b).toEqual(a);
    expect(a.iterations).toBe(1500);
  });

  it('gives the same plan on a fresh kernel as on a warm one when the iteration cap ends the search', async () => {
    // A new thread compiles and instantiates the kernel anew, so its first solve runs on cold (baseline)
    // code with a slower construction; the time limit is far away but not out of reach of the schedule.
    // 10 s: the checked kernel build on a loaded host did 502–3,264 of the 4,000 iterations in 1 s.
    const p = randomProblem(11, 120);
    const options = { iterations: 4000, timeLimitMs: 10_000, seed: 5 };
    const cold = await solveInFreshThread(p, options);
    solveVrp(randomProblem(12, 40), { iterations: 500 });
    const warm = solveVrp(p, options);
    expect(warm.iterations).toBe(4000);
    expect(cold.iterations).toBe(4000);
    expect(cold.routes).toEqual(warm.routes);
    expect(cold.unassigned).toEqual(warm.unassigned);
  });

  it('handles asymmetric durations that break the triangle inequality', () => {
    const p = randomProblem(5, 60);
    const d = (p.durations as number[][]).map((row, a) => row.map((x, b) => (a === b ? 0 : x + ((a * 7 + b * 13) % 400))));
    const sol = solveChecked({ ...p, durations: d }, { iterations: 2000, timeLimitMs: 60_000 });
    expect(sol.routes.length).toBeGreaterThan(0);
  });

  it('produces feasible plans on mixed random problems, leaving out only jobs that fit nowhere', () => {
    // The fourth has short days, so the end of hours binds open and closed routes alike.
    const shortDays = (p: VrpProblem): VrpProblem => ({ ...p, vehicles: p.vehicles.map((v, i) => ({ ...v, hours: [1000 * i, 7000 + 1000 * i] as const })) });
    for (const p of [randomProblem(1, 80), randomProblem(2, 80), randomProblem(3, 80), shortDays(randomProblem(4, 80))]) {
      const sol = solveChecked(p, { iterations: 2000, timeLimitMs: 60_000 });
      expect(sol.routes.length).toBeGreaterThan(0);
      for (const j of sol.unassigned) {
        for (let v = 0; v < p.vehicles.length; v++) {
          const order = sol.routes.find((r) => r.vehicle === v)?.jobs ?? [];
          for (let i = 0; i <= order.length; i++) {
            expect(scheduleRoute(p, v, [...order.slice(0, i), j, ...order.slice(i)]).feasible).toBe(false);
          }
        }
        expect(typeof unassignedReason(p.jobs[j], p)).toBe('string');
      }
    }
  });
});

/** Deterministic mixed problem: open and closed routes, some capacities, skills, multi-window jobs. */
function randomProblem(seed: number, jobs: number): VrpProblem {
  let s = seed * 2654435761;
  const rnd = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const points: Array<[number, number]> = Array.from({ length: jobs + 2 }, () => [Math.round(rnd() * 3000), Math.round(rnd() * 3000)]);
  const vehicles: VrpVehicle[] = [
    { start: 0, end: 0, capacity: 12, hours: [0, 20_000], skills: ['cold'] },
    { start: 1, hours: [2_000, 30_000], capacity: 15 },
    { start: 0, end: 1, hours: [0, 25_000], skills: ['cold', 'lift'] },
    { start: 1, end: 1 },
  ];
  const list: VrpJob[] = Array.from({ length: jobs }, (_, i) => {
    const k = Math.floor(rnd() * 4);
    const windows: Array<[number, number]> = [];
    let t = Math.floor(rnd() * 4000);
    for (let w = 0; w < k; w++) {
      windows.push([t, t + 600 + Math.floor(rnd() * 3000)]);
      t = windows[w][1] + 500 + Math.floor(rnd() * 4000);
    }
    const skills = rnd() < 0.15 ? ['cold'] : rnd() < 0.08 ? ['lift'] : [];
    return { location: i + 2, service: Math.floor(rnd() * 300), demand: 1 + Math.floor(rnd() * 3), timeWindows: windows, skills };
  });
  return { durations: matrix(points), vehicles, jobs: list };
}

/** Solves in a new worker thread running the compiled solver: its first use of a freshly compiled kernel. */
function solveInFreshThread(problem: VrpProblem, options: object): Promise<VrpSolution> {
  const code = `const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.solver).then(({ solveVrp }) => parentPort.postMessage(solveVrp(workerData.problem, workerData.options)));`;
  const worker = new Worker(code, { eval: true, workerData: { solver: pathToFileURL(distPath('engine', 'vrp', 'solver.js')).href, problem, options } });
  return new Promise((resolve, reject) => {
    worker.once('message', (sol: VrpSolution) => {
      resolve(sol);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

// ---------- loads in several dimensions ----------
describe('loads in several dimensions', () => {
  // Four stops in a cluster far from the depot: one vehicle could take them all on weight alone.
  const cluster = matrix([
    [0, 0],
    [1000, 0],
    [1001, 0],
    [1000, 1],
    [1001, 1],
  ]);
  const stops = (demand: number | number[]) => [1, 2, 3, 4].map((location) => ({ location, demand }));

  it('splits the stops across vehicles when the second dimension binds, and only then', () => {
    const oneDim: VrpProblem = {
      durations: cluster,
      vehicles: [
        { start: 0, end: 0, capacity: 10 },
        { start: 0, end: 0, capacity: 10 },
      ],
      jobs: stops(1),
    };
    expect(solveChecked(oneDim).routes.map((r) => r.jobs.length)).toEqual([4]);
    // Weight 1 each fits ten; volume 1 each fits only two per vehicle.
    const twoDims: VrpProblem = {
      ...oneDim,
      vehicles: [
        { start: 0, end: 0, capacity: [10, 2] },
        { start: 0, end: 0, capacity: [10, 2] },
      ],
      jobs: stops([1, 1]),
    };
    const sol = solveChecked(twoDims);
    expect(sol.unassigned).toEqual([]);
    expect(sol.routes.map((r) => r.jobs.length)).toEqual([2, 2]);
    for (const r of sol.routes) {
      expect(r.initialLoad).toEqual([2, 2]);
      expect(r.loads).toEqual([
        [1, 1],
        [0, 0],
      ]);
    }
    // With a third vehicle too small in volume, one stop stays out for capacity, not reach.
    const short: VrpProblem = {
      ...twoDims,
      vehicles: [
        { start: 0, end: 0, capacity: [10, 2] },
        { start: 0, end: 0, capacity: [1, 1] },
      ],
      jobs: stops([1, 1]).concat({ location: 1, demand: [2, 1] }),
    };
    const left = solveChecked(short);
    expect(left.routes.reduce((a, r) => a + r.jobs.length, 0)).toBe(3);
    expect(unassignedReason(short.jobs[left.unassigned[0]], short)).toBe('no vehicle can reach it in time with the capacity and hours left');
    expect(scheduleRoute(short, 0, [0, 1, 2]).violation).toBe('the load [3, 3] exceeds the capacity [10, 2]');
  });

  it('leaves out a stop too big in any one dimension for every vehicle', () => {
    const p: VrpProblem = {
      durations: cluster,
      vehicles: [
        { start: 0, end: 0, capacity: [10, 2] },
        { start: 0, end: 0, capacity: [3, 5] },
      ],
      jobs: [
        { location: 1, demand: [4, 3] },
        { location: 2, demand: [3, 2] },
      ],
    };
    const sol = solveChecked(p);
    expect(sol.unassigned).toEqual([0]);
    expect(unassignedReason(p.jobs[0], p)).toBe('demand exceeds every capacity');
  });

  it('keeps every dimension within the capacities on mixed random problems with three of them', () => {
    for (const seed of [5, 6]) {
      const base = randomProblem(seed, 80);
      // Volume binds some routes, pallets others; the vehicle without a capacity carries anything.
      const p: VrpProblem = {
        ...base,
        vehicles: base.vehicles.map((v, i) => ({ ...v, capacity: v.capacity == null ? null : [v.capacity as number, 4 + 2 * i, 7] })),
        jobs: base.jobs.map((j, i) => ({ ...j, demand: [j.demand as number, (i * 7) % 3, i % 5 === 0 ? 3 : 1] })),
      };
      const sol = solveChecked(p, { iterations: 2000, timeLimitMs: 60_000 });
      for (const j of sol.unassigned) {
        for (let v = 0; v < p.vehicles.length; v++) {
          const order = sol.routes.find((r) => r.vehicle === v)?.jobs ?? [];
          for (let i = 0; i <= order.length; i++) expect(scheduleRoute(p, v, [...order.slice(0, i), j, ...order.slice(i)]).feasible).toBe(false);
        }
      }
      // The one-dimension plan of the same problem serves more: the extra dimensions bind.
      expect(solveChecked(base, { iterations: 2000, timeLimitMs: 60_000 }).unassigned.length).toBeLessThan(sol.unassigned.length);
    }
  });

  it('carries a pickup from its stop to the end: the order of the stops decides whether a route fits', () => {
    // Open routes from the depot at 0: the pickup at 100 lies on the way to the delivery at 200, but
    // picked up first its 8 units ride beside the delivery's 8 in a vehicle of 10.
    const line = matrix([
      [0, 0],
      [200, 0],
      [100, 0],
    ]);
    const p: VrpProblem = {
      durations: line,
      vehicles: [{ start: 0, capacity: 10 }],
      jobs: [
        { location: 1, demand: 8 },
        { location: 2, demand: 0, pickup: 8 },
      ],
    };
    const sol = solveChecked(p);
    expect(sol.unassigned).toEqual([]);
    expect(sol.routes[0]).toMatchObject({ jobs: [0, 1], initialLoad: [8], loads: [[0], [8]], duration: 300 });
    expect(scheduleRoute(p, 0, [1, 0]).violation).toBe('the load 16 after job 1 exceeds the capacity 10');
    // Without the capacity the shorter order wins.
    expect(solveChecked({ ...p, vehicles: [{ start: 0 }] }).routes[0].jobs).toEqual([1, 0]);
    // A pickup larger than every capacity is left out for capacity, like a delivery.
    const big: VrpProblem = { ...p, jobs: [...p.jobs, { location: 2, demand: 0, pickup: 11 }] };
    expect(solveChecked(big).unassigned).toEqual([2]);
    expect(unassignedReason(big.jobs[2], big)).toBe('demand exceeds every capacity');
  });

  it('keeps the load within capacity after every stop on mixed random problems with pickups, and leaves out only jobs that fit nowhere', () => {
    for (const seed of [7, 8]) {
      const base = randomProblem(seed, 80);
      // Every third job picks up instead of delivering, every fifth does both, in two dimensions.
      const p: VrpProblem = {
        ...base,
        vehicles: base.vehicles.map((v, i) => ({ ...v, capacity: v.capacity == null ? null : [v.capacity as number, 5 + i] })),
        jobs: base.jobs.map((j, i) => {
          const w = j.demand as number;
          const amount = [w, 1 + (i % 2)];
          if (i % 3 === 0) return { ...j, demand: [0, 0], pickup: amount };
          if (i % 5 === 0) return { ...j, demand: amount, pickup: [Math.ceil(w / 2), 1] };
          return { ...j, demand: amount };
        }),
      };
      const sol = solveChecked(p, { iterations: 2000, timeLimitMs: 60_000 });
      expect(sol.routes.some((r) => r.loads.some((l, i) => i > 0 && l[0] > r.loads[i - 1][0]))).toBe(true);
      for (const j of sol.unassigned) {
        for (let v = 0; v < p.vehicles.length; v++) {
          const order = sol.routes.find((r) => r.vehicle === v)?.jobs ?? [];
          for (let i = 0; i <= order.length; i++) expect(scheduleRoute(p, v, [...order.slice(0, i), j, ...order.slice(i)]).feasible).toBe(false);
        }
      }
    }
  });

  it('serves a shipment by one vehicle, picked up before it is delivered, the amount on board between', () => {
    // Open routes from the depot at 0 along a line: the delivery point (100) comes before its pickup
    // (200) on the way out, so the pair forces a turn back. A job's delivery of 6 rides from the start.
    const line = matrix([
      [0, 0],
      [200, 0],
      [100, 0],
      [300, 0],
    ]);
    const p: VrpProblem = {
      durations: line,
      vehicles: [{ start: 0, capacity: 10 }],
      jobs: [
        { location: 1, demand: 0 },
        { location: 2, demand: 0 },
        { location: 3, demand: 6 },
      ],
      shipments: [{ pickup: 0, delivery: 1, amount: 5 }],
    };
    const sol = solveChecked(p);
    expect(sol.unassigned).toEqual([]);
    // 5 + 6 do not fit together: the job's 6 are delivered first, then the shipment rides back.
    expect(sol.routes[0]).toMatchObject({ jobs: [2, 0, 1], initialLoad: [6], loads: [[0], [5], [0]] });
    expect(scheduleRoute(p, 0, [1, 0, 2]).violation).toBe('job 1 comes before job 0 (shipment 0)');
    expect(scheduleRoute(p, 0, [0]).violation).toBe('job 0 is on the route but job 1 is not (shipment 0)');
    expect(scheduleRoute(p, 0, [0, 2, 1]).violation).toBe('the load 11 after job 0 exceeds the capacity 10');
    // Too big for the vehicle: both stops stay out, the job is served.
    const big = solveChecked({ ...p, shipments: [{ pickup: 0, delivery: 1, amount: 11 }] });
    expect(big.unassigned).toEqual([0, 1]);
    const bigProblem = { ...p, shipments: [{ pickup: 0, delivery: 1, amount: 11 }] };
    expect(big.unassigned.map((j) => unassignedReason(bigProblem.jobs[j], bigProblem))).toEqual([
      'demand exceeds every capacity',
      'demand exceeds every capacity',
    ]);
    expect(() => solveVrp({ ...p, jobs: [{ location: 1 }, ...p.jobs.slice(1)] })).toThrow(
      "jobs[0] is a stop of shipments[0]: its demand must be 0 and it has no pickup (the shipment's amount is carried)",
    );
    expect(() => solveVrp({ ...p, shipments: [...p.shipments!, { pickup: 1, delivery: 2 }] })).toThrow(
      'shipments[1].pickup: job 1 is already a stop of shipments[0]',
    );
  });

  it('keeps shipments whole and in order, and routes within their limits, on mixed random problems; leaves out only what fits nowhere', () => {
    for (const seed of [9, 10]) {
      const base = randomProblem(seed, 80);
      // Jobs 40..79 become 20 shipments (pickup 40 + 2k, delivery 41 + 2k) with the pickup's window.
      const shipments = Array.from({ length: 20 }, (_, k) => ({ pickup: 40 + 2 * k, delivery: 41 + 2 * k, amount: 1 + (k % 4) }));
      // One vehicle takes at most 12 stops, another travels at most 6,000 s, a third 70 km (distances
      // of 7 m per second of travel).
      const p: VrpProblem = {
        ...base,
        distances: (base.durations as number[][]).map((row) => row.map((x) => 7 * x)),
        vehicles: base.vehicles.map((v, i) =>
          i === 0 ? { ...v, maxJobs: 12 } : i === 1 ? { ...v, maxTravel: 6_000 } : i === 2 ? { ...v, maxDistance: 70_000 } : v,
        ),
        jobs: base.jobs.map((j, i) => (i >= 40 ? { ...j, demand: 0, skills: base.jobs[i - (i % 2)].skills } : j)),
        shipments,
      };
      const sol = solveChecked(p, { iterations: 2000, timeLimitMs: 60_000 });
      const served = shipments.filter((s) => !sol.unassigned.includes(s.pickup)).length;
      expect(served).toBeGreaterThanOrEqual(8);
      for (const s of shipments.filter((x) => sol.unassigned.includes(x.pickup))) {
        for (let v = 0; v < p.vehicles.length; v++) {
          const order = sol.routes.find((r) => r.vehicle === v)?.jobs ?? [];
          for (let i = 0; i <= order.length; i++)
            for (let k = i; k <= order.length; k++) {
              const tried = [...order.slice(0, i), s.pickup, ...order.slice(i, k), s.delivery, ...order.slice(k)];
              expect(scheduleRoute(p, v, tried).feasible).toBe(false);
            }
        }
      }
    }
  });

  it('keeps each route within its most jobs, travel time and meters', () => {
    const p: VrpProblem = {
      durations: cluster,
      vehicles: [
        { start: 0, end: 0, maxJobs: 3 },
        { start: 0, end: 0, maxJobs: 1 },
      ],
      jobs: stops(1),
    };
    expect(solveChecked(p).routes.map((r) => r.jobs.length)).toEqual([3, 1]);
    // Room for three jobs in all: one stays out.
    const fewer = solveChecked({
      ...p,
      vehicles: [
        { start: 0, end: 0, maxJobs: 2 },
        { start: 0, end: 0, maxJobs: 1 },
      ],
    });
    expect(fewer.unassigned).toHaveLength(1);
    expect(scheduleRoute(p, 1, [0, 1]).violation).toBe("the route holds 2 jobs, more than the vehicle's 1");
    // The cluster is 1,000 s away: a tour of all four takes 2,003 s and fits a limit of 2,005; a limit
    // of 1,999 leaves no job within reach (the shortest round trip is 2,000 s).
    const far: VrpProblem = { ...p, vehicles: [{ start: 0, end: 0, maxTravel: 2005 }] };
    expect(solveChecked(far).unassigned).toEqual([]);
    const tight: VrpProblem = { ...far, vehicles: [{ start: 0, end: 0, maxTravel: 1999 }] };
    expect(solveChecked(tight).routes).toEqual([]);
    expect(scheduleRoute(tight, 0, [0]).violation).toBe("the route travels 2000 s, more than the vehicle's 1999 s");
    // The same bars in meters (10 per second), and a distance limit needs distances.
    const metered: VrpProblem = { ...p, distances: cluster.map((row) => row.map((x) => 10 * x)), vehicles: [{ start: 0, end: 0, maxDistance: 20_050 }] };
    expect(solveChecked(metered).unassigned).toEqual([]);
    const short: VrpProblem = { ...metered, vehicles: [{ start: 0, end: 0, maxDistance: 19_990 }] };
    expect(solveChecked(short).routes).toEqual([]);
    expect(scheduleRoute(short, 0, [0]).violation).toBe("the route covers 20000 m, more than the vehicle's 19990 m");
    expect(() => solveVrp({ ...p, vehicles: [{ start: 0, maxDistance: 1 }] })).toThrow("vehicles[0].maxDistance needs the problem's distances");
  });

  it('leaves a vehicle whose end is not its start at home when another serves the job for less', () => {
    // Locations on a line: depot 0, job at 1 (197 s out), the first vehicle's end at 2 (1,299 s out).
    const durations = [
      [0, 197, 1299],
      [197, 0, 1102],
      [1299, 1102, 0],
    ];
    const p: VrpProblem = {
      durations,
      vehicles: [
        { start: 0, end: 2 },
        { start: 0, end: 0 },
      ],
      jobs: [{ location: 1 }],
    };
    // Unused, the first vehicle drives nowhere: serving the job on its way would cost 1,299 s, the round
    // trip of the second 394 s.
    const sol = solveChecked(p);
    expect(sol.routes.map((r) => r.vehicle)).toEqual([1]);
    expect(sol.cost).toBe(394);
  });

  it("minimises VROOM's cost over vehicles with their own per_hour, per_km, fixed cost and speed factor: the optimum of every plan", () => {
    // Seven stops and three vehicles at two depots, small enough to try every plan: each stop on each
    // vehicle in every order. The cost is computed here from the matrices alone.
    const points: Array<[number, number]> = [
      [0, 0],
      [900, 300],
      [120, 80],
      [300, 500],
      [700, 650],
      [820, 90],
      [450, 260],
      [60, 700],
      [980, 720],
    ];
    const durations = matrix(points);
    const distances = durations.map((row) => row.map((x) => 13 * x + 7));
    const vehicles: VrpVehicle[] = [
      { start: 0, end: 0, capacity: 4, perHour: 1800, perKm: 40 },
      { start: 1, end: 1, capacity: 4, perHour: 5400, speedFactor: 1.7, fixed: 150 },
      { start: 0, end: 1, capacity: 3, perKm: 5, speedFactor: 0.8 },
    ];
    const jobs: VrpJob[] = points.slice(2).map((_, i) => ({ location: i + 2, demand: 1 }));
    const p: VrpProblem = { durations, distances, vehicles, jobs };
    const costOf = (v: VrpVehicle, order: number[]) => {
      if (!order.length) return 0;
      const at = [v.start, ...order.map((j) => jobs[j].location), v.end as number];
      let t = 0;
      let m = 0;
      for (let i = 1; i < at.length; i++) {
        t += Math.round(durations[at[i - 1]][at[i]] / (v.speedFactor ?? 1));
        m += distances[at[i - 1]][at[i]];
      }
      return (v.fixed ?? 0) + ((v.perHour ?? 3600) * t) / 3600 + ((v.perKm ?? 0) * m) / 1000;
    };
    const permutations = (xs: number[]): number[][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
    const cheapest = (v: VrpVehicle, set: number[]) => Math.min(...permutations(set).map((o) => costOf(v, o)));
    let best = Infinity;
    for (let code = 0; code < 3 ** jobs.length; code++) {
      const sets: number[][] = [[], [], []];
      for (let j = 0, c = code; j < jobs.length; j++, c = Math.floor(c / 3)) sets[c % 3].push(j);
      if (sets.some((s, r) => s.length > (vehicles[r].capacity as number))) continue;
      best = Math.min(
        best,
        sets.reduce((a, s, r) => a + cheapest(vehicles[r], s), 0),
      );
    }
    const sol = solveChecked(p, { iterations: 3000, timeLimitMs: 60_000 });
    expect(sol.unassigned).toEqual([]);
    expect(sol.cost).toBeCloseTo(best, 6);
    // The same stops priced in seconds alone (the defaults) give another plan: the costs steer the search.
    const plain = solveChecked({ ...p, vehicles: vehicles.map(({ perHour: _, perKm: __, fixed: ___, ...v }) => v) });
    expect(sol.routes.map((r) => [r.vehicle, r.jobs])).not.toEqual(plain.routes.map((r) => [r.vehicle, r.jobs]));
  });

  it('gives the costlier vehicle per km less to drive, on mixed random problems with windows', () => {
    for (const seed of [21, 22]) {
      const base = randomProblem(seed, 60);
      // Two vehicles alike but for their price per km: the dearer one drives less.
      const alike = { start: 0, end: 0, capacity: 20, hours: [0, 30_000] as const };
      const p: VrpProblem = {
        ...base,
        distances: (base.durations as number[][]).map((row) => row.map((x) => 9 * x)),
        vehicles: [
          { ...alike, perKm: 400 },
          { ...alike, perKm: 20 },
          { ...alike, perKm: 20, speedFactor: 1.25 },
        ],
        jobs: base.jobs.map((j) => ({ ...j, skills: [] })),
      };
      const sol = solveChecked(p, { iterations: 2000, timeLimitMs: 60_000 });
      const driven = (r: number) => sol.routes.find((x) => x.vehicle === r)?.distance ?? 0;
      expect(driven(0)).toBeLessThan(driven(1));
      expect(driven(0)).toBeLessThan(driven(2));
    }
  });

  it("plans each vehicle's one break inside the search: every route it returns has room for it, nothing is dropped after", () => {
    for (const seed of [31, 32]) {
      const base = randomProblem(seed, 70);
      const p: VrpProblem = {
        ...base,
        vehicles: base.vehicles.map((v, i) => (i === 3 ? v : { ...v, breaks: [{ windows: [[5_000 + 1_000 * i, 9_000]], service: 1_800 }] })),
      };
      const sol = solveChecked(p, { iterations: 2000, timeLimitMs: 60_000 });
      for (const r of sol.routes) expect(placeBreaks(p, r.vehicle, r.jobs), `vehicle ${r.vehicle}`).not.toBeNull();
      const placed = applyBreaks(p, sol);
      expect(placed.noRoomForBreaks).toEqual([]);
      expect(placed.routes.map((r) => r.jobs)).toEqual(sol.routes.map((r) => r.jobs));
      // A job left out fits no route even with the break moved anywhere.
      for (const j of sol.unassigned)
        for (let v = 0; v < p.vehicles.length; v++) {
          const order = sol.routes.find((r) => r.vehicle === v)?.jobs ?? [];
          for (let i = 0; i <= order.length; i++) expect(placeBreaks(p, v, [...order.slice(0, i), j, ...order.slice(i)])).toBeNull();
        }
    }
  });

  it('refuses amounts of different lengths, or more than eight dimensions', () => {
    const p: VrpProblem = {
      durations: cluster,
      vehicles: [{ start: 0, capacity: [10, 2] }],
      jobs: [
        { location: 1, demand: [1, 1] },
        { location: 2, demand: 1 },
      ],
    };
    expect(() => solveVrp(p)).toThrow('jobs[1].demand must have 2 amounts, like the other capacities and demands');
    expect(() => solveVrp({ ...p, jobs: [{ location: 1, demand: [1, -1] }] })).toThrow('jobs[0].demand must be non-negative integers');
    expect(() => solveVrp({ ...p, vehicles: [{ start: 0, capacity: new Array(9).fill(1) }] })).toThrow(/at most 8 dimensions/);
  });
});

describe('scheduleRoute', () => {
  it('reports the first broken rule of an infeasible order', () => {
    const d = matrix([
      [0, 0],
      [10, 0],
      [20, 0],
    ]);
    const p: VrpProblem = { durations: d, vehicles: [{ start: 0, end: 0, capacity: 1 }], jobs: [{ location: 1, timeWindows: [[0, 5]] }, { location: 2 }] };
    expect(scheduleRoute(p, 0, [0]).violation).toMatch(/after its last time window/);
    const ok = scheduleRoute({ ...p, jobs: [{ location: 1 }] }, 0, [0]);
    expect(ok.feasible).toBe(true);
    expect(ok.loads).toEqual([[0]]);
    expect(ok.initialLoad).toEqual([1]);
    expect(scheduleRoute({ ...p, jobs: [{ location: 1 }, { location: 2 }] }, 0, [0, 1]).violation).toMatch(/exceeds the capacity/);
  });
});

// ---------- Solomon instances: feasible and near the best known ----------
const solomonDir = join(projectRoot, '..', 'shared', 'data', 'vrptw', 'solomon');
const bks = JSON.parse(readFileSync(join(solomonDir, 'BKS.json'), 'utf8')) as Record<string, { best_known_cost: number }>;

function solomon(name: string): { problem: VrpProblem; exact: (a: number, b: number) => number } {
  const lines = readFileSync(join(solomonDir, `${name}.txt`), 'utf8').split('\n');
  const vi = lines.findIndex((l) => /NUMBER\s+CAPACITY/.test(l));
  const [count, capacity] = lines[vi + 1].trim().split(/\s+/).map(Number);
  const rows = lines
    .slice(lines.findIndex((l) => /CUST/.test(l)) + 1)
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter((r) => r.length === 7);
  const exact = (a: number, b: number) => Math.hypot(rows[a][1] - rows[b][1], rows[a][2] - rows[b][2]);
  const n = rows.length;
  const durations = new Int32Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) durations[a * n + b] = Math.ceil(exact(a, b) * 1000 - 1e-7);
  const vehicles = Array.from({ length: count }, () => ({ start: 0, end: 0, capacity, hours: [rows[0][4] * 1000, rows[0][5] * 1000] as [number, number] }));
  const jobs = rows
    .slice(1)
    .map((r, i) => ({ location: i + 1, demand: r[3], service: r[6] * 1000, timeWindows: [[r[4] * 1000, r[5] * 1000]] as Array<[number, number]> }));
  return { problem: { durations, vehicles, jobs }, exact };
}

describe('Solomon instances', () => {
  for (const [name, maxGap] of [
    ['C101', 0.01],
    ['R101', 0.04],
    ['RC101', 0.04],
  ] as const) {
    it(`${name}: serves all customers feasibly within ${maxGap * 100}% of the best known cost`, () => {
      const { problem, exact } = solomon(name);
      const sol = solveChecked(problem, { iterations: 20_000, timeLimitMs: 60_000 });
      expect(sol.unassigned).toEqual([]);
      let cost = 0;
      for (const r of sol.routes) {
        const path = [0, ...r.jobs.map((j) => j + 1), 0];
        for (let i = 1; i < path.length; i++) cost += exact(path[i - 1], path[i]);
      }
      expect(cost).toBeLessThan(bks[name].best_known_cost * (1 + maxGap));
    });
  }
});

describe('vrp worker task', () => {
  it('solves through the pool', async () => {
    const p: VrpProblem = {
      durations: matrix([
        [0, 0],
        [10, 0],
        [20, 0],
      ]),
      vehicles: [{ start: 0 }],
      jobs: [{ location: 2 }, { location: 1 }],
    };
    const sol = await runTask<VrpSolution>('vrp', { problem: p, options: { iterations: 100 } });
    expect(sol.routes[0].jobs).toEqual([1, 0]);
    expect(sol.cost).toBe(20);
  });
});

// The second run of the kernel tests (npm run test:kernels-checked) loads the kernels built with every check
// on: there an index past an input block traps, naming the kernel's line, instead of reading another block.
describe.runIf(process.env.WAYMARK_CHECKED_KERNELS === '1')('checked kernel build', () => {
  it('traps on a job whose location is outside the matrix, naming the line that read it', () => {
    const k = instantiate<WebAssembly.Exports & { memory: WebAssembly.Memory; reset(): void; alloc(n: number): number; solve(p: number): number }>('vrp', {
      env: { now: () => performance.now() },
    });
    const L = KERNEL_LAYOUTS.vrp;
    k.reset();
    const block = (bytes: number) => k.alloc(Math.max(8, bytes));
    const ptr = {
      durations: block(4),
      vehicles: block(L.vehicle.bytes),
      hours: block(L.vehicleHours.bytes),
      limits: block(L.vehicleLimits.bytes),
      capacities: block(4),
      jobs: block(L.job.bytes),
      deliveries: block(4),
      pickups: block(4),
      pairs: block(4),
      services: block(8),
      windows: block(L.window.bytes),
      compat: block(1),
      params: block(L.params.bytes),
      out: block(8),
      problem: block(L.problem.bytes),
    };
    const view = new DataView(k.memory.buffer);
    writeRecord(view, ptr.vehicles, 0, L.vehicle, { start: 0, end: 0 });
    writeRecord(view, ptr.hours, 0, L.vehicleHours, { start: 0, end: 1e9 });
    writeRecord(view, ptr.limits, 0, L.vehicleLimits, {
      maxJobs: Infinity,
      maxTravel: Infinity,
      maxDistance: Infinity,
      fixed: 0,
      speedFactor: 1,
      costPerSecond: 1,
      costPerMeter: 0,
      firstBreak: 0,
      breakCount: 0,
    });
    view.setInt32(ptr.capacities, -1, true);
    // Location 5 of a 1 × 1 matrix: the release build would read whatever lies past it.
    writeRecord(view, ptr.jobs, 0, L.job, { location: 5, firstWindow: 0, windowCount: 0 });
    view.setInt32(ptr.pairs, -1, true);
    view.setUint8(ptr.compat, 1);
    writeRecord(view, ptr.params, 0, L.params, { seed: 1, iterations: 10, timeLimitMs: 1000, startTemperature: 0.3, endTemperature: 0.003, warm: 0 });
    const { problem, ...blocks } = ptr;
    writeRecord(view, problem, 0, L.problem, { n: 1, vehicleCount: 1, jobCount: 1, dims: 1, ...blocks, distances: 0, priorities: 0, breaks: 0, breakLoads: 0 });
    expect(() => k.solve(problem)).toThrow(/WASM kernel vrp aborted at solver-as\/assembly\/vrp\/problem\.ts:\d+:\d+/);
  });
});
