// An independent reader of VROOM's output format (docs/API.md of VROOM 1.14) that re-derives a plan's
// feasibility from the input alone: every job once, skills, capacities and loads step by step, working
// hours and time windows, arrivals from the travel times it is given, and the totals.
import { expect } from 'vitest';

const STEP_TYPES = ['start', 'job', 'pickup', 'delivery', 'break', 'end'];
const num = (x: unknown, what: string) => expect(Number.isInteger(x), `${what} = ${String(x)} is an integer`).toBe(true);

/** `travel(a, b)`: seconds from place a to place b, places as the output names them (index or [lon, lat]). */
export function checkVroomOutput(input: any, out: any, travel: (a: any, b: any) => number): void {
  expect(out.code).toBe(0);
  for (const k of ['cost', 'routes', 'unassigned', 'setup', 'service', 'duration', 'waiting_time', 'priority']) num(out.summary[k], `summary.${k}`);
  expect(Array.isArray(out.summary.violations)).toBe(true);
  expect(Array.isArray(out.routes) && Array.isArray(out.unassigned)).toBe(true);
  const jobs = new Map<number, any>(input.jobs.map((j: any) => [j.id, j]));
  const capacitated = input.vehicles.some((v: any) => v.capacity);
  const placeOf = (x: any) => x.location_index ?? x.location;
  const seen = new Map<number, number>();
  const totals = { cost: 0, setup: 0, service: 0, duration: 0, waiting_time: 0, priority: 0 };

  for (const r of out.routes) {
    const v = input.vehicles.find((x: any) => x.id === r.vehicle);
    expect(v, `vehicle ${r.vehicle}`).toBeDefined();
    for (const k of ['cost', 'setup', 'service', 'duration', 'waiting_time', 'priority']) num(r[k], `route.${k}`);
    expect(r.violations).toEqual([]);
    const steps: any[] = r.steps;
    for (const s of steps) {
      expect(STEP_TYPES).toContain(s.type);
      for (const k of ['arrival', 'duration', 'setup', 'service', 'waiting_time']) num(s[k], `step.${k}`);
      expect(s.violations).toEqual([]);
    }
    expect(steps[0].type).toBe('start');
    const hasEnd = v.end !== undefined || v.end_index !== undefined;
    expect(steps.at(-1).type).toBe(hasEnd ? 'end' : 'job');
    if (v.start !== undefined || v.start_index !== undefined) expect(placeOf(steps[0])).toEqual(v.start_index ?? v.start);
    if (hasEnd) expect(placeOf(steps.at(-1))).toEqual(v.end_index ?? v.end);
    const tw = v.time_window ?? [0, Infinity];
    expect(steps[0].arrival).toBeGreaterThanOrEqual(tw[0]);

    let t = steps[0].arrival, cumulative = 0, load = 0, setup = 0, service = 0, waiting = 0, priority = 0;
    const jobSteps = steps.filter((s) => s.type === 'job');
    if (capacitated) load = jobSteps.reduce((a, s) => a + (jobs.get(s.id).delivery ?? jobs.get(s.id).amount ?? [0])[0], 0);
    const cap = v.capacity?.[0] ?? Infinity;
    if (capacitated) expect(steps[0].load).toEqual([load]);
    for (let k = 1; k < steps.length; k++) {
      const s = steps[k], prev = steps[k - 1];
      const leg = travel(placeOf(prev), placeOf(s));
      cumulative += leg;
      expect(s.duration, `cumulative travel at step ${k}`).toBe(cumulative);
      expect(s.arrival, `arrival at step ${k}`).toBe(t + leg);
      const begin = s.arrival + s.waiting_time;
      if (s.type === 'job') {
        const job = jobs.get(s.id);
        expect(job, `job ${s.id}`).toBeDefined();
        seen.set(s.id, (seen.get(s.id) ?? 0) + 1);
        expect(placeOf(s)).toEqual(job.location_index ?? job.location);
        expect(s.service).toBe(job.service ?? 0);
        expect(s.setup).toBe(job.setup ?? 0);
        for (const skill of job.skills ?? []) expect(v.skills ?? [], `skill ${skill} of job ${s.id}`).toContain(skill);
        if (job.time_windows) expect(job.time_windows.some(([a, b]: number[]) => a <= begin && begin <= b), `job ${s.id} served at ${begin} in a window`).toBe(true);
        else expect(s.waiting_time).toBe(0);
        load += (job.pickup ?? [0])[0] - (job.delivery ?? job.amount ?? [0])[0];
        setup += s.setup;
        service += s.service;
        priority += job.priority ?? 0;
      }
      if (capacitated) {
        expect(s.load, `load after step ${k}`).toEqual([load]);
        expect(load).toBeLessThanOrEqual(cap);
      }
      waiting += s.waiting_time;
      t = begin + s.setup + s.service;
      expect(t, `step ${k} done within the vehicle's hours`).toBeLessThanOrEqual(tw[1]);
    }
    expect(r.duration).toBe(cumulative);
    expect(r.cost).toBe(cumulative);
    expect([r.setup, r.service, r.waiting_time, r.priority]).toEqual([setup, service, waiting, priority]);
    for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += r[k];
  }
  for (const u of out.unassigned) {
    expect(u.type).toBe('job');
    const job = jobs.get(u.id);
    expect(job, `unassigned job ${u.id}`).toBeDefined();
    expect(placeOf(u)).toEqual(job.location_index ?? job.location);
    seen.set(u.id, (seen.get(u.id) ?? 0) + 1);
  }
  expect([...seen.keys()].sort((a, b) => a - b)).toEqual(input.jobs.map((j: any) => j.id).sort((a: number, b: number) => a - b));
  expect([...seen.values()].every((c) => c === 1), 'every job once').toBe(true);
  expect(out.summary).toMatchObject({ ...totals, routes: out.routes.length, unassigned: out.unassigned.length });
}
