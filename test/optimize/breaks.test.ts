import { describe, expect, it } from 'vitest';
import { applyBreaks, placeBreaks } from '../../src/engine/vrp/breaks.js';
import { solveVrp } from '../../src/engine/vrp/solver.js';
import { scheduleRoute } from '../../src/engine/vrp/schedule.js';
import type { VrpProblem, VrpSolution } from '../../src/engine/vrp/types.js';

// Places on a line 100 s apart (the depot at 0); three stops each with a one-instant window, so that a
// 100 s break taken before the last of them makes it late, and its window [0, 250] rules out taking it
// after the last.
const durations = [0, 1, 2, 3].map((a) => [0, 1, 2, 3].map((b) => Math.abs(a - b) * 100));
const jobs = [1, 2, 3].map((loc) => ({ location: loc, demand: 0, timeWindows: [[loc * 100, loc * 100]] as [number, number][] }));
const lunch = { windows: [[0, 250]] as [number, number][], service: 100 };

/** The search's plan: every stop on vehicle 0, as it planned without the breaks. */
function searched(p: VrpProblem): VrpSolution {
  const route = { vehicle: 0, jobs: [0, 1, 2], ...scheduleRoute(p, 0, [0, 1, 2]) };
  return { routes: [route], unassigned: [], cost: route.duration, distance: 0, iterations: 0 };
}

/** Each break's start inside its window, and each stop served inside its window, from the times the plan gives. */
function held(p: VrpProblem, sol: ReturnType<typeof applyBreaks>): void {
  for (const r of sol.routes) {
    r.jobs.forEach((j, i) => {
      const begin = r.arrivals[i] + r.waits[i];
      expect(
        p.jobs[j].timeWindows!.some(([a, b]) => begin >= a && begin <= b),
        `stop ${j} at ${begin}`,
      ).toBe(true);
    });
    for (const b of r.breaks ?? []) {
      const w = p.vehicles[r.vehicle].breaks![b.index].windows;
      expect(w.some(([a, e]) => b.start >= a && b.start <= e)).toBe(true);
    }
    expect(r.breaks?.length ?? 0).toBe(p.vehicles[r.vehicle].breaks?.length ?? 0);
  }
}

