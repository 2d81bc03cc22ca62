// POST /v1/routes/optimize: the limits and every 422 with its field path, locations the roads do not
// serve, authentication and permissions (checked before validation).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { MISSING_ID, NO_PLAN, UNAUTHENTICATED, expect422, lacks } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { checkPlan, optimize, SCHAAN, VADUZ } from './support.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_JOBS: 'off' });
  team = await makeTeam(app);
});
afterAll(() => app.close());

const W = (s: string, e: string) => [`2031-03-04T${s}:00Z`, `2031-03-04T${e}:00Z`];
const ok = () => ({ vehicles: [{ start: VADUZ }], stops: [{ ...SCHAAN }] });
const many = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));

async function bad(body: unknown, fields: string[]) {
  const res = await optimize(app, team.key, body);
  expect422(res, fields);
  return res;
}

describe('limits', () => {
  it('1 to 3 vehicles and 1 to 50 stops; the upper limits themselves are accepted', async () => {
    await bad({ ...ok(), vehicles: many(4, () => ({ start: VADUZ })) }, ['vehicles']);
    await bad({ ...ok(), vehicles: [] }, ['vehicles']);
    await bad({ ...ok(), stops: many(51, () => ({ ...SCHAAN })) }, ['stops']);
    await bad({ ...ok(), stops: [] }, ['stops']);
    await bad({ ...ok(), vehicles: { start: VADUZ } }, ['vehicles']);
    await bad({ ...ok(), stops: 'x' }, ['stops']);
    await bad({ stops: ok().stops }, ['vehicles']);
    await bad({ vehicles: ok().vehicles }, ['stops']);
    const full = { vehicles: many(3, () => ({ start: VADUZ })), stops: many(50, () => ({ ...SCHAAN })) };
    const d = checkPlan(full, await optimize(app, team.key, full));
    expect(d.summary.assigned).toBe(50);
  });

  it('up to 5 non-overlapping windows per stop, each ending no earlier than it starts', async () => {
    const windows = many(6, (i) => W(`0${i}:00`, `0${i}:30`));
    await bad({ ...ok(), stops: [{ ...SCHAAN, time_windows: windows }] }, ['stops.0.time_windows']);
    const five = { ...ok(), stops: [{ ...SCHAAN, time_windows: windows.slice(0, 5) }] };
    checkPlan(five, await optimize(app, team.key, five));
    await bad({ ...ok(), stops: [{ ...SCHAAN }, { ...SCHAAN, time_windows: [W('08:00', '10:00'), W('09:00', '11:00')] }] }, ['stops.1.time_windows.1']);
    // Overlap is judged on the windows sorted by start: here the first one sent overlaps the second.
    await bad({ ...ok(), stops: [{ ...SCHAAN, time_windows: [W('09:30', '09:45'), W('09:00', '12:00'), W('13:00', '14:00')] }] }, ['stops.0.time_windows.0']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, time_windows: [W('10:00', '09:00')] }] }, ['stops.0.time_windows.0']);
    // Touching windows do not overlap; a window of one instant is a window.
    const touching = { ...ok(), stops: [{ ...SCHAAN, time_windows: [W('09:00', '10:00'), W('10:00', '11:00'), W('12:00', '12:00')] }] };
    checkPlan(touching, await optimize(app, team.key, touching));
    await bad({ ...ok(), stops: [{ ...SCHAAN, time_windows: [[W('09:00', '10:00')[0]]] }] }, ['stops.0.time_windows.0']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, time_windows: [[...W('09:00', '10:00'), W('09:00', '10:00')[0]]] }] }, ['stops.0.time_windows.0']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, time_windows: W('09:00', '10:00') }] }, ['stops.0.time_windows.0', 'stops.0.time_windows.1']);
  });

  it('up to 20 skills on vehicles and stops', async () => {
    const skills = many(21, (i) => `s${i}`);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, skills }] }, ['vehicles.0.skills']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, skills }] }, ['stops.0.skills']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, skills: [''] }] }, ['stops.0.skills.0']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, skills: 'fridge' }] }, ['stops.0.skills']);
    const twenty = { vehicles: [{ start: VADUZ, skills: skills.slice(0, 20) }], stops: [{ ...SCHAAN, skills: skills.slice(0, 20) }] };
    expect(checkPlan(twenty, await optimize(app, team.key, twenty)).summary.assigned).toBe(1);
  });

  it('service 0 to 86400 integer seconds; demand and capacity non-negative integers', async () => {
    await bad({ ...ok(), stops: [{ ...SCHAAN, service: 86_401 }] }, ['stops.0.service']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, service: -1 }] }, ['stops.0.service']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, service: 1.5 }] }, ['stops.0.service']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, service: '60' }] }, ['stops.0.service']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, demand: -1 }] }, ['stops.0.demand']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, demand: 2.5 }] }, ['stops.0.demand']);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, capacity: -1 }] }, ['vehicles.0.capacity']);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, capacity: 'big' }] }, ['vehicles.0.capacity']);
    const day = { vehicles: [{ start: VADUZ, capacity: 0 }], stops: [{ ...SCHAAN, service: 86_400, demand: 0 }] };
    const d = checkPlan(day, await optimize(app, team.key, day));
    expect(d.routes[0].service).toBe(86_400);
    expect(d.routes[0].load).toBe(0);
  });

  it('ids: unique, 1 to 100 characters; a sent vehicle id may not take a default one', async () => {
    await bad({ ...ok(), stops: [{ ...SCHAAN, id: 'a' }, { ...VADUZ }, { ...SCHAAN, id: 'a' }] }, ['stops.2.id']);
    await bad(
      {
        ...ok(),
        vehicles: [
          { start: VADUZ, id: 'v' },
          { start: VADUZ, id: 'v' },
        ],
      },
      ['vehicles.1.id'],
    );
    await bad({ ...ok(), vehicles: [{ start: VADUZ }, { start: VADUZ, id: 'vehicle-1' }] }, ['vehicles.1.id']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, id: 'x'.repeat(101) }] }, ['stops.0.id']);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, id: '' }] }, ['vehicles.0.id']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, id: 7 }] }, ['stops.0.id']);
    const long = { vehicles: [{ start: VADUZ, id: 'v'.repeat(100) }], stops: [{ ...SCHAAN, id: 's'.repeat(100) }] };
    const d = checkPlan(long, await optimize(app, team.key, long));
    expect(d.routes[0].vehicle).toBe('v'.repeat(100));
  });
});

