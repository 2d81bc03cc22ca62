// Reachability against references: rectangular matrices (engine and RouteCore) cell by cell against single
// routes, a reference Dijkstra and the square matrix; travel times brute-forced against the matrix;
// isochrones checked for containment, separation, nesting and ring orientation against a one-to-all
// Dijkstra (seconds, and centimeters for range_type distance); nearest roads against snapping; and the
// cell grid / tracer of isochrone-shape.ts on its own. Real kernels, the Liechtenstein map and a small
// synthetic country (2x2 tiles).
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../src/compute/pool.js';
import { METERS_PER_DEGREE } from '../../src/lib/geo/sphere.js';
import { ensureMap } from '../../src/map/build.js';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import {
  isochrone,
  loadMap,
  matrix,
  nearest,
  NoRouteError,
  route,
  travelTimes,
  WaypointTooFarError,
  type ProfileName,
  type RouteResult,
} from '../../src/engine/engine.js';
import { CellGrid, tracePolygons, type PolygonRings } from '../../src/engine/isochrone-shape.js';
import { onMainNetwork } from '../../src/engine/phantom.js';
import { closedTo, RouteCore, type MatrixResult } from '../../src/engine/route-core.js';
import { join } from 'node:path';
import { projectRoot } from '../../src/lib/paths.js';
import type { LatLon } from '../../src/lib/lat-lon.js';
import { dijkstra, plainNodes, pointSegmentMeters, readGraphs, rng, testMap, type TestGraph, nodeAt } from './helpers.js';
import { syntheticExtract } from '../scale/synthetic-map.js';

// These check the node-based searches (hierarchy, matrix, avoidance) against a node-based reference, so
// routes here price no turns (turn-prices.test.ts checks the priced routes): the pool's threads take the
// setting from the environment's configuration when the pool starts.
process.env.WAYMARK_TURN_PRICES = 'off';

const PROFILES: ProfileName[] = ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'];
let graphs: Record<string, TestGraph>;

beforeAll(async () => {
  const map = await testMap();
  graphs = map.graphs;
  await loadMap(map.dir);
});
afterAll(closePool);

// ---- shared helpers ---------------------------------------------------------------------------------

const pick = <T>(xs: T[], rand: () => number): T => xs[Math.floor(rand() * xs.length)];
/** A point up to `meters` away from a random node. */
const near = (g: TestGraph, v: number, rand: () => number, meters: number): LatLon => {
  const p = nodeAt(g, v);
  const r = meters * Math.sqrt(rand()),
    a = 2 * Math.PI * rand();
  return { lat: p.lat + (r * Math.sin(a)) / 111_320, lon: p.lon + (r * Math.cos(a)) / (111_320 * Math.cos((p.lat * Math.PI) / 180)) };
};

/** Centimeters of road per node from `source` (Dijkstra over geomCm), skipping `blocked` geometries. */
function dijkstraCm(g: TestGraph, source: number, blocked?: ReadonlySet<number>): Float64Array {
  const dist = new Float64Array(g.nodeCount).fill(Infinity);
  // A binary heap of [key, node] with lazy deletion.
  const hk: number[] = [],
    hn: number[] = [];
  const push = (k: number, v: number) => {
    let i = hk.length;
    hk.push(k);
    hn.push(v);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (hk[p] <= k) break;
      hk[i] = hk[p];
      hn[i] = hn[p];
      i = p;
    }
    hk[i] = k;
    hn[i] = v;
  };
  const pop = (): [number, number] => {
    const top: [number, number] = [hk[0], hn[0]];
    const k = hk.pop()!,
      v = hn.pop()!;
    if (hk.length) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1,
          r = l + 1;
        let m = -1;
        let mk = k;
        if (l < hk.length && hk[l] < mk) {
          m = l;
          mk = hk[l];
        }
        if (r < hk.length && hk[r] < mk) m = r;
        if (m < 0) break;
        hk[i] = hk[m];
        hn[i] = hn[m];
        i = m;
      }
      hk[i] = k;
      hn[i] = v;
    }
    return top;
  };
  dist[source] = 0;
  push(0, source);
  while (hk.length) {
    const [d, v] = pop();
    if (d > dist[v]) continue;
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
      const geom = g.orig[e] >> 1;
      if (blocked?.has(geom)) continue;
      const w = g.head[e],
        nd = d + g.geomCm[geom];
      if (nd < dist[w]) {
        dist[w] = nd;
        push(nd, w);
      }
    }
  }
  return dist;
}

type Routed = RouteResult | NoRouteError;
async function tryRoute(req: Parameters<typeof route>[0]): Promise<Routed> {
  try {
    return await route(req);
  } catch (err) {
    if (err instanceof NoRouteError) return err;
    throw err;
  }
}

/** Every cell of a rectangular matrix against the single route between its points, and (for points on
 *  nodes) the reference Dijkstra in tenths; `square` over sources ∪ targets holds the same cells. */
