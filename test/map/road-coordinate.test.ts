// A road's representative coordinate at a junction, as OSRM's coordinate extractor finds it
// (road-coordinate.ts, a port of osrm-backend 6.0.0's coordinate_extractor.cpp). Each case is one branch of
// OSRM's ExtractRepresentativeCoordinate, its expected point worked out by hand from OSRM's code: roads
// laid out in metres east (x) and north (y) of a junction at 47° N.
import { describe, expect, it } from 'vitest';
import { laneCountOf } from '../../src/map/graphs/profile-ways.js';
import {
  bearing,
  bearingScale,
  closeCoordinate,
  type Coords,
  distance,
  representativeCoordinate,
  type RoadContext,
} from '../../src/map/graphs/road-coordinate.js';

const LAT = 47;
const KX = 111_320 * Math.cos((LAT * Math.PI) / 180),
  KY = 111_320;
const road = (xy: Array<[number, number]>): Coords => ({
  lon: xy.map(([x]) => Math.round((9 + x / KX) * 1e6)),
  lat: xy.map(([, y]) => Math.round((LAT + y / KY) * 1e6)),
});
const primary: RoadContext = { lowPriority: false, ring: false, offsetFactor: 1.5, lanes: 0 };
/** The representative point's bearing and distance from the junction. */
function measured(r: Coords, context: RoadContext): { bearing: number; meters: number } {
  const out: [number, number] = [0, 0];
  representativeCoordinate(r, context, out);
  return { bearing: bearing(r.lon[0], r.lat[0], out[0], out[1]), meters: distance(r.lon[0], r.lat[0], out[0], out[1]) };
}

describe("OSRM's representative coordinate of a road", () => {
  // [what OSRM takes, the road's points, its context, the bearing and metres expected, worked out by hand]
  const cases: Array<[string, Array<[number, number]>, RoadContext, number, number]> = [
    [
      'the far end of a straight road of two points',
      [
        [0, 0],
        [30, 30],
      ],
      primary,
      45,
      42.4,
    ],
    // A primary road: 10 m and 2 lanes × 1.5 × 3.25 m.
    [
      'the first point where it lies farther than 10 m and the lanes',
      [
        [0, 0],
        [25, 0],
        [25, 40],
      ],
      primary,
      90,
      25,
    ],
    [
      "2 m down a roundabout's ring",
      [
        [0, 0],
        [10, 0],
        [10, 10],
      ],
      { ...primary, ring: true },
      90,
      2,
    ],
    // 5 m east, then north: the point 10 m on is 5 m up the second segment (45°, within its 1e-6° cut).
    [
      '10 m down a road of low priority (a service road), round its bends',
      [
        [0, 0],
        [5, 0],
        [5, 20],
      ],
      { ...primary, lowPriority: true, offsetFactor: 1 },
      45.7,
      7.07,
    ],
    [
      '5 m on where the road starts straight for 10 m and the lanes, then bends',
      [
        [0, 0],
        [10, 0.1],
        [25, 0],
        [25, 40],
      ],
      primary,
      90,
      5,
    ],
    // Points 4 m and 13 m on lie 0.3 m and 1.35 m off the line to the 60 m one: the road is straight.
    [
      'the last point looked at where the road keeps within half a lane of a straight line',
      [
        [0, 0],
        [4, 0.5],
        [13, 2],
        [60, 3],
      ],
      primary,
      87.1,
      60,
    ],
    // The slip road of merge-segregated-roads' "Tripple Merge", bending 11 m on.
    [
      '10 m on where the road bends near the junction and neither a line nor a curve fits',
      [
        [0, 0],
        [9, 6],
        [51.3, 6],
      ],
      primary,
      56.7,
      10,
    ],
  ];
  it.each(cases)('is %s', (_what, points, context, bearing, meters) => {
    const m = measured(road(points), context);
    expect(m.bearing).toBeCloseTo(bearing, 0);
    expect(m.meters).toBeCloseTo(meters, 0);
  });

  it('is, where only two roads meet, the first point more than a metre away', () => {
    const r = road([
      [0, 0],
      [0.5, 0],
      [0.8, 0.5],
      [3, 3],
      [10, 3],
    ]);
    const out: [number, number] = [0, 0];
    closeCoordinate(r, out);
    expect([out[0], out[1]]).toEqual([r.lon[3], r.lat[3]]);
  });

  it("measures as OSRM's cheap ruler does", () => {
    // 1e-3° of latitude at 47° N: 111.2 m on the ellipsoid.
    expect(distance(9_000_000, 47_000_000, 9_000_000, 47_001_000)).toBeCloseTo(111.2, 0);
    expect(bearing(9_000_000, 47_000_000, 9_001_000, 47_000_000)).toBeCloseTo(90, 6);
  });

  it("scales a bearing's longitude as the ruler does, not by the latitude's cosine", () => {
    // The step's bearings (atan2 of Δlon × scale over Δlat) and the ruler's agree: a point as far east as
    // north by the scale lies at 45°, where the cosine would put it 0.1° off at 47° N.
    const k = bearingScale(470_100_000);
    expect(bearing(9_000_000, 47_010_000, 9_000_000 + 20_000 / k, 47_030_000)).toBeCloseTo(45, 6);
    expect(k / Math.cos((47.01 * Math.PI) / 180)).toBeGreaterThan(1.002);
  });
});

describe("a way's lanes, as OSRM's profiles read them (they widen the junction OSRM looks down a road from)", () => {
  it('takes `lanes`, else `lanes:forward` and `lanes:backward` added up, and nothing that is no number', () => {
    expect(laneCountOf({ highway: 'primary', lanes: '4' })).toBe(4);
    expect(laneCountOf({ highway: 'primary', lanes: ' 3 ' })).toBe(3);
    expect(laneCountOf({ highway: 'primary', 'lanes:forward': '2', 'lanes:backward': '1' })).toBe(3);
    expect(laneCountOf({ highway: 'primary', 'lanes:forward': '2' })).toBe(2);
    // A `lanes` that is no number says nothing, and the directions are not read then (guidance.lua).
    expect(laneCountOf({ highway: 'primary', lanes: '2;3', 'lanes:forward': '2' })).toBe(0);
    expect(laneCountOf({ highway: 'primary', lanes: '' })).toBe(0);
    expect(laneCountOf({ highway: 'primary' })).toBe(0);
  });

  it('looks further down a road at a junction of wide roads', () => {
    // The road bends 11 m on: with two lanes (or three) OSRM measures 10 m down it (56.7°, above). With
    // four at the junction it drops the first 12.5 m (0.8 × 0.8 × 4 × 1.5 × 3.25 m) before it fits its
    // least-squares line: the road past the bend, nearly east.
    const slipRoad = road([
      [0, 0],
      [9, 6],
      [51.3, 6],
    ]);
    expect(measured(slipRoad, { ...primary, lanes: 3 }).bearing).toBeCloseTo(56.7, 0);
    expect(measured(slipRoad, { ...primary, lanes: 4 }).bearing).toBeCloseTo(89.1, 0);
  });
});
