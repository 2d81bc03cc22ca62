// POST /v1/routes/optimize on the real Liechtenstein map: every plan goes through the independent
// feasibility checker of support.ts; each test then asserts the rule it is about.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { checkPlan, epochOf, farthest, optimize, order, REASONS, roadPoints, routeOf, type At } from './support.js';

let app: App & { url: string };
let team: TestTeam;
let P: At[];

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_JOBS: 'off' });
  team = await makeTeam(app);
  P = await roadPoints(app.mapDir!, 60);
});
afterAll(() => app.close());

const DAY = '2031-03-04';
const at = (time: string, offset = 'Z') => `${DAY}T${time}${offset}`;
const HOURS = [at('08:00:00'), at('17:00:00')];

describe('plans', () => {
  it('without datetimes: every stop served, vehicles leave now, UTC, open routes end at their last stop, demand ignored', async () => {
    const req = {
      vehicles: [{ start: P[0] }, { start: P[1] }, { start: P[2] }],
      stops: P.slice(3, 15).map((p, i) => ({ ...p, id: `s${i}`, demand: 1000 })),
    };
    const before = Math.floor(Date.now() / 1000);
    const d = checkPlan(req, await optimize(app, team.key, req));
    const after = Math.ceil(Date.now() / 1000);
    expect(d.summary.assigned).toBe(12);
    expect(d.unassigned).toEqual([]);
    for (const r of d.routes) {
      expect(['vehicle-1', 'vehicle-2', 'vehicle-3']).toContain(r.vehicle);
      expect(r.steps.at(-1).type).toBe('stop');
      // No window and no hours: nobody waits, and the departure is the request's "now".
      expect(r.waiting_time).toBe(0);
      expect(epochOf(r.start_at)).toBeGreaterThanOrEqual(before);
      expect(epochOf(r.start_at)).toBeLessThanOrEqual(after);
      expect(r.load).toBeNull();
    }
  });

  it('open and closed routes: end omitted finishes at the last stop, end = start returns, another end finishes there', async () => {
    const stops = P.slice(3, 9).map((p) => ({ ...p }));
    const open = checkPlan({ vehicles: [{ start: P[0] }], stops }, await optimize(app, team.key, { vehicles: [{ start: P[0] }], stops }));
    const roundReq = { vehicles: [{ start: P[0], end: P[0] }], stops };
    const round = checkPlan(roundReq, await optimize(app, team.key, roundReq));
    const elsewhereReq = { vehicles: [{ start: P[0], end: P[40] }], stops };
    const elsewhere = checkPlan(elsewhereReq, await optimize(app, team.key, elsewhereReq));

    const [o] = open.routes,
      [c] = round.routes,
      [e] = elsewhere.routes;
    expect(o.steps.map((s: any) => s.type)).toEqual(['start', 'stop', 'stop', 'stop', 'stop', 'stop', 'stop']);
    expect(o.end_at).toBe(o.steps.at(-1).arrival);
    expect(c.steps.map((s: any) => s.type)).toEqual(['start', 'stop', 'stop', 'stop', 'stop', 'stop', 'stop', 'end']);
    const end = c.steps.at(-1);
    expect({ latitude: end.latitude, longitude: end.longitude }).toEqual(P[0]);
    expect(end.load).toBeNull();
    expect(c.end_at).toBe(end.arrival);
    // The way back costs time: the round trip is longer than the open route.
    expect(c.duration).toBeGreaterThan(o.duration);
    expect(c.distance).toBeGreaterThan(o.distance);
    expect({ latitude: e.steps.at(-1).latitude, longitude: e.steps.at(-1).longitude }).toEqual(P[40]);
    expect(e.steps.at(-1).type).toBe('end');
  });

  it('vehicles without stops have no route', async () => {
    const req = {
      vehicles: [
        { id: 'a', start: P[0] },
        { id: 'b', start: P[1] },
        { id: 'c', start: P[2] },
      ],
      stops: [{ ...P[2] }],
    };
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(d.routes.map((r: any) => r.vehicle)).toEqual(['c']);
    expect(d.summary.vehicles).toBe(1);
  });

  it('one vehicle, 50 stops, round trip: one route through all of them', async () => {
    const req = { vehicles: [{ start: P[0], end: P[0] }], stops: P.slice(3, 53).map((p) => ({ ...p, service: 60 })) };
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(d.routes[0].stops).toBe(50);
    expect(d.routes[0].steps).toHaveLength(52);
  });

  it('several stops at one position, and a stop at the depot, are planned like any other', async () => {
    const req = { vehicles: [{ start: P[0], end: P[0] }], stops: [{ ...P[0] }, { ...P[5] }, { ...P[5], id: 'twin' }, { ...P[6] }] };
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(d.summary.assigned).toBe(4);
    const steps = d.routes[0].steps;
    // Between the twins nothing is driven.
    const twins = steps.filter((s: any) => s.latitude === P[5].latitude && s.longitude === P[5].longitude);
    expect(twins).toHaveLength(2);
    expect(Math.abs(steps.indexOf(twins[0]) - steps.indexOf(twins[1]))).toBe(1);
    expect(twins[1].duration).toBe(twins[0].duration);
  });

  it('waiting: a vehicle early at a window waits until it opens; the first stop delays the departure instead', async () => {
    const req = {
      vehicles: [{ start: P[0], time_window: HOURS }],
      stops: [
        { ...P[10], id: 'late', time_windows: [[at('10:00:00'), at('10:30:00')]], service: 600 },
        { ...P[11], id: 'early', time_windows: [[at('09:00:00'), at('09:30:00')]], service: 300 },
      ],
    };
    const d = checkPlan(req, await optimize(app, team.key, req));
    const r = d.routes[0];
    expect(order(r)).toEqual([1, 0]);
    const [, first, second] = r.steps;
    // Nobody waits at the first stop: the vehicle leaves later and arrives as the window opens.
    expect(first.waiting_time).toBe(0);
    expect(epochOf(first.arrival)).toBe(epochOf(at('09:00:00')));
    expect(epochOf(r.start_at)).toBeGreaterThan(epochOf(HOURS[0]));
    expect(second.waiting_time).toBeGreaterThan(0);
    expect(epochOf(second.arrival) + second.waiting_time).toBe(epochOf(at('10:00:00')));
    expect(epochOf(second.departure)).toBe(epochOf(at('10:10:00')));
    expect(r.waiting_time).toBe(second.waiting_time);
    expect(d.summary.waiting_time).toBe(second.waiting_time);
    expect(d.summary.service).toBe(900);
  });

  it('five windows, sent out of order: service starts in the only one inside the working hours', async () => {
    const windows = [
      ['12:00:00', '12:30:00'],
      ['05:00:00', '05:30:00'],
      ['20:00:00', '21:00:00'],
      ['06:00:00', '06:30:00'],
      ['07:00:00', '07:30:00'],
    ].map(([s, e]) => [at(s), at(e)]);
    const req = { vehicles: [{ start: P[0], time_window: HOURS }], stops: [{ ...P[12], time_windows: windows }, { ...P[13] }] };
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(d.summary.assigned).toBe(2);
    const step = d.routes[0].steps.find((s: any) => s.index === 0);
    const begin = epochOf(step.arrival) + step.waiting_time;
    expect(begin).toBeGreaterThanOrEqual(epochOf(at('12:00:00')));
    expect(begin).toBeLessThanOrEqual(epochOf(at('12:30:00')));
  });

  it('skills: stops needing a skill ride the vehicle that has it; a skill no vehicle has leaves the stop unassigned', async () => {
    const req = {
      vehicles: [
        { id: 'cold', start: P[0], skills: ['fridge', 'tail-lift'] },
        { id: 'dry', start: P[1] },
      ],
      stops: [
        ...P.slice(3, 7).map((p) => ({ ...p, skills: ['fridge'] })),
        ...P.slice(7, 11).map((p) => ({ ...p })),
        { ...P[11], id: 'x', skills: ['fridge', 'crane'] },
      ],
    };
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(order(routeOf(d, 'cold'))).toEqual(expect.arrayContaining([0, 1, 2, 3]));
    expect(d.unassigned).toEqual([{ index: 8, id: 'x', poi_id: null, ...P[11], reason: 'no vehicle has the required skills' }]);
  });

  it('capacities: loads count demands; a vehicle without a capacity carries any amount', async () => {
    const req = {
      vehicles: [
        { id: 'small', start: P[0], capacity: 4 },
        { id: 'any', start: P[1] },
      ],
      stops: [{ ...P[3], demand: 50 }, ...P.slice(4, 10).map((p, i) => ({ ...p, demand: i % 3 }))],
    };
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(d.summary.assigned).toBe(7);
    expect(order(routeOf(d, 'any'))).toContain(0);
    const loads = d.routes.map((r: any) => r.load);
    expect(loads.every((l: unknown) => typeof l === 'number')).toBe(true);
    expect(loads.reduce((a: number, b: number) => a + b, 0)).toBe(50 + 0 + 1 + 2 + 0 + 1 + 2);
    expect(routeOf(d, 'small')?.load ?? 0).toBeLessThanOrEqual(4);
  });

  it('every reason of unassignment, each stop checked in the order of DECISIONS.md', async () => {
    const req = {
      vehicles: [
        { id: 'a', start: P[0], capacity: 5, time_window: HOURS, skills: ['a'] },
        { id: 'b', start: P[1], capacity: 5, time_window: HOURS },
      ],
      stops: [
        { ...P[3], id: 'heavy', demand: 6 },
        // Too heavy and needing a missing skill: the capacity is checked first.
        { ...P[4], id: 'heavy-b', demand: 7, skills: ['b'] },
        { ...P[5], id: 'skill-b', demand: 1, skills: ['b'] },
        { ...P[6], id: 'tomorrow', demand: 1, time_windows: [['2031-03-05T08:00:00Z', '2031-03-05T09:00:00Z']] },
        { ...P[7], id: 'full-1', demand: 4 },
        { ...P[8], id: 'full-2', demand: 4 },
        { ...P[9], id: 'full-3', demand: 4 },
      ],
    };
    const d = checkPlan(req, await optimize(app, team.key, req));
    const reasons = Object.fromEntries(d.unassigned.map((u: any) => [u.id, u.reason]));
    expect(reasons.heavy).toBe(REASONS[0]);
    expect(reasons['heavy-b']).toBe(REASONS[0]);
    expect(reasons['skill-b']).toBe(REASONS[1]);
    expect(reasons.tomorrow).toBe(REASONS[2]);
    // Two vehicles of 5 units take two of the three 4-unit stops: the third finds no capacity left.
    const full = ['full-1', 'full-2', 'full-3'].filter((id) => reasons[id]);
    expect(full).toHaveLength(1);
    expect(reasons[full[0]]).toBe(REASONS[3]);
    expect(d.summary).toMatchObject({ assigned: 2, unassigned: 5 });
  });

  it('reason: hours too short to reach a stop in time', async () => {
    // One minute of working hours; the stop is kilometers away.
    const far = farthest(P[0], P);
    const req = { vehicles: [{ start: P[0], end: P[0], time_window: [at('08:00:00'), at('08:01:00')] }], stops: [{ ...P[0] }, { ...far }] };
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(d.summary.assigned).toBe(1);
    expect(d.unassigned).toEqual([{ index: 1, id: null, poi_id: null, ...far, reason: REASONS[3] }]);
  });
});