function checkRectangle(
  m: MatrixResult,
  square: MatrixResult,
  routes: Routed[][],
  refs: Array<Float64Array | null>,
  targetNodes: Array<number | null>,
  turned: ReadonlySet<string> = new Set(),
): { cells: number; unreachable: number; viaRef: number } {
  const S = routes.length,
    T = routes[0].length;
  let unreachable = 0,
    viaRef = 0;
  expect(m.durations.length).toBe(S);
  expect(m.distances.length).toBe(S);
  expect(m.snapped.length).toBe(S);
  expect(m.snappedTargets?.length).toBe(T);
  expect(m.offsets.length).toBe(S + T);
  for (let i = 0; i < S; i++) {
    expect(m.durations[i].length).toBe(T);
    for (let j = 0; j < T; j++) {
      const d = m.durations[i][j],
        dist = m.distances[i][j];
      const r = routes[i][j];
      const where = `cell [${i}][${j}]`;
      if (r instanceof NoRouteError) {
        expect(d, where).toBeNull();
        expect(dist, where).toBeNull();
        unreachable++;
      } else if (turned.has(`${i},${j}`)) {
        // The route's fastest path turned back mid-road and was searched again without (turn-back.ts):
        // the cell is the fastest path's, the route no faster (docs/reachability.md).
        expect(d, where).not.toBeNull();
        expect(r.duration, `${where} route ${r.duration} vs cell ${d}`).toBeGreaterThanOrEqual(d! - 1e-6);
      } else {
        expect(d, where).not.toBeNull();
        expect(Math.abs(d! - r.duration), `${where} duration ${d} vs route ${r.duration}`).toBeLessThan(1e-6);
        expect(Math.abs(dist! - r.distance), `${where} distance ${dist} vs route ${r.distance}`).toBeLessThan(1e-3);
      }
      const ref = refs[i],
        t = targetNodes[j];
      if (ref && t !== null) {
        viaRef++;
        if (ref[t] === Infinity) expect(d, where).toBeNull();
        else expect(Math.abs(d! - ref[t] / 10), `${where} vs reference ${ref[t] / 10}`).toBeLessThan(1e-6);
      }
      const sq = square.durations[i][S + j],
        sqm = square.distances[i][S + j];
      if (d === null) expect(sq, where).toBeNull();
      else {
        expect(Math.abs(sq! - d), `${where} square ${sq} vs ${d}`).toBeLessThan(1e-6);
        expect(Math.abs(sqm! - dist!), `${where} square ${sqm} vs ${dist}`).toBeLessThan(1e-3);
      }
    }
  }
  return { cells: S * T, unreachable, viaRef };
}

/** Sources and targets: `onNodes` of each on plain nodes (returned), the rest up to 150 m off a node. */
function matrixPoints(g: TestGraph, nodes: number[], seed: number, sources: number, targets: number, onNodes: number) {
  const rand = rng(seed);
  const make = (n: number) => {
    const pts: LatLon[] = [],
      at_: Array<number | null> = [];
    for (let k = 0; k < n; k++) {
      const v = pick(nodes, rand);
      if (k < onNodes) {
        pts.push(nodeAt(g, v));
        at_.push(v);
      } else {
        pts.push(near(g, v, rand, 150));
        at_.push(null);
      }
    }
    return { pts, at: at_ };
  };
  return { S: make(sources), T: make(targets) };
}

// ---- 1. rectangular matrices ------------------------------------------------------------------------

describe('rectangular matrix (targets)', () => {
  it.each(PROFILES)('%s on Liechtenstein: every cell equals route(), the reference Dijkstra and the square matrix', async (profile) => {
    const g = graphs[profile];
    const closed = closedTo(g as unknown as Parameters<typeof closedTo>[0], profile);
    const nodes = plainNodes(g, closed);
    const { S, T } = matrixPoints(g, nodes, 1000 + PROFILES.indexOf(profile), 7, 9, 5);
    const m = await matrix({ profile, points: S.pts, targets: T.pts });
    const square = await matrix({ profile, points: [...S.pts, ...T.pts] });
    const routes = await Promise.all(S.pts.map((s) => Promise.all(T.pts.map((t) => tryRoute({ profile, waypoints: [s, t], mainNetwork: true })))));
    const refs = S.at.map((v) => (v === null ? null : dijkstra(g, v, { blocked: closed })));
    const { cells, unreachable, viaRef } = checkRectangle(m, square, routes, refs, T.at);
    expect(cells).toBe(63);
    expect(viaRef).toBe(25);
    expect(unreachable).toBeLessThan(cells / 2);
    // The snapped points are the square matrix's (snapped alike), the offsets too.
    expect(m.snapped).toEqual(square.snapped.slice(0, S.pts.length));
    expect(m.snappedTargets).toEqual(square.snapped.slice(S.pts.length));
    for (let k = 0; k < m.offsets.length; k++) expect(m.offsets[k]).toBeCloseTo(square.offsets[k], 9);
  });

  it('a point too far from roads: WaypointTooFarError counting sources first, then targets', async () => {
    const g = graphs['driving-car'];
    const nodes = plainNodes(g);
    const rand = rng(5);
    const ok = () => nodeAt(g, pick(nodes, rand));
    const far = { lat: 0, lon: 0 };
    const farEast = { lat: 47.15, lon: 10.6 };
    const expectFar = async (req: Parameters<typeof matrix>[0], indexes: number[]) => {
      const err = await matrix(req).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WaypointTooFarError);
      expect((err as WaypointTooFarError).indexes).toEqual(indexes);
    };
    await expectFar({ profile: 'driving-car', points: [ok(), ok()], targets: [ok(), far, ok(), farEast] }, [3, 5]);
    await expectFar({ profile: 'driving-car', points: [farEast, ok()], targets: [ok(), far] }, [0, 3]);
    await expectFar({ profile: 'foot-walking', points: [ok()], targets: [far] }, [1]);
    // And without a far point the same call answers.
    const m = await matrix({ profile: 'driving-car', points: [ok(), ok()], targets: [ok(), ok(), ok()] });
    expect(m.durations.map((r) => r.length)).toEqual([3, 3]);
  });

  describe('on a synthetic country (2x2 tiles), RouteCore', () => {
    let synth: Record<string, TestGraph>;
    let core: RouteCore;
    beforeAll(async () => {
      const dir = await ensureMap(join(projectRoot, 'data', 'test-maps'), syntheticExtract('2x2', 11, '46.5,8.0'));
      synth = await readGraphs(dir);
      core = new RouteCore(placeGraphs(synth), { turnPrices: false });
    }, 300_000);
    afterAll(() => {
      synth = {};
    });

    it.each(['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'] as ProfileName[])(
      '%s: every cell equals route(), the reference Dijkstra and the square matrix',
      (profile) => {
        const g = synth[profile];
        const closed = closedTo(g as unknown as Parameters<typeof closedTo>[0], profile);
        const nodes = plainNodes(g, closed);
        const { S, T } = matrixPoints(g, nodes, 77, 12, 15, 8);
        const unwrap = <X>(o: { ok: true; value: X } | { ok: false; error: unknown }): X => {
          if (!o.ok) throw new Error(JSON.stringify(o.error));
          return o.value;
        };
        const m = unwrap(core.matrix({ profile, points: S.pts, targets: T.pts }));
        const square = unwrap(core.matrix({ profile, points: [...S.pts, ...T.pts] }));
        const turned = new Set<string>();
        const routes = S.pts.map((s, i) =>
          T.pts.map((t, j): Routed => {
            const before = core.searches.turns;
            const r = core.route({ profile, waypoints: [s, t], mainNetwork: true });
            if (core.searches.turns > before) turned.add(`${i},${j}`);
            if (r.ok) return r.value;
            if (r.error.kind === 'no-route') return new NoRouteError(r.error.reason, r.error.legIndex);
            throw new Error(JSON.stringify(r.error));
          }),
        );
        const refs = S.at.map((v) => (v === null ? null : dijkstra(g, v, { blocked: closed })));
        const { cells, unreachable, viaRef } = checkRectangle(m, square, routes, refs, T.at, turned);
        expect(cells).toBe(180);
        // Turned-back paths are the exception the rules make, not the case.
        expect(turned.size).toBeLessThan(cells / 20);
        expect(viaRef).toBe(64);
        expect(unreachable).toBeLessThan(cells / 2);
      },
    );
  });
});