/** A seeded draw in [0, 1) (a linear congruential generator: the same stops on every run). */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/** Travel times of a depot (place 0, the middle) and 100 places on a 10 × 10 grid, 60 s a step. */
function gridDurations(): number[][] {
  const xy = (i: number) => (i === 0 ? [5, 5] : [(i - 1) % 10, Math.floor((i - 1) / 10)]);
  return Array.from({ length: 101 }, (_, a) => Array.from({ length: 101 }, (_, b) => 60 * (Math.abs(xy(a)[0] - xy(b)[0]) + Math.abs(xy(a)[1] - xy(b)[1]))));
}
describe('breaks placed after the search', () => {
  it('puts a stop its route lost to a break on another vehicle', () => {
    const p: VrpProblem = {
      durations,
      jobs,
      vehicles: [
        { start: 0, end: 0, hours: [0, 1000], breaks: [lunch] },
        { start: 0, end: 0, hours: [0, 1000] },
      ],
    };
    const sol = applyBreaks(p, searched(p));
    // Only the last stop's removal lets the break fit on vehicle 0; vehicle 1, without a break, serves it.
    expect(sol.routes.map((r) => [r.vehicle, r.jobs])).toEqual([
      [0, [0, 1]],
      [1, [2]],
    ]);
    expect(sol.unassigned).toEqual([]);
    expect(sol.noRoomForBreaks).toEqual([]);
    expect(sol.cost).toBe(sol.routes.reduce((a, r) => a + r.duration, 0));
    held(p, sol);
  });

  it('leaves the stop unassigned when no vehicle has room for it and its breaks', () => {
    const p: VrpProblem = {
      durations,
      jobs,
      vehicles: [
        { start: 0, end: 0, hours: [0, 1000], breaks: [lunch] },
        { start: 0, end: 0, hours: [0, 1000], breaks: [lunch] },
      ],
    };
    const sol = applyBreaks(p, searched(p));
    expect(sol.routes.map((r) => [r.vehicle, r.jobs])).toEqual([[0, [0, 1]]]);
    expect(sol.unassigned).toEqual([2]);
    expect(sol.noRoomForBreaks).toEqual([2]);
    held(p, sol);
  });

  it('takes a break only where the load on board is within its max_load', () => {
    // One delivery of 5 at place 1: the break ends the route as early before it as after it, but with
    // max_load 0 it must come once the van is empty; with a window that closes before then, nowhere.
    const p = (windows: [number, number][], maxLoad?: number[]): VrpProblem => ({
      durations,
      jobs: [{ location: 1, demand: 5 }],
      vehicles: [{ start: 0, end: 0, capacity: 10, hours: [0, 1000], breaks: [{ windows, service: 100, ...(maxLoad ? { maxLoad } : {}) }] }],
    });
    expect(placeBreaks(p([[0, 1000]]), 0, [0])?.breaks.map((b) => b.after)).toEqual([-1]);
    const empty = placeBreaks(p([[0, 1000]], [0]), 0, [0]);
    expect(empty?.breaks.map((b) => [b.after, b.start])).toEqual([[0, 100]]);
    expect(placeBreaks(p([[0, 1000]], [5]), 0, [0])?.breaks.map((b) => b.after)).toEqual([-1]);
    expect(placeBreaks(p([[0, 50]], [0]), 0, [0])).toBeNull();
    const dropped = applyBreaks(p([[0, 50]], [0]), {
      routes: [{ vehicle: 0, jobs: [0], ...scheduleRoute(p([[0, 50]], [0]), 0, [0]) }],
      unassigned: [],
      cost: 0,
      distance: 0,
      iterations: 0,
    });
    expect(dropped.routes).toEqual([]);
    expect(dropped.noRoomForBreaks).toEqual([0]);
  });
});