describe('fields', () => {
  it('unknown fields are 422 at their path, on the body, a vehicle, a stop and a location', async () => {
    await bad({ ...ok(), objective: 'fast' }, ['objective']);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, speed: 2 }] }, ['vehicles.0.speed']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, priority: 1 }] }, ['stops.0.priority']);
    await bad({ ...ok(), vehicles: [{ start: { ...VADUZ, name: 'depot' } }] }, ['vehicles.0.start.name']);
  });

  it('locations: start required, one form only, coordinates in range', async () => {
    await bad({ ...ok(), vehicles: [{}] }, ['vehicles.0.start']);
    await bad({ ...ok(), vehicles: [{ start: { latitude: 91, longitude: 9 } }] }, ['vehicles.0.start.latitude']);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, end: { latitude: 47.1 } }] }, ['vehicles.0.end.longitude']);
    await bad({ ...ok(), stops: [{ id: 'nowhere' }] }, ['stops.0']);
    await bad({ ...ok(), stops: [{ ...SCHAAN, poi_id: MISSING_ID }] }, ['stops.0']);
    await bad({ ...ok(), stops: [null] }, ['stops.0']);
  });

  it('profile and datetimes', async () => {
    await bad({ ...ok(), profile: 'flying' }, ['profile']);
    for (const text of ['2031-03-04', '2031-02-30T08:00:00Z', '2031-03-04T24:00:00Z', '2031-03-04T08:00:00+25:00', 'tomorrow', 1_900_000_000]) {
      await bad({ ...ok(), vehicles: [{ start: VADUZ, time_window: [text, '2031-03-05T08:00:00Z'] }] }, ['vehicles.0.time_window.0']);
    }
    await bad({ ...ok(), vehicles: [{ start: VADUZ, time_window: W('10:00', '10:00') }] }, ['vehicles.0.time_window']);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, time_window: W('10:00', '09:00') }] }, ['vehicles.0.time_window']);
    await bad({ ...ok(), vehicles: [{ start: VADUZ, time_window: '2031-03-04T10:00:00Z' }] }, ['vehicles.0.time_window']);
  });

  it('every problem of a body is reported at once', async () => {
    await bad({ profile: 'x', vehicles: [{ start: VADUZ, capacity: -1 }], stops: [{ ...SCHAAN, service: -1, skills: 3 }] }, [
      'profile',
      'vehicles.0.capacity',
      'stops.0.service',
      'stops.0.skills',
    ]);
  });

  it('a body that is not a JSON object is 400', async () => {
    for (const body of ['{"vehicles": [', '[]']) {
      const res = await api(app, 'POST', '/v1/routes/optimize', { key: team.key, body });
      expect(res.status).toBe(400);
      expect(res.body.message).toBeTypeOf('string');
    }
  });
});

