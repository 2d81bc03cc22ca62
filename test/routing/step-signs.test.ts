// Steps' `destinations` and `exits` (OSRM's RouteStep fields) and their intersections' `lanes` on a small
// map built in memory through the map build: a motorway's ramp with its exit number and destination signs,
// a oneway road with a sign and turn lanes, a two-way road whose sign OSRM takes for mis-tagged, a footway
// oneway for walkers. Which profile shows what
// is OSRM's (car.lua and foot.lua show a oneway's destinations, bicycle.lua none); the text each step
// writes is what JSON.stringify writes of it, field for field in OSRM's order.
import { describe, expect, it } from 'vitest';
import { placeGraphs } from '../../src/engine/graph-memory.js';
import { legStepsJson } from '../../src/engine/guidance/step-json.js';
import { RouteCore } from '../../src/engine/route-core.js';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import type { ProfileName } from '../../src/map/graphs/profiles.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';
import type { LatLon } from '../../src/lib/lat-lon.js';

const LAT = 47.0;
const K = 111_320 * Math.cos((LAT * Math.PI) / 180);
/** Meters east and north of the map's origin. */
const at = (x: number, y: number): LatLon => ({ lat: LAT + y / 111_320, lon: 9.0 + x / K });
const NODES = [at(0, 0), at(600, 0), at(1200, 0), at(800, -150), at(800, -600), at(1000, -600), at(800, -900), at(1000, -900)];
const WAYS: OsmWay[] = [
  { id: 10, refs: [1, 2, 3], tags: { highway: 'motorway', ref: 'A 13' } },
  { id: 11, refs: [2, 4], tags: { highway: 'motorway_link', 'junction:ref': '3', destination: 'Berlin;Hamburg', 'destination:ref': 'A1', oneway: 'yes' } },
  { id: 12, refs: [4, 5], tags: { highway: 'primary', name: 'Landstrasse', destination: 'Triesen', oneway: 'yes', 'turn:lanes': 'left|left' } },
  { id: 13, refs: [5, 6], tags: { highway: 'residential', name: 'Gasse', destination: 'Balzers', oneway: 'no' } },
  { id: 14, refs: [5, 7], tags: { highway: 'footway', name: 'Steg', 'destination:backward': 'Vaduz', 'oneway:foot': '-1' } },
  { id: 15, refs: [7, 8], tags: { highway: 'footway', name: 'Ufer' } },
];
const between = (a: number, b: number, t = 0.5): LatLon => ({
  lat: NODES[a - 1].lat + t * (NODES[b - 1].lat - NODES[a - 1].lat),
  lon: NODES[a - 1].lon + t * (NODES[b - 1].lon - NODES[a - 1].lon),
});

interface Step {
  name: string;
  ref?: string;
  destinations?: string;
  exits?: string;
  maneuver: { type: string };
  instruction?: string;
}

function core(profile: ProfileName): RouteCore {
  const osm = new OsmData(
    Float64Array.from(NODES, (_, i) => i + 1),
    Float64Array.from(NODES.flatMap((n) => [n.lat, n.lon])),
    [],
    WAYS,
    [],
  );
  const pool = buildShapePool(osm);
  const graph = assembleGraph(buildGraphInput(osm, profile, pool), pendingShapes(pool));
  graph.shapes = shapesOf(pool);
  return new RouteCore(placeGraphs({ [profile]: graph }));
}

/** The steps' text of a one-leg route, as a reply writes them. */
function stepsText(profile: ProfileName, waypoints: LatLon[], format: 'geojson' | 'polyline6' = 'geojson', language?: string): string {
  const c = core(profile);
  const r = c.routeE7({ profile, waypoints, steps: true });
  if (!r.ok || !r.value.legSteps) throw new Error(`no route for ${profile}`);
  const { legSteps, geometryE7, legs } = r.value;
  return legStepsJson(legSteps[0], c.shapes, geometryE7, {
    profile,
    format,
    language,
    legIndex: 0,
    legCount: 1,
    distance: legs[0].distance,
    duration: legs[0].duration,
  });
}

const steps = (profile: ProfileName, waypoints: LatLon[]): Step[] => JSON.parse(stepsText(profile, waypoints));
const signs = (s: Step[]) => s.map((x) => [x.name, x.destinations ?? '', x.exits ?? '']);