describe('several breaks planned by the search', () => {
  const solve = (p: VrpProblem) => applyBreaks(p, solveVrp(p, { seed: 1, iterations: 2000, timeLimitMs: 10_000 }));
  /** Each route's breaks in the order of their windows' openings. */
  const inOrder = (p: VrpProblem, sol: ReturnType<typeof applyBreaks>) => {
    for (const r of sol.routes) {
      const opens = (r.breaks ?? []).map((b) => p.vehicles[r.vehicle].breaks![b.index].windows[0][0]);
      expect(opens).toEqual([...opens].sort((a, b) => a - b));
    }
  };

  it('plans two breaks into a day that needs all of its hours, given in any order', () => {
    // Place 1 is 100 s out; its window [780, 800] is reached after both breaks (200–300, 600–700) by a
    // van that works until 900 of its 1000 s, more than the hours less the breaks' 200 s.
    const breaks = [
      { windows: [[600, 700]] as [number, number][], service: 100 },
      { windows: [[200, 300]] as [number, number][], service: 100 },
    ];
    const p: VrpProblem = {
      durations,
      jobs: [{ location: 1, demand: 0, timeWindows: [[780, 800]] }],
      vehicles: [{ start: 0, end: 0, hours: [0, 1000], breaks }],
    };
    const sol = solve(p);
    expect(sol.routes.map((r) => [r.vehicle, r.jobs])).toEqual([[0, [0]]]);
    expect(sol.noRoomForBreaks).toEqual([]);
    held(p, sol);
    inOrder(p, sol);
    expect(sol.routes[0].breaks?.map((b) => [b.index, b.start])).toEqual([
      [1, 200],
      [0, 600],
    ]);
  });

  it('takes a break in whichever of its windows fits, and leaves out a stop no window lets it reach', () => {
    // Place 3 is 300 s out, window [350, 360]: a break 100–150 at the start makes it late, one after it
    // must wait for the second window, 500–600.
    const p = (windows: [number, number][]): VrpProblem => ({
      durations,
      jobs: [{ location: 3, demand: 0, timeWindows: [[350, 360]] }],
      vehicles: [{ start: 0, end: 0, hours: [0, 900], breaks: [{ windows, service: 100 }] }],
    });
    const two = solve(
      p([
        [100, 150],
        [500, 600],
      ]),
    );
    expect(two.routes[0].breaks?.map((b) => [b.after, b.start])).toEqual([[0, 500]]);
    held(
      p([
        [100, 150],
        [500, 600],
      ]),
      two,
    );
    // With the first window only, the search itself leaves the stop out: no route it built lost it to its break.
    const one = solve(p([[100, 150]]));
    expect(one.routes).toEqual([]);
    expect(one.unassigned).toEqual([0]);
    expect(one.noRoomForBreaks).toEqual([]);
  });

  it('serves a stop that fits no route alone, after another stop where the vehicle takes its break nearer it', () => {
    // Stop 1 (place 3, 300 s out) must be served by 600; break 0 starts by 450, break 1 from 1500. Alone
    // the van takes break 0 at the depot (late by 200 s) or after the stop (its window closed). After stop
    // 0 (place 2) it takes it there, 100 s away: both are served, stop 0 first.
    const breaks = [
      { windows: [[400, 450]] as [number, number][], service: 100 },
      { windows: [[1500, 1600]] as [number, number][], service: 100 },
    ];
    const stops = [
      { location: 2, demand: 0, timeWindows: [[0, 1000]] as [number, number][] },
      { location: 3, demand: 0, timeWindows: [[560, 600]] as [number, number][] },
    ];
    const alone = solve({ durations, jobs: [stops[1]], vehicles: [{ start: 0, end: 0, hours: [0, 2000], breaks }] });
    expect(alone.unassigned).toEqual([0]);
    const p: VrpProblem = { durations, jobs: stops, vehicles: [{ start: 0, end: 0, hours: [0, 2000], breaks }] };
    const sol = solve(p);
    expect(sol.routes.map((r) => r.jobs)).toEqual([[0, 1]]);
    expect(sol.routes[0].breaks?.map((b) => [b.after, b.start])).toEqual([
      [0, 400],
      [1, 1500],
    ]);
    held(p, sol);
  });

  it('builds only routes whose breaks fit: none loses a stop to them afterwards', () => {
    // 100 stops on a 10 × 10 grid of places 60 s apart, windows of 5–15 min over a 9-hour day, three vans
    // with two or three breaks of 15–45 min, some with two windows (a seeded draw). Planned for with the
    // hours cut by the breaks instead (as breaks with a max_load are), 4 stops were lost to breaks.
    const rnd = seeded(7);
    const grid = gridDurations();
    const day = 9 * 3600;
    const jobs = Array.from({ length: 100 }, (_, i) => {
      const open = Math.floor(rnd() * (day - 3600));
      return { location: 1 + ((i * 37) % 100), demand: 0, service: 300, timeWindows: [[open, open + 300 + Math.floor(rnd() * 600)]] as [number, number][] };
    });
    const brk = (from: number, to: number, service: number, second?: [number, number]) => ({
      windows: [[from * 3600, to * 3600] as [number, number], ...(second ? [[second[0] * 3600, second[1] * 3600] as [number, number]] : [])],
      service,
    });
    const vehicles = [
      { start: 0, end: 0, hours: [0, day] as const, breaks: [brk(2, 3, 900), brk(4, 5, 2700, [6, 6.5])] },
      { start: 0, end: 0, hours: [0, day] as const, breaks: [brk(6, 7, 900), brk(1, 2, 900), brk(3.5, 4.5, 1800)] },
      { start: 0, end: 0, hours: [0, day] as const, breaks: [brk(3, 3.25, 1800, [5, 5.25]), brk(7, 8, 900)] },
    ];
    const p: VrpProblem = { durations: grid, jobs, vehicles };
    const sol = solve(p);
    expect(sol.noRoomForBreaks).toEqual([]);
    expect(sol.routes.length).toBeGreaterThan(0);
    expect(sol.unassigned.length).toBeLessThan(30);
    held(p, sol);
    inOrder(p, sol);
  });
});

