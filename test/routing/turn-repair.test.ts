// A leg whose hierarchy path turns back mid-road (or crosses a roundabout's node against its flow) is
// searched again without that turn (src/engine/turn-back.ts). Far legs are repaired around the turn
// instead of searched again whole; here every such leg of random routes on a synthetic country is
// answered both ways — repaired, and by the exact whole-leg search without a budget — and the repair must
// cost what the exact search finds (never less: that would mean the repair took a kept-out turn).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { RouteCore } from '../../src/engine/route-core.js';
import { WHOLE_LEG } from '../../src/engine/turn-back.js';
import { ensureMap } from '../../src/map/build.js';
import { projectRoot } from '../../src/lib/paths.js';
import { syntheticExtract } from '../scale/synthetic-map.js';
import { readGraphs, rng, type TestGraph } from './helpers.js';

let synth: Record<string, TestGraph>;
let core: RouteCore;
const saved = { ...WHOLE_LEG };

beforeAll(async () => {
  const dir = await ensureMap(join(projectRoot, 'data', 'test-maps'), syntheticExtract('2x2', 11, '46.5,8.0'));
  synth = await readGraphs(dir);
  core = new RouteCore(placeGraphs(synth), { turnPrices: false });
}, 300_000);
afterAll(() => {
  Object.assign(WHOLE_LEG, saved);
  synth = {};
});

/** A point a little off the middle part of a random road: snapped onto the road, between its nodes. */
function roadPoint(g: TestGraph, rand: () => number) {
  const pts = g.shapes.pointsE7;
  const x = Math.floor(rand() * g.geomCount);
  const i = g.geomFirst[x];
  const f = 0.3 + 0.4 * rand();
  return { lat: (pts[2 * i] * (1 - f) + pts[2 * i + 2] * f) * 1e-7 + 3e-5, lon: (pts[2 * i + 1] * (1 - f) + pts[2 * i + 3] * f) * 1e-7 };
}

describe('legs searched again for a kept-out turn', () => {
  it.each(['driving-car', 'driving-hgv'])('%s: a repaired leg costs what the exact search finds', (profile) => {
    const g = synth[profile];
    const rand = rng(profile.length);
    let turned = 0,
      equal = 0;
    for (let tries = 0; tries < 3000 && turned < 12; tries++) {
      const waypoints = [roadPoint(g, rand), roadPoint(g, rand)];
      // Repair only: no leg is searched again whole.
      Object.assign(WHOLE_LEG, { wholeMaxCost: -1 });
      const before = core.searches.turns;
      const repaired = core.route({ profile, waypoints });
      if (core.searches.turns === before || !repaired.ok) continue;
      turned++;
      Object.assign(WHOLE_LEG, { wholeMaxCost: Infinity, wholeBudget: Infinity });
      const exact = core.route({ profile, waypoints });
      Object.assign(WHOLE_LEG, saved);
      expect(exact.ok).toBe(true);
      if (!exact.ok) continue;
      // Durations in tenths of a second, summed the same way on both sides.
      expect(repaired.value.duration).toBeGreaterThanOrEqual(exact.value.duration - 1e-6);
      expect(repaired.value.duration).toBeLessThanOrEqual(exact.value.duration * 1.05 + 1e-6);
      if (Math.abs(repaired.value.duration - exact.value.duration) < 1e-6) equal++;
    }
    // The turn searches are the exception (~3 % of random routes; none on foot, which has no turn
    // restrictions), but common enough to meet a dozen.
    expect(turned).toBeGreaterThanOrEqual(12);
    expect(equal).toBeGreaterThanOrEqual(turned - 1);
  });
});