// ---- 2. travel times --------------------------------------------------------------------------------

describe('travelTimes against the matrix', () => {
  const setup = async (profile: ProfileName, seed: number) => {
    const g = graphs[profile];
    const nodes = plainNodes(g);
    const rand = rng(seed);
    const source = nodeAt(g, pick(nodes, rand));
    // Half on nodes, half up to 200 m off one.
    const targets = Array.from({ length: 300 }, (_, k) => (k % 2 ? nodeAt(g, pick(nodes, rand)) : near(g, pick(nodes, rand), rand, 200)));
    const m = await matrix({ profile, points: [source], targets });
    return { source, targets, durations: m.durations[0], distances: m.distances[0] };
  };

  /** Non-null exactly where the matrix's fastest path is within the limits, with the matrix's durations;
   *  the distances that differ from the matrix's are returned (and checked on their own below). */
  const check = (
    tt: Awaited<ReturnType<typeof travelTimes>>,
    durations: Array<number | null>,
    distances: Array<number | null>,
    maxDuration: number,
    maxDistance: number,
    points?: { source: LatLon; targets: LatLon[] },
  ) => {
    let inside = 0;
    const bad: string[] = [];
    const distanceBad: number[] = [];
    tt.forEach((t, k) => {
      const d = durations[k],
        m = distances[k];
      const within = d !== null && d <= maxDuration && m! <= maxDistance;
      if (within) inside++;
      const what = points ? ` (${JSON.stringify(points.source)} → ${JSON.stringify(points.targets[k])})` : '';
      if (within !== (t !== null)) bad.push(`target ${k}${what}: travelTimes ${JSON.stringify(t)}, matrix ${d} s ${m} m`);
      else if (t) {
        if (Math.abs(t.duration - d!) > 1e-6) bad.push(`target ${k}${what}: duration ${t.duration} vs matrix ${d}`);
        if (Math.abs(t.distance - m!) > 1e-3) distanceBad.push(k);
      }
    });
    expect(bad).toEqual([]);
    return { inside, distanceBad };
  };

  it.each([
    ['driving-car', 600],
    ['foot-walking', 1800],
  ] as Array<[ProfileName, number]>)('%s: 300 targets within %i s', async (profile, maxDuration) => {
    const { source, targets, durations, distances } = await setup(profile, 31);
    const tt = await travelTimes({ profile, source, targets, maxDuration });
    expect(tt.length).toBe(300);
    const { inside } = check(tt, durations, distances, maxDuration, Infinity, { source, targets });
    // Both answers occur.
    expect(inside).toBeGreaterThan(5);
    expect(inside).toBeLessThan(300);
  });

  it.each([
    ['driving-car', 600],
    ['cycling-regular', 1200],
  ] as Array<[ProfileName, number]>)('%s: from 300 targets to the source within %i s (backward), as the matrix column', async (profile, maxDuration) => {
    const g = graphs[profile];
    const nodes = plainNodes(g);
    const rand = rng(41);
    const source = nodeAt(g, pick(nodes, rand));
    const targets = Array.from({ length: 300 }, (_, k) => (k % 2 ? nodeAt(g, pick(nodes, rand)) : near(g, pick(nodes, rand), rand, 200)));
    const m = await matrix({ profile, points: targets, targets: [source] });
    const tt = await travelTimes({ profile, source, targets, maxDuration, toSource: true });
    const { inside } = check(
      tt,
      m.durations.map((r) => r[0]),
      m.distances.map((r) => r[0]),
      maxDuration,
      Infinity,
      { source, targets },
    );
    expect(inside).toBeGreaterThan(5);
    expect(inside).toBeLessThan(300);
  });

  it('driving-car: within 900 s and 5 km', async () => {
    const { source, targets, durations, distances } = await setup('driving-car', 32);
    const tt = await travelTimes({ profile: 'driving-car', source, targets, maxDuration: 900, maxDistance: 5000 });
    const { inside } = check(tt, durations, distances, 900, 5000, { source, targets });
    expect(inside).toBeGreaterThan(5);
    expect(inside).toBeLessThan(300);
  });

  it.each([
    ['driving-car', 8000],
    ['driving-car', 4000],
    ['cycling-regular', 5000],
  ] as Array<[ProfileName, number]>)('%s: maxDistance %i m alone (meters of the fastest path)', async (profile, maxDistance) => {
    const { source, targets, durations, distances } = await setup(profile, 33);
    const tt = await travelTimes({ profile, source, targets, maxDistance });
    const { inside } = check(tt, durations, distances, Infinity, maxDistance, { source, targets });
    expect(inside).toBeGreaterThan(5);
    expect(inside).toBeLessThan(300);
  });

  it.each([
    ['driving-car', 900],
    ['foot-walking', 1800],
    ['cycling-regular', 1200],
  ] as Array<[ProfileName, number]>)(
    "%s: distances are the matrix's and the route's (ties on duration go to the shorter path)",
    async (profile, maxDuration) => {
      const bad: string[] = [];
      for (const seed of [31, 34, 35]) {
        const { source, targets, durations, distances } = await setup(profile, seed);
        const tt = await travelTimes({ profile, source, targets, maxDuration });
        for (const k of check(tt, durations, distances, maxDuration, Infinity, { source, targets }).distanceBad) {
          const r = await route({ profile, waypoints: [source, targets[k]], mainNetwork: true });
          bad.push(
            `${JSON.stringify(source)} → ${JSON.stringify(targets[k])}: travelTimes ${tt[k]!.duration} s ${tt[k]!.distance} m, matrix ${durations[k]} s ${distances[k]} m, route ${r.duration} s ${r.distance} m`,
          );
        }
      }
      expect(bad).toEqual([]);
    },
  );
});