describe('breaks with a max_load planned by the search', () => {
  /** Units on board after each stop of a route (-1: leaving the start), read from the problem alone. */
  const onBoard = (p: VrpProblem, jobs: readonly number[]) => {
    const dims = Math.max(...p.jobs.map((j) => [j.demand ?? 0, j.pickup ?? 0].flat().length));
    const vec = (a: number | readonly number[] | undefined) => Array.from({ length: dims }, (_, d) => (typeof a === 'number' ? a : (a?.[d] ?? 0)));
    const change = new Map<number, number[]>();
    for (const s of p.shipments ?? []) {
      change.set(s.pickup, vec(s.amount));
      change.set(
        s.delivery,
        vec(s.amount).map((x) => -x),
      );
    }
    let load = jobs.reduce((a, j) => a.map((x, d) => x + vec(p.jobs[j].demand)[d]), vec(0));
    const after = new Map<number, number[]>([[-1, load]]);
    jobs.forEach((j, i) => {
      const delta = change.get(j) ?? vec(p.jobs[j].pickup);
      load = load.map((x, d) => x - vec(p.jobs[j].demand)[d] + delta[d]);
      after.set(i, load);
    });
    return after;
  };
  /** Every break of every route taken with at most its max_load on board, in every dimension, and inside one of its windows. */
  const carried = (
    p: VrpProblem,
    routes: ReadonlyArray<{ vehicle: number; jobs: number[]; breaks?: Array<{ index: number; after: number; start: number }> }>,
  ) => {
    for (const r of routes) {
      const loads = onBoard(p, r.jobs);
      const breaks = p.vehicles[r.vehicle].breaks ?? [];
      expect(r.breaks?.length ?? 0).toBe(breaks.length);
      for (const b of r.breaks ?? []) {
        const { maxLoad, windows } = breaks[b.index];
        expect(windows.some(([a, e]) => b.start >= a && b.start <= e)).toBe(true);
        const load = loads.get(b.after)!;
        (maxLoad ?? []).forEach((most, d) => expect(load[d], `vehicle ${r.vehicle} break ${b.index} after stop ${b.after}`).toBeLessThanOrEqual(most));
      }
    }
  };

  it('serves a delivery before a pickup where the break must be taken empty, though the other order drives less', () => {
    // Places on a line 100 s apart, the van from 0 to 3: the pickup at 1 then the delivery at 2 drives
    // 300 s, the delivery first 500 s; the break's max_load 0 is met only between the two in that order.
    const p: VrpProblem = {
      durations,
      jobs: [
        { location: 2, demand: 5 },
        { location: 1, demand: 0, pickup: 5 },
      ],
      vehicles: [{ start: 0, end: 3, capacity: 10, hours: [0, 2000], breaks: [{ windows: [[0, 2000]], service: 100, maxLoad: [0] }] }],
    };
    const raw = solveVrp(p, { seed: 1, iterations: 500, timeLimitMs: 10_000 });
    expect(raw.routes.map((r) => r.jobs)).toEqual([[0, 1]]);
    const sol = applyBreaks(p, raw);
    expect(sol.routes[0].breaks?.map((b) => b.after)).toEqual([0]);
    expect(sol.noRoomForBreaks).toEqual([]);
    carried(p, sol.routes);
  });

  it('builds only routes whose breaks fit their max loads, in two dimensions, with pickups and shipments', () => {
    // 80 stops on a 10 × 10 grid of places 60 s apart over a 9-hour day: deliveries, pickups and 10
    // shipments of two dimensions, three vans with one to three breaks, most with a max_load (a seeded
    // draw). Every route the search returns takes its breaks as it is (placeBreaks), none loses a stop.
    const rnd = seeded(11);
    const grid = gridDurations();
    const day = 9 * 3600;
    const amount = () => [1 + Math.floor(rnd() * 4), Math.floor(rnd() * 3)];
    const jobs = Array.from({ length: 80 }, (_, i) => {
      const open = Math.floor(rnd() * (day - 7200));
      const job = { location: 1 + ((i * 37) % 100), service: 300, timeWindows: [[open, open + 1800 + Math.floor(rnd() * 3600)]] as [number, number][] };
      // Stops 0–19 are 10 shipments (their own amounts zero), 20–49 deliveries, 50–79 pickups.
      if (i < 20) return { ...job, demand: [0, 0] };
      return i < 50 ? { ...job, demand: amount() } : { ...job, demand: [0, 0], pickup: amount() };
    });
    const shipments = Array.from({ length: 10 }, (_, k) => ({ pickup: 2 * k, delivery: 2 * k + 1, amount: amount() }));
    const brk = (from: number, to: number, service: number, maxLoad?: number[]) => ({
      windows: [[from * 3600, to * 3600]] as [number, number][],
      service,
      ...(maxLoad ? { maxLoad } : {}),
    });
    const vehicles = [
      { start: 0, end: 0, capacity: [30, 12], hours: [0, day] as const, breaks: [brk(3, 5, 1800, [6, 3])] },
      { start: 0, end: 0, capacity: [30, 12], hours: [0, day] as const, breaks: [brk(1, 2.5, 900, [12, 4]), brk(5, 7, 1800, [4, 2])] },
      { start: 0, end: 0, capacity: [30, 12], hours: [0, day] as const, breaks: [brk(1.5, 2.5, 900), brk(4, 5, 1800, [8, 3]), brk(6.5, 7.5, 900, [0, 0])] },
    ];
    const p: VrpProblem = { durations: grid, jobs, vehicles, shipments };
    const raw = solveVrp(p, { seed: 1, iterations: 3000, timeLimitMs: 30_000 });
    for (const r of raw.routes) expect(placeBreaks(p, r.vehicle, r.jobs), `vehicle ${r.vehicle}`).not.toBeNull();
    const sol = applyBreaks(p, raw);
    expect(sol.noRoomForBreaks).toEqual([]);
    expect(sol.routes.length).toBe(3);
    expect(sol.unassigned.length).toBeLessThan(40);
    held(p, sol);
    carried(p, sol.routes);
  });
});

