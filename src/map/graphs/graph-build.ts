// OSM → one profile's graph input: usable ways cut into geometries at intersections (nodes shared by
// usable ways, way ends, gaps where the extract lacks a node), with durations per direction and the
// profile's turn restrictions (through via nodes and along via ways) and maneuver relations.
//
// A "piece" is a maximal run of a usable way's nodes that the extract has and that do not close the way
// to the profile (at least two). Pieces are
// walked three times straight off the compact way arrays instead of being materialised: to find the
// graph nodes, to count geometries and their vertices (so every output array is allocated once at its
// final size), and to fill them.
import { resolveManeuvers } from './maneuvers.js';
import { hilbertNumbering } from './node-order.js';
import { greatCircleMeters as haversine } from '../../lib/geo/sphere.js';
import type { GraphInput } from './graph-assemble.js';
import type { OsmData } from '../osm/osm-data.js';
import { RESTRICTION_ONLY, type ProfileWays } from './profile-ways.js';
import { guided, PROFILES, type ProfileName } from './profiles.js';
import type { ShapePool } from './shapes.js';

/** Tenths of a second to cover `meters` at `kmh`; 0 when closed. */
const tenths = (meters: number, kmh: number): number => (kmh > 0 ? Math.max(1, Math.round((meters / (kmh / 3.6)) * 10)) : 0);

/**
 * Calls `visit(way, start, end)` for each piece [start, end) of wayNodes of the profile's usable ways, in way
 * order. A barrier node is left out with the segments beside it: simpler than splitting the node per way
 * side, at the cost of the few meters up to the barrier.
 */
function forEachPiece(osm: OsmData, roads: ProfileWays, profile: number, visit: (way: number, start: number, end: number) => void): void {
  const { wayFirst, wayNodes } = osm;
  const { waySpeeds, nodeBlocked } = roads;
  const P = PROFILES.length;
  const bit = 1 << profile;
  for (let w = 0; w < osm.wayCount; w++) {
    if (!waySpeeds[w * P + profile]) continue;
    let start = wayFirst[w];
    const end = wayFirst[w + 1];
    for (let k = start; k < end; k++) {
      // A node the extract lacks, or one that closes the way to the profile (a bollard, a wall), ends the piece.
      if (wayNodes[k] >= 0 && !(nodeBlocked[wayNodes[k]] & bit)) continue;
      if (k - start >= 2) visit(w, start, k);
      start = k + 1;
    }
    if (end - start >= 2) visit(w, start, end);
  }
}

/**
 * The profile's graph input; its geometries are runs of the shared points (`wayStart` from the shape
 * pool), and their segments are marked in the pool's `used` bits.
 */
