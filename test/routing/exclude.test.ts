// Exclusions (issue 36): the map keeps each geometry's classes (toll, motorway, ferry, unpaved) from its
// way's tags, and a route, matrix or plan asked to exclude some never takes a geometry of them. Checked on
// a synthetic map (each class a shortcut beside a slower open road, with and without the hierarchy) and on
// Liechtenstein against a reference Dijkstra over the graph without those geometries, with real kernels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../src/compute/pool.js';
import { loadMap, matrix, NoRouteError, route, type ProfileName, type RouteResult } from '../../src/engine/engine.js';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { RouteCore, closedTo } from '../../src/engine/route-core.js';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import { addHierarchy } from '../../src/map/graphs/contraction.js';
import { EXCLUDABLE, EXCLUDE_BIT, EXCLUDE_CLASSES, type ExcludeClass } from '../../src/map/graphs/profiles.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';
import type { LatLon } from '../../src/lib/lat-lon.js';
import { dijkstra, plainNodes, rng, testMap, type TestGraph, nodeAt } from './helpers.js';

// These check the node-based searches (hierarchy, matrix, avoidance) against a node-based reference, so
// routes here price no turns (turn-prices.test.ts checks the priced routes): the pool's threads take the
// setting from the environment's configuration when the pool starts.
process.env.WAYMARK_TURN_PRICES = 'off';

// ---- synthetic: west (1) to east (3), a 2 km straight way with the tags under test, and a 2.8 km detour
// north over 4 and 5 (a plain primary road).
const LAT = 47.0;
const K = 111_320 * Math.cos((LAT * Math.PI) / 180);
const xy = (x: number, y: number): [number, number] => [LAT + y / 111_320, 9.0 + x / K];
const points = [xy(0, 0), xy(1000, 0), xy(2000, 0), xy(0, 400), xy(2000, 400), xy(-500, 0), xy(2500, 0)];
const ids = Float64Array.from(points.map((_, i) => i + 1));
const coords = Float64Array.from(points.flat());
const WEST = { lat: points[5][0], lon: points[5][1] },
  EAST = { lat: points[6][0], lon: points[6][1] };
/** On the straight way, 10 m north of its middle: it snaps there unless the way is excluded. */
const MIDDLE = { lat: points[1][0] + 10 / 111_320, lon: points[1][1] };

function core(profile: ProfileName, straightTags: Record<string, string>, contracted: boolean, detour = true): RouteCore {
  const ways: OsmWay[] = [
    { id: 10, refs: [6, 1], tags: { highway: 'primary' } },
    { id: 11, refs: [1, 2, 3], tags: straightTags },
    { id: 13, refs: [3, 7], tags: { highway: 'primary' } },
  ];
  if (detour) ways.push({ id: 12, refs: [1, 4, 5, 3], tags: { highway: 'primary' } });
  const osm = new OsmData(ids, coords, [], ways, []);
  const pool = buildShapePool(osm);
  let graph = assembleGraph(buildGraphInput(osm, profile, pool), pendingShapes(pool));
  graph.shapes = shapesOf(pool);
  if (contracted) graph = addHierarchy(graph, {});
  return new RouteCore(placeGraphs({ [profile]: graph }), { turnPrices: false });
}

const meters = (c: RouteCore, profile: ProfileName, exclude: number, waypoints: LatLon[] = [WEST, EAST]): number | string => {
  const r = c.route({ profile, waypoints, exclude });
  return r.ok ? Math.round(r.value.distance) : r.error.kind === 'no-route' ? r.error.reason : r.error.kind;
};

const CASES: Array<{ cls: ExcludeClass; profile: ProfileName; tags: Record<string, string> }> = [
  { cls: 'toll', profile: 'driving-car', tags: { highway: 'primary', toll: 'yes' } },
  { cls: 'toll', profile: 'driving-hgv', tags: { highway: 'primary', 'toll:hgv': 'yes' } },
  { cls: 'motorway', profile: 'driving-car', tags: { highway: 'motorway', oneway: 'no' } },
  { cls: 'ferry', profile: 'driving-car', tags: { route: 'ferry', motor_vehicle: 'yes', duration: '00:01' } },
  { cls: 'ferry', profile: 'foot-walking', tags: { route: 'ferry', duration: '00:01' } },
  { cls: 'unpaved', profile: 'cycling-regular', tags: { highway: 'primary', surface: 'gravel' } },
  { cls: 'unpaved', profile: 'foot-walking', tags: { highway: 'track' } },
];