describe('breaks placed on a long route', () => {
  it('finds the earliest end in one pass where there are too many placements to try each', () => {
    // 50 stops back and forth between places 1 and 2 (100 s apart), three breaks: 51 places for each, more
    // than 20,000 placements. The earliest end is found here by trying every placement.
    const route = Array.from({ length: 50 }, (_, i) => i);
    const breaks = [
      { windows: [[1000, 1030]] as [number, number][], service: 60 },
      {
        windows: [
          [2000, 2020],
          [2600, 2700],
        ] as [number, number][],
        service: 300,
      },
      { windows: [[4200, 4250]] as [number, number][], service: 60 },
    ];
    const p: VrpProblem = {
      durations,
      jobs: route.map((i) => ({ location: 1 + (i % 2), demand: 0 })),
      vehicles: [{ start: 0, end: 0, hours: [0, 10_000], breaks }],
    };
    const got = placeBreaks(p, 0, route);
    expect(got).not.toBeNull();
    const at = (i: number) => (i < 0 ? 0 : 1 + (i % 2));
    const startIn = (w: [number, number][], t: number) => w.find(([, e]) => e >= t)?.[0] ?? null;
    let best = Infinity;
    for (let a = -1; a < 50; a++)
      for (let b = a; b < 50; b++)
        for (let c = b; c < 50; c++) {
          const after = [a, b, c];
          let t = 0;
          let k = 0;
          let ok = true;
          for (let i = -1; i < 50 && ok; i++) {
            if (i >= 0) t += durations[at(i - 1)][at(i)];
            while (k < 3 && after[k] === i) {
              const s = startIn(breaks[k].windows, t);
              if (s === null) ok = false;
              else t = Math.max(s, t) + breaks[k].service;
              k++;
            }
          }
          if (ok) best = Math.min(best, t + durations[at(49)][0]);
        }
    expect(got!.end).toBe(best);
    expect(got!.breaks.map((b) => b.index)).toEqual([0, 1, 2]);
  });
});
