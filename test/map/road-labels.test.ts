// The ways' names and refs kept with the shared shapes: built from small ways in memory, then on the
// Liechtenstein map against the extract's own tags, and through the map files and back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXTRACT } from '../../src/map/build.js';
import { readShapeFiles } from '../../src/map/map-dir.js';
import { MAP_FORMAT_VERSION, writeShapeFiles } from '../../src/map/map-files.js';
import type { RoadLabels } from '../../src/map/graphs/road-graph.js';
import { labelAt, labelSigns, roadLabelAt } from '../../src/map/graphs/road-labels.js';
import { nearestSegment } from '../../src/map/graphs/segment-grid.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../src/map/graphs/shapes.js';
import { wayAccess } from '../../src/map/graphs/profiles.js';
import { loadOsm, OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmWay } from '../../src/map/osm/osm-pbf.js';
import { geometryWays, testMap, type TestGraph } from '../routing/helpers.js';

/** Ways 1…7 over nodes 1…20 in a row near Vaduz, and `extra` ways after them. */
/** Every array of the road labels (RoadLabels): each is written to the map files and read back. */
const LABEL_ARRAYS = [
  'labelFirst',
  'labelIndex',
  'labelName',
  'labelRef',
  'labelKind',
  'labelDestinations',
  'labelDestinationsShown',
  'labelExits',
  'labelLanesForward',
  'labelLanesBackward',
  'labelTextFirst',
  'labelText',
] as const;

function smallOsm(extra: OsmWay[] = []): OsmData {
  const ids = Float64Array.from({ length: 20 }, (_, i) => i + 1);
  const coords = Float64Array.from({ length: 40 }, (_, i) => (i % 2 ? 9.52 + i * 1e-4 : 47.14 + i * 1e-4));
  const ways: OsmWay[] = [
    { id: 1, refs: [1, 2, 3], tags: { highway: 'primary', name: 'Landstrasse', ref: '28' } },
    { id: 2, refs: [3, 4], tags: { highway: 'primary', name: 'Landstrasse', ref: '28' } },
    { id: 3, refs: [4, 5, 6], tags: { highway: 'residential' } },
    { id: 4, refs: [6, 7], tags: { building: 'yes', name: 'Rathaus' } },
    { id: 5, refs: [7, 8, 9], tags: { highway: 'trunk', ref: 'A13' } },
    { id: 6, refs: [9, 10], tags: { highway: 'footway', name: 'Städtle' } },
    { id: 7, refs: [10, 11], tags: { highway: 'residential', name: '' } },
    ...extra,
  ];
  return new OsmData(ids, coords, [], ways, []);
}

const none = { name: null, ref: null };