describe('exclusions on a synthetic map', () => {
  for (const contracted of [false, true]) {
    for (const { cls, profile, tags } of CASES) {
      it(`${profile} excluding ${cls} leaves ${JSON.stringify(tags)} for the detour (${contracted ? 'hierarchy' : 'plain graph'})`, () => {
        const c = core(profile, tags, contracted);
        const straight = meters(c, profile, 0);
        expect(straight).toBeCloseTo(3000, -1);
        expect(meters(c, profile, EXCLUDE_BIT[cls])).toBeCloseTo(3800, -1);
        // Another class excluded changes nothing.
        const other = EXCLUDABLE[profile].find((x) => x !== cls)!;
        expect(meters(c, profile, EXCLUDE_BIT[other])).toBe(straight);
        // A waypoint beside the excluded way snaps to the open road instead (its north side, 390 m away).
        const r = c.route({ profile, waypoints: [WEST, MIDDLE], exclude: EXCLUDE_BIT[cls] });
        expect(r.ok).toBe(true);
        if (r.ok) expect(Math.abs(r.value.snapped[1].lat - points[3][0])).toBeLessThan(1e-6);
        // Without the detour only the excluded way joins the two ends: no route, for that reason.
        expect(meters(core(profile, tags, contracted, false), profile, EXCLUDE_BIT[cls])).toBe('excluded');
        // The matrix keeps off it too.
        const m = c.matrix({ profile, points: [WEST, EAST], exclude: EXCLUDE_BIT[cls] });
        expect(m.ok && Math.round(m.value.distances[0][1]!)).toBeCloseTo(3800, -1);
      });
    }
  }

  it('tags that are no class leave the way alone: toll=no, a paved track, toll:motorcar=no under toll=yes', () => {
    const cases: Array<[ProfileName, Record<string, string>]> = [
      ['driving-car', { highway: 'primary', toll: 'no' }],
      ['foot-walking', { highway: 'track', tracktype: 'grade1' }],
      ['driving-car', { highway: 'primary', surface: 'asphalt' }],
      ['driving-car', { highway: 'primary', toll: 'yes', 'toll:motorcar': 'no' }],
      ['driving-hgv', { highway: 'primary', 'toll:motorcar': 'yes' }],
    ];
    for (const [profile, tags] of cases) {
      const bits = EXCLUDABLE[profile].reduce((b, c) => b | (c === 'ferry' || c === 'motorway' ? 0 : EXCLUDE_BIT[c]), 0);
      expect(meters(core(profile, tags, true), profile, bits)).toBeCloseTo(3000, -1);
    }
  });
});

// ---- Liechtenstein: against a reference Dijkstra without the excluded geometries --------------------------

let graphs: Record<string, TestGraph>;
beforeAll(async () => {
  const map = await testMap();
  graphs = map.graphs;
  await loadMap(map.dir);
});
afterAll(closePool);

/** The geometries of the classes in `bits`, read from the map's class bytes. */
const ofClasses = (g: TestGraph, bits: number): Set<number> => {
  const out = new Set<number>();
  for (let geom = 0; geom < g.geomCount; geom++) if (g.geomClass[geom] & bits) out.add(geom);
  return out;
};

/** Segments (1e-7° point pairs) of the blocked geometries that no open geometry shares. */
function blockedSegments(g: TestGraph, blocked: ReadonlySet<number>): Set<string> {
  const p = g.shapes.pointsE7;
  const key = (a: number, b: number) => {
    const s = `${p[2 * a]},${p[2 * a + 1]}`,
      t = `${p[2 * b]},${p[2 * b + 1]}`;
    return s < t ? `${s} ${t}` : `${t} ${s}`;
  };
  const open = new Set<string>(),
    out = new Set<string>();
  for (let geom = 0; geom < g.geomCount; geom++) {
    for (let q = g.geomFirst[geom]; q < g.geomLast[geom]; q++) (blocked.has(geom) ? out : open).add(key(q, q + 1));
  }
  for (const k of open) out.delete(k);
  return out;
}

const lineSegments = (r: RouteResult): string[] => {
  const out: string[] = [];
  const e7 = (x: number) => Math.round(x * 1e7);
  for (let i = 0; i + 3 < r.geometry.length; i += 2) {
    const s = `${e7(r.geometry[i + 1])},${e7(r.geometry[i])}`,
      t = `${e7(r.geometry[i + 3])},${e7(r.geometry[i + 2])}`;
    out.push(s < t ? `${s} ${t}` : `${t} ${s}`);
  }
  return out;
};