export function buildGraphInput(osm: OsmData, profile: ProfileName, pool: ShapePool): GraphInput {
  const p = PROFILES.indexOf(profile);
  if (p < 0) throw new Error(`unknown profile ${profile}`);
  const P = PROFILES.length;
  const roads = pool.roads;
  if (!roads) throw new Error('buildGraphInput: the shape pool is done with its profile builds');
  const { wayNodes, wayIds } = osm;
  const { waySpeeds, speeds } = roads;
  const coordsIn = osm.nodeCoords;

  // Graph nodes: every node used twice (junctions, self-touching ways) or ending a piece.
  const usage = new Uint8Array(osm.nodeCount);
  forEachPiece(osm, roads, p, (_w, start, end) => {
    for (let k = start; k < end; k++) {
      const n = wayNodes[k];
      usage[n] = Math.min(2, usage[n] + (k === start || k === end - 1 ? 2 : 1));
    }
  });
  const nodeOf = new Int32Array(osm.nodeCount).fill(-1);
  let nodeCount = 0;
  for (let i = 0; i < usage.length; i++) if (usage[i] >= 2) nodeOf[i] = nodeCount++;
  const fileOrder = new Float64Array(2 * nodeCount);
  for (let i = 0; i < nodeOf.length; i++) {
    const v = nodeOf[i];
    if (v >= 0) {
      fileOrder[2 * v] = coordsIn[2 * i];
      fileOrder[2 * v + 1] = coordsIn[2 * i + 1];
    }
  }
  // Numbered along a space-filling curve for the searches' memory locality (node-order.ts).
  const numberOf = hilbertNumbering(fileOrder, nodeCount);
  const nodeCoords = new Float64Array(2 * nodeCount);
  for (let i = 0; i < nodeOf.length; i++) {
    if (nodeOf[i] < 0) continue;
    const v = (nodeOf[i] = numberOf[nodeOf[i]]);
    nodeCoords[2 * v] = coordsIn[2 * i];
    nodeCoords[2 * v + 1] = coordsIn[2 * i + 1];
  }

  // A geometry runs from a graph node to the next one along a piece.
  let geomCount = 0;
  forEachPiece(osm, roads, p, (_w, start, end) => {
    for (let k = start + 1; k < end; k++) if (nodeOf[wayNodes[k]] >= 0) geomCount++;
  });
  const geomA = new Uint32Array(geomCount),
    geomB = new Uint32Array(geomCount);
  const geomFwd = new Uint32Array(geomCount),
    geomBwd = new Uint32Array(geomCount);
  const geomWay = new Float64Array(geomCount),
    geomCm = new Uint32Array(geomCount);
  const geomFirst = new Uint32Array(geomCount),
    geomLast = new Uint32Array(geomCount);
  const geomClass = new Uint8Array(geomCount);
  const geomLanes = new Uint8Array(geomCount);
  const { wayFirst } = osm;
  // The lorry's limits per geometry (its way's, and those of barrier nodes on it), so that each route keeps
  // off the ways too small for its lorry.
  const lorry = profile === 'driving-hgv';
  const limits = lorry ? roads.limits : { way: new Uint32Array(0), values: new Float64Array(0) };
  const nodeLimit = new Map<number, number>();
  if (lorry) roads.nodeLimits.node.forEach((node, i) => nodeLimit.set(node, i));
  const limitGeom: number[] = [],
    limitValue: number[] = [];
  let nextLimit = 0;
  let g = 0;
  forEachPiece(osm, roads, p, (w, start, end) => {
    const speed = waySpeeds[w * P + p];
    const fwd = speeds[2 * speed],
      bwd = speeds[2 * speed + 1];
    const shift = pool.wayStart[w] - wayFirst[w];
    // Pieces come in way order, and limits.way is ascending.
    while (nextLimit < limits.way.length && limits.way[nextLimit] < w) nextLimit++;
    const limited = nextLimit < limits.way.length && limits.way[nextLimit] === w ? nextLimit : -1;
    let from = start;
    for (let k = start + 1; k < end; k++) {
      if (nodeOf[wayNodes[k]] < 0) continue;
      let length = 0;
      for (let j = from + 1; j <= k; j++) {
        const m = wayNodes[j - 1],
          n = wayNodes[j];
        length += haversine(coordsIn[2 * m], coordsIn[2 * m + 1], coordsIn[2 * n], coordsIn[2 * n + 1]);
        pool.used[(shift + j - 1) >> 3] |= 1 << ((shift + j - 1) & 7);
      }
      geomA[g] = nodeOf[wayNodes[from]];
      geomB[g] = nodeOf[wayNodes[k]];
      geomFwd[g] = tenths(length, fwd);
      geomBwd[g] = tenths(length, bwd);
      geomWay[g] = wayIds[w];
      geomCm[g] = Math.round(length * 100);
      geomFirst[g] = shift + from;
      geomLast[g] = shift + k;
      geomClass[g] = roads.wayClasses[w * P + p];
      geomLanes[g] = roads.wayLanes[w];
      let height = limited >= 0 ? limits.values[4 * limited] : Infinity,
        width = limited >= 0 ? limits.values[4 * limited + 1] : Infinity;
      if (nodeLimit.size) {
        for (let j = from; j <= k; j++) {
          const at = nodeLimit.get(wayNodes[j]);
          if (at === undefined) continue;
          height = Math.min(height, roads.nodeLimits.values[2 * at]);
          width = Math.min(width, roads.nodeLimits.values[2 * at + 1]);
        }
      }
      if (limited >= 0 || height < Infinity || width < Infinity) {
        limitGeom.push(g);
        limitValue.push(height, width, limited >= 0 ? limits.values[4 * limited + 2] : Infinity, limited >= 0 ? limits.values[4 * limited + 3] : Infinity);
      }
      g++;
      from = k;
    }
  });

  const restrictions: GraphInput['restrictions'] = [];
  const viaWayRestrictions: GraphInput['viaWayRestrictions'] = [];
  const r = roads.restrictions;
  const bit = 1 << p;
  const usable = (way: number): boolean => ((r.wayProfiles.get(way) ?? 0) & bit) !== 0;
  const graphNode = (id: number): number => {
    const n = osm.nodeIndex(id);
    return n < 0 ? -1 : nodeOf[n];
  };
  for (let i = 0; i < r.count; i++) {
    const kind = r.kind[i * P + p];
    if (!kind) continue;
    const fromWay = r.fromWay[i],
      toWay = r.toWay[i],
      viaWays = r.viaWays[i];
    if (!usable(fromWay) || !usable(toWay) || !viaWays.every(usable)) continue;
    const via = graphNode(r.via[i]);
    if (via < 0) continue;
    const only = kind === RESTRICTION_ONLY;
    if (!viaWays.length) restrictions.push({ via, fromWay, toWay, only });
    else {
      const path = r.viaPath[i].map(graphNode);
      if (path.every((n) => n >= 0)) viaWayRestrictions.push({ nodes: [via, ...path], fromWay, viaWays, toWay, only });
    }
  }

  return {
    nodeCount,
    nodeCoords,
    geomA,
    geomB,
    geomFwd,
    geomBwd,
    geomWay,
    geomCm,
    geomFirst,
    geomLast,
    restrictions,
    viaWayRestrictions,
    maneuvers: resolveManeuvers(osm.maneuverRelations, { geomA, geomB, geomFwd, geomBwd, geomWay }, graphNode),
    limitGeom: Uint32Array.from(limitGeom),
    limitValue: Float64Array.from(limitValue),
    geomClass,
    geomLanes,
    guided: guided(profile),
  };
}
