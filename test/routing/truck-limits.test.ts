// Lorry sizes set per request: the HGV graph keeps the physical limits of its ways per geometry (also of
// the ways below the default lorry's size, which its hierarchy weighs down), and a route keeps off the
// ways whose limits its lorry exceeds: a bigger lorry more of them, a smaller one fewer.
import { describe, expect, it } from 'vitest';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import { OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';
import { addHierarchy } from '../../src/map/graphs/contraction.js';
import { defaultVehicle, exceeds, geometriesClosedTo, SMALLEST_LORRY, wayLimits } from '../../src/map/graphs/profiles.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { closedTo, RouteCore, type VehicleQuery } from '../../src/engine/route-core.js';

// Two ways from west (node 1) to east (node 3): a straight 2 km road through node 2 with the tags under
// test, and a detour 400 m north over nodes 4 and 5 (2.8 km) without limits.
const LAT = 47.0;
const K = 111_320 * Math.cos((LAT * Math.PI) / 180);
const at = (x: number, y: number): [number, number] => [LAT + y / 111_320, 9.0 + x / K];
const points = [at(0, 0), at(1000, 0), at(2000, 0), at(0, 400), at(2000, 400), at(-500, 0), at(2500, 0)];
const ids = Float64Array.from(points.map((_, i) => i + 1));
const coords = Float64Array.from(points.flat());
const WEST = { lat: points[5][0], lon: points[5][1] },
  EAST = { lat: points[6][0], lon: points[6][1] };

/** The lorry graph over the straight road with `straightTags` (and the detour), with its hierarchy when `contracted`. */
function lorryCore(straightTags: Record<string, string>, detour = true, contracted = false, nodeTags: Record<number, Record<string, string>> = {}): RouteCore {
  const ways: OsmWay[] = [
    { id: 10, refs: [6, 1], tags: { highway: 'primary' } },
    { id: 11, refs: [1, 2, 3], tags: { highway: 'primary', ...straightTags } },
    { id: 13, refs: [3, 7], tags: { highway: 'primary' } },
  ];
  if (detour) ways.push({ id: 12, refs: [1, 4, 5, 3], tags: { highway: 'primary' } });
  const tagged = Object.entries(nodeTags).map(([id, tags]) => ({ id: Number(id), lat: points[Number(id) - 1][0], lon: points[Number(id) - 1][1], tags }));
  const osm = new OsmData(ids, coords, tagged, ways, []);
  const pool = buildShapePool(osm);
  let graph = assembleGraph(buildGraphInput(osm, 'driving-hgv', pool), pendingShapes(pool));
  graph.shapes = shapesOf(pool);
  if (contracted) graph = addHierarchy(graph, { closed: geometriesClosedTo(graph, defaultVehicle('driving-hgv')!) });
  return new RouteCore(placeGraphs({ 'driving-hgv': graph }));
}

/** Meters of the route west to east, or the failure's reason. */
function meters(core: RouteCore, vehicle?: VehicleQuery): number | string {
  const r = core.route({ profile: 'driving-hgv', waypoints: [WEST, EAST], vehicle });
  return r.ok ? Math.round(r.value.distance) : r.error.kind === 'no-route' ? r.error.reason : r.error.kind;
}

describe('lorry size per request', () => {
  it('reads limits with their units and says which a lorry exceeds (a width at or below the lorry’s too)', () => {
    const l = wayLimits({ maxheight: '4.2', maxweight: '44 t', width: '3', maxlength: '18' })!;
    expect(l).toEqual({ heightM: 4.2, widthM: 3, lengthM: 18, weightT: 44 });
    expect(wayLimits({ highway: 'primary', maxspeed: '50' })).toBeNull();
    const lorry = defaultVehicle('driving-hgv')!;
    expect(exceeds(lorry, l)).toBe(false);
    expect(exceeds({ ...lorry, heightM: 4.3 }, l)).toBe(true);
    expect(exceeds({ ...lorry, widthM: 3 }, l)).toBe(true);
    expect(exceeds({ ...lorry, lengthM: 18 }, l)).toBe(false);
    expect(exceeds({ ...lorry, weightT: 44.5 }, l)).toBe(true);
  });

  it('the default lorry takes a way whose limits are above its size; a taller, heavier, wider or longer one goes around', () => {
    const core = lorryCore({ maxheight: '4.2', maxweight: '44', maxwidth: '2.8', maxlength: '20' });
    const straight = meters(core),
      around = meters(lorryCore({ access: 'no' }));
    expect(straight).toBeCloseTo(3000, -1);
    expect(around as number).toBeGreaterThan(3700);
    expect(meters(core, { heightM: 4.19 })).toBe(straight);
    expect(meters(core, { heightM: 4.5 })).toBe(around);
    expect(meters(core, { weightT: 50 })).toBe(around);
    expect(meters(core, { widthM: 2.8 })).toBe(around);
    expect(meters(core, { lengthM: 25 })).toBe(around);
    // Smaller than the default in every way: the same route as the default lorry's.
    expect(meters(core, { heightM: 3, weightT: 7.5, widthM: 2.2, lengthM: 8 })).toBe(straight);
  });

  for (const contracted of [false, true]) {
    const how = contracted ? 'with the hierarchy' : 'over the plain graph';
    it(`a way below the default lorry keeps it off, and a lorry that fits takes it (${how})`, () => {
      const around = meters(lorryCore({ access: 'no' }));
      for (const [tags, fits] of [
        [{ maxheight: '3.5' }, { heightM: 3 }],
        [{ maxweight: '7.5' }, { weightT: 7.5 }],
        [{ maxwidth: '2.3' }, { widthM: 2.2 }],
        [{ maxlength: '10' }, { lengthM: 10 }],
      ] as const) {
        const core = lorryCore(tags, true, contracted);
        expect(meters(core), JSON.stringify(tags)).toBe(around);
        expect(meters(core, {}), JSON.stringify(tags)).toBe(around);
        expect(meters(core, fits), JSON.stringify(tags)).toBeCloseTo(3000, -1);
      }
      // Low enough but too heavy stays off; low and light enough goes through.
      const both = lorryCore({ maxheight: '3.5', maxweight: '7.5' }, true, contracted);
      expect(meters(both, { heightM: 3 })).toBe(around);
      expect(meters(both, { heightM: 3, weightT: 7 })).toBeCloseTo(3000, -1);
      // Only ways below the default: the default lorry has no route, a small one has.
      const only = lorryCore({ maxheight: '3.5' }, false, contracted);
      expect(meters(only)).toBe('too-big');
      expect(meters(only, { heightM: 3.2 })).toBeCloseTo(3000, -1);
      expect(meters(only, { heightM: 3.6 })).toBe('too-big');
    });

    it(`the default lorry's matrix has no entry over a way below its size, and snaps off it (${how})`, () => {
      const core = lorryCore({ maxheight: '3.5' }, false, contracted);
      const m = core.matrix({ profile: 'driving-hgv', points: [WEST, EAST] });
      expect(m.ok && m.value.durations).toEqual([
        [0, null],
        [null, 0],
      ]);
      const both = lorryCore({ maxheight: '3.5' }, true, contracted);
      const mb = both.matrix({ profile: 'driving-hgv', points: [WEST, EAST] });
      const r = both.route({ profile: 'driving-hgv', waypoints: [WEST, EAST] });
      expect(mb.ok && r.ok && mb.value.distances[0][1]).toBeCloseTo(r.ok ? r.value.distance : -1, 3);
      // 100 m north of the low road, 300 m south of the detour: the default lorry snaps to the detour.
      const mid = { lat: points[1][0] + 100 / 111_320, lon: points[1][1] };
      const low = both.route({ profile: 'driving-hgv', waypoints: [WEST, mid] });
      expect(low.ok && low.value.snapped[1].lat).toBeCloseTo(points[3][0], 5);
      const small = both.route({ profile: 'driving-hgv', waypoints: [WEST, mid], vehicle: { heightM: 3 } });
      expect(small.ok && small.value.snapped[1].lat).toBeCloseTo(points[1][0], 5);
    });
  }

  for (const contracted of [false, true]) {
    it(`a height restrictor on the road keeps the default lorry off and lets a lower one through (${contracted ? 'with' : 'without'} the hierarchy)`, () => {
      const around = meters(lorryCore({ access: 'no' }));
      const core = lorryCore({}, true, contracted, { 2: { barrier: 'height_restrictor', maxheight: '3.5' } });
      expect(meters(core)).toBe(around);
      expect(meters(core, { heightM: 3 })).toBeCloseTo(3000, -1);
      expect(meters(core, { heightM: 3.6 })).toBe(around);
      const narrow = lorryCore({}, false, contracted, { 2: { barrier: 'gate', maxwidth: '2.2' } });
      expect(meters(narrow)).toBe('too-big');
      expect(meters(narrow, { widthM: 2 })).toBeCloseTo(3000, -1);
    });
  }

  it('keeps no way that even the smallest lorry a request may describe exceeds', () => {
    const core = lorryCore({ maxheight: '0.9' }, false);
    expect(meters(core, SMALLEST_LORRY)).toBe('unreachable');
  });

  it('only the lorry profile has limits; a request without a bigger lorry blocks nothing (the hierarchy answers)', () => {
    const core = lorryCore({ maxheight: '4.2' }, true, true);
    const r = core.route({ profile: 'driving-hgv', waypoints: [WEST, EAST], vehicle: { heightM: 3.9 } });
    expect(r.ok && r.value.limitedGeometries).toBe(0);
    const tall = core.route({ profile: 'driving-hgv', waypoints: [WEST, EAST], vehicle: { heightM: 5 } });
    expect(tall.ok && tall.value.limitedGeometries).toBeGreaterThan(0);
  });

  it('no other way: no route, saying the lorry is too big; a waypoint on a too low road snaps off it', () => {
    const only = lorryCore({ maxheight: '4.2' }, false);
    expect(meters(only, { heightM: 4.5 })).toBe('too-big');
    const core = lorryCore({ maxheight: '4.2' });
    // 150 m north of the low road, 250 m south of the detour.
    const mid = { lat: points[1][0] + 150 / 111_320, lon: points[1][1] };
    const low = core.route({ profile: 'driving-hgv', waypoints: [WEST, mid] });
    expect(low.ok && low.value.snapped[1].lat).toBeCloseTo(points[1][0], 5);
    const r = core.route({ profile: 'driving-hgv', waypoints: [WEST, mid], vehicle: { heightM: 4.5 } });
    expect(r.ok && r.value.snapped[1].lat).toBeCloseTo(points[3][0], 5);
    expect(closedTo(placeless(), 'driving-car', { heightM: 9 }).size).toBe(0);
  });
});

/** A car graph over the same ways: it keeps no limits. */
function placeless() {
  const osm = new OsmData(ids, coords, [], [{ id: 11, refs: [1, 2, 3], tags: { highway: 'primary', maxheight: '4.2' } }], []);
  const pool = buildShapePool(osm);
  return assembleGraph(buildGraphInput(osm, 'driving-car', pool), pendingShapes(pool));
}
