// POST /v1/optimizations at VROOM's breadth, on the real Liechtenstein map with the real solver and job
// runner: shipments, priorities, several windows per stop, max_tasks / max_travel_time / max_distance,
// speed_factor, stops taken from the team's POIs (opening hours read from an attribute with the npm
// `opening_hours`, POIs that cannot be served unassigned with the reason), and 422s naming what the
// solver cannot honour yet. Every plan goes through the checker below, which re-derives the rules from
// the request and trusts only each leg's travel time (the steps' cumulative durations).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpeningHours from 'opening_hours';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { epochOf, roadPoints, type At } from '../optimize-api/support.js';
import { freshDatabase } from '../faults/support.js';
import { at, completedPlan } from './support.js';
import { timeAsGiven } from '../../src/engine/vrp/breaks.js';
import type { VrpProblem } from '../../src/engine/vrp/types.js';

let app: App & { url: string };
let team: TestTeam;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let P: At[];

beforeAll(async () => {
  db = await freshDatabase('optmodel');
  app = await startTestApp({ DATABASE_URL: db.url });
  team = await makeTeam(app);
  P = await roadPoints(app.mapDir!, 60, 11);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const submit = (body: unknown) => api(app, 'POST', '/v1/optimizations', { key: team.key, body });

/** Submits and waits for the plan; fails the test on anything but a completed job. */
const plan = (body: unknown): Promise<any> => completedPlan(app, team.key, body);

// ---------------------------------------------------------------------------------------------------------
// The checker: knows the request and the rules, nothing of the solver.

const units = (a: unknown, dims: number): number[] => (a === undefined ? new Array(dims).fill(1) : typeof a === 'number' ? [a] : (a as number[]));
const zero = (dims: number) => new Array(dims).fill(0);
const add = (a: number[], b: number[], sign = 1) => a.map((x, d) => x + sign * b[d]);

/** VROOM's cost of a route that drove `end.duration` seconds and `end.distance` meters (the last step's running totals). */
const costOf = (v: any, end: { duration: number; distance: number }) =>
  (v.costs?.fixed ?? 0) + Math.round(((v.costs?.per_hour ?? 3600) * end.duration) / 3600 + ((v.costs?.per_km ?? 0) * end.distance) / 1000);

/** Service may start inside one of the windows (none: any time). */
function inAWindow(windows: Array<[string, string]> | undefined, start: number): boolean {
  if (!windows?.length) return true;
  return windows.some(([a, b]) => start >= epochOf(a) && start <= epochOf(b));
}

function checkModel(req: any, result: any): void {
  const stops: any[] = Array.isArray(req.stops) ? req.stops : [];
  const shipments: any[] = req.shipments ?? [];
  const first = [...req.vehicles.map((v: any) => v.capacity), ...stops.map((s) => s.demand), ...shipments.map((s) => s.amount)].find((x) => Array.isArray(x));
  const dims = Array.isArray(first) ? first.length : 1;
  const served = new Map<string, { vehicle: string; position: number }>();
  for (const route of result.routes) {
    const v = req.vehicles.find((x: any, i: number) => (x.id ?? `vehicle-${i + 1}`) === route.vehicle);
    expect(v, route.vehicle).toBeDefined();
    const steps: any[] = route.steps;
    const tasks = steps.filter((s) => s.type !== 'start' && s.type !== 'end' && s.type !== 'break');
    // Loads from the request: deliveries on board from the start, a shipment's amount from pickup to delivery.
    let load = tasks.filter((s) => s.type === 'stop').reduce((acc, s) => add(acc, units(stops[s.index].demand, dims)), zero(dims));
    const capacity = v.capacity === undefined ? null : units(v.capacity, dims);
    const fits = (l: number[]) => capacity === null || l.every((x, d) => x >= 0 && x <= capacity[d]);
    expect(fits(load), `${route.vehicle} leaves overloaded`).toBe(true);
    if (capacity) expect(units(steps[0].load, dims)).toEqual(load);
    for (let i = 1; i < steps.length; i++) {
      const s = steps[i];
      const prev = steps[i - 1];
      // Never before the previous departure plus the leg's travel time.
      expect(epochOf(s.arrival)).toBeGreaterThanOrEqual(epochOf(prev.departure) + (s.duration - prev.duration));
      if (s.type === 'end') continue;
      const start = epochOf(s.departure) - s.service;
      if (s.type === 'break') {
        // Taken where the vehicle is, inside one of the break's windows, once.
        const b = v.breaks[s.index];
        expect(String(b.id)).toBe(s.id);
        expect([s.latitude, s.longitude]).toEqual([prev.latitude, prev.longitude]);
        expect(s.service).toBe(b.service ?? 0);
        expect(start).toBeGreaterThanOrEqual(epochOf(s.arrival));
        expect(inAWindow(b.time_windows, start), `break ${s.id} of ${route.vehicle} starts at ${s.departure} outside its windows`).toBe(true);
        // What is on board while it is taken (the load after the step before) within its max_load.
        if (b.max_load !== undefined) {
          const most = [b.max_load].flat();
          [s.load]
            .flat()
            .forEach((x: number, d: number) => expect(x, `break ${s.id} of ${route.vehicle} with ${s.load} on board`).toBeLessThanOrEqual(most[d]));
        }
        if (v.time_window) expect(epochOf(s.departure)).toBeLessThanOrEqual(epochOf(v.time_window[1]));
        expect(served.has(`break ${route.vehicle} ${s.index}`)).toBe(false);
        served.set(`break ${route.vehicle} ${s.index}`, { vehicle: route.vehicle, position: i });
        if (capacity) expect(units(s.load, dims)).toEqual(load);
        continue;
      }
      expect(start).toBeGreaterThanOrEqual(epochOf(s.arrival));
      if (v.time_window) {
        expect(start).toBeGreaterThanOrEqual(epochOf(v.time_window[0]));
        expect(epochOf(s.departure)).toBeLessThanOrEqual(epochOf(v.time_window[1]));
      }
      const key = s.type === 'stop' ? `stop ${s.index}` : `${s.type} ${s.index}`;
      expect(served.has(key), `${key} served twice`).toBe(false);
      served.set(key, { vehicle: route.vehicle, position: i });
      if (s.type === 'stop') {
        const stop = stops[s.index];
        expect(s.id).toBe(stop.id ?? null);
        expect(inAWindow(stop.time_windows, start), `stop ${s.index} served at ${s.departure} outside its windows`).toBe(true);
        expect(s.service).toBe(stop.service ?? 0);
        load = add(load, units(stop.demand, dims), -1);
      } else {
        const sh = shipments[s.index];
        expect(s.id).toBe(sh.id ?? null);
        const end = sh[s.type];
        expect(inAWindow(end.time_windows, start), `${key} outside its windows`).toBe(true);
        const amount = sh.amount === undefined ? zero(dims) : units(sh.amount, dims);
        load = add(load, amount, s.type === 'pickup' ? 1 : -1);
      }
      expect(fits(load), `${route.vehicle} overloaded after ${key}`).toBe(true);
      if (capacity) expect(units(s.load, dims)).toEqual(load);
    }
    if (v.max_tasks !== undefined) expect(tasks.length).toBeLessThanOrEqual(v.max_tasks);
    if (v.max_distance !== undefined) expect(route.distance).toBeLessThanOrEqual(v.max_distance);
    if (v.max_travel_time !== undefined) expect(route.duration).toBeLessThanOrEqual(v.max_travel_time);
    expect(route.duration).toBe(steps.at(-1).duration);
    expect(route.distance).toBe(steps.at(-1).distance);
    // The objective as documented, from the steps' driving: fixed + per_hour × hours + per_km × km.
    expect(route.cost).toBe(costOf(v, steps.at(-1)));
    // Every used vehicle takes each of its breaks.
    (v.breaks ?? []).forEach((_: unknown, k: number) => expect(served.has(`break ${route.vehicle} ${k}`), `${route.vehicle} skips break ${k}`).toBe(true));
  }
  // Every shipment: both ends by one vehicle, the pickup first, or neither (and then listed once as unassigned).
  shipments.forEach((_, k) => {
    const p = served.get(`pickup ${k}`);
    const d = served.get(`delivery ${k}`);
    if (p || d) {
      expect(p && d, `shipment ${k} split`).toBeTruthy();
      expect(p!.vehicle).toBe(d!.vehicle);
      expect(p!.position).toBeLessThan(d!.position);
    } else expect(result.unassigned.filter((u: any) => u.type === 'shipment' && u.index === k)).toHaveLength(1);
  });
  stops.forEach((_, i) => {
    const listed = result.unassigned.filter((u: any) => u.type === 'stop' && u.index === i).length;
    expect(listed + (served.has(`stop ${i}`) ? 1 : 0), `stop ${i} served or unassigned, once`).toBe(1);
  });
  for (const u of result.unassigned) expect(u.reason.length).toBeGreaterThan(0);
  expect(result.summary.cost).toBe(result.routes.reduce((a: number, r: any) => a + r.cost, 0));
}

// ---------------------------------------------------------------------------------------------------------

describe('shipments, priorities, windows and limits', () => {
  it('carries shipments pickup first on one vehicle within capacity, with stops of several windows', async () => {
    const req = {
      time_budget: 2,
      vehicles: [
        { id: 'van-a', start: P[0], end: P[0], capacity: 4, time_window: [at('07:00:00'), at('18:00:00')] },
        { id: 'van-b', start: P[1], end: P[1], capacity: 4, time_window: [at('07:00:00'), at('18:00:00')] },
      ],
      stops: P.slice(2, 10).map((p, i) => ({
        ...p,
        id: `s${i}`,
        service: 300,
        demand: 1,
        // Two windows a stop: the morning or the afternoon.
        ...(i % 2
          ? {
              time_windows: [
                [at('08:00:00'), at('09:30:00')],
                [at('14:00:00'), at('15:00:00')],
              ],
            }
          : {}),
      })),
      shipments: Array.from({ length: 6 }, (_, k) => ({
        id: `parcel-${k}`,
        amount: 3,
        pickup: { ...P[10 + 2 * k], service: 120 },
        delivery: { ...P[11 + 2 * k], service: 120, ...(k === 0 ? { time_windows: [[at('10:00:00'), at('12:00:00')]] } : {}) },
      })),
    };
    const result = await plan(req);
    checkModel(req, result);
    expect(result.summary.stops).toBe(8 + 12);
    // A van carrying 4 takes a parcel of 3 only once the stops' deliveries are mostly out: all fit over the day.
    expect(result.unassigned).toEqual([]);
    const kinds = result.routes.flatMap((r: any) => r.steps.map((s: any) => s.type));
    expect(kinds.filter((k: string) => k === 'pickup')).toHaveLength(6);
  });

  it("places every driver's break inside its window, where the vehicle is, and drops stops rather than a break", async () => {
    const lunch = { id: 'lunch', time_windows: [[at('11:30:00'), at('13:00:00')]], service: 2700 };
    const req = {
      time_budget: 2,
      vehicles: [
        { id: 'van-a', start: P[0], end: P[0], time_window: [at('08:00:00'), at('17:00:00')], breaks: [lunch] },
        { id: 'van-b', start: P[1], end: P[1], time_window: [at('08:00:00'), at('17:00:00')], breaks: [lunch, { id: 7, service: 600 }] },
      ],
      stops: P.slice(2, 32).map((p, i) => ({ ...p, id: `b${i}`, service: 1200 })),
    };
    const result = await plan(req);
    checkModel(req, result);
    expect(result.routes).toHaveLength(2);
    const breaks = result.routes.flatMap((r: any) => r.steps.filter((s: any) => s.type === 'break').map((s: any) => `${r.vehicle} ${s.id}`));
    expect(breaks.sort()).toEqual(['van-a lunch', 'van-b 7', 'van-b lunch']);
    // A short day with a fixed break: the stops that no longer fit are left out, the break is kept.
    const tight = {
      time_budget: 1,
      vehicles: [
        {
          id: 'van',
          start: P[0],
          end: P[0],
          time_window: [at('08:00:00'), at('10:00:00')],
          breaks: [{ id: 'b', time_windows: [[at('08:30:00'), at('08:45:00')]], service: 1800 }],
        },
      ],
      stops: P.slice(2, 14).map((p, i) => ({ ...p, id: `t${i}`, service: 600 })),
    };
    const short = await plan(tight);
    checkModel(tight, short);
    expect(short.unassigned.length).toBeGreaterThan(0);
    expect(short.routes[0].steps.filter((s: any) => s.type === 'break')).toHaveLength(1);
    // max_load: the break is taken with at most 2 of the van's 10 deliveries still on board.
    const loaded = {
      time_budget: 1,
      vehicles: [
        {
          id: 'van',
          start: P[0],
          end: P[0],
          capacity: [10],
          time_window: [at('08:00:00'), at('17:00:00')],
          breaks: [{ id: 'b', time_windows: [[at('08:00:00'), at('17:00:00')]], service: 1800, max_load: [2] }],
        },
      ],
      stops: P.slice(2, 12).map((p, i) => ({ ...p, id: `m${i}`, demand: [1] })),
    };
    const light = await plan(loaded);
    checkModel(loaded, light);
    expect(light.summary.assigned).toBe(10);
    const brk = light.routes[0].steps.find((s: any) => s.type === 'break');
    expect(brk.load[0]).toBeLessThanOrEqual(2);
  });

  it('plans several breaks a vehicle, and breaks of two windows, each inside a window and in order', async () => {
    // Stops with windows over a tight day: van-a a coffee and a lunch break, van-b a lunch break that is
    // either early or late (two windows) and a tea break; the search plans all of them (none has a max_load).
    const req = {
      time_budget: 2,
      vehicles: [
        {
          id: 'van-a',
          start: P[0],
          end: P[0],
          time_window: [at('08:00:00'), at('15:00:00')],
          breaks: [
            { id: 'lunch', time_windows: [[at('12:00:00'), at('12:30:00')]], service: 2700 },
            { id: 'coffee', time_windows: [[at('09:30:00'), at('10:00:00')]], service: 900 },
          ],
        },
        {
          id: 'van-b',
          start: P[1],
          end: P[1],
          time_window: [at('08:00:00'), at('15:00:00')],
          breaks: [
            {
              id: 'lunch',
              time_windows: [
                [at('10:30:00'), at('10:45:00')],
                [at('13:00:00'), at('13:15:00')],
              ],
              service: 1800,
            },
            { id: 'tea', time_windows: [[at('14:00:00'), at('14:15:00')]], service: 600 },
          ],
        },
      ],
      stops: P.slice(2, 34).map((p, i) => ({
        ...p,
        id: `w${i}`,
        service: 900,
        // Every third stop in a one-hour window, spread over the day.
        ...(i % 3 === 0 ? { time_windows: [[at(`${String(8 + (i % 6)).padStart(2, '0')}:00:00`), at(`${String(9 + (i % 6)).padStart(2, '0')}:00:00`)]] } : {}),
      })),
    };
    const result = await plan(req);
    checkModel(req, result);
    expect(result.routes).toHaveLength(2);
    expect(result.summary.assigned).toBeGreaterThan(15);
    // In the order of their windows, whatever the order given.
    const order = Object.fromEntries(result.routes.map((r: any) => [r.vehicle, r.steps.filter((s: any) => s.type === 'break').map((s: any) => s.id)]));
    expect(order).toEqual({ 'van-a': ['coffee', 'lunch'], 'van-b': ['lunch', 'tea'] });
  });

  it("weighs each vehicle's fixed cost against driving time", async () => {
    // Two depots with their own stops nearby: each van serves its own, unless using the second costs more than driving over.
    const stops = [...P.slice(2, 5), ...P.slice(5, 8)].map((p, i) => ({ ...p, id: `c${i}` }));
    const vehicles = [
      { id: 'own', start: P[2], end: P[2] },
      { id: 'hired', start: P[5], end: P[5] },
    ];
    const both = { time_budget: 1, vehicles, stops };
    const free = await plan(both);
    checkModel(both, free);
    expect(free.routes).toHaveLength(2);
    const dear = { ...both, vehicles: [vehicles[0], { ...vehicles[1], costs: { fixed: 10 * free.summary.duration + 100_000 } }] };
    const one = await plan(dear);
    checkModel(dear, one);
    expect(one.routes.map((r: any) => r.vehicle)).toEqual(['own']);
    expect(one.summary.assigned).toBe(6);
    // At a tenth of the rate per hour, the same fixed cost weighs ten times more against driving.
    const cheapHours = { ...dear, vehicles: dear.vehicles.map((v) => ({ ...v, costs: { ...('costs' in v ? v.costs : {}), per_hour: 360 } })) };
    const cheap = await plan(cheapHours);
    checkModel(cheapHours, cheap);
    expect(cheap.summary.cost).toBe(Math.round((360 * cheap.summary.duration) / 3600));
  });

  it('plan mode times the given steps, reports every violation, and leaves the stops of no step unassigned', async () => {
    const req = {
      mode: 'plan',
      vehicles: [
        {
          id: 'van',
          start: P[0],
          end: P[0],
          capacity: 3,
          time_window: [at('08:00:00'), at('12:00:00')],
          steps: [
            { type: 'start' },
            { type: 'stop', id: 'late' },
            { type: 'pickup', id: 'crate' },
            { type: 'stop', id: 'early' },
            { type: 'delivery', id: 'crate' },
            { type: 'end' },
          ],
        },
      ],
      stops: [
        { ...P[2], id: 'late', service: 600 },
        // Its window closes before the van can get there after the other stops.
        { ...P[3], id: 'early', time_windows: [[at('08:00:00'), at('08:01:00')]] },
        { ...P[4], id: 'left-out' },
      ],
      shipments: [{ id: 'crate', amount: 3, pickup: P[5], delivery: P[6] }],
    };
    const result = await plan(req);
    const route = result.routes[0];
    expect(route.steps.map((s: any) => `${s.type} ${s.id ?? ''}`.trim())).toEqual([
      'start',
      'stop late',
      'pickup crate',
      'stop early',
      'delivery crate',
      'end',
    ]);
    expect(route.violation_messages).toEqual([expect.stringMatching(/after its last time window/), expect.stringMatching(/load .* exceeds the capacity/)]);
    // Times still follow the given order: each arrival after the previous departure and the leg.
    for (let i = 1; i < route.steps.length; i++)
      expect(epochOf(route.steps[i].arrival)).toBeGreaterThanOrEqual(
        epochOf(route.steps[i - 1].departure) + route.steps[i].duration - route.steps[i - 1].duration,
      );
    expect(result.unassigned).toEqual([expect.objectContaining({ type: 'stop', id: 'left-out', reason: "it is in no vehicle's steps (plan mode)" })]);
    // A feasible order has no violations and passes the checker.
    const fine = {
      ...req,
      vehicles: [
        {
          ...req.vehicles[0],
          capacity: 5,
          steps: [
            { type: 'stop', id: 'early' },
            { type: 'stop', id: 'late' },
          ],
        },
      ],
      stops: [req.stops[0], { ...req.stops[1], time_windows: [[at('08:00:00'), at('09:00:00')]] }, req.stops[2]],
      shipments: [],
    };
    const ok = await plan(fine);
    expect(ok.routes[0].violation_messages).toEqual([]);
    checkModel(fine, ok);
    // A break named in the steps is taken there: between the two stops, inside its window.
    const lunch = { id: 'lunch', time_windows: [[at('08:00:00'), at('11:00:00')]], service: 1800 };
    const withBreak = {
      ...fine,
      vehicles: [
        {
          ...fine.vehicles[0],
          breaks: [lunch],
          steps: [
            { type: 'stop', id: 'early' },
            { type: 'break', id: 'lunch' },
            { type: 'stop', id: 'late' },
          ],
        },
      ],
    };
    const taken = await plan(withBreak);
    expect(taken.routes[0].steps.map((s: any) => `${s.type} ${s.id ?? ''}`.trim())).toEqual(['start', 'stop early', 'break lunch', 'stop late', 'end']);
    expect(taken.routes[0].violation_messages).toEqual([]);
    checkModel(withBreak, taken);
    // Where its window has closed, the route reports it rather than moving the break.
    const tooLate = { ...withBreak, vehicles: [{ ...withBreak.vehicles[0], breaks: [{ ...lunch, time_windows: [[at('08:00:00'), at('08:00:30')]] }] }] };
    const missed = await plan(tooLate);
    expect(missed.routes[0].violation_messages).toEqual([expect.stringMatching(/^break 'lunch' is reached \d+ s after its last time window$/)]);
    // Unknown or repeated break ids, and naming some of a vehicle's breaks only: 422 at each.
    const badBreaks = await submit({
      ...withBreak,
      vehicles: [
        {
          ...withBreak.vehicles[0],
          steps: [
            { type: 'break', id: 'nap' },
            { type: 'break', id: 'lunch' },
            { type: 'break', id: 'lunch' },
          ],
        },
        { start: P[1], breaks: [lunch, { id: 'tea', service: 600 }], steps: [{ type: 'break', id: 'tea' }] },
      ],
    });
    expect(badBreaks.body.errors).toEqual({
      'vehicles.0.steps.0.id': ["is not the id of one of the vehicle's breaks"],
      'vehicles.0.steps.2.id': ['is already a step of this vehicle'],
      'vehicles.1.steps': ["names 1 of the vehicle's 2 breaks: name all of them, or none to have them placed"],
    });
    // Steps outside plan mode, unknown and repeated ids: 422 at each.
    const bad = await submit({
      vehicles: [
        { start: P[0], steps: [{ type: 'stop', id: 'x' }] },
        { start: P[1], steps: [{ type: 'stop', id: 'a' }] },
      ],
      stops: [{ ...P[2], id: 'a' }],
    });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['vehicles.0.steps', 'vehicles.1.steps']);
    const wrong = await submit({
      mode: 'plan',
      vehicles: [
        {
          start: P[0],
          steps: [
            { type: 'stop', id: 'x' },
            { type: 'stop', id: 'a' },
          ],
        },
        { start: P[1], steps: [{ type: 'stop', id: 'a' }, { type: 'pickup' }] },
      ],
      stops: [{ ...P[2], id: 'a' }],
    });
    expect(wrong.body.errors).toEqual({
      'vehicles.0.steps.0.id': ['is not the id of a stop'],
      'vehicles.1.steps.0.id': ['is already a step at vehicles.0.steps.1'],
      'vehicles.1.steps.1.id': ['is required for a pickup step'],
    });
  });

  it('plan_timing check reports the steps as driven, never waiting; retime waits for windows; both name every violation', async () => {
    const lunch = { id: 'lunch', time_windows: [[at('12:00:00'), at('13:00:00')]], service: 1800 };
    const req: any = {
      mode: 'plan',
      vehicles: [
        {
          id: 'van',
          start: P[0],
          end: P[0],
          time_window: [at('08:00:00'), at('17:00:00')],
          breaks: [lunch],
          steps: [
            { type: 'stop', id: 'soon' },
            { type: 'stop', id: 'gone' },
            { type: 'break', id: 'lunch' },
            { type: 'stop', id: 'later' },
          ],
        },
      ],
      stops: [
        { ...P[2], id: 'soon' },
        // Closed before the van can get there, and open only after it would arrive.
        { ...P[3], id: 'gone', time_windows: [[at('08:00:00'), at('08:00:01')]] },
        { ...P[4], id: 'later', service: 300, time_windows: [[at('15:00:00'), at('16:00:00')]] },
      ],
    };
    const steps = (r: any) => Object.fromEntries(r.steps.map((s: any) => [s.id ?? s.type, s]));
    const checked = await plan({ ...req, plan_timing: 'check' });
    checkModel(
      {
        ...req,
        stops: req.stops.map(({ time_windows: _, ...s }: any) => s),
        vehicles: [{ ...req.vehicles[0], breaks: [{ ...lunch, time_windows: undefined }] }],
      },
      checked,
    );
    const c = steps(checked.routes[0]);
    // As driven: off at 08:00, no waiting anywhere, the break on arrival after 'gone' (long before noon).
    expect(c.start.departure).toBe(at('08:00:00'));
    for (const s of checked.routes[0].steps) expect(s.waiting_time).toBe(0);
    const late = epochOf(c.gone.arrival) - epochOf(at('08:00:01'));
    const early = (s: any, opens: string) => epochOf(opens) - epochOf(s.arrival);
    expect(checked.routes[0].violation_messages).toEqual([
      `stop 'gone' is reached ${late} s after its last time window`,
      `break 'lunch' begins ${early(c.lunch, at('12:00:00'))} s before its window opens`,
      `stop 'later' begins ${early(c.later, at('15:00:00'))} s before its window opens`,
    ]);
    // Re-timed: the van waits for the break's window and for 'later' to open; only 'gone' stays late.
    const retimed = await plan(req);
    checkModel({ ...req, stops: req.stops.map((s: any) => (s.id === 'gone' ? { ...s, time_windows: undefined } : s)) }, retimed);
    const r = steps(retimed.routes[0]);
    expect(retimed.routes[0].violation_messages).toEqual([
      `stop 'gone' is reached ${epochOf(r.gone.arrival) - epochOf(at('08:00:01'))} s after its last time window`,
    ]);
    expect(epochOf(r.lunch.departure) - 1800).toBeGreaterThanOrEqual(epochOf(at('12:00:00')));
    expect(epochOf(r.later.departure) - 300).toBe(epochOf(at('15:00:00')));
    // Check mode takes breaks only where the steps put them.
    const noBreakStep = {
      ...req,
      plan_timing: 'check',
      vehicles: [{ ...req.vehicles[0], steps: req.vehicles[0].steps.filter((s: any) => s.type !== 'break') }],
    };
    expect((await plan(noBreakStep)).routes[0].violation_messages).toContain("break 'lunch' is not in the steps");
    // plan_timing is plan mode's, and one of two words.
    const bad = await submit({ ...req, mode: 'optimize', plan_timing: 'check', vehicles: [{ ...req.vehicles[0], steps: undefined }] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ plan_timing: ['is read in plan mode only: send mode "plan" with it'] });
    const word = await submit({ ...req, plan_timing: 'later' });
    expect(word.body.errors).toEqual({ plan_timing: ['must be retime or check'] });
  });

  it('times a given 200-stop plan with a break by scheduling it, not searching: at most one pass of the route per place the break can go', () => {
    const n = 201;
    let seed = 3;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const xy = Array.from({ length: n }, () => [rand() * 20_000, rand() * 20_000]);
    const matrix = new Int32Array(n * n).map((_, k) =>
      Math.round(Math.hypot(xy[Math.floor(k / n)][0] - xy[k % n][0], xy[Math.floor(k / n)][1] - xy[k % n][1]) / 10),
    );
    // The work counted, not timed (a loaded machine made a 50 ms bound fail): every travel time read.
    let reads = 0;
    const durations = new Proxy(matrix, {
      get(target, key) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const problem: VrpProblem = {
      durations,
      vehicles: [{ start: 0, end: 0, hours: [0, 2_000_000], breaks: [{ windows: [[20_000, 30_000]], service: 1800 }] }],
      jobs: Array.from({ length: 200 }, (_, j) => ({ location: j + 1, service: 120, timeWindows: j % 10 ? [] : [[0, 1_500_000]] })),
    };
    const jobs = Array.from({ length: 200 }, (_, j) => j);
    const got = timeAsGiven(problem, [{ vehicle: 0, jobs }]);
    expect(got.routes[0].breaks).toHaveLength(1);
    // 201 places for the break, a pass over 201 legs for each: 25,551 reads when written (a search reads
    // the matrix millions of times).
    console.log(`plan mode, 200 stops and a break: ${reads} travel times read`);
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(n * n);
  });

  it('serves the high-priority stops first when not all fit', async () => {
    // One van of 3 units, eight stops of 1 unit: three are served, and they are the three of priority 90.
    const stops = P.slice(2, 10).map((p, i) => ({ ...p, id: `p${i}`, demand: 1, ...([1, 4, 6].includes(i) ? { priority: 90 } : {}) }));
    const req = { time_budget: 1, vehicles: [{ id: 'small', start: P[0], end: P[0], capacity: 3 }], stops };
    const result = await plan(req);
    checkModel(req, result);
    const servedIds = result.routes.flatMap((r: any) => r.steps.filter((s: any) => s.type === 'stop').map((s: any) => s.id)).sort();
    expect(servedIds).toEqual(['p1', 'p4', 'p6']);
    // Priorities honoured: no stop left out outranks one served.
    const lowestServed = Math.min(...servedIds.map((id: string) => stops.find((s) => s.id === id)!.priority ?? 0));
    for (const u of result.unassigned) expect(stops[u.index].priority ?? 0).toBeLessThanOrEqual(lowestServed);
    // Without priorities the same van serves the three it reaches most cheaply: not those.
    const plain = await plan({ ...req, stops: stops.map(({ priority: _, ...s }) => s) });
    const cheap = plain.routes.flatMap((r: any) => r.steps.filter((s: any) => s.type === 'stop').map((s: any) => s.id)).sort();
    expect(cheap).not.toEqual(['p1', 'p4', 'p6']);
  });

  it('keeps max_tasks, max_travel_time and max_distance, and speed_factor divides travel times', async () => {
    const stops = P.slice(2, 14).map((p, i) => ({ ...p, id: `t${i}` }));
    const base = { time_budget: 1, stops };
    const free = await plan({ ...base, vehicles: [{ id: 'v', start: P[0], end: P[0] }] });
    expect(free.summary.assigned).toBe(12);
    const few = { ...base, vehicles: [{ id: 'v', start: P[0], end: P[0], max_tasks: 5 }] };
    const fewPlan = await plan(few);
    checkModel(few, fewPlan);
    expect(fewPlan.summary.assigned).toBe(5);
    const short = { ...base, vehicles: [{ id: 'v', start: P[0], end: P[0], max_travel_time: Math.floor(free.summary.duration / 2) }] };
    const shortPlan = await plan(short);
    checkModel(short, shortPlan);
    expect(shortPlan.summary.assigned).toBeLessThan(12);
    expect(shortPlan.unassigned.length).toBeGreaterThan(0);
    const near = { ...base, vehicles: [{ id: 'v', start: P[0], end: P[0], max_distance: Math.floor(free.summary.distance / 2) }] };
    const nearPlan = await plan(near);
    checkModel(near, nearPlan);
    expect(nearPlan.summary.assigned).toBeLessThan(12);
    const fast = { ...base, vehicles: [{ id: 'v', start: P[0], end: P[0], speed_factor: 2 }] };
    const fastPlan = await plan(fast);
    checkModel(fast, fastPlan);
    expect(fastPlan.summary.assigned).toBe(12);
    // Each leg halved and rounded: the tour of the same stops takes about half as long.
    expect(fastPlan.summary.duration).toBeLessThanOrEqual(Math.ceil(free.summary.duration / 2) + 13);
    expect(fastPlan.summary.duration).toBeGreaterThan(free.summary.duration / 3);
  });

  it("prices each vehicle's hours and km as its costs say, at its own speed: the dearer per km drives less, the plan's cost is the objective of its steps", async () => {
    const stops = P.slice(2, 16).map((p, i) => ({ ...p, id: `k${i}` }));
    // Two vans from one depot, each with room for 9 of the 14 stops: both drive, and the one that pays
    // 20 times more per km takes the shorter round.
    const van = (id: string, per_km: number) => ({ id, start: P[0], end: P[0], capacity: 9, costs: { per_hour: 1800, per_km } });
    const req = { time_budget: 2, vehicles: [van('dear', 2000), van('cheap', 100)], stops };
    const got = await plan(req);
    checkModel(req, got);
    expect(got.summary.assigned).toBe(14);
    const driven = (r: any, id: string) => r.routes.find((x: any) => x.vehicle === id)?.distance ?? 0;
    expect(driven(got, 'dear')).toBeLessThan(driven(got, 'cheap'));
    // Their prices swapped, the roles swap.
    const swapped = { ...req, vehicles: [van('dear', 100), van('cheap', 2000)] };
    const other = await plan(swapped);
    checkModel(swapped, other);
    expect(driven(other, 'cheap')).toBeLessThan(driven(other, 'dear'));
    // The same two rounds driven by the other van (plan mode times them) cost more: the search chose by the prices.
    const stepsOf = (r: any) => r.steps.filter((s: any) => s.type === 'stop').map((s: any) => ({ type: 'stop', id: s.id }));
    const [a, b] = ['dear', 'cheap'].map((id) => got.routes.find((r: any) => r.vehicle === id));
    const exchanged = {
      ...req,
      mode: 'plan',
      vehicles: [
        { ...req.vehicles[0], steps: stepsOf(b) },
        { ...req.vehicles[1], steps: stepsOf(a) },
      ],
    };
    const timed = await plan(exchanged);
    checkModel(exchanged, timed);
    expect(timed.routes.every((r: any) => r.violation_messages.length === 0)).toBe(true);
    expect(timed.summary.cost).toBeGreaterThan(got.summary.cost);
    // Speed factors per vehicle: the same steps timed at factor 1 and at factor 2.5, leg by leg the faster
    // van's time is the slower one's divided by 2.5, to the nearest second; its per-hour cost counts those.
    const steps = stops.slice(0, 6).map((s) => ({ type: 'stop', id: s.id }));
    const legsOf = (r: any) => r.steps.slice(1).map((s: any, i: number) => s.duration - r.steps[i].duration);
    const one = (speed_factor: number) => ({
      mode: 'plan',
      vehicles: [{ id: 'v', start: P[0], end: P[0], speed_factor, costs: { per_hour: 7200 }, steps }],
      stops: stops.slice(0, 6),
    });
    const [slow, fast] = await Promise.all([plan(one(1)), plan(one(2.5))]);
    checkModel(one(2.5), fast);
    expect(legsOf(fast.routes[0])).toEqual(legsOf(slow.routes[0]).map((d: number) => Math.round(d / 2.5)));
    expect(fast.routes[0].cost).toBe(Math.round((7200 * fast.routes[0].duration) / 3600));
    // Both kinds of vehicle in one search: each keeps its own times (checkModel recomputes nothing from a factor, so
    // the fast van's steps must still fit its windows and hours).
    const mixed = {
      time_budget: 1,
      vehicles: [
        { id: 'bike', start: P[0], end: P[0], speed_factor: 0.5, time_window: [at('08:00:00'), at('10:00:00')] },
        { id: 'car', start: P[0], end: P[0], speed_factor: 1.5, time_window: [at('08:00:00'), at('10:00:00')] },
      ],
      stops: stops.map((s, i) => ({ ...s, service: 300, ...(i % 2 ? { time_windows: [[at('08:00:00'), at('09:00:00')]] } : {}) })),
    };
    checkModel(mixed, await plan(mixed));
  });

  it('answers 422 naming every field the solver cannot honour, with the body problems in the same answer', async () => {
    const res = await submit({
      vehicles: [
        {
          start: P[0],
          capacity: 5,
          breaks: [{ id: 1, time_windows: [[at('12:00:00'), at('13:00:00')]], service: 1800, max_load: [3, 1] }],
          costs: { fixed: 100, per_km: 5_000_000 },
        },
        { start: P[1], speed_factor: 7, steps: [{ type: 'start' }] },
      ],
      stops: [{ ...P[2], priority: 101 }],
      shipments: [{ pickup: P[3], delivery: { latitude: 47.1 } }],
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(
      [
        'vehicles.0.breaks.0.max_load',
        'vehicles.0.costs.per_km',
        'vehicles.1.steps',
        'vehicles.1.speed_factor',
        'stops.0.priority',
        'shipments.0.delivery.longitude',
      ].sort(),
    );
    // A break's max_load has as many dimensions as the loads (here 1).
    expect(res.body.errors['vehicles.0.breaks.0.max_load'][0]).toMatch(/must have 1 amount/);
    expect(res.body.errors['vehicles.0.costs.per_km'][0]).toMatch(/1000000/);
    expect(res.body.errors['vehicles.1.steps'][0]).toMatch(/plan mode/);
    expect(res.body.errors['vehicles.1.speed_factor'][0]).toMatch(/from 0.01 to 5/);
    // No stops and no shipments: nothing to plan.
    const empty = await submit({ vehicles: [{ start: P[0] }], stops: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.errors.stops[0]).toMatch(/at least 1 stop when there are no shipments/);
    // The contract's endpoint keeps its shape: these fields are unknown there.
    const contract = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: P[0], max_tasks: 3 }], stops: [{ ...P[2], priority: 5 }], shipments: [] },
    });
    expect(contract.status).toBe(422);
    expect(Object.keys(contract.body.errors).sort()).toEqual(['shipments', 'stops.0.priority', 'vehicles.0.max_tasks']);
  });
});

describe('stops from the team POIs', () => {
  const DAY = '2031-03-04'; // a Tuesday
  const hoursOf = (text: string) => {
    const [y, m, d] = DAY.split('-').map(Number);
    return new OpeningHours(text, null, 0).getOpenIntervals(new Date(y, m - 1, d), new Date(y, m - 1, d + 1));
  };

  it('plans the POIs of a category with their opening hours, service and demand; the unservable ones unassigned with why', async () => {
    const key = team.key;
    const attr = async (name: string, type: string) => {
      const res = await api(app, 'POST', '/v1/attributes', { key, body: { name, type } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    };
    await attr('opening_hours', 'string');
    await attr('service_s', 'number');
    await attr('crates', 'number');
    const cat = await api(app, 'POST', '/v1/categories', { key, body: { name: 'shops' } });
    expect(cat.status, JSON.stringify(cat.body)).toBe(201);
    const categoryId = cat.body.data.id;
    const poi = async (name: string, where: At, attributes: Record<string, unknown>, category: string | null = categoryId) => {
      const res = await api(app, 'POST', '/v1/pois', { key, body: { name, ...where, ...(category ? { category_id: category } : {}), attributes } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    };
    // Two POIs of one name: the plan tells them apart by id.
    const ids = {
      morning: await poi('Volg', P[20], { opening_hours: 'Mo-Fr 08:00-12:00,14:00-18:00; Sa 08:00-12:00', service_s: 600, crates: 2 }),
      twin: await poi('Volg', P[21], { opening_hours: 'Tu 09:00-11:00', crates: 1 }),
      always: await poi('Kiosk', P[22], {}),
      closed: await poi('Sunday bakery', P[23], { opening_hours: 'Su 07:00-11:00' }),
      unreadable: await poi('Odd hours', P[24], { opening_hours: 'whenever the owner feels like it' }),
      offRoad: await poi('Alp hut', { latitude: 47.3, longitude: 9.8 }, { opening_hours: '24/7' }),
    };
    // A POI outside the category is not selected.
    await poi('Elsewhere', P[25], {}, null);
    const req = {
      time_budget: 1,
      vehicles: [{ id: 'van', start: P[0], end: P[0], capacity: 10, time_window: [`${DAY}T07:00:00+01:00`, `${DAY}T19:00:00+01:00`] }],
      stops: { pois: { category_id: categoryId }, time_windows_from: 'opening_hours', service_from: 'service_s', demand_from: 'crates', service: 60 },
    };
    const result = await plan(req);
    // The stops as the job planned them: POI ids, windows of the day in the vehicle's offset.
    const job = (await app.sql`SELECT body FROM optimizations ORDER BY id DESC LIMIT 1`)[0].body;
    const byId = new Map<string, any>(job.stops.map((s: any) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual(Object.values(ids).sort());
    expect(byId.get(ids.morning)).toMatchObject({
      poi_id: ids.morning,
      service: 600,
      demand: 2,
      time_windows: [
        [`${DAY}T08:00:00+01:00`, `${DAY}T12:00:00+01:00`],
        [`${DAY}T14:00:00+01:00`, `${DAY}T18:00:00+01:00`],
      ],
    });
    // The library read in the test itself gives the same intervals.
    expect(hoursOf('Mo-Fr 08:00-12:00,14:00-18:00; Sa 08:00-12:00').map(([a, b]) => [a.getHours(), b.getHours()])).toEqual([
      [8, 12],
      [14, 18],
    ]);
    expect(byId.get(ids.twin)).toMatchObject({ service: 60, demand: 1, time_windows: [[`${DAY}T09:00:00+01:00`, `${DAY}T11:00:00+01:00`]] });
    expect(byId.get(ids.always).time_windows).toBeUndefined();
    checkModel(job, result);

    const served = result.routes.flatMap((r: any) => r.steps.filter((s: any) => s.type === 'stop'));
    expect(served.map((s: any) => s.id).sort()).toEqual([ids.morning, ids.twin, ids.always].sort());
    for (const s of served) expect(s.poi_id).toBe(s.id);
    const why = Object.fromEntries(result.unassigned.map((u: any) => [u.id, u.reason]));
    expect(Object.keys(why).sort()).toEqual([ids.closed, ids.unreadable, ids.offRoad].sort());
    expect(why[ids.closed]).toBe(`it is closed on ${DAY} (opening hours 'Su 07:00-11:00')`);
    expect(why[ids.unreadable]).toMatch(/^its opening hours 'whenever the owner feels like it' cannot be read/);
    expect(why[ids.offRoad]).toBe('it is more than 500 m from a road usable by the driving-car profile');
    for (const u of result.unassigned) expect(u.poi_id).toBe(u.id);
  });

  it('plan mode takes its stops from POIs: steps name POI ids, a POI closed that day leaves its route with why', async () => {
    const key = team.key;
    expect((await api(app, 'POST', '/v1/attributes', { key, body: { name: 'plan_hours', type: 'string' } })).status).toBe(201);
    const cat = await api(app, 'POST', '/v1/categories', { key, body: { name: 'planned rounds' } });
    expect(cat.status).toBe(201);
    const poi = async (name: string, where: At, hours?: string) => {
      const res = await api(app, 'POST', '/v1/pois', {
        key,
        body: { name, ...where, category_id: cat.body.data.id, attributes: hours ? { plan_hours: hours } : {} },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    };
    const first = await poi('Dairy', P[30], 'Tu 07:00-12:00');
    const second = await poi('Dairy', P[31]);
    const closed = await poi('Market hall', P[32], 'Sa 07:00-12:00');
    const spare = await poi('Depot shop', P[33]);
    const req = {
      mode: 'plan',
      vehicles: [
        {
          id: 'van',
          start: P[0],
          end: P[0],
          time_window: [`${DAY}T07:00:00+01:00`, `${DAY}T19:00:00+01:00`],
          steps: [second, closed, first].map((id) => ({ type: 'stop', id })),
        },
      ],
      stops: { pois: { category_id: cat.body.data.id }, time_windows_from: 'plan_hours', service: 120 },
    };
    const result = await plan(req);
    const route = result.routes[0];
    expect(route.steps.map((s: any) => s.id ?? s.type)).toEqual(['start', second, first, 'end']);
    expect(route.violation_messages).toEqual([`stop '${closed}' is left out: it is closed on ${DAY} (opening hours 'Sa 07:00-12:00')`]);
    const why = Object.fromEntries(result.unassigned.map((u: any) => [u.id, u.reason]));
    expect(why).toEqual({ [closed]: `it is closed on ${DAY} (opening hours 'Sa 07:00-12:00')`, [spare]: "it is in no vehicle's steps (plan mode)" });
    const job = (await app.sql`SELECT body FROM optimizations ORDER BY id DESC LIMIT 1`)[0].body;
    checkModel(job, result);
    // Steps naming a POI the selection does not hold: 422 at the step, with the selection's problems.
    const bad = await submit({ ...req, vehicles: [{ ...req.vehicles[0], steps: [{ type: 'stop', id: 'nope' }] }] });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['vehicles.0.steps.0.id']);
    const both = await submit({ ...req, plan_timing: 'never', stops: { ...req.stops, service: -1 } });
    expect(both.status).toBe(422);
    expect(Object.keys(both.body.errors).sort()).toEqual(['plan_timing', 'stops.service']);
  });

  it('reads skills and a demand per load dimension from POI attributes', async () => {
    const key = team.key;
    for (const [name, type] of [
      ['kg', 'number'],
      ['pallets', 'number'],
      ['needs', 'string'],
    ]) {
      const res = await api(app, 'POST', '/v1/attributes', { key, body: { name, type } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const cat = await api(app, 'POST', '/v1/categories', { key, body: { name: 'cold chain' } });
    const poi = async (name: string, where: At, attributes: Record<string, unknown>) => {
      const res = await api(app, 'POST', '/v1/pois', { key, body: { name, ...where, category_id: cat.body.data.id, attributes } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    };
    const ids = {
      dairy: await poi('Dairy', P[26], { kg: 30, pallets: 1, needs: 'fridge' }),
      hardware: await poi('Hardware', P[27], { kg: 10 }),
      pharmacy: await poi('Pharmacy', P[28], { needs: 'fridge, lift, fridge' }),
      odd: await poi('Odd', P[29], { needs: 'x'.repeat(101) }),
    };
    const req = {
      time_budget: 1,
      vehicles: [
        { id: 'cold', start: P[0], end: P[0], capacity: [100, 5], skills: ['fridge', 'lift'] },
        { id: 'dry', start: P[1], end: P[1], capacity: [100, 5] },
      ],
      stops: { pois: { category_id: cat.body.data.id }, demand_from: ['kg', 'pallets'], demand: [5, 2], skills_from: 'needs' },
    };
    const result = await plan(req);
    const job = (await app.sql`SELECT body FROM optimizations ORDER BY id DESC LIMIT 1`)[0].body;
    const byId = new Map<string, any>(job.stops.map((s: any) => [s.id, s]));
    // Each dimension from its attribute, or the default's entry where the POI lacks it; skills split at commas, once each.
    expect(byId.get(ids.dairy)).toMatchObject({ demand: [30, 1], skills: ['fridge'] });
    expect(byId.get(ids.hardware)).toMatchObject({ demand: [10, 2] });
    expect(byId.get(ids.hardware).skills).toBeUndefined();
    expect(byId.get(ids.pharmacy)).toMatchObject({ demand: [5, 2], skills: ['fridge', 'lift'] });
    checkModel(job, result);
    const on = (id: string) => result.routes.find((r: any) => r.steps.some((s: any) => s.id === id))?.vehicle;
    expect(on(ids.dairy)).toBe('cold');
    expect(on(ids.pharmacy)).toBe('cold');
    expect(on(ids.hardware)).toBeDefined();
    expect(result.unassigned.map((u: any) => [u.id, u.reason])).toEqual([[ids.odd, expect.stringMatching(/'needs' .* is not up to 20 skills/)]]);
    // A dimension's attribute that does not exist is named by its place in the list; a default of another length too.
    const bad = await submit({ ...req, stops: { ...req.stops, demand_from: ['kg', 'nope'], demand: [1, 2, 3] } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({
      'stops.demand_from.1': ['is not an attribute of this team'],
      'stops.demand': [expect.stringMatching(/must have 2 amounts/)],
    });
  });

  it('answers 422 for wrong selections and attribute names, with the rest of the body', async () => {
    const bad = await submit({
      vehicles: [{ start: P[0], capacity: -1 }],
      stops: { pois: { category_id: 'nope' }, time_windows_from: 'no-such-attribute', service_from: 'opening_hours', extra: 1 },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['stops.extra', 'vehicles.0.capacity']);
    const names = await submit({
      vehicles: [{ start: P[0] }],
      stops: { pois: { category_id: 'nope' }, time_windows_from: 'no-such-attribute', service_from: 'opening_hours' },
    });
    expect(names.status).toBe(422);
    expect(names.body.errors).toMatchObject({
      'stops.time_windows_from': ['is not an attribute of this team'],
      'stops.service_from': ["must name a number attribute; 'opening_hours' is a string"],
      'stops.pois.category_id': ['must be a category id (ULID)'],
    });
    const none = await submit({ vehicles: [{ start: P[0] }], stops: { pois: { category_name: 'no such category' } } });
    expect(none.status).toBe(422);
    expect(none.body.errors['stops.pois'][0]).toMatch(/selects no POIs/);
    // read-pois is needed to plan from POIs.
    const planner = await makeTeam(app, {}, 'plan-routes');
    const denied = await api(app, 'POST', '/v1/optimizations', { key: planner.key, body: { vehicles: [{ start: P[0] }], stops: { pois: {} } } });
    expect(denied.status).toBe(403);
  });
});
