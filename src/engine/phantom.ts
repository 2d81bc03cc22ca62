// Snapped positions on the road graph ("phantom nodes"): the nearest usable segment, the position along
// its geometry, the search seeds that start or end a path there, and the partial geometry pieces.
import { greatCircleMeters as haversine } from '../lib/geo/sphere.js';
import { E7, edgeTail, NO_HEAD, toDegrees, type RoadGraph } from '../map/graphs/road-graph.js';
import { nearestSegment, type GridView } from '../map/graphs/segment-grid.js';
import type { Seed } from './route-kernel.js';

export const SNAP_LIMIT_M = 500;
/** How much farther a road of the main network may be than a nearer isolated piece and still be preferred. */
export const MAIN_NETWORK_PREFERENCE_M = 25;

export interface Phantom {
  geom: number;
  /** Meters from the geometry's first point. */
  along: number;
  /** along / length, exactly 0 or 1 at the geometry's end nodes. */
  fraction: number;
  lat: number;
  lon: number;
  /** Meters from the requested location. */
  offset: number;
  /** The first point of the segment it lies on (in the shared shapes). */
  point: number;
  /** The directions a path may leave or arrive in (a waypoint's bearing or curb side): bit 1 along the
   *  geometry, bit 2 against it; absent: any, at the end nodes also from or to any other way. */
  dirs?: number;
}

/** Directions of `Phantom.dirs`. */
export const ALONG = 1,
  AGAINST = 2;

/** How a seed's partial piece runs: along the geometry to its end, against it to its start, or none (at a node). */
export type SeedKind = 'fwd' | 'bwd' | 'node';
export interface PhantomSeed extends Seed {
  kind: SeedKind;
}

export function gridView(g: RoadGraph): GridView {
  return { shapes: g.shapes, geomFirst: g.geomFirst, geomLast: g.geomLast };
}

/** Whether a geometry belongs to the main network: one of its directed edges ends on it. */
export function onMainNetwork(g: RoadGraph, geom: number): boolean {
  for (const d of [2 * geom, 2 * geom + 1]) {
    const v = g.origHead[d];
    if (v !== NO_HEAD && g.mainNet[v] === 1) return true;
  }
  return false;
}

/**
 * The nearest usable position within maxMeters; a piece cut off from the main network (a parking aisle
 * behind a private road, a road at the extract's edge) loses to a main-network road at most
 * `mainPreference` meters farther (Infinity: any main-network road within maxMeters wins).
 */
export function snap(
  g: RoadGraph,
  grid: GridView,
  lat: number,
  lon: number,
  maxMeters = SNAP_LIMIT_M,
  mainPreference = MAIN_NETWORK_PREFERENCE_M,
  usable: (geom: number, point: number) => boolean = () => true,
): Phantom | null {
  let hit = nearestSegment(grid, lat, lon, maxMeters, usable);
  if (!hit) return null;
  if (!onMainNetwork(g, hit.geom)) {
    const main = nearestSegment(
      grid,
      lat,
      lon,
      Math.min(maxMeters, hit.distance + mainPreference),
      (geom, point) => onMainNetwork(g, geom) && usable(geom, point),
    );
    if (main) hit = main;
  }
  let along = 0;
  for (let p = g.geomFirst[hit.geom]; p < hit.point; p++) along += segmentMeters(g.shapes.pointsE7, p);
  const length = g.geomCm[hit.geom] / 100;
  if (hit.t === 1 && hit.point === g.geomLast[hit.geom] - 1) along = length;
  else along += hit.t * segmentMeters(g.shapes.pointsE7, hit.point);
  // Within a centimetre of an end is at the end node (rounding leaves a hair): the path may then end in
  // any state of that node, such as a via-way restriction's copy of it (statesArrivingAt).
  if (along < AT_NODE_M) along = 0;
  else if (length - along < AT_NODE_M) along = length;
  const fraction = length > 0 ? Math.min(1, along / length) : 0;
  return { geom: hit.geom, along: Math.min(along, length), fraction, lat: hit.lat, lon: hit.lon, offset: hit.distance, point: hit.point };
}