describe('datetimes and offsets', () => {
  const stops = (offset: string, shift: (t: string) => string) => [
    { ...P[20], service: 120, time_windows: [[shift('09:00:00') + offset, shift('11:00:00') + offset]] },
    { ...P[21], service: 60 },
    {
      ...P[22],
      time_windows: [
        [shift('10:00:00') + offset, shift('10:30:00') + offset],
        [shift('13:00:00') + offset, shift('14:00:00') + offset],
      ],
    },
  ];
  const plus2 = (t: string) => `${DAY}T${t}`;
  const utcOf = (t: string) => `${DAY}T${String(Number(t.slice(0, 2)) - 2).padStart(2, '0')}${t.slice(2)}`;

  it('+02:00 in, +02:00 out; the same instants without an offset (UTC) give the same plan in Z', async () => {
    const local = { vehicles: [{ start: P[0], end: P[0], time_window: [`${DAY}T08:00:00+02:00`, `${DAY}T17:00:00+02:00`] }], stops: stops('+02:00', plus2) };
    const utc = { vehicles: [{ start: P[0], end: P[0], time_window: [`${DAY}T06:00:00`, `${DAY}T15:00:00`] }], stops: stops('', utcOf) };
    const a = checkPlan(local, await optimize(app, team.key, local), { suffix: '+02:00' });
    const b = checkPlan(utc, await optimize(app, team.key, utc), { suffix: 'Z' });
    expect(order(a.routes[0])).toEqual(order(b.routes[0]));
    expect(a.summary).toEqual(b.summary);
    const instants = (d: any) => d.routes[0].steps.map((s: any) => [epochOf(s.arrival), epochOf(s.departure)]);
    expect(instants(a)).toEqual(instants(b));
    expect(a.routes[0].start_at.endsWith('+02:00')).toBe(true);
    expect(b.routes[0].start_at.endsWith('Z')).toBe(true);
  });

  it('the first datetime in the request sets the offset: stops written before vehicles win', async () => {
    const body = {
      stops: [{ ...P[23], time_windows: [[`${DAY}T09:00:00-05:00`, `${DAY}T12:00:00-05:00`]] }],
      vehicles: [{ start: P[0], time_window: [`${DAY}T12:00:00+02:00`, `${DAY}T23:00:00+02:00`] }],
    };
    const d = checkPlan(body, await optimize(app, team.key, body), { suffix: '-05:00' });
    expect(d.routes[0].start_at.endsWith('-05:00')).toBe(true);
    const swapped = { vehicles: body.vehicles, stops: body.stops };
    checkPlan(swapped, await optimize(app, team.key, swapped), { suffix: '+02:00' });
  });

  it('offsets with minutes, fractions of a second and a datetime without offset first', async () => {
    const quarter = { vehicles: [{ start: P[0], time_window: [`${DAY}T08:00:00.4+05:45`, `${DAY}T18:00:00+0545`] }], stops: [{ ...P[24] }] };
    const d = checkPlan(quarter, await optimize(app, team.key, quarter), { suffix: '+05:45' });
    expect(d.routes[0].start_at).toBe(`${DAY}T08:00:00+05:45`);
    const plain = { vehicles: [{ start: P[0], time_window: [`${DAY}T08:00`, `${DAY}T18:00:00+02:00`] }], stops: [{ ...P[24] }] };
    const e = checkPlan(plain, await optimize(app, team.key, plain), { suffix: 'Z' });
    expect(e.routes[0].start_at).toBe(`${DAY}T08:00:00Z`);
  });
});

