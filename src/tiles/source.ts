// What the base map draws, read from the extract in three passes (relations, ways, nodes) like the
// routing build: memory grows with the kept ways' node references and coordinates, never with the
// extract's tags. Geometry is kept in flat Float64Arrays (lon, lat pairs) until a tile asks for it.
import { NODES, PrimitiveBlock, readOsmBlobs, RELATIONS, WayCursor, WAYS } from '../map/osm-pbf.js';
import { Growable } from '../map/typed-pools.js';
import { boundary, classifyPlace, classifyWay, isAreaRelation, isBoundaryRelation, type Kind } from './classify.js';

/**
 * A feature in lon/lat: a point, a way (nodes[start, end) of its source: a line, or one ring when its
 * kind is an area), or polygons of a multipolygon relation (each a list of rings, outer first).
 */
export interface SourceFeature {
  kind: Kind;
  /** [west, south, east, north] */
  bbox: [number, number, number, number];
  point?: [number, number];
  start?: number;
  end?: number;
  polygons?: Float64Array[][];
}

/** The features, and the nodes their ways use (indices into lon and lat). */
export interface TileSource {
  features: SourceFeature[];
  nodes: Int32Array;
  lon: Float64Array;
  lat: Float64Array;
}

export type SourceProgress = (stage: string, done: number, total: number) => void;

interface AreaRelation { kind: Kind; outer: number[]; inner: number[] }

/** Way keys without one of which a way is drawn only as a relation's member. */
const WAY_KEYS: ReadonlySet<string> = new Set(['highway', 'waterway', 'natural', 'landuse', 'building', 'leisure', 'boundary']);
/** Node keys a place needs. */
const NODE_KEYS: ReadonlySet<string> = new Set(['place', 'name']);

/**
 * Reads the features of the base map from an .osm.pbf file, with the routing build's fast paths: the
 * first pass learns which blobs hold which kinds so later passes skip the rest uninflated, ways and
 * nodes are visited in reused buffers, and only ways with a drawn key get their tags decoded.
 */