// ---- 3. isochrones ----------------------------------------------------------------------------------

type Ring = number[][];
const geoOf = (polys: PolygonRings[]) =>
  polys.length === 1 ? { type: 'Polygon' as const, coordinates: polys[0] } : { type: 'MultiPolygon' as const, coordinates: polys };
const shoelace = (ring: Ring): number => {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
  return a / 2;
};

/** Segments in buckets of `size` meters, for the distance from a point to the nearest one. */
class SegmentIndex {
  private readonly buckets = new Map<string, Array<[number, number, number, number]>>();
  constructor(
    private readonly size: number,
    private readonly lat0: number,
  ) {}
  private cx = (lon: number) => Math.floor((lon * 111_320 * Math.cos((this.lat0 * Math.PI) / 180)) / this.size);
  private cy = (lat: number) => Math.floor((lat * 111_320) / this.size);
  add(lon0: number, lat0: number, lon1: number, lat1: number): void {
    for (let x = Math.min(this.cx(lon0), this.cx(lon1)); x <= Math.max(this.cx(lon0), this.cx(lon1)); x++)
      for (let y = Math.min(this.cy(lat0), this.cy(lat1)); y <= Math.max(this.cy(lat0), this.cy(lat1)); y++) {
        const k = `${x},${y}`;
        let b = this.buckets.get(k);
        if (!b) this.buckets.set(k, (b = []));
        b.push([lon0, lat0, lon1, lat1]);
      }
  }
  /** Whether a segment lies within `size` meters of the point. */
  near(lon: number, lat: number): boolean {
    const x0 = this.cx(lon),
      y0 = this.cy(lat);
    for (let x = x0 - 1; x <= x0 + 1; x++)
      for (let y = y0 - 1; y <= y0 + 1; y++)
        for (const s of this.buckets.get(`${x},${y}`) ?? []) if (pointSegmentMeters(lat, lon, [s[0], s[1]], [s[2], s[3]]) <= this.size) return true;
    return false;
  }
}

