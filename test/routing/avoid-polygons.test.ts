// Avoided polygons (issue 36) on Liechtenstein with real kernels: a route never enters a polygon (checked
// with turf's point-in-polygon and a segment/edge intersection written here), and it is as fast as a
// reference Dijkstra over the graph without every geometry that enters one (found here, independently of
// the engine's blocking); a waypoint walled in by a polygon gets no route, at the leg that reaches it.
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../src/compute/pool.js';
import { isochrone, loadMap, matrix, NoRouteError, route, routeJson, travelTimes, type ProfileName, type RouteResult } from '../../src/engine/engine.js';
import type { AvoidPolygon } from '../../src/engine/avoid.js';
import type { LatLon } from '../../src/lib/lat-lon.js';
import { dijkstra, plainNodes, rng, testMap, type TestGraph, nodeAt } from './helpers.js';

// These check the node-based searches (hierarchy, matrix, avoidance) against a node-based reference, so
// routes here price no turns (turn-prices.test.ts checks the priced routes): the pool's threads take the
// setting from the environment's configuration when the pool starts.
process.env.WAYMARK_TURN_PRICES = 'off';

let graphs: Record<string, TestGraph>;
beforeAll(async () => {
  const map = await testMap();
  graphs = map.graphs;
  await loadMap(map.dir);
});
afterAll(closePool);

/** A square of `side` meters around a point, turned by `turn` radians, optionally with a square hole of `hole` meters. */
function square(c: LatLon, side: number, turn: number, hole = 0): AvoidPolygon {
  const ring = (s: number, ccw: boolean) => {
    const k = 111_320 * Math.cos((c.lat * Math.PI) / 180);
    const corners = [0, 1, 2, 3].map((i) => {
      const a = turn + (ccw ? i : -i) * (Math.PI / 2) + Math.PI / 4;
      const r = s / Math.SQRT2;
      return [c.lon + (r * Math.cos(a)) / k, c.lat + (r * Math.sin(a)) / 111_320];
    });
    return [...corners, corners[0]];
  };
  return hole ? [ring(side, true), ring(hole, false)] : [ring(side, true)];
}

const inside = (lon: number, lat: number, p: AvoidPolygon) => booleanPointInPolygon([lon, lat], { type: 'Polygon', coordinates: p });

