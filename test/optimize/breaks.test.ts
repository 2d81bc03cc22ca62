import { describe, expect, it } from 'vitest';
import { applyBreaks, placeBreaks } from '../../src/engine/vrp/breaks.js';
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
