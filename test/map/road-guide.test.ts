// Turn guidance's record per geometry (map format 21, road-guide.ts): each road's label and bearing offsets,
// stored so that a junction's roads are read from one place. What it must give is exactly what guidance
// measured on the shapes before: checked on every directed edge of Liechtenstein's driving graphs, on
// small ways near and past the 16-bit offsets, and through the map files and back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { guidedBearing, leaveBearing } from '../../src/engine/guidance/steps.js';
import { DEFAULT_EXTRACT } from '../../src/map/build.js';
import { assembleGraph } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import type { ProfileName } from '../../src/map/graphs/profiles.js';
import type { RoadGraph } from '../../src/map/graphs/road-graph.js';
import { eastScale, GUIDE_FAR, GUIDE_WORDS } from '../../src/map/graphs/road-guide.js';
import { labelAt } from '../../src/map/graphs/road-labels.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { readGraphFiles, readShapeFiles } from '../../src/map/map-dir.js';
import { graphManifest, MAP_FORMAT_VERSION, writeGraphFiles, writeShapeFiles } from '../../src/map/map-files.js';
import { loadOsm, OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';

const noReverse = { rFirst: new Uint32Array(0), rEdge: new Uint32Array(0) };

/** Every directed edge's bearing from the record against the one measured on the shapes (bit for bit), and
 *  its label against the labels' binary search; returns how many offsets were too far for 16 bits. */
function compareAll(g: RoadGraph): { far: number; directed: number } {
  const pts = g.shapes.pointsE7;
  let far = 0,
    bearingsDiffer = 0,
    labelsDiffer = 0;
  for (let d = 0; d < 2 * g.geomCount; d++) {
    const from = d & 1 ? g.geomLast[d >> 1] : g.geomFirst[d >> 1];
    const guided = guidedBearing({ ...g, ...noReverse }, d, eastScale(pts[2 * from]));
    if (!Object.is(guided, leaveBearing(g, d))) bearingsDiffer++;
    if (g.geomGuide[GUIDE_WORDS * (d >> 1)] !== labelAt(g.shapes, g.geomFirst[d >> 1])) labelsDiffer++;
    if ((g.geomGuide[GUIDE_WORDS * (d >> 1) + 1 + (d & 1)] << 16) >> 16 === GUIDE_FAR) far++;
  }
  expect({ bearingsDiffer, labelsDiffer }).toEqual({ bearingsDiffer: 0, labelsDiffer: 0 });
  return { far, directed: 2 * g.geomCount };
}

describe('turn guidance records on Liechtenstein', () => {
  let osm: OsmData;
  let pool: ReturnType<typeof buildShapePool>;
  beforeAll(async () => {
    osm = await loadOsm(DEFAULT_EXTRACT);
    pool = buildShapePool(osm);
  }, 120_000);
  const graph = (p: ProfileName): RoadGraph => assembleGraph(buildGraphInput(osm, p, pool), pendingShapes(pool));

  it('give every directed edge of the driving graphs the bearing and label measured on the shapes', () => {
    for (const p of ['driving-car', 'driving-hgv'] as ProfileName[]) {
      const g = graph(p);
      expect(g.geomGuide.length).toBe(GUIDE_WORDS * g.geomCount);
      const { far, directed } = compareAll(g);
      // Straight roads with no point for ~250 m are measured on the shapes: a few in a hundred.
      expect(far).toBeGreaterThan(0);
      expect(far / directed).toBeLessThan(0.05);
    }
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

  it('hold the offset to the first point 10 m away, or mark it too far', () => {
    expect(g.geomCount).toBe(3);
    const { far } = compareAll(g);
    // Kirchweg's 500 m north in 1e-7° is ~44,900: too far both ways; the others fit.
    expect(far).toBe(2);
    const offset = (d: number) => {
      const w = g.geomGuide[GUIDE_WORDS * (d >> 1) + 1 + (d & 1)];
      return [(w << 16) >> 16, w >> 16];
    };
    const pts = g.shapes.pointsE7;
    const landstrasse = [0, 1, 2].find((geom) => g.geomLast[geom] - g.geomFirst[geom] === 3)!;
    const first = g.geomFirst[landstrasse];
    // Along: from the junction to the 13 m point (the 4 m one is too near); against: from the far end
    // (47 m on) to the 13 m point.
    expect(offset(2 * landstrasse)).toEqual([pts[2 * (first + 2)] - pts[2 * first], pts[2 * (first + 2) + 1] - pts[2 * first + 1]]);
    expect(offset(2 * landstrasse + 1)).toEqual([pts[2 * (first + 2)] - pts[2 * (first + 3)], pts[2 * (first + 2) + 1] - pts[2 * (first + 3) + 1]]);
    expect(guidedBearing({ ...g, ...noReverse }, 2 * landstrasse, eastScale(pts[2 * first]))).toBeCloseTo(81.24, 1);
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