describe('exclusions on Liechtenstein', () => {
  const combos: Array<[ProfileName, ExcludeClass[]]> = [
    ['driving-car', ['unpaved']],
    ['driving-hgv', ['unpaved']],
    ['cycling-regular', ['unpaved']],
    ['foot-walking', ['unpaved', 'ferry']],
  ];

  it('the map holds each class where OSM has it (counts per profile)', () => {
    const counts = Object.fromEntries(
      Object.entries(graphs).map(([profile, g]) => [profile, Object.fromEntries(EXCLUDE_CLASSES.map((c) => [c, ofClasses(g, EXCLUDE_BIT[c]).size]))]),
    );
    console.log('geometries per class', JSON.stringify(counts));
    // Farm and forest tracks everywhere (most closed to cars); the extract ends at the border, before the
    // Swiss A13 and the Austrian A14, and the country has no toll road nor ferry: those classes are the
    // synthetic map's above.
    expect(counts['driving-car'].unpaved).toBeGreaterThan(50);
    expect(counts['foot-walking'].unpaved).toBeGreaterThan(1000);
    for (const profile of Object.keys(counts)) expect(counts[profile].motorway + counts[profile].toll + counts[profile].ferry).toBe(0);
  });

  it.each(combos)('%s excluding %j: 200 pairs have the reference Dijkstra duration and never touch an excluded way', async (profile, classes) => {
    const g = graphs[profile];
    const bits = classes.reduce((b, c) => b | EXCLUDE_BIT[c], 0);
    const blocked = ofClasses(g, bits);
    // The reference keeps the default lorry off the ways below its size too, as its routes do.
    for (const geom of closedTo(g as unknown as Parameters<typeof closedTo>[0], profile)) blocked.add(geom);
    const forbidden = blockedSegments(g, ofClasses(g, bits));
    const nodes = plainNodes(g, blocked);
    const rand = rng(36);
    let compared = 0,
      detoured = 0,
      none = 0;
    for (let i = 0; i < 20; i++) {
      const s = nodes[Math.floor(rand() * nodes.length)];
      const ref = dijkstra(g, s, { blocked });
      const free = dijkstra(g, s);
      const targets = Array.from({ length: 10 }, () => nodes[Math.floor(rand() * nodes.length)]);
      const results = await Promise.all(
        targets.map((t) =>
          route({ profile, waypoints: [nodeAt(g, s), nodeAt(g, t)], exclude: bits }).catch((err: unknown) => {
            if (err instanceof NoRouteError) return err;
            throw err;
          }),
        ),
      );
      results.forEach((r, k) => {
        const expected = ref[targets[k]];
        if (r instanceof NoRouteError) {
          expect(expected).toBe(Infinity);
          expect(r.reason).toBe(free[targets[k]] < Infinity ? 'excluded' : 'unreachable');
          none++;
          return;
        }
        expect(r.duration).toBeCloseTo(expected / 10, 6);
        expect(lineSegments(r).filter((seg) => forbidden.has(seg))).toEqual([]);
        if (expected > free[targets[k]]) detoured++;
        compared++;
      });
    }
    console.log(`${profile} excluding ${classes.join('+')}: ${compared} compared, ${detoured} longer than without, ${none} without a route`);
    expect(compared).toBeGreaterThan(150);
    if (classes.includes('unpaved') && profile !== 'driving-hgv') expect(detoured).toBeGreaterThan(0);
  });

  it('matrix cells equal the single routes with the same exclusions', async () => {
    const g = graphs['foot-walking'];
    const bits = EXCLUDE_BIT.unpaved;
    const nodes = plainNodes(g, ofClasses(g, bits));
    const rand = rng(7);
    const pts = Array.from({ length: 6 }, () => nodeAt(g, nodes[Math.floor(rand() * nodes.length)]));
    const m = await matrix({ profile: 'foot-walking', points: pts, exclude: bits });
    for (let i = 0; i < pts.length; i++) {
      for (let j = 0; j < pts.length; j++) {
        if (i === j) continue;
        const r = await route({ profile: 'foot-walking', waypoints: [pts[i], pts[j]], exclude: bits });
        expect(m.durations[i][j]).toBeCloseTo(r.duration, 6);
      }
    }
  });
});
