// Turn prices (turn-back.ts): OSRM 6.0.0's car.lua and bicycle.lua `process_turn` figures, and routes on
// Liechtenstein that price them: a short leg equals an edge-based Dijkstra over the road graph with every
// turn priced (no hierarchy, no potentials: the reference), its steps' durations add up to it, and no route
// is cheaper than the node-based one (prices only add).
import { beforeAll, describe, expect, it } from 'vitest';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { RouteCore } from '../../src/engine/route-core.js';
import { bicycleTurnPrice, CAR_FREE_LEFT, CAR_FREE_RIGHT, carTurnPrice, turnCost, turnPrices, turnRules, type TurnRules } from '../../src/engine/turn-back.js';
import { dijkstra, plainNodes, rng, testMap, type TestGraph } from './helpers.js';

describe('turn prices', () => {
  it("car.lua's sigmoid: right turns cheaper than left, straight on almost free, only where more than two roads meet or turning back", () => {
    // Seconds by car.lua's formula (turn_penalty 7.5, turn_bias 1.075), worked out by hand:
    // 0°: 7.5 / (1 + e^(6.9875)) = 0.0069 s; +90°: 7.5 / (1 + e^(0.9405)) = 2.105 s; -90°: 7.5 / (1 + e^(-0.9405))
    // = 5.395 s; 180° turning back: 7.455 + 20 s.
    expect(carTurnPrice.of(0, 3, false)).toBe(0);
    expect(carTurnPrice.of(90, 3, false)).toBe(21);
    expect(carTurnPrice.of(-90, 3, false)).toBe(54);
    expect(carTurnPrice.of(180, 1, true)).toBe(275);
    expect(carTurnPrice.of(90, 2, false)).toBe(0);
    expect(carTurnPrice.of(-90, 2, false)).toBe(0);
  });

  it('car.lua: the angles whose price is skipped as rounding to 0 do round to 0 by the formula, and the next degree does not', () => {
    // car.lua's process_turn, written out again here: of() no longer computes it below the two limits.
    const formula = (angle: number): number =>
      Math.round(
        10 *
          (angle >= 0
            ? 7.5 / (1 + Math.exp(-(((13 / 1.075) * angle) / 180 - 6.5 * 1.075)))
            : 7.5 / (1 + Math.exp(-((13 * 1.075 * -angle) / 180 - 6.5 / 1.075)))),
      );
    for (let a = 0; a < CAR_FREE_RIGHT; a += 0.001) expect(formula(a)).toBe(0);
    for (let a = 0; a < CAR_FREE_LEFT; a += 0.001) expect(formula(-a)).toBe(0);
    expect(formula(CAR_FREE_RIGHT + 1)).toBeGreaterThan(0);
    expect(formula(-CAR_FREE_LEFT - 1)).toBeGreaterThan(0);
    for (let a = -180; a <= 180; a += 0.25) expect(carTurnPrice.of(a, 3, false), `${a}°`).toBe(formula(a));
  });

  it("bicycle.lua's square of the angle: (angle / 90)² × 6 s, ÷ 1.4 to the right, × 1.4 to the left, at every node", () => {
    expect(bicycleTurnPrice.of(90, 2, false)).toBe(43); // 4.286 s
    expect(bicycleTurnPrice.of(-90, 2, false)).toBe(84); // 8.4 s
    expect(bicycleTurnPrice.of(45, 3, false)).toBe(11); // 1.071 s
    expect(bicycleTurnPrice.of(180, 1, true)).toBe(371); // 17.14 + 20 s
  });
});

/** The reverse graph's lists (what the compute threads make at load), for the turn rules. */
function withReverse(g: TestGraph): TestGraph & { rFirst: Uint32Array; rEdge: Uint32Array } {
  const N = g.nodeCount,
    E = g.head.length;
  const rFirst = new Uint32Array(N + 1);
  for (let e = 0; e < E; e++) rFirst[g.head[e] + 1]++;
  for (let v = 0; v < N; v++) rFirst[v + 1] += rFirst[v];
  const fill = rFirst.slice(0, N);
  const rEdge = new Uint32Array(E);
  for (let e = 0; e < E; e++) rEdge[fill[g.head[e]]++] = e;
  return Object.assign(Object.create(g), g, { rFirst, rEdge });
}

