// OSM → one profile's graph input: usable ways cut into geometries at intersections (nodes shared by
// usable ways, way ends, gaps where the extract lacks a node), with durations per direction and the
// profile's turn restrictions.
import { greatCircleMeters as haversine } from '../geo/great-circle.js';
import type { GraphInput } from './graph-assemble.js';
import type { OsmData } from './osm-data.js';
import { turnRestriction, wayAccess, type ProfileName } from './profiles.js';


/** Tenths of a second to cover `meters` at `kmh`; 0 when closed. */
const tenths = (meters: number, kmh: number): number => (kmh > 0 ? Math.max(1, Math.round((meters / (kmh / 3.6)) * 10)) : 0);

export function buildGraphInput(osm: OsmData, profile: ProfileName): GraphInput {
  // Usable ways split into pieces of present nodes (index into osm arrays).
  const pieces: Array<{ way: number; idx: Int32Array; fwd: number; bwd: number }> = [];
  const usage = new Uint8Array(osm.nodeCount);
  const usableWays = new Set<number>();
  for (const way of osm.ways) {
    const access = wayAccess(profile, way.tags);
    if (!access || (access.forward === 0 && access.backward === 0)) continue;
    usableWays.add(way.id);
    let run: number[] = [];
    const flush = (): void => {
      if (run.length >= 2) pieces.push({ way: way.id, idx: Int32Array.from(run), fwd: access.forward, bwd: access.backward });
      run = [];
    };
    for (const ref of way.refs) {
      const i = osm.nodeIndex(ref);
      if (i < 0) flush();
      else run.push(i);
    }
    flush();
  }
  for (const piece of pieces) {
    const idx = piece.idx;
    for (let k = 0; k < idx.length; k++) {
      const n = idx[k];
      usage[n] = Math.min(2, usage[n] + (k === 0 || k === idx.length - 1 ? 2 : 1));
    }
  }
  // Graph nodes: every node used twice (junctions, self-touching ways) or ending a piece.
  const nodeOf = new Int32Array(osm.nodeCount).fill(-1);
  let nodeCount = 0;
  for (let i = 0; i < osm.nodeCount; i++) if (usage[i] >= 2) nodeOf[i] = nodeCount++;
  const nodeCoords = new Float64Array(2 * nodeCount);
  for (let i = 0; i < osm.nodeCount; i++) {
    const v = nodeOf[i];
    if (v >= 0) {
      nodeCoords[2 * v] = osm.nodeCoords[2 * i];
      nodeCoords[2 * v + 1] = osm.nodeCoords[2 * i + 1];
    }
  }

  const geomA: number[] = [], geomB: number[] = [], geomFwd: number[] = [], geomBwd: number[] = [], geomWay: number[] = [], geomLength: number[] = [];
  const geomFirst: number[] = [0];
  const coords: number[] = [];
  for (const piece of pieces) {
    const idx = piece.idx;
    let start = 0;
    for (let k = 1; k < idx.length; k++) {
      if (nodeOf[idx[k]] < 0) continue;
      let length = 0;
      for (let j = start; j <= k; j++) {
        const n = idx[j];
        coords.push(osm.nodeCoords[2 * n], osm.nodeCoords[2 * n + 1]);
        if (j > start) {
          const m = idx[j - 1];
          length += haversine(osm.nodeCoords[2 * m], osm.nodeCoords[2 * m + 1], osm.nodeCoords[2 * n], osm.nodeCoords[2 * n + 1]);
        }
      }
      geomA.push(nodeOf[idx[start]]);
      geomB.push(nodeOf[idx[k]]);
      geomFwd.push(tenths(length, piece.fwd));
      geomBwd.push(tenths(length, piece.bwd));
      geomWay.push(piece.way);
      geomLength.push(length);
      geomFirst.push(coords.length / 2);
      start = k;
    }
  }

  const restrictions: GraphInput['restrictions'] = [];
  for (const rel of osm.relations) {
    const r = turnRestriction(profile, rel.tags, rel.members);
    if (!r || !usableWays.has(r.fromWay) || !usableWays.has(r.toWay)) continue;
    const i = osm.nodeIndex(r.viaNode);
    if (i < 0 || nodeOf[i] < 0) continue;
    restrictions.push({ via: nodeOf[i], fromWay: r.fromWay, toWay: r.toWay, only: r.only });
  }

  return {
    nodeCount, nodeCoords,
    geomA: Uint32Array.from(geomA), geomB: Uint32Array.from(geomB),
    geomFwd: Uint32Array.from(geomFwd), geomBwd: Uint32Array.from(geomBwd),
    geomWay: Float64Array.from(geomWay), geomLength: Float64Array.from(geomLength),
    geomFirst: Uint32Array.from(geomFirst), geomCoords: Float64Array.from(coords),
    restrictions,
  };
}