export async function readTileSource(path: string, onProgress: SourceProgress = () => {}): Promise<TileSource> {
  const pass = (name: string) => (read: number, total: number) => onProgress(`read extract for tiles (${name})`, read, total);
  const finish = (name: string) => onProgress(`read extract for tiles (${name})`, 0, 0);

  // 1. Relations: multipolygon areas, and the admin level each boundary way is drawn with.
  const areas: AreaRelation[] = [];
  const boundaryLevel = new Map<number, number>();
  const memberWays = new Set<number>();
  const kinds = new Growable(Uint8Array, 1024);
  for await (const { index, data } of readOsmBlobs(path, { onProgress: pass('relations') })) {
    const block = new PrimitiveBlock(data);
    if (index !== kinds.length) throw new Error(`${path}: data blob ${index} read out of order`);
    kinds.push(block.kinds);
    if (!(block.kinds & RELATIONS)) continue;
    for (const r of block.relations()) {
      if (isAreaRelation(r.tags)) {
        const rel: AreaRelation = { kind: classifyWay(r.tags, true)!, outer: [], inner: [] };
        for (const m of r.members) {
          if (m.type !== 'way') continue;
          (m.role === 'inner' ? rel.inner : rel.outer).push(m.ref);
          memberWays.add(m.ref);
        }
        areas.push(rel);
      } else if (isBoundaryRelation(r.tags)) {
        const level = Number(r.tags.admin_level);
        for (const m of r.members) {
          if (m.type !== 'way') continue;
          boundaryLevel.set(m.ref, Math.min(level, boundaryLevel.get(m.ref) ?? 99));
          memberWays.add(m.ref);
        }
      }
    }
  }
  finish('relations');
  const has = (kind: number) => (index: number) => index < kinds.length && (kinds.data[index] & kind) !== 0;

  // Kinds are shared between ways that draw alike (every building, every unnamed minor road).
  const kindsSeen = new Map<string, Kind>();
  const intern = (kind: Kind | null): Kind | null => {
    if (!kind) return null;
    const key = JSON.stringify(kind);
    const seen = kindsSeen.get(key);
    if (seen) return seen;
    kindsSeen.set(key, kind);
    return kind;
  };

  // 2. Ways: their node references, one flat array; what each is drawn as.
  const refs = new Growable(Float64Array, 1 << 16);
  const ways: Array<{ kind: Kind; start: number; end: number }> = [];
  const memberRefs = new Map<number, [number, number]>();
  const cursor = new WayCursor();
  const visitWay = (w: WayCursor): void => {
    const kind = w.hasAnyKey(WAY_KEYS) ? intern(classifyWay(w.tags())) : null;
    const member = memberWays.has(w.id);
    if (!kind && !member) return;
    const start = refs.length;
    refs.reserve(w.refCount);
    for (let i = 0; i < w.refCount; i++) refs.push(w.refs[i]);
    const end = refs.length;
    if (kind) ways.push({ kind, start, end });
    if (member) memberRefs.set(w.id, [start, end]);
    const level = boundaryLevel.get(w.id);
    if (level !== undefined && kind?.layer !== 'boundaries') ways.push({ kind: boundary(String(level))!, start, end });
  };
  for await (const { data } of readOsmBlobs(path, { want: has(WAYS), onProgress: pass('ways') })) {
    new PrimitiveBlock(data).forEachWay(cursor, visitWay);
  }
  finish('ways');

  // 3. Nodes: the coordinates of the referenced nodes (matched by a merge walk over the sorted ids
  // when the file lists nodes in id order, as extracts do), and the places.
  const ids = uniqueSorted(refs.view());
  const lon = new Float64Array(ids.length).fill(NaN), lat = new Float64Array(ids.length).fill(NaN);
  const features: SourceFeature[] = [];
  let at = 0, lastId = -Infinity;
  const visitNode = (id: number, nLat: number, nLon: number, tags: Record<string, string> | null): void => {
    if (id < lastId) at = 0;
    lastId = id;
    while (at < ids.length && ids[at] < id) at++;
    if (at < ids.length && ids[at] === id) {
      lon[at] = nLon;
      lat[at] = nLat;
    }
    const place = tags ? classifyPlace(tags) : null;
    if (place) features.push({ kind: place, bbox: [nLon, nLat, nLon, nLat], point: [nLon, nLat] });
  };
  for await (const { data } of readOsmBlobs(path, { want: has(NODES), onProgress: pass('nodes') })) {
    new PrimitiveBlock(data).forEachNode(NODE_KEYS, visitNode);
  }
  finish('nodes');

  // The kept ways' nodes as indices into lon/lat, one Int32Array for all: a way's geometry is a range
  // of it, so a node shared by ways is stored once and no way has an array of its own.
  const data = refs.data;
  const nodes = new Int32Array(refs.length);
  let k = 0;
  for (const w of ways) {
    const first = k;
    for (let j = w.start; j < w.end; j++) {
      const i = indexOf(ids, data[j]);
      if (i >= 0 && !Number.isNaN(lon[i])) nodes[k++] = i;
    }
    const closed = w.end - w.start >= 4 && data[w.start] === data[w.end - 1];
    if (k - first < 2 || (w.kind.area && (!closed || k - first < 4))) {
      k = first; // too few nodes in the extract, or an open area: not drawn
      continue;
    }
    features.push({ kind: w.kind, bbox: bboxOfRange(nodes, first, k, lon, lat), start: first, end: k });
  }
  for (const rel of areas) {
    const ringsOf = (members: number[]) => joinRings(members.flatMap((id) => {
      const r = memberRefs.get(id);
      return r ? [Array.from(data.subarray(r[0], r[1]))] : [];
    })).map((ring) => ringCoords(ring, ids, lon, lat)).filter((c) => c.length >= 8);
    const outer = ringsOf(rel.outer).map((c) => orient(c, true));
    if (!outer.length) continue;
    const polygons = outer.map((o) => [o]);
    for (const inner of ringsOf(rel.inner).map((c) => orient(c, false))) {
      const home = polygons.find((p) => contains(bboxOf([p[0]]), inner[0], inner[1])) ?? polygons[0];
      home.push(inner);
    }
    features.push({ kind: rel.kind, bbox: bboxOf(outer), polygons });
  }
  return { features, nodes: nodes.slice(0, k), lon, lat };
}

