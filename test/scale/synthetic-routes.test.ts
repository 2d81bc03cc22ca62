// On a synthetic country of nine real road networks (about 100,000 graph nodes over four profiles),
// every profile's routes equal a reference Dijkstra written here in TypeScript over the same graph:
// 300 random pairs plain, and 300 with circles on the plain route, where the reference skips every
// geometry coming closer to a circle than its radius and the route's geometry keeps radius − 1 m away.
// The lorry's references keep off the ways its lorry exceeds: the default lorry's (which the hierarchy
// weighs down) and, for 300 more pairs, a van's (searched over the graph, guided by the bound hierarchy).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES } from '../../src/map/graphs/profiles.js';
import type { RoadGraph } from '../../src/map/graphs/road-graph.js';
import { segmentDistance } from '../../src/map/graphs/segment-grid.js';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { pairsOf } from '../../src/engine/line-json.js';
import { closedTo, RouteCore, type VehicleQuery } from '../../src/engine/route-core.js';
import { dijkstra, lineDistanceMeters, readGraphs, rng, type TestGraph, nodeAt } from '../routing/helpers.js';
import { syntheticMap } from './synthetic-map.js';

interface Circle {
  lat: number;
  lon: number;
  radius: number;
}

let graphs: Record<string, TestGraph>;
let core: RouteCore;

beforeAll(async () => {
  graphs = await readGraphs(await syntheticMap());
  core = new RouteCore(placeGraphs(graphs), { turnPrices: false });
}, 300_000);
afterAll(() => {
  graphs = {};
});

/** Per geometry its box in degrees (south, west, north, east): only geometries near a circle are measured. */
const boxes = new Map<RoadGraph, Float64Array>();
function boxesOf(g: RoadGraph): Float64Array {
  let box = boxes.get(g);
  if (!box) {
    box = new Float64Array(4 * g.geomCount);
    for (let geom = 0; geom < g.geomCount; geom++) {
      let s = Infinity,
        w = Infinity,
        n = -Infinity,
        e = -Infinity;
      for (let p = g.geomFirst[geom]; p <= g.geomLast[geom]; p++) {
        const lat = g.shapes.pointsE7[2 * p] * 1e-7,
          lon = g.shapes.pointsE7[2 * p + 1] * 1e-7;
        s = Math.min(s, lat);
        n = Math.max(n, lat);
        w = Math.min(w, lon);
        e = Math.max(e, lon);
      }
      box.set([s, w, n, e], 4 * geom);
    }
    boxes.set(g, box);
  }
  return box;
}

/** Geometries with a segment closer to a circle's center than its radius. */
function blockedGeometries(g: RoadGraph, circles: Circle[]): Set<number> {
  const box = boxesOf(g);
  const out = new Set<number>();
  for (const c of circles) {
    const dLat = (c.radius + 10) / 111_000,
      dLon = dLat / Math.cos((c.lat * Math.PI) / 180);
    for (let geom = 0; geom < g.geomCount; geom++) {
      if (
        out.has(geom) ||
        box[4 * geom] > c.lat + dLat ||
        box[4 * geom + 2] < c.lat - dLat ||
        box[4 * geom + 1] > c.lon + dLon ||
        box[4 * geom + 3] < c.lon - dLon
      )
        continue;
      for (let p = g.geomFirst[geom]; p < g.geomLast[geom]; p++) {
        if (segmentDistance(g.shapes.pointsE7, p, c.lat, c.lon) < c.radius) {
          out.add(geom);
          break;
        }
      }
    }
  }
  return out;
}

/** The reference: a textbook Dijkstra from `source` to `target` (tenths of a second), never over a blocked geometry. */
const reference = (g: RoadGraph, source: number, target: number, blocked: Set<number>): number => dijkstra(g, source, { blocked, target })[target];

/** Main-network nodes at a position no other node shares (no turn-restriction copies), with an edge open to
 *  the lorry (`closed`): a waypoint there snaps to them. */
function plainNodes(g: TestGraph, closed: ReadonlySet<number>): number[] {
  const count = new Map<string, number>();
  const key = (v: number): string => `${g.nodeE7[2 * v]},${g.nodeE7[2 * v + 1]}`;
  for (let v = 0; v < g.nodeCount; v++) count.set(key(v), (count.get(key(v)) ?? 0) + 1);
  const out: number[] = [];
  for (let v = 0; v < g.nodeCount; v++) {
    let open = false;
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1] && !open; e++) open = !closed.has(g.orig[e] >> 1);
    if (g.mainNet[v] === 1 && count.get(key(v)) === 1 && open) out.push(v);
  }
  return out;
}

/** 300 random pairs routed for `vehicle` (the default lorry without one): each costs what the reference finds
 *  off the ways the lorry exceeds, or has no route, saying the lorry is too big, when the reference has none.
 *  `backward`: searched as the second thread of a race does, from the end. */