/** The reference: an edge-based Dijkstra from node s (a state is the search edge arrived by), every turn
 *  priced by the rules, to node t; tenths of a second. */
function pricedDijkstra(r: TurnRules, g: TestGraph, s: number, t: number): number {
  const dist = new Map<number, number>();
  const open: Array<[number, number]> = [];
  const relax = (c: number, v: number, a: number): void => {
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
      const nc = c + turnCost(r, v, a, g.orig[e]) + g.weight[e];
      if (nc < (dist.get(e) ?? Infinity)) {
        dist.set(e, nc);
        open.push([nc, e]);
      }
    }
  };
  if (s === t) return 0;
  relax(0, s, -1);
  while (open.length) {
    // A plain list with a linear minimum: slow and obviously right.
    let m = 0;
    for (let i = 1; i < open.length; i++) if (open[i][0] < open[m][0]) m = i;
    const [c, e] = open[m];
    open[m] = open[open.length - 1];
    open.pop();
    if (c > dist.get(e)!) continue;
    if (g.head[e] === t) return c;
    relax(c, g.head[e], g.orig[e]);
  }
  return Infinity;
}

describe('routes with their turns priced on Liechtenstein', () => {
  let graphs: Record<string, TestGraph>;
  let core: RouteCore;
  beforeAll(async () => {
    graphs = (await testMap()).graphs;
    core = new RouteCore(placeGraphs(graphs));
  });

  it.each(['driving-car', 'cycling-regular'])(
    '%s: 40 short legs cost what the priced edge-based Dijkstra finds, their steps add up to them; as the matrix, the node-based Dijkstra',
    (profile) => {
      const g = withReverse(graphs[profile]);
      const rules = turnRules(g, profile === 'driving-car', profile === 'driving-car' ? carTurnPrice : bicycleTurnPrice);
      const nodes = plainNodes(graphs[profile]);
      const at = (v: number) => ({ lat: g.nodeCoords[2 * v], lon: g.nodeCoords[2 * v + 1] });
      const rand = rng(31);
      let compared = 0,
        dearer = 0;
      while (compared < 40) {
        const s = nodes[Math.floor(rand() * nodes.length)],
          t = nodes[Math.floor(rand() * nodes.length)];
        const plain = dijkstra(graphs[profile], s, { target: t })[t];
        // Legs up to 20 minutes are searched again whole (WHOLE_LEG); longer ones are priced along the
        // hierarchy's path, not compared here.
        if (s === t || !(plain > 600 && plain < 11_000)) continue;
        const r = core.routeE7({ profile, waypoints: [at(s), at(t)], steps: true });
        expect(r.ok).toBe(true);
        if (!r.ok) continue;
        const expected = pricedDijkstra(rules, g, s, t);
        expect(r.value.duration, `${s} → ${t}`).toBeCloseTo(expected / 10, 6);
        expect(expected).toBeGreaterThanOrEqual(plain);
        if (expected > plain) dearer++;
        const stepTenths = r.value.legSteps![0].reduce((sum, step) => sum + step.tenths, 0);
        expect(stepTenths / 10).toBeCloseTo(r.value.duration, 6);
        // As the matrix routes (a plan's tours, a detour's base route): no turn priced.
        const asMatrix = core.routeE7({ profile, waypoints: [at(s), at(t)], mainNetwork: true });
        expect(asMatrix.ok && asMatrix.value.duration, `${s} → ${t} as the matrix`).toBeCloseTo(plain / 10, 6);
        compared++;
      }
      // Nearly every leg of a few minutes turns somewhere where three roads meet.
      expect(dearer).toBeGreaterThan(30);
    },
  );
});

