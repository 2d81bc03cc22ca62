// Route texts come from the compute threads in slots of a shared arena (engine/reply-arena.ts): every
// reply gives its slot back, the plain route an avoiding one replaces included, and concurrent replies
// each get their own text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { heldReplySlots } from '../../src/engine/engine.js';
import { NO_JOBS } from '../api/helpers.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { BALZERS, BETWEEN, RUGGELL, SCHAAN, VADUZ, along, createPoi, expectRoute, plan } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
beforeAll(async () => {
  app = await startTestApp(NO_JOBS);
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
});
