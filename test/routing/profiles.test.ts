import { describe, expect, it } from 'vitest';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { OsmData } from '../../src/map/osm/osm-data.js';
import { parseMaxspeed, wayAccess, type ProfileName } from '../../src/map/graphs/profiles.js';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { RouteCore } from '../../src/engine/route-core.js';
import { pairsOf } from '../../src/engine/line-json.js';

describe('profile rules', () => {
  it('parses maxspeed values', () => {
    expect(parseMaxspeed('50')).toBe(50);
    expect(parseMaxspeed('30 mph')).toBeCloseTo(48.28, 2);
    expect(parseMaxspeed('CH:urban')).toBe(50);
    expect(parseMaxspeed('CH:rural')).toBe(80);
    expect(parseMaxspeed('none')).toBeNull();
  });

  it('applies access, oneway and speed rules per profile', () => {
    expect(wayAccess('foot-walking', { highway: 'motorway' })).toBeNull();
    expect(wayAccess('cycling-regular', { highway: 'motorway' })).toBeNull();
    expect(wayAccess('driving-car', { highway: 'motorway' })).toEqual({ forward: 120, backward: 0 });
    expect(wayAccess('driving-hgv', { highway: 'motorway' })).toEqual({ forward: 80, backward: 0 });
    expect(wayAccess('driving-car', { highway: 'cycleway' })).toBeNull();
    // Private roads are open at a crawl, so only trips that start or end there use them; private service roads are closed.
    expect(wayAccess('driving-car', { highway: 'residential', access: 'private' })).toEqual({ forward: 10, backward: 10 });
    expect(wayAccess('driving-car', { highway: 'service', access: 'private' })).toBeNull();
    expect(wayAccess('driving-car', { highway: 'residential', access: 'no', motor_vehicle: 'yes' })).not.toBeNull();
    expect(wayAccess('driving-hgv', { highway: 'primary', hgv: 'no' })).toBeNull();
    expect(wayAccess('driving-car', { highway: 'primary', maxspeed: 'CH:urban' })).toEqual({ forward: 50, backward: 50 });
    expect(wayAccess('driving-car', { highway: 'primary', oneway: '-1' })).toEqual({ forward: 0, backward: 80 });
    expect(wayAccess('driving-car', { highway: 'primary', junction: 'roundabout' })).toEqual({ forward: 80, backward: 0 });
    expect(wayAccess('cycling-regular', { highway: 'residential', oneway: 'yes', 'oneway:bicycle': 'no' })).toEqual({ forward: 16, backward: 16 });
    expect(wayAccess('foot-walking', { highway: 'residential', oneway: 'yes' })).toEqual({ forward: 5, backward: 5 });
    // On a footway the cyclist pushes the bike, unless bicycles are allowed to ride there.
    expect(wayAccess('cycling-regular', { highway: 'footway' })).toEqual({ forward: 5, backward: 5, pushedForward: true, pushedBackward: true });
    expect(wayAccess('cycling-regular', { highway: 'footway', foot: 'no' })).toBeNull();
    expect(wayAccess('cycling-regular', { highway: 'footway', bicycle: 'yes' })).toEqual({ forward: 12, backward: 12 });
  });

  it('foot detours around a motorway the car takes', () => {
    // A straight motorway 1→2→3 and a footway loop 1→4→3 north of it.
    const coords = [
      [47.0, 9.0],
      [47.0, 9.01],
      [47.0, 9.02],
      [47.004, 9.01],
    ];
    const osm = new OsmData(
      Float64Array.from([1, 2, 3, 4]),
      Float64Array.from(coords.flat()),
      [],
      [
        { id: 10, refs: [1, 2, 3], tags: { highway: 'motorway', oneway: 'no' } },
        { id: 11, refs: [1, 4, 3], tags: { highway: 'footway' } },
      ],
      [],
    );
    const graphs: Record<string, ReturnType<typeof assembleGraph>> = {};
    const pool = buildShapePool(osm);
    for (const p of ['driving-car', 'foot-walking'] as ProfileName[]) graphs[p] = assembleGraph(buildGraphInput(osm, p, pool), pendingShapes(pool));
    const shapes = shapesOf(pool);
    for (const g of Object.values(graphs)) g.shapes = shapes;
    const core = new RouteCore(placeGraphs(graphs));
    const waypoints = [
      { lat: 47.0, lon: 9.0 },
      { lat: 47.0, lon: 9.02 },
    ];
    const car = core.route({ profile: 'driving-car', waypoints });
    const foot = core.route({ profile: 'foot-walking', waypoints });
    if (!car.ok || !foot.ok) throw new Error('expected routes');
    expect(car.value.distance).toBeCloseTo(1516, -1);
    expect(foot.value.distance).toBeGreaterThan(1540);
    expect(pairsOf(foot.value.geometry).some(([, lat]) => lat > 47.003)).toBe(true);
  });
});