/** The distinct values of `v`, ascending. */
function uniqueSorted(v: Float64Array): Float64Array {
  const sorted = Float64Array.from(v).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i];
  return sorted.slice(0, n);
}

function indexOf(ids: Float64Array, id: number): number {
  let lo = 0, hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < ids.length && ids[lo] === id ? lo : -1;
}

function ringCoords(ring: number[], ids: Float64Array, lon: Float64Array, lat: Float64Array): Float64Array {
  const out: number[] = [];
  for (const ref of ring) {
    const i = indexOf(ids, ref);
    if (i >= 0 && !Number.isNaN(lon[i])) out.push(lon[i], lat[i]);
  }
  return Float64Array.from(out);
}

/** Joins member ways (node id lists) into closed rings by their shared end nodes; open leftovers are dropped. */
export function joinRings(parts: number[][]): number[][] {
  const rings: number[][] = [];
  const open = parts.filter((p) => p.length >= 2);
  while (open.length) {
    const ring = [...open.pop()!];
    for (;;) {
      if (ring.length >= 4 && ring[0] === ring[ring.length - 1]) {
        rings.push(ring);
        break;
      }
      const last = ring[ring.length - 1];
      const i = open.findIndex((p) => p[0] === last || p[p.length - 1] === last);
      if (i < 0) break; // an unclosable ring (the extract cut it): left out
      const next = open.splice(i, 1)[0];
      ring.push(...(next[0] === last ? next : [...next].reverse()).slice(1));
    }
  }
  return rings;
}

/** Twice the signed area of a flat lon/lat ring (positive = counter-clockwise). */
function signedArea(c: Float64Array): number {
  let a = 0;
  for (let i = 0, n = c.length; i < n; i += 2) {
    const j = (i + 2) % n;
    a += c[i] * c[j + 1] - c[j] * c[i + 1];
  }
  return a;
}

/** GeoJSON's winding (outer rings counter-clockwise, holes clockwise), which tiles flip to MVT's. */
function orient(c: Float64Array, outer: boolean): Float64Array {
  if ((signedArea(c) > 0) === outer) return c;
  const r = new Float64Array(c.length);
  for (let i = 0; i < c.length; i += 2) {
    r[c.length - 2 - i] = c[i];
    r[c.length - 1 - i] = c[i + 1];
  }
  return r;
}

function bboxOfRange(nodes: Int32Array, start: number, end: number, lon: Float64Array, lat: Float64Array): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let j = start; j < end; j++) {
    const x = lon[nodes[j]], y = lat[nodes[j]];
    if (x < b[0]) b[0] = x;
    if (x > b[2]) b[2] = x;
    if (y < b[1]) b[1] = y;
    if (y > b[3]) b[3] = y;
  }
  return b;
}

function bboxOf(rings: Float64Array[]): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const c of rings) {
    for (let i = 0; i < c.length; i += 2) {
      if (c[i] < b[0]) b[0] = c[i];
      if (c[i] > b[2]) b[2] = c[i];
      if (c[i + 1] < b[1]) b[1] = c[i + 1];
      if (c[i + 1] > b[3]) b[3] = c[i + 1];
    }
  }
  return b;
}

const contains = (b: [number, number, number, number], x: number, y: number) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