describe('isochrones against a one-to-all Dijkstra', () => {
  const cases: Array<[ProfileName, boolean, number[]]> = [
    ['driving-car', false, [300, 900]],
    ['foot-walking', false, [300, 900]],
    ['driving-car', true, [2000, 6000]],
    ['foot-walking', true, [400, 1200]],
    // The lorry's search keeps off the ways closed to the default lorry: so does the reference.
    ['driving-hgv', false, [600]],
    ['driving-hgv', true, [5000]],
  ];
  it.each(cases)('%s, by distance %s, limits %j', async (profile, byDistance, limits) => {
    const g = graphs[profile];
    const closed = closedTo(g as unknown as Parameters<typeof closedTo>[0], profile);
    if (profile === 'driving-hgv') expect(closed.size).toBeGreaterThan(0);
    const nodes = plainNodes(g, closed);
    // A node near Vaduz.
    let s = nodes[0];
    for (const v of nodes)
      if (Math.hypot(nodeAt(g, v).lat - 47.14, nodeAt(g, v).lon - 9.52) < Math.hypot(nodeAt(g, s).lat - 47.14, nodeAt(g, s).lon - 9.52)) s = v;
    const ref = byDistance ? dijkstraCm(g, s, closed) : dijkstra(g, s, { blocked: closed });
    const scale = byDistance ? 100 : 10;
    const cost = (e: number) => (byDistance ? g.geomCm[g.orig[e] >> 1] : g.weight[e]);
    const iso = await isochrone({ profile, source: nodeAt(g, s), limits, byDistance });
    expect(iso.snapped.lat).toBeCloseTo(nodeAt(g, s).lat, 7);
    expect(iso.snapped.lon).toBeCloseTo(nodeAt(g, s).lon, 7);
    expect(iso.shapes.length).toBe(limits.length);
    const cell = iso.cellMeters;
    expect(cell).toBeGreaterThanOrEqual(50);
    const pts = g.geomCoords; // [lat, lon] pairs
    const failures: string[] = [];
    const stats: Record<string, number> = {};

    for (let k = 0; k < limits.length; k++) {
      const limit = limits[k] * scale;
      const polys = iso.shapes[k];
      expect(polys.length).toBeGreaterThan(0);
      // Rings closed; outer counterclockwise, holes clockwise.
      for (const poly of polys)
        poly.forEach((ring, r) => {
          expect(ring.length).toBeGreaterThanOrEqual(5);
          expect(ring[ring.length - 1]).toEqual(ring[0]);
          if (r === 0) expect(shoelace(ring)).toBeGreaterThan(0);
          else expect(shoelace(ring)).toBeLessThan(0);
        });
      const geo = geoOf(polys);
      const inside = (lon: number, lat: number) => booleanPointInPolygon([lon, lat], geo);

      // Every node within the limit.
      let nodesIn = 0;
      for (let v = 0; v < g.nodeCount; v++) {
        if (ref[v] > limit) continue;
        nodesIn++;
        if (!inside(g.nodeCoords[2 * v + 1], g.nodeCoords[2 * v]))
          failures.push(`limit ${limits[k]}: node ${v} at ${nodeAt(g, v).lat},${nodeAt(g, v).lon} (${ref[v] / scale}) outside`);
      }
      stats[`nodes≤${limits[k]}`] = nodesIn;
      expect(nodesIn).toBeGreaterThan(20);

      // Every point (and segment midpoint) of a geometry wholly within the limit.
      const whole = new Set<number>();
      for (let v = 0; v < g.nodeCount; v++) {
        if (ref[v] > limit) continue;
        for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) if (ref[v] + cost(e) <= limit && !closed.has(g.orig[e] >> 1)) whole.add(g.orig[e] >> 1);
      }
      let wholePoints = 0;
      for (const geom of whole)
        for (let p = g.geomFirst[geom]; p <= g.geomLast[geom]; p++) {
          const checks: Array<[number, number]> = [[pts[2 * p + 1], pts[2 * p]]];
          if (p < g.geomLast[geom]) checks.push([(pts[2 * p + 1] + pts[2 * p + 3]) / 2, (pts[2 * p] + pts[2 * p + 2]) / 2]);
          for (const [lon, lat] of checks) {
            wholePoints++;
            if (!inside(lon, lat)) failures.push(`limit ${limits[k]}: point ${lat},${lon} of geometry ${geom} (wholly within) outside`);
          }
        }
      stats[`wholePoints≤${limits[k]}`] = wholePoints;

      // The part of a geometry leaving a node within the limit that the rest of the budget covers (its
      // points up to 1 % of the geometry's length short of where the budget runs out).
      let partPoints = 0;
      const meters = (p: number) => pointSegmentMeters(pts[2 * p], pts[2 * p + 1], [pts[2 * p + 3], pts[2 * p + 2]], [pts[2 * p + 3], pts[2 * p + 2]]);
      for (let v = 0; v < g.nodeCount; v++) {
        if (ref[v] > limit) continue;
        for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
          if (ref[v] + cost(e) <= limit || closed.has(g.orig[e] >> 1)) continue;
          const d = g.orig[e],
            geom = d >> 1;
          const first = g.geomFirst[geom],
            last = g.geomLast[geom];
          let total = 0;
          for (let p = first; p < last; p++) total += meters(p);
          const reach = ((limit - ref[v]) / cost(e) - 0.01) * total;
          let walked = 0;
          for (let i = 0; i <= last - first && walked <= reach; i++) {
            const p = d & 1 ? last - i : first + i;
            partPoints++;
            if (!inside(pts[2 * p + 1], pts[2 * p]))
              failures.push(
                `limit ${limits[k]}: point ${pts[2 * p]},${pts[2 * p + 1]} of geometry ${geom} (${walked.toFixed(0)} of ${reach.toFixed(0)} m reached from node ${v}) outside`,
              );
            walked += d & 1 ? (p > first ? meters(p - 1) : 0) : meters(p);
          }
        }
      }
      stats[`partPoints≤${limits[k]}`] = partPoints;

      // Random points far from every reachable road point are outside.
      const D = 2 * cell * Math.SQRT2 + 300;
      const index = new SegmentIndex(D, 47.1);
      for (let v = 0; v < g.nodeCount; v++)
        for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
          if (ref[v] > limit && ref[g.head[e]] > limit) continue;
          const geom = g.orig[e] >> 1;
          for (let p = g.geomFirst[geom]; p < g.geomLast[geom]; p++) index.add(pts[2 * p + 1], pts[2 * p], pts[2 * p + 3], pts[2 * p + 2]);
          if (g.geomFirst[geom] === g.geomLast[geom])
            index.add(pts[2 * g.geomFirst[geom] + 1], pts[2 * g.geomFirst[geom]], pts[2 * g.geomFirst[geom] + 1], pts[2 * g.geomFirst[geom]]);
        }
      for (let v = 0; v < g.nodeCount; v++)
        if (ref[v] <= limit) index.add(g.nodeCoords[2 * v + 1], g.nodeCoords[2 * v], g.nodeCoords[2 * v + 1], g.nodeCoords[2 * v]);
      let w = Infinity,
        so = Infinity,
        ea = -Infinity,
        no = -Infinity;
      for (const poly of polys)
        for (const [lon, lat] of poly[0]) {
          w = Math.min(w, lon);
          ea = Math.max(ea, lon);
          so = Math.min(so, lat);
          no = Math.max(no, lat);
        }
      const rand = rng(11 + k);
      let far = 0;
      for (let i = 0; i < 3000; i++) {
        const lon = w - 0.01 + rand() * (ea - w + 0.02),
          lat = so - 0.01 + rand() * (no - so + 0.02);
        if (index.near(lon, lat)) continue;
        far++;
        if (inside(lon, lat)) failures.push(`limit ${limits[k]}: point ${lat},${lon} farther than ${D.toFixed(0)} m from every reachable road inside`);
      }
      stats[`far≤${limits[k]}`] = far;
      expect(far).toBeGreaterThan(50);
    }

    // Nesting: around every vertex of a smaller band, the cells inside it are inside the larger band.
    for (let k = 0; k + 1 < limits.length; k++) {
      const small = geoOf(iso.shapes[k]),
        large = geoOf(iso.shapes[k + 1]);
      let sampled = 0;
      for (const poly of iso.shapes[k])
        for (const ring of poly)
          for (const [lon, lat] of ring) {
            const dLat = (cell / 111_320) * 0.25,
              dLon = (cell / (111_320 * Math.cos((lat * Math.PI) / 180))) * 0.25;
            for (const [x, y] of [
              [lon - dLon, lat - dLat],
              [lon + dLon, lat - dLat],
              [lon - dLon, lat + dLat],
              [lon + dLon, lat + dLat],
            ]) {
              if (!booleanPointInPolygon([x, y], small)) continue;
              sampled++;
              if (!booleanPointInPolygon([x, y], large)) failures.push(`band ${limits[k]} cell at ${y},${x} not inside band ${limits[k + 1]}`);
            }
          }
      expect(sampled).toBeGreaterThan(10);
    }
    expect(failures.slice(0, 20), `${failures.length} failures; ${JSON.stringify(stats)}`).toEqual([]);
  });
});

