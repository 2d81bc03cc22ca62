// Route texts and matrix cells come from the compute threads in slots of a shared arena (engine/reply-arena.ts): every
// reply gives its slot back, the plain route an avoiding one replaces included, and concurrent replies
// each get their own text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { heldReplySlots, routeJson } from '../../src/engine/engine.js';
import { RawJson } from '../../src/http/router.js';
import { joined, rawPayload } from '../../src/http/server.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { BALZERS, BETWEEN, RUGGELL, SCHAAN, VADUZ, along, createPoi, expectRoute, plan } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
});
afterAll(() => app.close());

describe('route texts in the reply arena', () => {
  it('every reply gives its slot back: plain, split over two threads, and avoiding', async () => {
    const plain = expectRoute(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN] }), 2);
    expect(heldReplySlots()).toBe(0);
    // Six waypoints: searched in two halves on two threads, whose texts are joined.
    const split = expectRoute(await plan(app, team.key, { waypoints: [BALZERS, VADUZ, BETWEEN, SCHAAN, RUGGELL, VADUZ] }), 6);
    expect(split.geometry.coordinates.length).toBeGreaterThan(plain.geometry.coordinates.length);
    expect(heldReplySlots()).toBe(0);
    // A POI on the plain route: the plain route is found first to select it, then replaced.
    const other = await makeTeam(app);
    await createPoi(app, other.key, along(plain.geometry.coordinates, plain.distance / 2));
    const avoiding = expectRoute(await plan(app, other.key, { waypoints: [VADUZ, SCHAAN], avoid: { radius: 50 } }), 2);
    expect(avoiding.avoided.count).toBe(1);
    expect(heldReplySlots()).toBe(0);
  });

  it("a plain route's reply is its slot, framed in place: the same bytes as its parts joined, not a copy", async () => {
    const lat = (w: typeof VADUZ) => ({ lat: w.latitude, lon: w.longitude });
    const route = await routeJson({ profile: 'driving-car', waypoints: [lat(VADUZ), lat(SCHAAN)] });
    const body = new RawJson('{"data":{"name":"Zürich","geometry":', ...route.geometryJson, ',"legs":[]}}');
    const copied = Buffer.from(joined(body.parts));
    body.frame = route.framed;
    const framed = rawPayload(body);
    expect(framed).toBeInstanceOf(Uint8Array);
    expect((framed as Uint8Array).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(framed).equals(copied)).toBe(true);
    expect(JSON.parse(copied.toString()).data.geometry.coordinates.length).toBeGreaterThan(10);
    route.release();
    // With steps the compute thread writes the legs around them: one text after the head, framed the same way.
    const steps = await routeJson({ profile: 'driving-car', waypoints: [lat(VADUZ), lat(SCHAAN)], steps: true });
    expect(steps.withLegs).toBe(true);
    expect(steps.stepsJson).toBeUndefined();
    const withSteps = new RawJson('{"data":{"geometry":', ...steps.geometryJson, '}}');
    withSteps.frame = steps.framed;
    const sent = rawPayload(withSteps) as Uint8Array;
    expect(sent.buffer).toBeInstanceOf(SharedArrayBuffer);
    const data = JSON.parse(Buffer.from(sent).toString()).data;
    expect(data.legs).toHaveLength(1);
    const tenth = (x: number) => Math.round(x * 10) / 10;
    expect(data.legs[0]).toMatchObject({ from: 0, to: 1, distance: tenth(steps.legs[0].distance), duration: tenth(steps.legs[0].duration) });
    expect(data.legs[0].steps.at(-1).maneuver.type).toBe('arrive');
    steps.release();
    // Alternatives with steps (several routes' texts in one slot) are joined as before.
    const alternatives = await routeJson({ profile: 'driving-car', waypoints: [lat(VADUZ), lat(SCHAAN)], steps: true, alternatives: 2 });
    expect(alternatives.framed).toBeUndefined();
    expect(alternatives.stepsJson).toHaveLength(1);
    alternatives.release();
    expect(heldReplySlots()).toBe(0);
  });

  it('concurrent replies each carry their own route, and all slots come back', async () => {
    const pairs = [
      [VADUZ, SCHAAN],
      [BALZERS, RUGGELL],
      [SCHAAN, BALZERS],
      [RUGGELL, VADUZ],
    ];
    const alone = await Promise.all(pairs.map(async (w) => expectRoute(await plan(app, team.key, { waypoints: w }), 2)));
    const together = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => ({ i, d: expectRoute(await plan(app, team.key, { waypoints: pairs[i % 4] }), 2) })),
    );
    for (const { i, d } of together) expect(d.geometry).toEqual(alone[i % 4].geometry);
    expect(heldReplySlots()).toBe(0);
  });

  it('alternatives follow their route in its slot: concurrent replies carry their own, every slot comes back', async () => {
    const ESCHEN = { latitude: 47.2105, longitude: 9.5222 };
    const forms = [{ alternatives: 3 }, { alternatives: 2, steps: true }, { alternatives: 1, geometry_format: 'polyline6' }];
    const ask = async (i: number) => {
      const res = await api(app, 'POST', '/v1/routes', { key: team.key, body: { waypoints: [VADUZ, ESCHEN], ...forms[i % 3] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { geometry: unknown; alternatives: Array<{ geometry: unknown; legs: unknown }> };
    };
    const alone = [await ask(0), await ask(1), await ask(2)];
    expect(alone[0].alternatives.length).toBeGreaterThan(0);
    expect(heldReplySlots()).toBe(0);
    const together = await Promise.all(Array.from({ length: 18 }, async (_, i) => ({ i, d: await ask(i) })));
    for (const { i, d } of together) expect(d).toEqual(alone[i % 3]);
    expect(heldReplySlots()).toBe(0);
  });

  it('matrix cells: alone, concurrent and with rows shared over threads, each slot comes back', async () => {
    const points = [VADUZ, SCHAAN, BALZERS, RUGGELL, BETWEEN];
    const matrixOf = async (body: object, key = team.key) => {
      const res = await api(app, 'POST', '/v1/matrix', { key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { durations?: number[][]; distances: number[][]; avoided: { count: number } | null };
    };
    const alone = await matrixOf({ sources: points });
    expect(alone.durations).toHaveLength(5);
    expect(alone.durations?.[1][0]).toBeGreaterThan(0);
    expect(heldReplySlots()).toBe(0);
    const together = await Promise.all(Array.from({ length: 12 }, () => matrixOf({ sources: points })));
    for (const m of together) expect(m).toEqual(alone);
    expect(heldReplySlots()).toBe(0);
    // Nine sources with a POI to avoid: each row is a search of its own, shared out over the threads,
    // whose texts are joined row after row (the POI, in Triesenberg up the slope, is off every route between the valley's
    // towns: the cells are unchanged).
    const other = await makeTeam(app);
    await createPoi(app, other.key, { latitude: 47.1183, longitude: 9.5427 });
    const nine = [...points, VADUZ, SCHAAN, BALZERS, RUGGELL];
    const shared = await matrixOf({ sources: nine, annotations: ['distance'], avoid: { radius: 50 } }, other.key);
    expect(shared.avoided?.count).toBe(1);
    expect(shared.durations).toBeUndefined();
    expect(shared.distances).toHaveLength(9);
    for (let i = 0; i < 9; i++) for (let j = 0; j < 9; j++) expect(shared.distances[i][j]).toBe(alone.distances[i % 5][j % 5]);
    expect(heldReplySlots()).toBe(0);
  });
});