describe('destinations and exits of the steps', () => {
  it("car: the ramp's exit number and signs, a oneway's sign, none on a two-way road", () => {
    const s = steps('driving-car', [between(1, 2), between(4, 5)]);
    expect(s.map((x) => x.maneuver.type)).toEqual(['depart', 'off ramp', 'new name', 'arrive']);
    expect(s[0].ref).toBe('A 13');
    expect(signs(s)).toEqual([
      ['', '', ''],
      ['', 'A1: Berlin, Hamburg', '3'],
      ['Landstrasse', 'Triesen', ''],
      ['Landstrasse', 'Triesen', ''],
    ]);
    expect(signs(steps('driving-car', [between(4, 5), between(5, 6, 0.9)]))).toEqual([
      ['Landstrasse', 'Triesen', ''],
      ['Gasse', '', ''],
      ['Gasse', '', ''],
    ]);
  });

  it("a lorry reads the car's signs; a bicycle none; a walker only a way oneway for walkers", () => {
    expect(signs(steps('driving-hgv', [between(1, 2), between(4, 5)]))[1]).toEqual(['', 'A1: Berlin, Hamburg', '3']);
    // Landstrasse is oneway for bicycles too, and has no signs for them.
    expect(signs(steps('cycling-regular', [between(4, 5, 0.2), between(4, 5, 0.8)]))).toEqual([
      ['Landstrasse', '', ''],
      ['Landstrasse', '', ''],
    ]);
    // A walker may walk Landstrasse both ways: its sign is not for them; Steg only against its way, towards Vaduz.
    expect(signs(steps('foot-walking', [between(7, 8), between(4, 5)]))).toEqual([
      ['Ufer', '', ''],
      ['Steg', 'Vaduz', ''],
      ['Landstrasse', '', ''],
      ['Landstrasse', '', ''],
    ]);
  });

  it('writes the fields after name and ref, in OSRM order, byte for byte as JSON.stringify, and tells them in the instruction', () => {
    for (const format of ['geojson', 'polyline6'] as const) {
      const text = stepsText('driving-car', [between(1, 2), between(4, 5)], format, 'en');
      expect(JSON.stringify(JSON.parse(text))).toBe(text);
      const ramp = (JSON.parse(text) as Step[])[1];
      const keys = Object.keys(ramp);
      expect(keys.slice(keys.indexOf('name'), keys.indexOf('name') + 3)).toEqual(['name', 'destinations', 'exits']);
      expect(ramp.instruction).toBe('Take exit 3 on the right towards A1: Berlin');
    }
    const foot = stepsText('foot-walking', [between(7, 8), between(4, 5)]);
    expect(JSON.stringify(JSON.parse(foot))).toBe(foot);
    // A step without them writes neither key.
    const depart = (JSON.parse(foot) as Step[])[0];
    expect(Object.keys(depart)).not.toContain('destinations');
    expect(Object.keys(depart)).not.toContain('exits');
  });
});

describe('turn lanes of the steps', () => {
  interface Intersection {
    lanes?: Array<{ indications: string[]; valid: boolean }>;
  }
  const intersections = (text: string): Intersection[][] => (JSON.parse(text) as Array<{ intersections: Intersection[] }>).map((x) => x.intersections);

  it("writes the arriving road's lanes after `out` where the route turns off it, byte for byte as JSON.stringify, for driving only", () => {
    const route = [between(4, 5), between(5, 6, 0.9)];
    for (const format of ['geojson', 'polyline6'] as const) {
      const text = stepsText('driving-car', route, format);
      expect(JSON.stringify(JSON.parse(text))).toBe(text);
      const turn = intersections(text)[1][0];
      expect(Object.keys(turn)).toEqual(['location', 'bearings', 'entry', 'in', 'out', 'lanes']);
      expect(turn.lanes).toEqual([
        { indications: ['left'], valid: true },
        { indications: ['left'], valid: true },
      ]);
    }
    // No other intersection has lanes: the depart's road has none arriving, the arrival none to turn onto.
    expect(
      intersections(stepsText('driving-car', route))
        .flat()
        .filter((x) => x.lanes).length,
    ).toBe(1);
    expect(intersections(stepsText('driving-hgv', route))[1][0].lanes).toHaveLength(2);
    // OSRM's bicycle and foot profiles read no lanes; the reply is the one it was without them.
    const bike = stepsText('cycling-regular', [between(4, 5), between(5, 6, 0.9)]);
    expect(bike).not.toContain('"lanes"');
    expect(JSON.stringify(JSON.parse(bike))).toBe(bike);
  });
});