// ---- 4. nearest -------------------------------------------------------------------------------------

describe('nearest roads', () => {
  /** Degrees clockwise from north of the segment a → b ([lon, lat]), in [0, 360). */
  const bearing = (a: number[], b: number[]): number => {
    const r = Math.PI / 180;
    const y = Math.sin((b[0] - a[0]) * r) * Math.cos(b[1] * r);
    const x = Math.cos(a[1] * r) * Math.sin(b[1] * r) - Math.sin(a[1] * r) * Math.cos(b[1] * r) * Math.cos((b[0] - a[0]) * r);
    return (((Math.atan2(y, x) / r) % 360) + 360) % 360;
  };
  /** Per geometry of the profile (open to its default vehicle), its segments in buckets of 500 m. */
  const indexes = new Map<string, Map<string, number[]>>();
  const SIZE = 500;
  const cellOf = (lon: number, lat: number) => [Math.floor((lon * 111_320 * Math.cos((47.1 * Math.PI) / 180)) / SIZE), Math.floor((lat * 111_320) / SIZE)];
  const segmentsOf = (profile: ProfileName) => {
    let index = indexes.get(profile);
    if (index) return index;
    index = new Map();
    const g = graphs[profile];
    const closed = closedTo(g as unknown as Parameters<typeof closedTo>[0], profile);
    const c = g.geomCoords;
    for (let geom = 0; geom < g.geomCount; geom++) {
      if (closed.has(geom)) continue;
      for (let p = g.geomFirst[geom]; p < g.geomLast[geom]; p++) {
        const [x0, y0] = cellOf(c[2 * p + 1], c[2 * p]),
          [x1, y1] = cellOf(c[2 * p + 3], c[2 * p + 2]);
        for (let x = Math.min(x0, x1); x <= Math.max(x0, x1); x++)
          for (let y = Math.min(y0, y1); y <= Math.max(y0, y1); y++) {
            const k = `${x},${y}`;
            let b = index.get(k);
            if (!b) index.set(k, (b = []));
            b.push(geom, p);
          }
      }
    }
    indexes.set(profile, index);
    return index;
  };
  /** Every segment of the profile within 500 m of the point: its geometry, start point and meters. */
  const segmentsNear = (profile: ProfileName, point: LatLon) => {
    const g = graphs[profile],
      c = g.geomCoords;
    const [x0, y0] = cellOf(point.lon, point.lat);
    const out = new Map<string, { geom: number; p: number; meters: number }>();
    for (let x = x0 - 1; x <= x0 + 1; x++)
      for (let y = y0 - 1; y <= y0 + 1; y++) {
        const b = segmentsOf(profile).get(`${x},${y}`) ?? [];
        for (let i = 0; i < b.length; i += 2) {
          const geom = b[i],
            p = b[i + 1];
          const meters = pointSegmentMeters(point.lat, point.lon, [c[2 * p + 1], c[2 * p]], [c[2 * p + 3], c[2 * p + 2]]);
          if (meters <= SIZE) out.set(`${geom},${p}`, { geom, p, meters });
        }
      }
    return [...out.values()];
  };

  it.each(['driving-car', 'foot-walking', 'driving-hgv'] as ProfileName[])(
    '%s: the nearest geometries by a brute-force search, nearest first, one point each; the first is the snapped point',
    async (profile) => {
      const g = graphs[profile],
        c = g.geomCoords;
      const nodes = plainNodes(g);
      const rand = rng(61);
      let same = 0,
        offMain = 0;
      for (let i = 0; i < 60; i++) {
        const point = near(g, pick(nodes, rand), rand, 250);
        const found = await nearest({ profile, point, count: 5 });
        const m = await matrix({ profile, points: [point] });
        // The reference: per geometry its nearest segment, nearest first.
        const segs = segmentsNear(profile, point);
        const byGeom = new Map<number, number>();
        for (const s of segs) byGeom.set(s.geom, Math.min(byGeom.get(s.geom) ?? Infinity, s.meters));
        const ranked = [...byGeom.entries()].sort((a, b) => a[1] - b[1]);
        expect(found.length).toBe(Math.min(5, ranked.length));
        const taken = new Set<number>();
        for (let k = 0; k < found.length; k++) {
          const r = found[k];
          const where = `${profile} point ${JSON.stringify(point)} result ${k}`;
          if (k > 0) expect(r.distance, where).toBeGreaterThanOrEqual(found[k - 1].distance);
          expect(r.distance, where).toBeCloseTo(ranked[k][1], 1);
          expect(r.bearing, where).toBeGreaterThanOrEqual(0);
          expect(r.bearing, where).toBeLessThan(360);
          // It lies on a segment of a geometry not taken by a nearer result, `distance` away, in that segment's direction.
          const on = segs.filter(
            (s) => !taken.has(s.geom) && pointSegmentMeters(r.lat, r.lon, [c[2 * s.p + 1], c[2 * s.p]], [c[2 * s.p + 3], c[2 * s.p + 2]]) < 0.05,
          );
          expect(on.length, where).toBeGreaterThan(0);
          const match = on.find((s) => {
            const b = bearing([c[2 * s.p + 1], c[2 * s.p]], [c[2 * s.p + 3], c[2 * s.p + 2]]);
            return Math.min(Math.abs(b - r.bearing), 360 - Math.abs(b - r.bearing)) < 0.5 && Math.abs(s.meters - r.distance) < 0.5;
          });
          expect(match, `${where}: no segment under it in its direction ${r.bearing}`).toBeDefined();
          taken.add(match!.geom);
          if ('name' in r) expect(r.name === null || typeof r.name === 'string').toBe(true);
        }
        const s = m.snapped[0];
        if (Math.abs(s.lat - found[0].lat) < 1e-9 && Math.abs(s.lon - found[0].lon) < 1e-9) {
          same++;
          expect(found[0].distance).toBeCloseTo(m.offsets[0], 6);
        } else {
          // The matrix snaps to the main network: the nearest road then is off it, and nearer.
          offMain++;
          expect(onMainNetwork(g as unknown as Parameters<typeof onMainNetwork>[0], ranked[0][0])).toBe(false);
          expect(found[0].distance).toBeLessThanOrEqual(m.offsets[0]);
        }
      }
      expect(same).toBeGreaterThan(50);
      expect(same + offMain).toBe(60);
    },
  );

  it('an empty list far from any road', async () => {
    for (const point of [
      { lat: 0, lon: 0 },
      { lat: 47.15, lon: 10.6 },
    ])
      for (const profile of PROFILES) expect(await nearest({ profile, point, count: 3 })).toEqual([]);
  });
});