/** Search states "standing at" the tail of directed original edge d: the tails of its search edges. */
function statesAtTail(g: RoadGraph, d: number): number[] {
  const nodes: number[] = [];
  for (let i = g.origFirst[d]; i < g.origFirst[d + 1]; i++) nodes.push(edgeTail(g, g.origEdges[i]));
  return nodes;
}

/** States at a geometry end node: arrived there by the other direction's edge, or leaving from it. */
function statesAtEnd(g: RoadGraph, geom: number, atStart: boolean): number[] {
  const arriving = atStart ? 2 * geom + 1 : 2 * geom;
  const leaving = atStart ? 2 * geom : 2 * geom + 1;
  const nodes = statesAtTail(g, leaving);
  if (g.origHead[arriving] !== NO_HEAD) nodes.push(g.origHead[arriving]);
  return [...new Set(nodes)];
}

/** Meters from a geometry's end within which a snapped position is taken to be at its end node. */
const AT_NODE_M = 0.01;

/**
 * Every state a path can end in at a geometry end node: those of statesAtEnd, and each copy of the node
 * that a search edge arrives at over any open way into it (a via-way restriction's copy of its last via
 * node, say, which may have no way on along this geometry). Ways into the node are found as the reverses
 * of the ways out of it, so a oneway that only enters the node adds nothing.
 */
function statesArrivingAt(g: RoadGraph, geom: number, atStart: boolean): number[] {
  const nodes = new Set(statesAtEnd(g, geom, atStart));
  for (const s of [...nodes]) {
    for (let e = g.firstOut[s]; e < g.firstOut[s + 1]; e++) {
      const into = g.orig[e] ^ 1;
      for (let i = g.origFirst[into]; i < g.origFirst[into + 1]; i++) nodes.add(g.head[g.origEdges[i]]);
    }
  }
  return [...nodes];
}

/** Seeds of a path leaving from the phantom. */
export function sourceSeeds(g: RoadGraph, ph: Phantom): PhantomSeed[] {
  const seeds: PhantomSeed[] = [];
  const len = g.geomCm[ph.geom] / 100;
  const fwd = 2 * ph.geom,
    bwd = fwd + 1;
  const dirs = ph.dirs ?? ALONG | AGAINST;
  if (g.origWeight[fwd] > 0 && dirs & ALONG)
    seeds.push({ node: g.origHead[fwd], cost: (1 - ph.fraction) * g.origWeight[fwd], meters: len - ph.along, kind: 'fwd' });
  if (g.origWeight[bwd] > 0 && dirs & AGAINST) seeds.push({ node: g.origHead[bwd], cost: ph.fraction * g.origWeight[bwd], meters: ph.along, kind: 'bwd' });
  if ((ph.fraction === 0 || ph.fraction === 1) && ph.dirs === undefined)
    for (const node of statesAtEnd(g, ph.geom, ph.fraction === 0)) seeds.push({ node, cost: 0, meters: 0, kind: 'node' });
  return seeds;
}

/** Seeds of a path arriving at the phantom (costs of the last partial piece included). */
export function targetSeeds(g: RoadGraph, ph: Phantom): PhantomSeed[] {
  const seeds: PhantomSeed[] = [];
  const len = g.geomCm[ph.geom] / 100;
  const fwd = 2 * ph.geom,
    bwd = fwd + 1;
  const dirs = ph.dirs ?? ALONG | AGAINST;
  if (g.origWeight[fwd] > 0 && dirs & ALONG)
    for (const node of statesAtTail(g, fwd)) seeds.push({ node, cost: ph.fraction * g.origWeight[fwd], meters: ph.along, kind: 'fwd' });
  if (g.origWeight[bwd] > 0 && dirs & AGAINST)
    for (const node of statesAtTail(g, bwd)) seeds.push({ node, cost: (1 - ph.fraction) * g.origWeight[bwd], meters: len - ph.along, kind: 'bwd' });
  if ((ph.fraction === 0 || ph.fraction === 1) && ph.dirs === undefined)
    for (const node of statesArrivingAt(g, ph.geom, ph.fraction === 0)) seeds.push({ node, cost: 0, meters: 0, kind: 'node' });
  return seeds;
}