describe('locations the roads do not serve', () => {
  it('a location more than 500 m from a usable road: 422 at every field that names it', async () => {
    const lake = { latitude: 47.6, longitude: 9.4 };
    const res = await bad({ vehicles: [{ start: VADUZ }, { start: lake, end: lake }], stops: [{ ...SCHAAN }] }, ['vehicles.1.start', 'vehicles.1.end']);
    expect(res.body.errors['vehicles.1.start'][0]).toMatch(/500 m.*driving-car/);
    await bad({ vehicles: [{ start: VADUZ }], stops: [{ ...SCHAAN }, { ...lake, id: 'wet' }] }, ['stops.1']);
  });

  it('a location the road network does not connect to the others: 422 at that location', async () => {
    // A footpath above Vaduz that the extract does not link to the valley's network, with no path of
    // that network within 500 m (nearer ones are used instead: see test/routes-api/routes.test.ts).
    const island = { latitude: 47.152, longitude: 9.542 };
    const res = await bad({ profile: 'foot-walking', vehicles: [{ start: VADUZ }], stops: [{ ...SCHAAN }, { ...island }, { ...VADUZ }] }, ['stops.1']);
    expect(res.body.errors['stops.1'][0]).toMatch(/cannot be reached by road/);
  });

  it('a location beside a driveway the extract leaves unconnected is served from the main network', async () => {
    const res = await optimize(app, team.key, { vehicles: [{ start: VADUZ }], stops: [{ latitude: 47.1288, longitude: 9.52 }, { ...SCHAAN }] });
    expect(res.status).toBe(200);
    expect(res.body.data.summary.assigned).toBe(2);
  });

  it("unknown POI ids: 422 at each location's poi_id", async () => {
    const res = await optimize(app, team.key, {
      vehicles: [{ start: { poi_id: MISSING_ID } }, { start: VADUZ, end: { poi_id: 'not-a-ulid' } }],
      stops: [{ ...SCHAAN }, { poi_id: MISSING_ID }],
    });
    expect422(res, ['vehicles.0.start.poi_id', 'vehicles.1.end.poi_id', 'stops.1.poi_id']);
  });

  it('the POIs of another team are unknown', async () => {
    const other = await makeTeam(app);
    const poi = await api(app, 'POST', '/v1/pois', { key: other.key, body: { name: 'theirs', ...SCHAAN } });
    expect(poi.status).toBe(201);
    await bad({ vehicles: [{ start: VADUZ }], stops: [{ poi_id: poi.body.data.id }] }, ['stops.0.poi_id']);
  });
});

describe('authentication and permissions', () => {
  it('401 without a key or with an unknown one', async () => {
    for (const key of [undefined, 'wm_unknown']) {
      const res = await api(app, 'POST', '/v1/routes/optimize', { key, body: ok() });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: UNAUTHENTICATED });
    }
  });

  it('403 without plan-routes, even with read-pois, before validation', async () => {
    const key = await team.keyWith('read-pois');
    for (const body of [ok(), { vehicles: [] }]) {
      const res = await optimize(app, key, body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: lacks('plan-routes') });
    }
  });

  it('plan-routes alone optimizes coordinates; a POI anywhere also needs read-pois, before validation', async () => {
    const key = await team.keyWith('plan-routes');
    checkPlan(ok(), await optimize(app, key, ok()));
    for (const body of [
      { vehicles: [{ start: { poi_id: MISSING_ID } }], stops: [{ ...SCHAAN }] },
      { vehicles: [{ start: VADUZ, end: { poi_id: MISSING_ID } }], stops: [{ ...SCHAAN }] },
      { vehicles: [{ start: VADUZ }], stops: [{ poi_id: MISSING_ID }] },
      { vehicles: [{ start: VADUZ }], stops: [{ poi_id: MISSING_ID, service: -5 }], extra: true },
    ]) {
      const res = await optimize(app, key, body);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body).toEqual({ message: lacks('read-pois') });
    }
    const both = await team.keyWith('plan-routes,read-pois');
    expect422(await optimize(app, both, { vehicles: [{ start: VADUZ }], stops: [{ poi_id: MISSING_ID }] }), ['stops.0.poi_id']);
  });

  it('403 for a team without an active plan', async () => {
    const inactive = await makeTeam(app, { planActive: false });
    const res = await optimize(app, inactive.key, ok());
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: NO_PLAN });
  });
});
