// POST /v1/optimizations on the real Liechtenstein map with the real solver and job runner: submit,
// progress, completion (every plan through the optimize suites' independent feasibility checker),
// cancellation, limits, pages and team isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { waitFor } from '../geo-api/support.js';
import { checkPlan, roadPoints, type At } from '../optimize-api/support.js';
import { freshDatabase } from '../faults/support.js';
import { fleetRequest } from './support.js';

let app: App & { url: string };
let team: TestTeam;
let other: TestTeam;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let P: At[];

beforeAll(async () => {
  db = await freshDatabase('optjobs');
  app = await startTestApp({ DATABASE_URL: db.url });
  team = await makeTeam(app);
  other = await makeTeam(app);
  P = await roadPoints(app.mapDir!, 410);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const submit = (body: unknown, key = team.key) => api(app, 'POST', '/v1/optimizations', { key, body });
const get = (id: string, key = team.key) => api(app, 'GET', `/v1/optimizations/${id}`, { key });
const finished = (id: string, key = team.key) =>
  waitFor(
    async () => {
      const res = await get(id, key);
      return ['completed', 'failed', 'cancelled'].includes(res.body.data.status) ? res.body.data : undefined;
    },
    `optimization ${id} to finish`,
    60_000,
    100,
  );

describe('batch optimization jobs', () => {
  it('runs a 400-stop, 20-vehicle job to a feasible plan, reporting progress on the way', async () => {
    const req = fleetRequest(P, 20, 400, 5);
    const started = performance.now();
    const res = await submit(req);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const job = res.body.data;
    expect(job).toMatchObject({
      status: 'queued',
      progress: { phase: 'queued', percent: 0 },
      stops: 400,
      vehicles: 20,
      time_budget: 5,
      result: null,
      error: null,
    });
    // Progress as it runs: the phases in order, the percentage never going back within a phase.
    const seen: Array<{ phase: string; percent: number }> = [];
    const done = await waitFor(
      async () => {
        const d = (await get(job.id)).body.data;
        const last = seen.at(-1);
        if (!last || last.phase !== d.progress.phase || last.percent !== d.progress.percent) seen.push(d.progress);
        return d.status === 'completed' || d.status === 'failed' ? d : undefined;
      },
      'the job to complete',
      60_000,
      50,
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`400 stops / 20 vehicles on the Liechtenstein map: completed end to end in ${seconds.toFixed(1)} s (time budget 5 s)`);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const order = ['queued', 'matrix', 'solving', 'routes', 'done'];
    const phases = seen.map((p) => order.indexOf(p.phase));
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
    expect(seen.some((p) => p.phase === 'solving' && p.percent > 0 && p.percent < 100)).toBe(true);
    for (let k = 1; k < seen.length; k++) if (seen[k].phase === seen[k - 1].phase) expect(seen[k].percent).toBeGreaterThan(seen[k - 1].percent);
    expect(done.progress).toEqual({ phase: 'done', percent: 100 });
    expect(done.runs).toBe(1);
    expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
    const plan = checkPlan(req, { status: 200, body: { data: done.result }, headers: new Headers() }, { suffix: '+01:00' });
    // 20 vans of 60 units carry the 1,000 units; the windows and skills leave room for all stops.
    expect(plan.summary.assigned).toBe(400);
  });

  it('lets interactive requests through while it runs; cancels a running job promptly; cancelling again is a no-op, a finished job cannot be cancelled', async () => {
    const res = await submit(fleetRequest(P, 5, 100, 120));
    const id = res.body.data.id;
    await waitFor(async () => ((await get(id)).body.data.progress.phase === 'solving' ? true : undefined), 'the search to start', 30_000, 50);
    // While it searches, interactive routing still gets the pool: the job holds one worker of two, a slice at a time.
    const interactive = await api(app, 'POST', '/v1/routes/optimize', { key: team.key, body: { vehicles: [{ start: P[0] }], stops: P.slice(1, 20) } });
    expect(interactive.status).toBe(200);
    expect(interactive.body.data.summary.assigned).toBe(19);
    expect((await get(id)).body.data.status).toBe('running');
    const cancelled = await api(app, 'DELETE', `/v1/optimizations/${id}`, { key: team.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ id, status: 'cancelled', result: null });
    // The job lets go of the pool within a slice: its row in the queue is gone.
    await waitFor(
      async () => {
        const [row] = await app.sql`SELECT count(*)::int AS n FROM jobs WHERE payload->>'optimization_id' = ${id}`;
        return row.n === 0 ? true : undefined;
      },
      'the job to stop',
      5_000,
      50,
    );
    expect((await get(id)).body.data).toMatchObject({ status: 'cancelled', result: null });
    expect((await api(app, 'DELETE', `/v1/optimizations/${id}`, { key: team.key })).body.data.status).toBe('cancelled');

    const small = await submit({ time_budget: 1, vehicles: [{ start: P[0] }], stops: P.slice(5, 8) });
    await finished(small.body.data.id);
    const late = await api(app, 'DELETE', `/v1/optimizations/${small.body.data.id}`, { key: team.key });
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/already completed/);
  });

  it('keeps off an excluded class of ways in its matrix and its routes (issue 36)', async () => {
    // Planken, up the slope above Schaan: the shortest walk down takes forest tracks.
    const body = {
      profile: 'foot-walking',
      time_budget: 1,
      vehicles: [{ id: 'walker', start: { latitude: 47.185, longitude: 9.545 } }],
      stops: [{ id: 'down', latitude: 47.165, longitude: 9.5093 }],
    };
    const plain = await submit(body);
    const paved = await submit({ ...body, exclude: ['unpaved'] });
    expect(paved.status, JSON.stringify(paved.body)).toBe(202);
    const [a, b] = [await finished(plain.body.data.id), await finished(paved.body.data.id)];
    expect(a.status).toBe('completed');
    expect(b.status, JSON.stringify(b.error)).toBe('completed');
    const arrival = (d: typeof a) => d.result.routes[0].steps.find((st: { id?: string }) => st.id === 'down').arrival;
    expect(arrival(b) > arrival(a)).toBe(true);
    expect(b.result.routes[0].geometry).not.toEqual(a.result.routes[0].geometry);
  });

  it('answers 422 naming every bad field at once, with the batch limits', async () => {
    const res = await submit({
      time_budget: 0,
      profile: 'rocket',
      vehicles: [{ start: P[0], capacity: -1 }, { start: { latitude: 95, longitude: 9.5 } }],
      stops: [
        { ...P[1], time_windows: [['2031-03-04T10:00:00Z', '2031-03-04T09:00:00Z']] },
        { ...P[2], demand: 'lots' },
        { poi_id: 'nope', ...P[3] },
      ],
      extra: true,
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'extra',
      'profile',
      'stops.0.time_windows.0',
      'stops.1.demand',
      'stops.2',
      'time_budget',
      'vehicles.0.capacity',
      'vehicles.1.start.latitude',
    ]);
    const big = await submit({
      vehicles: Array.from({ length: 201 }, () => ({ start: P[0] })),
      stops: Array.from({ length: 2001 }, () => P[1]),
      time_budget: 901,
    });
    expect(big.status).toBe(422);
    expect(big.body.errors).toEqual({
      vehicles: ['may have at most 200 vehicles'],
      stops: ['may have at most 2000 stops'],
      time_budget: ['must be an integer number of seconds between 1 and 900'],
    });
    // The contract's endpoint keeps its own limits.
    const contract = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: Array.from({ length: 4 }, () => ({ start: P[0] })), stops: [P[1]] },
    });
    expect(contract.body.errors).toEqual({ vehicles: ['may have at most 3 vehicles'] });
    // A stop far from any road fails the job with the 422 body the request would have got.
    const far = await submit({ time_budget: 1, vehicles: [{ start: P[0] }], stops: [P[1], { latitude: 47.0, longitude: 9.0 }] });
    expect(far.status).toBe(202);
    const failed = await finished(far.body.data.id);
    expect(failed.status).toBe('failed');
    expect(failed.error.errors).toEqual({ 'stops.1': ['is more than 500 m from a road usable by the driving-car profile'] });
  });

  it('plans loads in several dimensions, the second one splitting the stops across vans, and names every amount of the wrong length', async () => {
    // Weight alone would let one van take all six stops; three crates fill a van. The last stop has no
    // demand: 1 in each dimension.
    const req = {
      time_budget: 1,
      vehicles: [
        { id: 'a', start: P[0], end: P[0], capacity: [100, 3] },
        { id: 'b', start: P[0], end: P[0], capacity: [100, 3] },
      ],
      stops: [...P.slice(1, 6).map((p, i) => ({ ...p, id: `s${i}`, demand: [10 + i, 1] })), { ...P[6], id: 's5' }],
    };
    const res = await submit(req);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await finished(res.body.data.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const plan = checkPlan(req, { status: 200, body: { data: done.result }, headers: new Headers() });
    expect(plan.summary.assigned).toBe(6);
    expect(plan.routes.map((r: any) => r.load[1])).toEqual([3, 3]);

    // Shapes and lengths are named together: a length is judged for every well-formed amount.
    const bad = await submit({
      vehicles: [
        { start: P[0], capacity: [10, 2] },
        { start: P[0], capacity: 5 },
        { start: P[0], capacity: new Array(9).fill(1) },
      ],
      stops: [
        { ...P[1], demand: [1, 1] },
        { ...P[2], demand: [1] },
        { ...P[3], demand: [1, 2, 3] },
        { ...P[4], demand: [1, -1] },
        { ...P[5], demand: 4 },
        { ...P[6], demand: 'lots' },
      ],
    });
    expect(bad.status).toBe(422);
    const length = ["must have 2 amounts, like the vehicles' capacities"];
    expect(bad.body.errors).toEqual({
      'vehicles.1.capacity': length,
      'vehicles.2.capacity': ['must be an integer between 0 and 1000000000, or an array of 1 to 8 such integers (one per load dimension)'],
      'stops.1.demand': length,
      'stops.2.demand': length,
      'stops.3.demand.1': ['must be an integer between 0 and 10000000'],
      'stops.4.demand': length,
      'stops.5.demand': ['must be an integer between 0 and 10000000, or an array of 1 to 8 such integers (one per load dimension)'],
    });
    // A stop's amount sets the length when no vehicle has a capacity.
    const byStop = await submit({ vehicles: [{ start: P[0] }], stops: [{ ...P[1] }, { ...P[2], demand: [1, 2, 3] }, { ...P[3], demand: [1, 2] }] });
    expect(byStop.body.errors).toEqual({ 'stops.2.demand': ['must have 3 amounts, like stops.1.demand'] });
    // The contract's endpoint keeps integer amounts.
    const contract = await api(app, 'POST', '/v1/routes/optimize', {
      key: team.key,
      body: { vehicles: [{ start: P[0], capacity: [10, 2] }], stops: [{ ...P[1], demand: [1, 1] }] },
    });
    expect(contract.status).toBe(422);
    expect(contract.body.errors).toEqual({
      'vehicles.0.capacity': ['must be an integer between 0 and 1000000000'],
      'stops.0.demand': ['must be an integer between 0 and 10000000'],
    });
  });

  it('needs plan-routes; lists in cursor pages; keeps every team to its own jobs', async () => {
    const noPlan = await team.keyWith('read-pois');
    expect((await submit({ vehicles: [{ start: P[0] }], stops: [P[1]] }, noPlan)).status).toBe(403);
    const fresh = await makeTeam(app);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await submit({ time_budget: 1, vehicles: [{ start: P[0] }], stops: [P[i + 1]] }, fresh.key)).body.data.id);
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api(app, 'GET', `/v1/optimizations?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: fresh.key });
      expect(res.status).toBe(200);
      for (const item of res.body.data) {
        expect(item).not.toHaveProperty('result');
        pages.push(item.id);
      }
      cursor = res.body.next;
    } while (cursor);
    expect(pages).toEqual(ids);

    expect((await get(ids[0], other.key)).status).toBe(404);
    expect((await api(app, 'DELETE', `/v1/optimizations/${ids[0]}`, { key: other.key })).status).toBe(404);
    const theirs = await api(app, 'GET', '/v1/optimizations', { key: other.key });
    expect(theirs.body.data.map((d: any) => d.id)).not.toContain(ids[0]);
    expect((await get('not-an-id')).status).toBe(404);
    // POIs of another team are not theirs to plan with.
    const [poi] =
      await app.sql`INSERT INTO pois (id, team_id, name, latitude, longitude) VALUES ('01J0000000000000000000POI1', ${team.teamId}, 'depot', ${P[0].latitude}, ${P[0].longitude}) RETURNING id`;
    const foreign = await submit({ vehicles: [{ start: { poi_id: poi.id } }], stops: [P[1]] }, other.key);
    expect(foreign.body.errors).toEqual({ 'vehicles.0.start.poi_id': ['is not a POI of this team'] });
    for (const id of ids) expect((await finished(id, fresh.key)).status).toBe('completed');
  });
});