describe('determinism, size, profiles, POIs', () => {
  const big = () => ({
    vehicles: [
      { id: 'north', start: P[0], end: P[0], capacity: 20, time_window: HOURS, skills: ['fridge'] },
      { id: 'south', start: P[1], end: P[1], capacity: 20, time_window: HOURS },
      { id: 'free', start: P[2], time_window: HOURS },
    ],
    stops: P.slice(3, 53).map((p, i) => ({
      ...p,
      id: `stop-${i}`,
      service: 120 + (i % 5) * 60,
      demand: 1 + (i % 3),
      ...(i % 4 === 0 ? { time_windows: [[at(`${String(8 + (i % 8)).padStart(2, '0')}:00:00`), at(`${String(9 + (i % 8)).padStart(2, '0')}:30:00`)]] } : {}),
      ...(i % 7 === 0 ? { skills: ['fridge'] } : {}),
    })),
  });

  it('50 stops and 3 vehicles with windows, service, demands and skills: a feasible plan serving nearly all', async () => {
    const req = big();
    const d = checkPlan(req, await optimize(app, team.key, req));
    expect(d.summary.stops).toBe(50);
    expect(d.summary.assigned).toBeGreaterThanOrEqual(48);
  });

  it('the same request twice gives the same answer', async () => {
    const req = big();
    const a = await optimize(app, team.key, req);
    const b = await optimize(app, team.key, req);
    checkPlan(req, a);
    expect(b.body).toEqual(a.body);
  });

  it('walking takes longer than driving over the same stops', async () => {
    const base = { vehicles: [{ start: P[0] }], stops: P.slice(3, 8).map((p) => ({ ...p })) };
    const car = checkPlan(base, await optimize(app, team.key, base));
    const foot = checkPlan({ ...base, profile: 'foot-walking' }, await optimize(app, team.key, { ...base, profile: 'foot-walking' }));
    expect(foot.summary.duration).toBeGreaterThan(car.summary.duration * 2);
  });

  it('POI locations for starts, ends and stops: their positions are used and their ids echoed', async () => {
    const ids: string[] = [];
    for (const p of [P[0], P[4], P[5]]) {
      const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'depot', ...p } });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    const req = {
      vehicles: [{ start: { poi_id: ids[0] }, end: { poi_id: ids[0].toLowerCase() } }],
      stops: [{ poi_id: ids[1], id: 'poi' }, { ...P[6] }, { poi_id: ids[2], demand: 2 }],
    };
    const pois = { [ids[0]]: P[0], [ids[0].toLowerCase()]: P[0], [ids[1]]: P[4], [ids[2]]: P[5] };
    const d = checkPlan(req, await optimize(app, team.key, req), { pois });
    const stopsByIndex = Object.fromEntries(d.routes[0].steps.filter((s: any) => s.type === 'stop').map((s: any) => [s.index, s]));
    expect(stopsByIndex[0]).toMatchObject({ poi_id: ids[0 + 1], id: 'poi', ...P[4] });
    expect(stopsByIndex[1].poi_id).toBeNull();
    expect(stopsByIndex[2].poi_id).toBe(ids[2]);
  });
});
