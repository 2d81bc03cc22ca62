// An independent reader of VROOM's output format (docs/API.md of VROOM 1.14) that re-derives a plan's
// feasibility from the input alone: every job and shipment once (a shipment's pickup before its delivery,
// in one route), skills, capacities and loads step by step, working hours and time windows, arrivals from
// the travel times it is given, and the totals.
import { expect } from 'vitest';

const STEP_TYPES = ['start', 'job', 'pickup', 'delivery', 'break', 'end'];
const num = (x: unknown, what: string) => expect(Number.isInteger(x), `${what} = ${String(x)} is an integer`).toBe(true);

/** `travel(a, b)`: seconds from place a to place b, places as the output names them (index or [lon, lat]). */
export function checkVroomOutput(input: any, out: any, travel: (a: any, b: any) => number): void {
  expect(out.code).toBe(0);
  for (const k of ['cost', 'routes', 'unassigned', 'setup', 'service', 'duration', 'waiting_time', 'priority']) num(out.summary[k], `summary.${k}`);
  expect(Array.isArray(out.summary.violations)).toBe(true);
  expect(Array.isArray(out.routes) && Array.isArray(out.unassigned)).toBe(true);
  // Every stop by `type id` (jobs, and each shipment's pickup and delivery, whose ids are counted apart),
  // with what it does to the load: `start` on board from the start, `drop` and `load` at the stop.
  const stops = new Map<string, any>();
  const capacitated = input.vehicles.some((v: any) => v.capacity?.length);
  // Amounts have the length of the capacities (VROOM: an absent one is zeros; `amount` is a delivery when
  // neither delivery nor pickup is given).
  const dims: number = input.vehicles.find((v: any) => v.capacity?.length)?.capacity.length ?? 0;
  const zero = () => new Array<number>(dims).fill(0);
  const deliveryOf = (j: any): number[] => j.delivery ?? (j.pickup === undefined ? j.amount : undefined) ?? zero();
  const pickupOf = (j: any): number[] => j.pickup ?? zero();
  for (const j of input.jobs ?? []) stops.set(`job ${j.id}`, { ...j, start: deliveryOf(j), drop: deliveryOf(j), load: pickupOf(j) });
  (input.shipments ?? []).forEach((sh: any, k: number) => {
    const amount = sh.amount ?? zero();
    const common = { skills: sh.skills, shipment: k, start: zero() };
    stops.set(`pickup ${sh.pickup.id}`, { ...sh.pickup, ...common, priority: sh.priority, drop: zero(), load: amount });
    stops.set(`delivery ${sh.delivery.id}`, { ...sh.delivery, ...common, drop: amount, load: zero() });
  });
  const isTask = (t: string) => t === 'job' || t === 'pickup' || t === 'delivery';
  const sum = { delivery: zero(), pickup: zero() };
  const placeOf = (x: any) => x.location_index ?? x.location;
  const seen = new Map<string, number>();
  /** Where each shipment's stops went: route index (or -1 unassigned) and step index. */
  const shipmentAt = new Map<number, { pickup?: [number, number]; delivery?: [number, number] }>();
  const note = (stop: any, type: string, at: [number, number]) => {
    if (stop.shipment === undefined) return;
    const entry = shipmentAt.get(stop.shipment) ?? {};
    entry[type as 'pickup' | 'delivery'] = at;
    shipmentAt.set(stop.shipment, entry);
  };
  const totals = { cost: 0, setup: 0, service: 0, duration: 0, waiting_time: 0, priority: 0 };

  for (const [ri, r] of out.routes.entries()) {
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
    expect(hasEnd ? steps.at(-1).type === 'end' : isTask(steps.at(-1).type), `route ${ri} ends with ${steps.at(-1).type}`).toBe(true);
    if (v.start !== undefined || v.start_index !== undefined) expect(placeOf(steps[0])).toEqual(v.start_index ?? v.start);
    if (hasEnd) expect(placeOf(steps.at(-1))).toEqual(v.end_index ?? v.end);
    const tw = v.time_window ?? [0, Infinity];
    expect(steps[0].arrival).toBeGreaterThanOrEqual(tw[0]);

    let t = steps[0].arrival,
      cumulative = 0,
      setup = 0,
      service = 0,
      waiting = 0,
      priority = 0;
    const taskSteps = steps.filter((s) => isTask(s.type));
    const load = zero(),
      delivery = zero(),
      pickup = zero();
    for (const s of taskSteps) {
      const stop = stops.get(`${s.type} ${s.id}`);
      expect(stop, `${s.type} ${s.id}`).toBeDefined();
      stop.start.forEach((x: number, d: number) => (load[d] += x));
      stop.drop.forEach((x: number, d: number) => (delivery[d] += x));
      stop.load.forEach((x: number, d: number) => (pickup[d] += x));
    }
    // VROOM gives a vehicle without a capacity a zero amount (input_parser.cpp get_amount).
    const cap: number[] = v.capacity?.length ? v.capacity : new Array(dims).fill(0);
    if (capacitated) {
      expect(steps[0].load).toEqual(load);
      expect(r.delivery).toEqual(delivery);
      expect(r.pickup).toEqual(pickup);
      delivery.forEach((x, d) => ((sum.delivery[d] += x), (sum.pickup[d] += pickup[d])));
    }
    for (let k = 1; k < steps.length; k++) {
      const s = steps[k],
        prev = steps[k - 1];
      // The vehicle's own times: the matrix's divided by its speed factor, to the nearest second.
      const leg = Math.round(travel(placeOf(prev), placeOf(s)) / (v.speed_factor ?? 1));
      cumulative += leg;
      expect(s.duration, `cumulative travel at step ${k}`).toBe(cumulative);
      expect(s.arrival, `arrival at step ${k}`).toBe(t + leg);
      const begin = s.arrival + s.waiting_time;
      if (isTask(s.type)) {
        const job = stops.get(`${s.type} ${s.id}`);
        seen.set(`${s.type} ${s.id}`, (seen.get(`${s.type} ${s.id}`) ?? 0) + 1);
        note(job, s.type, [ri, k]);
        expect(placeOf(s)).toEqual(job.location_index ?? job.location);
        expect(s.service).toBe(job.service ?? 0);
        expect(s.setup).toBe(job.setup ?? 0);
        for (const skill of job.skills ?? []) expect(v.skills ?? [], `skill ${skill} of job ${s.id}`).toContain(skill);
        if (job.time_windows)
          expect(
            job.time_windows.some(([a, b]: number[]) => a <= begin && begin <= b),
            `job ${s.id} served at ${begin} in a window`,
          ).toBe(true);
        else expect(s.waiting_time).toBe(0);
        job.load.forEach((x: number, d: number) => (load[d] += x - job.drop[d]));
        setup += s.setup;
        service += s.service;
        priority += job.priority ?? 0;
      }
      if (capacitated) {
        expect(s.load, `load after step ${k}`).toEqual(load);
        load.forEach((x, d) => expect(x, `load after step ${k} in dimension ${d}`).toBeLessThanOrEqual(cap[d]));
      }
      if (s.type === 'break') {
        // Where the vehicle is, inside one of its windows, once per route.
        const b = (v.breaks ?? []).find((x: any) => x.id === s.id);
        expect(b, `break ${s.id} of vehicle ${v.id}`).toBeDefined();
        expect(placeOf(s)).toEqual(placeOf(prev));
        expect(s.service).toBe(b.service ?? 0);
        if (b.time_windows)
          expect(
            b.time_windows.some(([a, e]: number[]) => a <= begin && begin <= e),
            `break ${s.id} at ${begin} in a window`,
          ).toBe(true);
        expect(steps.filter((x) => x.type === 'break' && x.id === s.id)).toHaveLength(1);
        // What is on board while it is taken within its max_load.
        if (b.max_load && capacitated) load.forEach((x, d) => expect(x, `load during break ${s.id}`).toBeLessThanOrEqual(b.max_load[d]));
      }
      waiting += s.waiting_time;
      t = begin + s.setup + s.service;
      expect(t, `step ${k} done within the vehicle's hours`).toBeLessThanOrEqual(tw[1]);
    }
    expect(r.duration).toBe(cumulative);
    // Every break of a used vehicle is taken.
    for (const b of v.breaks ?? [])
      expect(
        steps.some((s) => s.type === 'break' && s.id === b.id),
        `break ${b.id} of vehicle ${v.id}`,
      ).toBe(true);
    if (v.max_tasks !== undefined) expect(taskSteps.length, `route ${ri}: at most max_tasks`).toBeLessThanOrEqual(v.max_tasks);
    if (v.max_travel_time !== undefined) expect(cumulative, `route ${ri}: within max_travel_time`).toBeLessThanOrEqual(v.max_travel_time);
    expect(r.cost).toBe(
      (v.costs?.fixed ?? 0) + Math.round(((v.costs?.per_hour ?? 3600) * cumulative) / 3600 + ((v.costs?.per_km ?? 0) * (r.distance ?? 0)) / 1000),
    );
    expect([r.setup, r.service, r.waiting_time, r.priority]).toEqual([setup, service, waiting, priority]);
    for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += r[k];
  }
  for (const u of out.unassigned) {
    const job = stops.get(`${u.type} ${u.id}`);
    expect(job, `unassigned ${u.type} ${u.id}`).toBeDefined();
    expect(placeOf(u)).toEqual(job.location_index ?? job.location);
    seen.set(`${u.type} ${u.id}`, (seen.get(`${u.type} ${u.id}`) ?? 0) + 1);
    note(job, u.type, [-1, 0]);
  }
  expect([...seen.keys()].sort()).toEqual([...stops.keys()].sort());
  expect(
    [...seen.values()].every((c) => c === 1),
    'every job and shipment stop once',
  ).toBe(true);
  for (const [k, { pickup, delivery }] of shipmentAt) {
    expect(pickup![0], `shipment ${k}: pickup and delivery in one route, or both unassigned`).toBe(delivery![0]);
    if (pickup![0] >= 0) expect(pickup![1], `shipment ${k}: picked up before it is delivered`).toBeLessThan(delivery![1]);
  }
  expect(out.summary).toMatchObject({ ...totals, routes: out.routes.length, unassigned: out.unassigned.length });
  if (capacitated) expect(out.summary).toMatchObject(sum);
}