/** Whether the open segments a–b and c–d cross or touch (orientation tests, as in any geometry textbook). */
function cross(a: number[], b: number[], c: number[], d: number[]): boolean {
  const o = (p: number[], q: number[], r: number[]) => (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
  const d1 = o(c, d, a),
    d2 = o(c, d, b),
    d3 = o(a, b, c),
    d4 = o(a, b, d);
  return d1 * d2 <= 0 && d3 * d4 <= 0 && !(d1 === 0 && d2 === 0);
}

const segmentEnters = (a: number[], b: number[], p: AvoidPolygon) =>
  inside(a[0], a[1], p) || inside(b[0], b[1], p) || p.some((ring) => ring.some((q, i) => i > 0 && cross(a, b, ring[i - 1], q)));

const lineOf = (r: RouteResult): number[][] => Array.from({ length: r.geometry.length / 2 }, (_, i) => [r.geometry[2 * i], r.geometry[2 * i + 1]]);

/** The geometries with a segment entering any polygon. */
function entering(g: TestGraph, polygons: AvoidPolygon[]): Set<number> {
  const out = new Set<number>();
  const pt = (q: number) => [g.geomCoords[2 * q + 1], g.geomCoords[2 * q]];
  for (let geom = 0; geom < g.geomCount; geom++) {
    for (let q = g.geomFirst[geom]; q < g.geomLast[geom] && !out.has(geom); q++) {
      if (polygons.some((p) => segmentEnters(pt(q), pt(q + 1), p))) out.add(geom);
    }
  }
  return out;
}

describe('avoided polygons on Liechtenstein', () => {
  it.each(['driving-car', 'foot-walking'] as ProfileName[])(
    '%s: routes keep out of polygons across the plain route and equal the reference Dijkstra without their geometries',
    async (profile) => {
      const g = graphs[profile];
      const nodes = plainNodes(g);
      const rand = rng(3636);
      let compared = 0,
        longer = 0,
        blocked = 0;
      for (let i = 0; i < 30; i++) {
        const s = nodes[Math.floor(rand() * nodes.length)],
          t = nodes[Math.floor(rand() * nodes.length)];
        const plain = await route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)] }).catch(() => null);
        if (!plain || plain.geometry.length < 20) continue;
        // One or two squares of 100–800 m on the plain route, away from both ends.
        const line = lineOf(plain);
        const polygons = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => {
          const [lon, lat] = line[1 + Math.floor(rand() * (line.length - 2))];
          return square({ lat, lon }, 100 + rand() * 700, rand() * Math.PI, 0);
        }).filter((p) => !inside(nodeAt(g, s).lon, nodeAt(g, s).lat, p) && !inside(nodeAt(g, t).lon, nodeAt(g, t).lat, p));
        if (!polygons.length) continue;
        const blockedGeoms = entering(g, polygons);
        const ref = dijkstra(g, s, { blocked: blockedGeoms, target: t })[t];
        const r = await route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)], avoid: { circles: [], polygons } }).catch((e: unknown) => e);
        if (r instanceof NoRouteError) {
          expect(r.reason).toBe('blocked');
          expect(ref).toBe(Infinity);
          blocked++;
          continue;
        }
        const found = r as RouteResult;
        expect(found.duration).toBeCloseTo(ref / 10, 6);
        const got = lineOf(found);
        for (const p of polygons) for (let k = 0; k + 1 < got.length; k++) expect(segmentEnters(got[k], got[k + 1], p)).toBe(false);
        // The answer the API sends (raced over two threads) is as fast.
        const raced = await routeJson({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)], avoid: { circles: [], polygons } });
        expect(raced.duration).toBeCloseTo(found.duration, 6);
        raced.release();
        if (found.duration > plain.duration + 1e-6) longer++;
        compared++;
      }
      console.log(`${profile}: ${compared} compared (${longer} longer than the plain route), ${blocked} blocked`);
      expect(compared).toBeGreaterThan(10);
      expect(longer).toBeGreaterThan(5);
    },
  );

  it.each(['driving-car', 'foot-walking'] as ProfileName[])(
    "%s: travel times (the detours' searches) both ways keep out of polygons as the reference Dijkstra does; isochrones shrink",
    async (profile) => {
      const g = graphs[profile];
      const nodes = plainNodes(g);
      const rand = rng(3637);
      let compared = 0,
        longer = 0;
      for (let i = 0; i < 25; i++) {
        const s = nodes[Math.floor(rand() * nodes.length)],
          t = nodes[Math.floor(rand() * nodes.length)];
        const plain = await route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)] }).catch(() => null);
        if (!plain || plain.geometry.length < 20) continue;
        const line = lineOf(plain);
        const [lon, lat] = line[1 + Math.floor(rand() * (line.length - 2))];
        const polygons = [square({ lat, lon }, 100 + rand() * 700, rand() * Math.PI, 0)].filter(
          (p) => !inside(nodeAt(g, s).lon, nodeAt(g, s).lat, p) && !inside(nodeAt(g, t).lon, nodeAt(g, t).lat, p),
        );
        if (!polygons.length) continue;
        const blockedGeoms = entering(g, polygons);
        const ref = dijkstra(g, s, { blocked: blockedGeoms, target: t })[t];
        const avoid = { circles: [], polygons };
        const limit = 2 * plain.duration + 600;
        const [to] = await travelTimes({ profile, source: nodeAt(g, s), targets: [nodeAt(g, t)], maxDuration: limit, avoid });
        const [back] = await travelTimes({ profile, source: nodeAt(g, t), targets: [nodeAt(g, s)], maxDuration: limit, avoid, toSource: true });
        if (ref / 10 > limit) {
          expect(to).toBeNull();
          continue;
        }
        expect(to?.duration).toBeCloseTo(ref / 10, 6);
        expect(back?.duration).toBeCloseTo(ref / 10, 6);
        if (ref / 10 > plain.duration + 1e-6) longer++;
        compared++;
      }
      console.log(`${profile}: ${compared} travel times compared (${longer} longer than the plain route)`);
      expect(compared).toBeGreaterThan(8);
      expect(longer).toBeGreaterThan(3);
      // An isochrone from the middle of Vaduz with a 600 m square on the town's centre reaches less.
      const vaduz = { lat: 47.1393, lon: 9.5215 };
      const centre = square({ lat: 47.143, lon: 9.5225 }, 600, 0);
      const area = (r: Awaited<ReturnType<typeof isochrone>>) => r.shapes[0].reduce((n, rings) => n + rings[0].length, 0);
      const open = await isochrone({ profile, source: vaduz, limits: [300] });
      const kept = await isochrone({ profile, source: vaduz, limits: [300], avoid: { circles: [], polygons: [centre] } });
      expect(kept.shapes[0]).not.toEqual(open.shapes[0]);
      expect(area(kept)).toBeGreaterThan(0);
    },
  );

  it('a waypoint walled in by a polygon with a hole around it has no route: the leg to it is blocked; the matrix has no cell', async () => {
    const g = graphs['driving-car'];
    const nodes = plainNodes(g);
    const vaduz = nodeAt(
      g,
      nodes.reduce((best, v) =>
        Math.hypot(nodeAt(g, v).lat - 47.1393, nodeAt(g, v).lon - 9.5215) < Math.hypot(nodeAt(g, best).lat - 47.1393, nodeAt(g, best).lon - 9.5215) ? v : best,
      ),
    );
    const schaan = { lat: 47.165, lon: 9.5093 };
    const wall = square(vaduz, 1500, 0.3, 800);
    const r = await route({ profile: 'driving-car', waypoints: [schaan, vaduz], avoid: { circles: [], polygons: [wall] } }).catch((e: unknown) => e);
    expect(r).toBeInstanceOf(NoRouteError);
    expect((r as NoRouteError).reason).toBe('blocked');
    expect((r as NoRouteError).legIndex).toBe(0);
    const m = await matrix({ profile: 'driving-car', points: [schaan, vaduz], avoid: { circles: [], polygons: [wall] } });
    expect(m.durations[0][1]).toBeNull();
    // Without the wall's ring (the hole alone is no polygon), the route exists.
    expect((await route({ profile: 'driving-car', waypoints: [schaan, vaduz] })).duration).toBeGreaterThan(0);
  });
});
