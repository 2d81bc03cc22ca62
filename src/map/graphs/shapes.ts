// The shapes every profile shares: the points of each way some profile can use, stored once for the map
// (a profile's geometry is a run of them) with the ways' names and refs, and the grid over the segments
// the profiles use.
import type { OsmData } from '../osm/osm-data.js';
import { applyProfiles, type ProfileWays } from './profile-ways.js';
import { PROFILES } from './profiles.js';
import { E7, type RoadLabels, type Shapes } from './road-graph.js';
import { buildRoadLabels } from './road-labels.js';
import { buildSegmentGrid } from './segment-grid.js';

/** The points of the routable ways: where each way's run starts (-1: no profile uses the way) and the points. */
export interface ShapePool {
  /** Per kept way of the extract, the index of its first point in pointsE7, or -1. */
  wayStart: Int32Array;
  /** lat, lon pairs in 1e-7 degrees; a node the extract lacks is (0, 0) and starts no used segment. */
  pointsE7: Int32Array;
  /** Bit p: some profile's geometry has the segment from point p to p+1 (set by the graph builds). */
  used: Uint8Array;
  /** The ways' names and refs per run of points. */
  labels: RoadLabels;
  /** The profiles applied to the extract's ways, which the profile builds read (null once they are done). */
  roads: ProfileWays | null;
}

/** The graph stage's start: the profiles applied to the OSM stage's output, and the points of the ways they use. */
export function buildShapePool(osm: OsmData): ShapePool {
  const roads = applyProfiles(osm);
  const { waySpeeds } = roads;
  const { wayFirst, wayNodes, nodeCoords } = osm;
  const P = PROFILES.length;
  const wayStart = new Int32Array(osm.wayCount).fill(-1);
  let points = 0;
  for (let w = 0; w < osm.wayCount; w++) {
    let routable = false;
    for (let p = 0; p < P; p++) if (waySpeeds[w * P + p]) routable = true;
    if (!routable) continue;
    wayStart[w] = points;
    points += wayFirst[w + 1] - wayFirst[w];
  }
  const pointsE7 = new Int32Array(2 * points);
  for (let w = 0; w < osm.wayCount; w++) {
    if (wayStart[w] < 0) continue;
    for (let k = wayFirst[w], q = wayStart[w]; k < wayFirst[w + 1]; k++, q++) {
      const n = wayNodes[k];
      if (n < 0) continue;
      pointsE7[2 * q] = Math.round(nodeCoords[2 * n] / E7);
      pointsE7[2 * q + 1] = Math.round(nodeCoords[2 * n + 1] / E7);
    }
  }
  const labels = buildRoadLabels(roads.roadLabels, wayStart, (w) => wayFirst[w + 1] - wayFirst[w]);
  return { wayStart, pointsE7, used: new Uint8Array((points >> 3) + 1), labels, roads };
}

/** The shapes while profiles are still being built: the points, no grid yet (the build never queries it). */
export function pendingShapes(pool: ShapePool): Shapes {
  return {
    ...pool.labels,
    pointsE7: pool.pointsE7,
    grid: { minLat: 0, minLon: 0, cellLat: 1, cellLon: 1, rows: 0, cols: 0 },
    gridFirst: new Uint32Array(1),
    gridItems: new Uint32Array(0),
  };
}

/** The shared shapes of a pool whose used segments the profile builds have marked. */
export function shapesOf(pool: Pick<ShapePool, 'pointsE7' | 'used' | 'labels'>): Shapes {
  const grid = buildSegmentGrid(pool.used, pool.pointsE7);
  return { ...pool.labels, pointsE7: pool.pointsE7, grid: grid.params, gridFirst: grid.first, gridItems: grid.items };
}