describe('road labels', () => {
  it('gives each point the name and ref of its way, none to ways without them', () => {
    const osm = smallOsm();
    const pool = buildShapePool(osm);
    const shapes = shapesOf(pool);
    // Ways 1 and 2 share their label (one run), the building keeps no points, way 7's empty name is none.
    const at = (way: number, k: number) => roadLabelAt(shapes, pool.wayStart[osm.wayIds.indexOf(way)] + k);
    expect(at(1, 0)).toEqual({ name: 'Landstrasse', ref: '28' });
    expect(at(1, 2)).toEqual({ name: 'Landstrasse', ref: '28' });
    expect(at(2, 1)).toEqual({ name: 'Landstrasse', ref: '28' });
    expect(at(3, 0)).toEqual(none);
    expect(at(3, 2)).toEqual(none);
    expect(at(5, 0)).toEqual({ name: null, ref: 'A13' });
    expect(at(6, 1)).toEqual({ name: 'Städtle', ref: null });
    expect(at(7, 0)).toEqual(none);
    expect(osm.wayIds.indexOf(4) < 0 || pool.wayStart[osm.wayIds.indexOf(4)] < 0).toBe(true);
    expect(Array.from(shapes.labelFirst)).toEqual([0, 5, 8, 11, 13]);
    // Each text once, in UTF-8; past the points there is no road.
    expect(new TextDecoder().decode(shapes.labelText)).toBe('LandstrasseStädtle28A13');
    expect(roadLabelAt(shapes, shapes.pointsE7.length / 2)).toEqual(none);
    expect(roadLabelAt(shapes, -1)).toEqual(none);
    expect(pendingShapes(pool).labelFirst).toBe(shapes.labelFirst);
  });

  it('reads back from the map files what was written', async () => {
    const shapes = shapesOf(buildShapePool(smallOsm()));
    const dir = await mkdtemp(join(tmpdir(), 'waymark-labels-'));
    try {
      const files = await writeShapeFiles(dir, shapes);
      expect(Object.keys(files)).toEqual(expect.arrayContaining(['shapes/labelFirst.u32', 'shapes/labelText.u8', 'shapes/labelName.i32']));
      // Read back through the map's one door, which checks them against a manifest.
      await writeFile(join(dir, 'manifest.json'), JSON.stringify({ formatVersion: MAP_FORMAT_VERSION, files, shapes: { grid: shapes.grid } }));
      const back = await readShapeFiles(dir);
      for (const key of [...LABEL_ARRAYS, 'pointsE7'] as const) {
        expect(back[key].constructor).toBe(shapes[key].constructor);
        expect(Array.from(back[key])).toEqual(Array.from(shapes[key]));
        expect(back[key].buffer).toBeInstanceOf(SharedArrayBuffer);
      }
      expect(roadLabelAt(back, 0)).toEqual({ name: 'Landstrasse', ref: '28' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives a way with signs a label of its own: its destinations for the profiles it is oneway for, and its exit numbers', async () => {
    const signed: OsmWay = {
      id: 8,
      refs: [12, 13, 14],
      tags: { highway: 'primary', name: 'Landstrasse', ref: '28', oneway: 'yes', destination: 'Vaduz;Schaan', 'junction:ref': '4;5' },
    };
    const osm = smallOsm([signed]);
    const pool = buildShapePool(osm);
    const shapes = shapesOf(pool);
    const start = (way: number) => pool.wayStart[osm.wayIds.indexOf(way)];
    const label = labelAt(shapes, start(8));
    expect(label).not.toBe(labelAt(shapes, start(1)));
    expect(roadLabelAt(shapes, start(8))).toEqual({ name: 'Landstrasse', ref: '28' });
    // Oneway for cars and lorries (bits 0 and 1); bicycles read no signs, and walkers may go both ways.
    const signs = { destinations: 'Vaduz, Schaan', shownTo: 0b0011, exits: '4; 5' };
    expect(labelSigns(shapes, label)).toEqual(signs);
    expect(labelSigns(shapes, labelAt(shapes, start(1)))).toEqual({ destinations: null, shownTo: 0, exits: null });
    const dir = await mkdtemp(join(tmpdir(), 'waymark-labels-'));
    try {
      const files = await writeShapeFiles(dir, shapes);
      expect(Object.keys(files)).toEqual(expect.arrayContaining(['shapes/labelDestinations.i32', 'shapes/labelDestinationsShown.u8', 'shapes/labelExits.i32']));
      await writeFile(join(dir, 'manifest.json'), JSON.stringify({ formatVersion: MAP_FORMAT_VERSION, files, shapes: { grid: shapes.grid } }));
      expect(labelSigns(await readShapeFiles(dir), label)).toEqual(signs);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('road labels on the Liechtenstein map', () => {
  let car: TestGraph;
  let osm: OsmData;
  let wayOf: Float64Array;
  let tagsOf: Map<number, Record<string, string>>;

  beforeAll(async () => {
    const map = await testMap();
    car = map.graphs['driving-car'];
    osm = await loadOsm(DEFAULT_EXTRACT);
    tagsOf = new Map(osm.ways.map((w) => [w.id, w.tags]));
    // Areas (parkings, squares) may share a street's segments: only ways a car may take.
    const carWays = osm.ways.filter((w) => wayAccess('driving-car', w.tags));
    wayOf = geometryWays(car, carWays, (ref) => osm.coord(ref));
  }, 300_000);
  afterAll(() => {
    tagsOf?.clear();
  });

  const expected = (way: number) => ({ name: tagsOf.get(way)?.name || null, ref: tagsOf.get(way)?.ref || null });

  it('labels every geometry with its OSM way’s name and ref', () => {
    let checked = 0,
      named = 0,
      wrong = 0;
    for (let g = 0; g < car.geomCount; g++) {
      if (Number.isNaN(wayOf[g])) continue;
      const label = roadLabelAt(car.shapes, car.geomFirst[g]);
      const want = expected(wayOf[g]);
      // Two roads over the same segment (rare) make the way found for a geometry ambiguous.
      if (label.name !== want.name || label.ref !== want.ref) wrong++;
      // Every point of the geometry is on the same way.
      expect(roadLabelAt(car.shapes, car.geomLast[g])).toEqual(label);
      checked++;
      if (label.name) named++;
    }
    expect(checked).toBeGreaterThan(0.95 * car.geomCount);
    expect(named).toBeGreaterThan(0.3 * checked);
    expect(wrong).toBeLessThan(0.002 * checked);
  });

  it('names the street nearest to Vaduz’s centre', () => {
    const hit = nearestSegment(car, 47.1393, 9.5215, 200, () => true);
    expect(hit).not.toBeNull();
    const label = roadLabelAt(car.shapes, car.geomFirst[hit!.geom]);
    expect(typeof label.name).toBe('string');
    expect(label.name!.length).toBeGreaterThan(0);
    expect(label).toEqual(expected(wayOf[hit!.geom]));
  });

  it('gives the main road its ref', () => {
    // Liechtenstein's main road through Schaan, the Swiss 16 (Landstrasse's ref 28 is only on its roundabouts).
    const main = osm.ways.filter((w) => w.tags.highway && w.tags.ref === '16' && w.tags.name === 'Feldkircher Strasse').map((w) => w.id);
    expect(main.length).toBeGreaterThan(0);
    const geoms = [...wayOf.keys()].filter((g) => main.includes(wayOf[g]));
    expect(geoms.length).toBeGreaterThan(0);
    for (const g of geoms) expect(roadLabelAt(car.shapes, car.geomFirst[g])).toEqual({ name: 'Feldkircher Strasse', ref: '16' });
  });

  it('is what the build made, read back from the map directory', () => {
    const built: RoadLabels = buildShapePool(osm).labels;
    for (const key of LABEL_ARRAYS) {
      expect(Array.from(car.shapes[key])).toEqual(Array.from(built[key]));
    }
  });
});
