// Turn guidance's record per geometry (map format 21, road-guide.ts): each road's label and bearing offsets
// (towards its representative coordinate as OSRM finds it since format 24, road-coordinate.ts), stored so
// that a junction's roads are read from one place. Checked on every directed edge of Liechtenstein's
// driving graphs, on small ways near and past the 16-bit offsets, and through the map files and back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { deviation } from '../../src/engine/guidance/bearings.js';
import { guidedBearing, leaveBearing } from '../../src/engine/guidance/steps.js';
import { DEFAULT_EXTRACT } from '../../src/map/build.js';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import type { ProfileName } from '../../src/map/graphs/profiles.js';
import type { RoadGraph } from '../../src/map/graphs/road-graph.js';
import { GUIDE_FAR, GUIDE_WORDS, guideLabel, guideLanes, M_PER_E7 } from '../../src/map/graphs/road-guide.js';
import { bearingScale } from '../../src/map/graphs/road-coordinate.js';
import { labelAt } from '../../src/map/graphs/road-labels.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { readGraphFiles, readShapeFiles } from '../../src/map/map-dir.js';
import { graphManifest, MAP_FORMAT_VERSION, writeGraphFiles, writeShapeFiles } from '../../src/map/map-files.js';
import { loadOsm, OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';

const noReverse = { rFirst: new Uint32Array(0), rEdge: new Uint32Array(0) };

/** Every directed edge's record: its label against the labels' binary search, its bearing against the one
 *  measured on the shapes 10 m down the road (before format 24). Returns how many records are marked to be
 *  measured on the shapes, and the bearings of roads whose first point lies more than 100 m from the node,
 *  which OSRM takes as they are (10 m and the junction's lanes: 2.5 × 3.25 m each on a motorway, 59 m for six), against the shapes'. */
function compareAll(g: RoadGraph): { far: number; directed: number; firstFar: Array<[number, number]>; within2: number } {
  const pts = g.shapes.pointsE7;
  let far = 0,
    labelsDiffer = 0,
    within2 = 0;
  const firstFar: Array<[number, number]> = [];
  for (let d = 0; d < 2 * g.geomCount; d++) {
    const from = d & 1 ? g.geomLast[d >> 1] : g.geomFirst[d >> 1],
      next = d & 1 ? from - 1 : from + 1;
    const guided = guidedBearing({ ...g, ...noReverse }, d, bearingScale(pts[2 * from]));
    const shapes = leaveBearing(g, d);
    if (Math.abs(deviation(guided, shapes)) <= 2) within2++;
    const dLat = (pts[2 * next] - pts[2 * from]) * M_PER_E7,
      dLon = (pts[2 * next + 1] - pts[2 * from + 1]) * M_PER_E7 * bearingScale(pts[2 * from]);
    if (Math.hypot(dLat, dLon) > 100) firstFar.push([guided, shapes]);
    if (guideLabel(g.geomGuide[GUIDE_WORDS * (d >> 1)]) !== labelAt(g.shapes, g.geomFirst[d >> 1])) labelsDiffer++;
    if ((g.geomGuide[GUIDE_WORDS * (d >> 1) + 1 + (d & 1)] << 16) >> 16 === GUIDE_FAR) far++;
  }
  expect(labelsDiffer).toBe(0);
  return { far, directed: 2 * g.geomCount, firstFar, within2 };
}

describe('turn guidance records on Liechtenstein', () => {
  let osm: OsmData;
  let pool: ReturnType<typeof buildShapePool>;
  beforeAll(async () => {
    osm = await loadOsm(DEFAULT_EXTRACT);
    pool = buildShapePool(osm);
  }, 120_000);
  const graph = (p: ProfileName): RoadGraph => assembleGraph(buildGraphInput(osm, p, pool), pendingShapes(pool));

  it("give every directed edge of the driving graphs its label and OSRM's bearing", () => {
    for (const p of ['driving-car', 'driving-hgv'] as ProfileName[]) {
      const g = graph(p);
      expect(g.geomGuide.length).toBe(GUIDE_WORDS * g.geomCount);
      const { far, directed, firstFar, within2 } = compareAll(g);
      // Only roads no one may take are left to the shapes (none in these graphs: each geometry is open one way).
      expect(far).toBe(0);
      // A road whose first point lies 100 m or more away is measured towards it, as 10 m down the road was
      // (within what OSRM's 1e-6° moves it: a service road's point 10 m on is cut to 1e-6°, 0.1 m).
      expect(firstFar.length).toBeGreaterThan(200);
      for (const [guided, shapes] of firstFar) expect(Math.abs(deviation(guided, shapes))).toBeLessThan(1);
      // Most roads keep their bearing within 2°; the others bend near the node, where OSRM looks elsewhere.
      expect(within2 / directed).toBeGreaterThan(0.6);
      expect(within2 / directed).toBeLessThan(0.99);
    }
  });

  it("carry each way's lanes in the label's word (the width of a road's two carriageways, merged-roads.ts)", () => {
    const input = buildGraphInput(osm, 'driving-car', pool);
    const g = assembleGraph(input, pendingShapes(pool));
    let withLanes = 0;
    for (let geom = 0; geom < g.geomCount; geom++) {
      const word = g.geomGuide[GUIDE_WORDS * geom];
      expect(guideLanes(word)).toBe(Math.min(15, input.geomLanes![geom]));
      expect(guideLabel(word)).toBe(labelAt(g.shapes, g.geomFirst[geom]));
      if (guideLanes(word) > 0) withLanes++;
    }
    // Liechtenstein's main roads are tagged `lanes`.
    expect(withLanes).toBeGreaterThan(100);
  });

  it('are left out of the bicycle and foot graphs, whose steps read the shapes', () => {
    for (const p of ['cycling-regular', 'foot-walking'] as ProfileName[]) expect(graph(p).geomGuide.length).toBe(0);
  });
});

describe('turn guidance records of small ways', () => {
  const LAT = 47.1;
  const K = 111_320 * Math.cos((LAT * Math.PI) / 180);
  // East along y = 0 (x in meters): a junction at 0, points 4 m and 13 m on (the bearing's point is the 13 m
  // one, 10 m or more away), a way north 500 m long with no point between (too far for 16 bits), a way
  // south-west 30 m long.
  const xy = (x: number, y: number): [number, number] => [LAT + y / 111_320, 9.5 + x / K];
  const points = [xy(0, 0), xy(4, 0.5), xy(13, 2), xy(60, 3), xy(0, 500), xy(-21, -21)];
  const ways: OsmWay[] = [
    { id: 1, refs: [1, 2, 3, 4], tags: { highway: 'primary', name: 'Landstrasse' } },
    { id: 2, refs: [1, 5], tags: { highway: 'residential', name: 'Kirchweg' } },
    { id: 3, refs: [6, 1], tags: { highway: 'service' } },
  ];
  const osm = new OsmData(
    Float64Array.from(points, (_, i) => i + 1),
    Float64Array.from(points.flat()),
    [],
    ways,
    [],
  );
  const pool = buildShapePool(osm);
  const g = assembleGraph(buildGraphInput(osm, 'driving-car', pool), pendingShapes(pool));
  g.shapes = shapesOf(pool);

  it("hold the offset to OSRM's representative coordinate, scaled down where it is too far for 16 bits", () => {
    expect(g.geomCount).toBe(3);
    const { far } = compareAll(g);
    expect(far).toBe(0);
    const pts = g.shapes.pointsE7;
    const bearingOf = (geom: number, back: boolean) =>
      guidedBearing({ ...g, ...noReverse }, 2 * geom + (back ? 1 : 0), bearingScale(pts[2 * (back ? g.geomLast[geom] : g.geomFirst[geom])]));
    const landstrasse = [0, 1, 2].find((geom) => g.geomLast[geom] - g.geomFirst[geom] === 3)!;
    const kirchweg = [0, 1, 2].find((geom) => geom !== landstrasse && pts[2 * g.geomLast[geom]] > pts[2 * g.geomFirst[geom]] + 1000)!;
    // At the junction of three roads Landstrasse (primary) keeps within half a lane of the line to its 60 m
    // point (its 4 m and 13 m points lie 0.3 m and 1.35 m off it): OSRM measures towards that point, 87.1°
    // (10 m down the road, the 13 m point, said 81.2°).
    expect(bearingOf(landstrasse, false)).toBeCloseTo(87.1, 0);
    // From its far end (one road: the first point more than a metre away, 47 m back).
    expect(bearingOf(landstrasse, true)).toBeCloseTo(270 - (Math.atan2(1, 47) * 180) / Math.PI, 0);
    // Kirchweg runs 500 m north with no point between: ~44,900 in 1e-7°, scaled into 16 bits, due north.
    expect(bearingOf(kirchweg, pts[2 * g.geomFirst[kirchweg]] > pts[2 * g.geomLast[kirchweg]])).toBeCloseTo(0, 1);
  });

  it('read back from the map files what was written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'waymark-guide-'));
    try {
      const files = { ...(await writeShapeFiles(dir, g.shapes)), ...(await writeGraphFiles(dir, 'driving-car', g)) };
      expect(files['driving-car/geomGuide.i32'].bytes).toBe(4 * GUIDE_WORDS * g.geomCount);
      const meta = graphManifest({ ...g, chA: new Uint32Array(0) }, 0);
      await writeFile(
        join(dir, 'manifest.json'),
        JSON.stringify({ formatVersion: MAP_FORMAT_VERSION, files, shapes: { grid: g.shapes.grid }, profiles: { 'driving-car': meta } }),
      );
      const back = await readGraphFiles(dir, 'driving-car', meta, await readShapeFiles(dir));
      expect(back.geomGuide).toBeInstanceOf(Int32Array);
      expect(Array.from(back.geomGuide)).toEqual(Array.from(g.geomGuide));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