function againstReference(profile: string, seed: number, vehicle?: VehicleQuery, backward = false): void {
  const g = graphs[profile];
  const closed = closedTo(g, profile, vehicle);
  const nodes = plainNodes(g, closed);
  const rand = rng(seed);
  let tooBig = 0,
    turned = 0;
  for (let i = 0; i < 300; i++) {
    const s = nodes[Math.floor(rand() * nodes.length)],
      t = nodes[Math.floor(rand() * nodes.length)];
    const ref = reference(g, s, t, closed);
    const race = backward ? { backward, flag: new Int32Array(new SharedArrayBuffer(4)) } : undefined;
    const turnsBefore = core.searches.turns;
    const r = core.route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)], vehicle, race });
    if (ref === Infinity) {
      // The main network is one strongly connected part: only ways closed to the lorry cut a pair off.
      expect(closed.size, `pair ${s} → ${t}`).toBeGreaterThan(0);
      expect(r.ok || r.error).toMatchObject({ kind: 'no-route', reason: 'too-big' });
      tooBig++;
      continue;
    }
    if (!r.ok) throw new Error(`no route ${s} → ${t}: ${JSON.stringify(r.error)}`);
    if (core.searches.turns > turnsBefore) {
      // The fastest path turned back mid-road, which routes do not (turn-back.ts): searched again without
      // that turn, the route is no faster than the reference over the plain graph.
      turned++;
      expect(r.value.duration * 10).toBeGreaterThanOrEqual(ref - 1e-6);
    } else expect(r.value.duration * 10).toBeCloseTo(ref, 6);
  }
  expect(tooBig).toBeLessThan(15);
  expect(turned).toBeLessThan(15);
}

describe.each(PROFILES)('%s on a synthetic country', (profile) => {
  it('300 random pairs: the route costs what the reference Dijkstra finds', () => {
    if (profile === 'driving-hgv') expect(closedTo(graphs[profile], profile).size).toBeGreaterThan(0);
    againstReference(profile, 17);
  });

  if (profile === 'driving-hgv')
    it('300 random pairs for a van: the route costs what the reference finds over every way the van fits', () => {
      // Guided by the bound hierarchy the map build made for the lorry graph.
      expect(graphs[profile].lbUpFirst.length).toBe(graphs[profile].nodeCount + 1);
      const van = { heightM: 2.5, widthM: 2, lengthM: 6, weightT: 3.5 };
      expect(closedTo(graphs[profile], profile, van).size).toBeLessThan(closedTo(graphs[profile], profile).size);
      againstReference(profile, 29, van);
      againstReference(profile, 29, van, true);
    });

  it('300 random pairs with circles on the plain route: the shortest route that keeps out of every circle', () => {
    const g = graphs[profile];
    const closed = closedTo(g, profile);
    const nodes = plainNodes(g, closed);
    const rand = rng(23);
    let avoided = 0,
      blocked = 0;
    for (let i = 0; i < 300; i++) {
      const s = nodes[Math.floor(rand() * nodes.length)],
        t = nodes[Math.floor(rand() * nodes.length)];
      const plain = core.route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)] });
      if (!plain.ok) {
        // Only ways closed to the default lorry connect the pair (the plain test counts those).
        expect(plain.error).toMatchObject({ kind: 'no-route', reason: 'too-big' });
        continue;
      }
      const line = pairsOf(plain.value.geometry);
      if (line.length < 4) continue;
      // Circles on the plain route that hold neither end (the API skips such POIs).
      const circles = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => {
        const [lon, lat] = line[1 + Math.floor(rand() * (line.length - 2))];
        return { lat, lon, radius: 10 + Math.floor(rand() * 190) };
      }).filter((c) => [s, t].every((v) => lineDistanceMeters(c.lat, c.lon, [[g.nodeCoords[2 * v + 1], g.nodeCoords[2 * v]]]) > c.radius + 5));
      if (!circles.length) continue;
      const ref = reference(g, s, t, new Set([...closed, ...blockedGeometries(g, circles)]));
      // Searched from the start, and as the second thread of a race does, from the end: its answer raises
      // the race's flag; a thread that finds the flag raised gives up.
      const flag = new Int32Array(new SharedArrayBuffer(4));
      const routes = [false, true].map((backward) =>
        core.route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)], avoid: { circles }, race: backward ? { backward, flag } : undefined }),
      );
      expect(Atomics.load(flag, 0)).toBe(1);
      expect(core.route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)], avoid: { circles }, race: { backward: false, flag } })).toEqual({
        ok: false,
        error: { kind: 'stopped' },
      });
      if (ref === Infinity) {
        for (const r of routes) expect(r.ok || r.error).toMatchObject({ kind: 'no-route', reason: 'blocked' });
        blocked++;
        continue;
      }
      for (const r of routes) {
        if (!r.ok) throw new Error(`no avoiding route ${s} → ${t} but the reference has one of ${ref}`);
        expect(r.value.duration * 10).toBeCloseTo(ref, 6);
        const geometry = pairsOf(r.value.geometry);
        for (const c of circles) expect(lineDistanceMeters(c.lat, c.lon, geometry)).toBeGreaterThan(c.radius - 1);
      }
      avoided++;
    }
    expect(avoided).toBeGreaterThan(150);
    expect(blocked).toBeLessThan(avoided);
  });
});