/** Shape of a geometry between two positions along it (meters from its start), in travel order, as [lon, lat]. */
export function geometryPiece(g: RoadGraph, geom: number, from: number, to: number): Array<[number, number]> {
  const lo = Math.min(from, to),
    hi = Math.max(from, to);
  const first = g.geomFirst[geom],
    n = g.geomLast[geom] - first + 1;
  const c = degreesOf(g, geom);
  const cum = new Float64Array(n);
  for (let k = 1; k < n; k++) cum[k] = cum[k - 1] + segmentMeters(g.shapes.pointsE7, first + k - 1);
  const interp = (x: number): [number, number] => {
    let k = 0;
    while (k < n - 2 && cum[k + 1] < x) k++;
    const seg = cum[k + 1] - cum[k];
    const t = seg > 0 ? Math.min(1, Math.max(0, (x - cum[k]) / seg)) : 0;
    return [c[2 * k + 1] + t * (c[2 * k + 3] - c[2 * k + 1]), c[2 * k] + t * (c[2 * k + 2] - c[2 * k])];
  };
  const out: Array<[number, number]> = [interp(lo)];
  for (let k = 0; k < n; k++) if (cum[k] > lo && cum[k] < hi) out.push([c[2 * k + 1], c[2 * k]]);
  out.push(interp(hi));
  return from <= to ? out : out.reverse();
}

/**
 * A polyline being built: lon, lat pairs in 1e-7° integers, as the shapes store them, in a growable
 * Int32Array: a far route's tens of thousands of points are copied, not converted, and the reply's
 * text is written from the integers.
 */
export class Polyline {
  private data: Int32Array;
  /** Values held (two per point). */
  length = 0;

  /** `capacity`: the values it is expected to hold (it grows past them if need be). */
  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }

  /** The array with room for `values` more values after `length` (the caller writes them and moves `length`). */
  reserve(values: number): Int32Array {
    if (this.length + values > this.data.length) {
      const grown = new Int32Array(Math.max(this.data.length * 2, this.length + values));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    return this.data;
  }

  /** A point in degrees (a snapped position between two shape points), to the nearest 1e-7°. */
  push(lon: number, lat: number): void {
    const data = this.reserve(2);
    data[this.length++] = Math.round(lon * 1e7);
    data[this.length++] = Math.round(lat * 1e7);
  }

  /** The values held (a view: valid until the line grows). */
  valuesE7(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** Appends the shape of a directed original edge in travel order, without its first point (where the line stands). */
export function appendEdgeShape(line: Polyline, g: RoadGraph, d: number): void {
  const geom = d >> 1,
    c = g.shapes.pointsE7;
  const first = g.geomFirst[geom],
    last = g.geomLast[geom];
  // Room for the whole edge at once: a far route appends tens of thousands of points.
  const out = line.reserve(2 * (last - first));
  let q = line.length;
  if (d & 1) {
    for (let p = last - 1; p >= first; p--) {
      out[q++] = c[2 * p + 1];
      out[q++] = c[2 * p];
    }
  } else {
    for (let p = first + 1; p <= last; p++) {
      out[q++] = c[2 * p + 1];
      out[q++] = c[2 * p];
    }
  }
  line.length = q;
}

/** Full shape of a directed original edge, as [lon, lat] in travel order. @internal (tests) */
export function edgeShape(g: RoadGraph, d: number): Array<[number, number]> {
  const geom = d >> 1;
  const c = g.shapes.pointsE7;
  const out: Array<[number, number]> = [];
  for (let p = g.geomFirst[geom]; p <= g.geomLast[geom]; p++) out.push([c[2 * p + 1] * E7, c[2 * p] * E7]);
  return d & 1 ? out.reverse() : out;
}

/** Great-circle meters of the segment from point p to p+1. */
function segmentMeters(c: Int32Array, p: number): number {
  return haversine(c[2 * p] * E7, c[2 * p + 1] * E7, c[2 * p + 2] * E7, c[2 * p + 3] * E7);
}

/** A geometry's points in degrees, lat, lon pairs from its first point. */
function degreesOf(g: RoadGraph, geom: number): Float64Array {
  return toDegrees(g.shapes.pointsE7.subarray(2 * g.geomFirst[geom], 2 * g.geomLast[geom] + 2));
}