// ---- isochrone-shape.ts on its own ------------------------------------------------------------------

describe('CellGrid and tracePolygons', () => {
  const grid = (cols: number, rows: number, marked: Array<[number, number]>) => {
    const g = new CellGrid(0, 0, 1, 1, cols, rows);
    for (const [x, y] of marked) g.cells[y * cols + x] = 1;
    return g;
  };
  const area = (polys: PolygonRings[]) => polys.reduce((a, p) => a + p.reduce((b, r) => b + shoelace(r), 0), 0);

  it('a single cell: one square ring of 5 points, counterclockwise', () => {
    const polys = tracePolygons(grid(5, 5, [[2, 3]]));
    expect(polys).toEqual([
      [
        [
          [2, 3],
          [3, 3],
          [3, 4],
          [2, 4],
          [2, 3],
        ],
      ],
    ]);
    expect(shoelace(polys[0][0])).toBe(1);
  });

  it('a ring of cells: one polygon with one clockwise hole (filled below minHoleCells)', () => {
    const ringCells: Array<[number, number]> = [];
    for (let x = 1; x <= 3; x++) for (let y = 1; y <= 3; y++) if (x !== 2 || y !== 2) ringCells.push([x, y]);
    const polys = tracePolygons(grid(5, 5, ringCells));
    expect(polys.length).toBe(1);
    expect(polys[0].length).toBe(2);
    expect(shoelace(polys[0][0])).toBe(9);
    expect(shoelace(polys[0][1])).toBe(-1);
    expect(new Set(polys[0][1].slice(0, 4).map(String))).toEqual(new Set(['2,2', '3,2', '3,3', '2,3']));
    const filled = tracePolygons(grid(5, 5, ringCells), 2);
    expect(filled.length).toBe(1);
    expect(filled[0].length).toBe(1);
    expect(shoelace(filled[0][0])).toBe(9);
  });

  it('two far-apart clusters: two polygons, the larger first', () => {
    const polys = tracePolygons(
      grid(20, 10, [
        [1, 1],
        [2, 1],
        [15, 7],
        [16, 7],
        [15, 8],
      ]),
    );
    expect(polys.length).toBe(2);
    expect(polys.map((p) => p.length)).toEqual([1, 1]);
    expect(shoelace(polys[0][0])).toBe(3);
    expect(shoelace(polys[1][0])).toBe(2);
  });

  it('cells meeting only at a corner are joined into one simple ring', () => {
    for (const cells of [
      [
        [2, 2],
        [3, 3],
      ],
      [
        [3, 2],
        [2, 3],
      ],
    ] as Array<Array<[number, number]>>) {
      const polys = tracePolygons(grid(6, 6, cells));
      expect(polys.length).toBe(1);
      expect(polys[0].length).toBe(1);
      const ring = polys[0][0];
      // No vertex visited twice (no pinch), 3 cells.
      expect(new Set(ring.slice(0, -1).map(String)).size).toBe(ring.length - 1);
      expect(shoelace(ring)).toBe(3);
    }
  });

  it('random cell sets: every marked cell centre inside, every other outside; outer rings ccw, holes cw', () => {
    const rand = rng(3);
    for (let t = 0; t < 40; t++) {
      const cols = 14,
        rows = 12;
      const g = new CellGrid(9.5, 47.1, 0.002, 0.001, cols, rows);
      for (let y = 1; y < rows - 1; y++) for (let x = 1; x < cols - 1; x++) if (rand() < 0.45) g.cells[y * cols + x] = 1;
      const polys = tracePolygons(g);
      // closeCorners marks more cells in g itself: the shape is g's cells after tracing.
      const geo = geoOf(polys);
      let marked = 0;
      for (let y = 0; y < rows; y++)
        for (let x = 0; x < cols; x++) {
          const c = [9.5 + (x + 0.5) * 0.002, 47.1 + (y + 0.5) * 0.001];
          marked += g.cells[y * cols + x];
          expect(booleanPointInPolygon(c, geo), `trial ${t} cell ${x},${y}`).toBe(g.cells[y * cols + x] === 1);
        }
      expect(area(polys)).toBeCloseTo(marked * 0.002 * 0.001, 9);
      for (const p of polys)
        p.forEach((ring, r) => {
          expect(ring[0]).toEqual(ring[ring.length - 1]);
          expect(Math.sign(shoelace(ring))).toBe(r === 0 ? 1 : -1);
        });
      // No two cells of the result meet only at a corner.
      for (let y = 0; y + 1 < rows; y++)
        for (let x = 0; x + 1 < cols; x++) {
          const i = y * cols + x;
          const [a, b, c, d] = [g.cells[i], g.cells[i + 1], g.cells[i + cols], g.cells[i + cols + 1]];
          expect(a === d && b === c && a !== b).toBe(false);
        }
    }
  });

  it('a segment crossing many cells marks every cell it passes through (supercover) and few others', () => {
    const rand = rng(17);
    const check = (x0: number, y0: number, x1: number, y1: number) => {
      const g = new CellGrid(0, 0, 1, 1, 40, 30);
      g.segment(x0, y0, x1, y1);
      expect(g.outside).toBe(false);
      const must = new Set<number>();
      const n = 20_000;
      for (let i = 0; i <= n; i++) {
        const x = x0 + ((x1 - x0) * i) / n,
          y = y0 + ((y1 - y0) * i) / n;
        // Points within a hair of a cell edge belong to either side.
        if (Math.abs(x - Math.round(x)) < 1e-6 || Math.abs(y - Math.round(y)) < 1e-6) continue;
        must.add(Math.floor(y) * 40 + Math.floor(x));
      }
      for (const c of must) expect(g.cells[c], `segment ${x0},${y0} → ${x1},${y1}: cell ${c % 40},${Math.floor(c / 40)}`).toBe(1);
      expect(g.count()).toBeLessThanOrEqual(Math.abs(Math.floor(x1) - Math.floor(x0)) + Math.abs(Math.floor(y1) - Math.floor(y0)) + 1);
      return g.count();
    };
    expect(check(1.5, 1.2, 37.3, 27.8)).toBe(36 + 26 + 1);
    expect(check(38.9, 2.1, 1.1, 3.9)).toBe(39);
    expect(check(5.5, 28.5, 5.5, 1.5)).toBe(28);
    for (let t = 0; t < 200; t++) check(1 + rand() * 38, 1 + rand() * 28, 1 + rand() * 38, 1 + rand() * 28);
    // Points on the margin (or beyond) are refused and flagged.
    const g = new CellGrid(0, 0, 1, 1, 10, 10);
    g.segment(0.5, 5.5, 5.5, 5.5);
    expect(g.outside).toBe(true);
    const h = new CellGrid(0, 0, 1, 1, 10, 10);
    h.line([1.5, 1.5, 3.5, 1.5, 3.5, 4.5]);
    expect(h.outside).toBe(false);
    expect(h.count()).toBe(3 + 3);
  });

  it('every point drawn lies inside the traced polygon, also within 1e-6° of a cell edge', () => {
    // A grid whose lines are not on the 1e-6° lattice the vertices are rounded to; each point a hair
    // (1e-8°) inside the south-west corner of its cell, as the reach's southernmost and westernmost nodes
    // are (reachedBox pads them by 500 m = 10 cells of 50 m, so they lie on grid lines).
    const bad: string[] = [];
    for (const [west, south] of [
      [9.4000006, 47.0000006],
      [9.4000004, 47.0000004],
      [9.40000051, 47.00000049],
    ]) {
      const g = new CellGrid(west, south, 0.00066, 0.00045, 8, 8);
      const lon = west + 3 * 0.00066 + 1e-8,
        lat = south + 3 * 0.00045 + 1e-8;
      g.point(lon, lat);
      expect(g.cells[3 * 8 + 3]).toBe(1);
      if (!booleanPointInPolygon([lon, lat], geoOf(tracePolygons(g))))
        bad.push(`grid from ${west}, ${south}: point ${lon}, ${lat} outside ${JSON.stringify(tracePolygons(g))}`);
    }
    expect(bad).toEqual([]);
  });

  it('CellGrid.over: cells of about cellMeters with a margin, the box inside', () => {
    const g = CellGrid.over([9.47, 47.05, 9.62, 47.27], 100);
    // Cells are whole micro-degrees: at most one micro-degree (0.11 m) over the size asked, on the sphere
    // every distance of the service is measured on.
    expect(Math.abs(g.cellLat * METERS_PER_DEGREE - 100)).toBeLessThan(0.12);
    expect(Math.abs(g.cellLon * METERS_PER_DEGREE * Math.cos((47.16 * Math.PI) / 180) - 100)).toBeLessThan(0.12);
    g.point(9.47, 47.05);
    g.point(9.62, 47.27);
    g.segment(9.47, 47.27, 9.62, 47.05);
    expect(g.outside).toBe(false);
    const polys = tracePolygons(g);
    expect(polys.length).toBeGreaterThanOrEqual(1);
    for (const [lon, lat] of [
      [9.47, 47.05],
      [9.62, 47.27],
      [9.545, 47.16],
    ])
      expect(booleanPointInPolygon([lon, lat], geoOf(polys))).toBe(true);
  });
});
