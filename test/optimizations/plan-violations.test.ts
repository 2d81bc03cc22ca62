// Plan mode's violations in VROOM's shape (its docs/API.md, "Violation": `{cause, duration?}` on each
// step, each route and the summary), on the real Liechtenstein map with the real job runner. Each of
// VROOM's ten causes is built on purpose, and every step's list is compared with the one the checker
// below derives from the request alone, trusting only the plan's times and running totals of driving
// (each step's `arrival`, `departure`, `duration`, `distance`): windows, working hours, loads, skills,
// max_tasks, precedence, max_load, max_travel_time, max_distance and missing breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { epochOf, roadPoints, type At } from '../optimize-api/support.js';
import { freshDatabase } from '../faults/support.js';
import { at, completedPlan } from './support.js';

let app: App & { url: string };
let team: TestTeam;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let P: At[];

beforeAll(async () => {
  db = await freshDatabase('planviol');
  app = await startTestApp({ DATABASE_URL: db.url });
  team = await makeTeam(app);
  P = await roadPoints(app.mapDir!, 20, 5);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const plan = (body: unknown): Promise<any> => completedPlan(app, team.key, body);

// ---------------------------------------------------------------------------------------------------------
// The checker: VROOM's rules read from the request; of the plan it trusts the times and running totals.

const CAUSES = ['lead_time', 'delay', 'load', 'max_tasks', 'skills', 'precedence', 'missing_break', 'max_travel_time', 'max_load', 'max_distance'];
type V = { cause: string; duration?: number };

/** One list per step: each cause once, in VROOM's order; lead_time and delay keep the larger seconds. */
function listOf(found: Map<string, number | undefined>): V[] {
  return CAUSES.filter((c) => found.has(c)).map((cause) => (found.get(cause) === undefined ? { cause } : { cause, duration: found.get(cause) }));
}
/** A route's or the plan's list: each cause once, lead_time and delay summed. */
function merged(all: V[]): V[] {
  return CAUSES.flatMap((cause) => {
    const mine = all.filter((v) => v.cause === cause);
    if (!mine.length) return [];
    return cause === 'lead_time' || cause === 'delay' ? [{ cause, duration: mine.reduce((a, v) => a + (v.duration ?? 0), 0) }] : [{ cause }];
  });
}

const amount = (a: unknown): number => (a === undefined ? 1 : (a as number));

/** The violations each step of `route` should list, and the route's. One load dimension. */
function expected(req: any, route: any): { steps: V[][]; route: V[] } {
  const vi = req.vehicles.findIndex((x: any) => x.id === route.vehicle);
  const v = req.vehicles[vi];
  const stops = new Map<string, any>(req.stops.map((s: any) => [s.id, s]));
  const shipments = new Map<string, any>((req.shipments ?? []).map((s: any) => [s.id, s]));
  const hoursEnd = epochOf(v.time_window[1]);
  const steps: any[] = route.steps;
  const tasks = steps.filter((s) => s.type === 'stop' || s.type === 'pickup' || s.type === 'delivery');
  // Deliveries of stops are on board from the start; a shipment's amount from its pickup to its delivery.
  let load = tasks.filter((s) => s.type === 'stop').reduce((a, s) => a + amount(stops.get(s.id).demand), 0);
  let done = 0;
  const windows = (found: Map<string, number | undefined>, tws: Array<[string, string]> | undefined, t: number) => {
    if (!tws?.length) return;
    const spans = tws.map(([a, b]) => [epochOf(a), epochOf(b)]);
    if (spans.some(([a, b]) => a <= t && t <= b)) return;
    const next = spans.find(([a]) => a > t);
    if (next) found.set('lead_time', next[0] - t);
    else found.set('delay', t - spans[spans.length - 1][1]);
  };
  const late = (found: Map<string, number | undefined>, by: number) => {
    if (by > 0) found.set('delay', Math.max(found.get('delay') ?? 0, by));
  };
  const limits = (found: Map<string, number | undefined>, s: any) => {
    if (v.max_travel_time !== undefined && s.duration > v.max_travel_time) found.set('max_travel_time', undefined);
    if (v.max_distance !== undefined && s.distance > v.max_distance) found.set('max_distance', undefined);
  };
  const lists = steps.map((s, k) => {
    const found = new Map<string, number | undefined>();
    const begin = epochOf(s.departure) - s.service;
    if (s.type === 'start') {
      if (load > v.capacity) found.set('load', undefined);
    } else if (s.type === 'end') {
      late(found, epochOf(s.arrival) - hoursEnd);
      if (load > v.capacity) found.set('load', undefined);
      limits(found, s);
    } else if (s.type === 'break') {
      const b = v.breaks.find((x: any) => String(x.id) === s.id);
      windows(found, b.time_windows, begin);
      late(found, epochOf(s.departure) - hoursEnd);
      if (load > v.capacity) found.set('load', undefined);
      if (b.max_load !== undefined && load > b.max_load) found.set('max_load', undefined);
      limits(found, s);
    } else {
      const task = s.type === 'stop' ? stops.get(s.id) : shipments.get(s.id);
      const where = s.type === 'stop' ? task : task[s.type];
      windows(found, where.time_windows, begin);
      late(found, epochOf(s.departure) - hoursEnd);
      if (s.type === 'stop') load -= amount(task.demand);
      else load += (s.type === 'pickup' ? 1 : -1) * amount(task.amount);
      if (load > v.capacity) found.set('load', undefined);
      if ((task.skills ?? []).some((x: string) => !(v.skills ?? []).includes(x))) found.set('skills', undefined);
      done++;
      if (v.max_tasks !== undefined && done > v.max_tasks) found.set('max_tasks', undefined);
      limits(found, s);
      if (s.type !== 'stop') {
        // A pickup needs its delivery later on this route, a delivery its pickup earlier.
        const other = steps.findIndex((x) => x.id === s.id && x.type === (s.type === 'pickup' ? 'delivery' : 'pickup'));
        if (s.type === 'pickup' ? other < k : other < 0 || other > k) found.set('precedence', undefined);
      }
    }
    return listOf(found);
  });
  const missing = (v.breaks ?? []).some((b: any) => !steps.some((s) => s.type === 'break' && s.id === String(b.id)));
  return { steps: lists, route: merged([...lists.flat(), ...(missing ? [{ cause: 'missing_break' }] : [])]) };
}

function checkViolations(req: any, result: any): void {
  for (const route of result.routes) {
    const want = expected(req, route);
    route.steps.forEach((s: any, k: number) => expect(s.violations, `${route.vehicle} step ${k} (${s.type} ${s.id ?? ''})`).toEqual(want.steps[k]));
    expect(route.violations, route.vehicle).toEqual(want.route);
    // A route with violations says why in words too, and one without none.
    expect(route.violation_messages.length > 0).toBe(route.violations.length > 0);
  }
  expect(result.summary.violations).toEqual(merged(result.routes.flatMap((r: any) => r.violations)));
}

// ---------------------------------------------------------------------------------------------------------

describe('plan mode violations (VROOM shape) on Liechtenstein', () => {
  // Every rule broken on purpose: the van's order is early and late for windows, overloads it (a crate of
  // 3 on a van for 2), serves a cooled stop without the skill, holds more tasks than max_tasks, delivers a
  // box never picked up and picks up a bag never delivered, takes its lunch late with the crate on board
  // (max_load 0) and drives past its max_travel_time and max_distance; the truck's hours end before it is
  // back and its break is in no step.
  const req = (timing: 'check' | 'retime') => ({
    mode: 'plan',
    plan_timing: timing,
    vehicles: [
      {
        id: 'van',
        start: P[0],
        end: P[0],
        capacity: 2,
        max_tasks: 3,
        max_travel_time: 240,
        max_distance: 3000,
        time_window: [at('08:00:00'), at('17:00:00')],
        breaks: [{ id: 'lunch', time_windows: [[at('08:00:00'), at('08:00:01')]], service: 600, max_load: 0 }],
        steps: [
          { type: 'start' },
          { type: 'stop', id: 'later' },
          { type: 'stop', id: 'cold' },
          { type: 'pickup', id: 'crate' },
          { type: 'break', id: 'lunch' },
          { type: 'stop', id: 'gone' },
          { type: 'delivery', id: 'crate' },
          { type: 'delivery', id: 'box' },
          { type: 'pickup', id: 'bag' },
          { type: 'end' },
        ],
      },
      {
        id: 'truck',
        start: P[1],
        end: P[1],
        capacity: 5,
        time_window: [at('08:00:00'), at('08:05:00')],
        breaks: [{ id: 'tea', service: 300 }],
        steps: [{ type: 'stop', id: 'far' }],
      },
    ],
    stops: [
      { ...P[2], id: 'later', demand: 0, service: 60, time_windows: [[at('15:00:00'), at('16:00:00')]] },
      { ...P[3], id: 'cold', demand: 0, skills: ['cooled'] },
      { ...P[4], id: 'gone', demand: 0, time_windows: [[at('08:00:00'), at('08:00:01')]] },
      { ...P[5], id: 'far', demand: 1, service: 600 },
    ],
    shipments: [
      { id: 'crate', amount: 3, pickup: P[6], delivery: P[7] },
      { id: 'box', amount: 1, pickup: P[8], delivery: P[9] },
      { id: 'bag', amount: 1, pickup: P[10], delivery: P[11] },
    ],
  });
  const causes = (list: V[]) => list.map((v) => v.cause);
  const stepOf = (route: any, type: string, id?: string) => route.steps.find((s: any) => s.type === type && (id === undefined || s.id === id));

  it('check: every step lists what it breaks, as VROOM does, and the routes and summary gather them', async () => {
    const body = req('check');
    const result = await plan(body);
    checkViolations(body, result);
    const [van, truck] = result.routes;
    // Each cause where it was built, not only somewhere.
    expect(causes(stepOf(van, 'stop', 'later').violations)).toContain('lead_time');
    expect(causes(stepOf(van, 'stop', 'cold').violations)).toContain('skills');
    expect(causes(stepOf(van, 'pickup', 'crate').violations)).toContain('load');
    expect(causes(stepOf(van, 'break', 'lunch').violations)).toEqual(expect.arrayContaining(['delay', 'load', 'max_load']));
    expect(causes(stepOf(van, 'stop', 'gone').violations)).toEqual(expect.arrayContaining(['delay', 'max_tasks']));
    expect(causes(stepOf(van, 'delivery', 'box').violations)).toContain('precedence');
    expect(causes(stepOf(van, 'pickup', 'bag').violations)).toContain('precedence');
    expect(causes(stepOf(van, 'delivery', 'crate').violations)).not.toContain('precedence');
    expect(causes(stepOf(van, 'end').violations)).toEqual(['max_travel_time', 'max_distance']);
    expect(causes(stepOf(van, 'start').violations)).toEqual([]);
    expect(causes(truck.violations)).toEqual(['delay', 'missing_break']);
    expect(causes(stepOf(truck, 'end').violations)).toEqual(['delay']);
    // The delay's seconds: the lateness for the window, to the second, from the plan's own times.
    const gone = stepOf(van, 'stop', 'gone');
    expect(gone.violations.find((v: V) => v.cause === 'delay').duration).toBe(epochOf(gone.arrival) - epochOf(at('08:00:01')));
    // All ten of VROOM's causes in one plan.
    expect(causes(result.summary.violations)).toEqual(CAUSES);
  });

  it('retime: only what waiting cannot mend is left, each where it happens', async () => {
    const body = req('retime');
    const result = await plan(body);
    checkViolations(body, result);
    const van = result.routes[0];
    // Waiting for 'later' to open mends its lead time; no step is early when re-timed.
    expect(result.routes.flatMap((r: any) => r.steps.flatMap((s: any) => causes(s.violations)))).not.toContain('lead_time');
    const later = stepOf(van, 'stop', 'later');
    expect(epochOf(later.departure) - later.service).toBe(epochOf(at('15:00:00')));
    expect(causes(van.violations)).toEqual(expect.arrayContaining(['delay', 'load', 'skills', 'precedence', 'max_load', 'max_tasks']));
    expect(causes(result.routes[1].violations)).toContain('missing_break');
  });

  it('a plan that keeps every rule reports none, and a searched plan has empty lists everywhere', async () => {
    const fine = {
      mode: 'plan',
      plan_timing: 'check',
      vehicles: [{ id: 'van', start: P[0], end: P[0], capacity: 5, time_window: [at('08:00:00'), at('17:00:00')], steps: [{ type: 'stop', id: 'a' }] }],
      stops: [{ ...P[2], id: 'a' }],
    };
    const ok = await plan(fine);
    checkViolations(fine, ok);
    expect(ok.summary.violations).toEqual([]);
    const { mode: _m, plan_timing: _t, ...searched } = fine;
    const s = await plan({ ...searched, time_budget: 1, vehicles: [{ ...fine.vehicles[0], steps: undefined }] });
    expect(s.summary.violations).toEqual([]);
    for (const r of s.routes) {
      expect(r.violations).toEqual([]);
      for (const step of r.steps) expect(step.violations).toEqual([]);
    }
  });
});
