// The nodes legSteps remembers (guidance/steps.ts `goingOn`): where a route went on along the road it
// arrived by and nothing was said, a later route arriving the same way skips the look at the node's roads.
// On the real Liechtenstein map, car and lorry: every route's steps are those made without the table (the
// feature runner's `passedIntersections` looks at every node), asked first and again once the table holds
// the nodes of all of them.
import { beforeAll, describe, expect, it } from 'vitest';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { remembered, type RawStep } from '../../src/engine/guidance/steps.js';
import { RouteCore } from '../../src/engine/route-core.js';
import { plainNodes, rng, testMap, type TestGraph } from './helpers.js';

let graphs: Record<string, TestGraph>;
let core: RouteCore;
beforeAll(async () => {
  ({ graphs } = await testMap());
  core = new RouteCore(placeGraphs(graphs));
});

/** A leg's steps without the intersections they pass (only the table-free way lists them). */
const bare = (steps: RawStep[]) => steps.map(({ passed: _, ...s }) => s);

describe('steps with the remembered nodes', () => {
  it.each(['driving-car', 'driving-hgv'])('%s: 120 routes, asked twice, make the steps made without the table', (profile) => {
    const g = graphs[profile];
    const nodes = plainNodes(g);
    const at = (v: number) => ({ lat: g.nodeCoords[2 * v], lon: g.nodeCoords[2 * v + 1] });
    const rand = rng(7);
    const routes = Array.from({ length: 120 }, () => {
      const pick = () => at(nodes[Math.floor(rand() * nodes.length)]);
      return rand() < 0.25 ? [pick(), pick(), pick()] : [pick(), pick()];
    });
    const stepsOf = (waypoints: Array<{ lat: number; lon: number }>, passedIntersections: boolean) => {
      const r = core.routeE7({ profile, waypoints, steps: true, passedIntersections });
      return r.ok ? r.value.legSteps!.map(bare) : r;
    };
    const before = remembered();
    const first = routes.map((w) => stepsOf(w, false));
    const kept = remembered();
    // Most nodes of a route are a road going on past others: the table fills.
    expect(kept - before).toBeGreaterThan(1000);
    const again = routes.map((w) => stepsOf(w, false));
    const without = routes.map((w) => stepsOf(w, true));
    let steps = 0;
    for (let i = 0; i < routes.length; i++) {
      expect(first[i], `route ${i}`).toEqual(without[i]);
      expect(again[i], `route ${i} again`).toEqual(without[i]);
      if (Array.isArray(without[i])) for (const leg of without[i] as RawStep[][]) steps += leg.length;
    }
    expect(steps).toBeGreaterThan(1000);
  });
});
