// Lorry sizes set per request: the HGV graph keeps the physical limits of its ways per geometry, and a
// route for a lorry bigger than the default one keeps off the ways whose limits it exceeds.
import { describe, expect, it } from 'vitest';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import { OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';
import { defaultVehicle, exceeds, wayLimits } from '../../src/map/graphs/profiles.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { RouteCore, tooSmallFor, type VehicleQuery } from '../../src/engine/route-core.js';

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

function lorryCore(straightTags: Record<string, string>, detour = true): RouteCore {
  const ways: OsmWay[] = [
    { id: 10, refs: [6, 1], tags: { highway: 'primary' } },
    { id: 11, refs: [1, 2, 3], tags: { highway: 'primary', ...straightTags } },
    { id: 13, refs: [3, 7], tags: { highway: 'primary' } },
  ];
  if (detour) ways.push({ id: 12, refs: [1, 4, 5, 3], tags: { highway: 'primary' } });
  const osm = new OsmData(ids, coords, [], ways, []);
  const pool = buildShapePool(osm);
  const graph = assembleGraph(buildGraphInput(osm, 'driving-hgv', pool), pendingShapes(pool));
  graph.shapes = shapesOf(pool);
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

  it('a way below the default lorry is not in its graph at all, whatever the request', () => {
    const core = lorryCore({ maxheight: '3.5' });
    expect(meters(core)).toBe(meters(lorryCore({ access: 'no' })));
    expect(meters(core, { heightM: 3 })).toBe(meters(core));
  });

  it('only the lorry profile has limits; a request without a bigger lorry blocks nothing (the hierarchy answers)', () => {
    const core = lorryCore({ maxheight: '4.2' });
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
    expect(tooSmallFor(placeless(), 'driving-car', { heightM: 9 }).size).toBe(0);
  });
});

/** A car graph over the same ways: it keeps no limits. */
function placeless() {
  const osm = new OsmData(ids, coords, [], [{ id: 11, refs: [1, 2, 3], tags: { highway: 'primary', maxheight: '4.2' } }], []);
  const pool = buildShapePool(osm);
  return assembleGraph(buildGraphInput(osm, 'driving-car', pool), pendingShapes(pool));
}
