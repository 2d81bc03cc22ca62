// Ferries end to end: from OSM elements through the map build (a `duration` becomes the speed that crosses
// the whole way in that time) to the engine's route durations, per profile.
import { describe, expect, it } from 'vitest';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import { greatCircleMeters } from '../../src/lib/geo/sphere.js';
import { OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';
import type { ProfileName } from '../../src/map/graphs/profiles.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { RouteCore } from '../../src/engine/route-core.js';

// A road west of a strait, a ferry across it over three nodes (2, 3, 4), a road east of it.
const LAT = 47.0;
const lonAt = (m: number): number => 9.0 + m / (111_320 * Math.cos((LAT * Math.PI) / 180));
const nodeX = [0, 500, 1000, 1500, 2000, 2500, 3000];
const ids = Float64Array.from(nodeX.map((_, i) => i + 1));
const coords = Float64Array.from(nodeX.flatMap((x) => [LAT, lonAt(x)]));
const ferryMeters = greatCircleMeters(LAT, lonAt(1000), LAT, lonAt(2000));

function core(profile: ProfileName, ferryTags: Record<string, string>): RouteCore {
  const ways: OsmWay[] = [
    { id: 10, refs: [1, 2, 3], tags: { highway: 'primary', name: 'west' } },
    { id: 11, refs: [3, 4, 5], tags: { name: 'ferry', ...ferryTags } },
    { id: 12, refs: [5, 6, 7], tags: { highway: 'primary', name: 'east' } },
  ];
  const osm = new OsmData(ids, coords, [], ways, []);
  const pool = buildShapePool(osm);
  const graph = assembleGraph(buildGraphInput(osm, profile, pool), pendingShapes(pool));
  graph.shapes = shapesOf(pool);
  return new RouteCore(placeGraphs({ [profile]: graph }));
}

/** Seconds from one end of the ferry to the other (both ends are graph nodes, so no snapping share). */
function crossing(profile: ProfileName, ferryTags: Record<string, string>, reverse = false): number | null {
  const [a, b] = [
    { lat: LAT, lon: lonAt(1000) },
    { lat: LAT, lon: lonAt(2000) },
  ];
  const r = core(profile, ferryTags).route({ profile, waypoints: reverse ? [b, a] : [a, b] });
  return r.ok ? r.value.duration : null;
}

describe('ferries', () => {
  it('without a duration a ferry goes at 5 km/h for every profile that takes it', () => {
    for (const p of ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'] as const) {
      expect(crossing(p, { route: 'ferry' })).toBeCloseTo(ferryMeters / (5 / 3.6), 0);
    }
  });

  it('a duration sets the time of the whole crossing, split over its pieces, both ways', () => {
    expect(crossing('driving-car', { route: 'ferry', duration: '0:10' })).toBeCloseTo(600, 0);
    expect(crossing('driving-car', { route: 'ferry', duration: '0:10' }, true)).toBeCloseTo(600, 0);
    expect(crossing('foot-walking', { route: 'ferry', duration: 'PT1H' })).toBeCloseTo(3600, 0);
    // Half the ferry: from node 3 to node 4 (a junction: the east road starts there too).
    const half = core('driving-car', { route: 'ferry', duration: '00:01:00' }).route({
      profile: 'driving-car',
      waypoints: [
        { lat: LAT, lon: lonAt(1000) },
        { lat: LAT, lon: lonAt(1500) },
      ],
    });
    expect(half.ok && half.value.duration).toBeCloseTo(30, 0);
  });

  it('a route from road to road crosses on the ferry; a ferry closed to the mode is no way across', () => {
    const from = { lat: LAT, lon: lonAt(250) },
      to = { lat: LAT, lon: lonAt(2750) };
    const open = core('driving-car', { route: 'ferry', duration: '0:10' }).route({ profile: 'driving-car', waypoints: [from, to] });
    expect(open.ok && open.value.distance).toBeCloseTo(2500, -1);
    const closed = core('driving-car', { route: 'ferry', motor_vehicle: 'no' }).route({ profile: 'driving-car', waypoints: [from, to] });
    expect(closed.ok).toBe(false);
    const walk = core('foot-walking', { route: 'ferry', motor_vehicle: 'no' }).route({ profile: 'foot-walking', waypoints: [from, to] });
    expect(walk.ok).toBe(true);
  });

  it("steps on the ferry have OSRM's mode `ferry`, and going onto and off it straight on is a notification", () => {
    const from = { lat: LAT, lon: lonAt(250) },
      to = { lat: LAT, lon: lonAt(2750) };
    for (const profile of ['driving-car', 'foot-walking', 'cycling-regular'] as const) {
      const r = core(profile, { route: 'ferry' }).routeE7({ profile, waypoints: [from, to], steps: true });
      expect(r.ok, profile).toBe(true);
      const steps = r.ok ? (r.value.legSteps?.[0] ?? []) : [];
      expect(
        steps.map((st) => `${st.type}${st.modifier ? ` ${st.modifier}` : ''}`),
        profile,
      ).toEqual(['depart', 'notification straight', 'notification straight', 'arrive']);
      // The depart and arrive steps are on the roads at either end; the second notification leaves the ferry.
      expect(steps.map((st) => st.mode)).toEqual([undefined, 'ferry', undefined, undefined]);
    }
  });
});