describe('the prices of a path', () => {
  it('are turnCost turn by turn, a kept-out turn 0 (junctions that only junctions pay skipped, U-turns and rings looked at)', async () => {
    const g = withReverse((await testMap()).graphs['driving-car']);
    const rand = rng(17);
    for (const [price, driving] of [
      [carTurnPrice, true],
      [bicycleTurnPrice, false],
    ] as const) {
      const rules = turnRules(g, driving, price);
      let turns = 0,
        uTurns = 0,
        priced = 0;
      for (let k = 0; k < 300; k++) {
        // A random walk, U-turns included (a third of its steps go back where that is an edge).
        const walk: number[] = [];
        let v = Math.floor(rand() * g.nodeCount),
          start = v;
        for (let i = 0; i < 30; i++) {
          const out = g.firstOut[v + 1] - g.firstOut[v];
          if (out === 0) break;
          let e = g.firstOut[v] + Math.floor(rand() * out);
          if (walk.length && rand() < 0.33) {
            const back = g.orig[walk[walk.length - 1]] ^ 1;
            for (let f = g.firstOut[v]; f < g.firstOut[v + 1]; f++) if (g.orig[f] === back) e = f;
          }
          if (i === 0) start = v;
          walk.push(e);
          v = g.head[e];
        }
        if (walk.length < 2) continue;
        const edges = Uint32Array.from(walk);
        const startDir = rand() < 0.5 ? -1 : g.orig[edges[0]] ^ 1;
        const endDir = rand() < 0.5 ? -1 : g.orig[edges[edges.length - 1]] ^ 1;
        const prices = turnPrices(rules, startDir, start, edges, endDir)!;
        for (let i = 0; i <= edges.length; i++) {
          const node = i === 0 ? start : g.head[edges[i - 1]];
          const a = i === 0 ? startDir : g.orig[edges[i - 1]];
          const d = i === edges.length ? endDir : g.orig[edges[i]];
          const turn = turnCost(rules, node, a, d);
          expect(prices[i], `walk ${k}, turn ${i}`).toBe(turn === Infinity ? 0 : turn);
          turns++;
          if (a >= 0 && d === (a ^ 1)) uTurns++;
          if (prices[i] > 0) priced++;
        }
      }
      expect(turns).toBeGreaterThan(3000);
      expect(uTurns).toBeGreaterThan(100);
      expect(priced).toBeGreaterThan(300);
    }
  });
});

describe('the prices of a path beside another', () => {
  it('copies the turns both take between shared edges and prices the others: the same as pricing it alone', async () => {
    const g = withReverse((await testMap()).graphs['driving-car']);
    const rules = turnRules(g, true, carTurnPrice);
    const rand = rng(9);
    let checked = 0;
    for (let k = 0; k < 200; k++) {
      // A random walk of 40 edges (kept-out turns priced 0 either way), and paths beside it: its first part
      // (sharing its head), its last part from where it stands (sharing its tail), itself.
      const walk: number[] = [];
      let v = Math.floor(rand() * g.nodeCount);
      for (let i = 0; i < 40; i++) {
        const out = g.firstOut[v + 1] - g.firstOut[v];
        if (out === 0) break;
        const e = g.firstOut[v] + Math.floor(rand() * out);
        walk.push(e);
        v = g.head[e];
      }
      if (walk.length < 10) continue;
      const base = Uint32Array.from(walk);
      const start = (() => {
        for (let u = 0; u < g.nodeCount; u++) if (base[0] >= g.firstOut[u] && base[0] < g.firstOut[u + 1]) return u;
        return -1;
      })();
      const basePrices = turnPrices(rules, -1, start, base, -1)!;
      const cut = 3 + Math.floor(rand() * (base.length - 6));
      const beside = [
        { startDir: -1, start, edges: base.subarray(0, cut) },
        { startDir: g.orig[base[cut - 1]], start: g.head[base[cut - 1]], edges: base.subarray(cut) },
        { startDir: -1, start, edges: base },
      ];
      for (const p of beside) {
        expect(turnPrices(rules, p.startDir, p.start, p.edges, -1, { edges: base, prices: basePrices })).toEqual(
          turnPrices(rules, p.startDir, p.start, p.edges, -1),
        );
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });
});
