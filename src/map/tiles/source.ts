// What the base map draws, read from the extract in three passes (relations, ways, nodes) like the
// routing build: memory grows with the kept ways' node references and coordinates, never with the
// extract's tags. Geometry is kept in flat Float64Arrays (lon, lat pairs) until a tile asks for it.
import { NODES, PrimitiveBlock, readOsmBlobs, RELATIONS, WayCursor, WAYS } from '../osm/osm-pbf.js';
import { Growable } from '../../lib/typed-pools.js';
import { closedRings } from '../../lib/geo/rings.js';
import { boundary, classifyPlace, classifyWay, isAreaRelation, isBoundaryRelation, type Kind } from './classify.js';

/** A place (a point) or a multipolygon relation (polygons, each a list of lon/lat rings, outer first). */
export interface SourceFeature {
  kind: Kind;
  /** [west, south, east, north] */
  bbox: [number, number, number, number];
  point?: [number, number];
  polygons?: Float64Array[][];
}

/**
 * What the base map draws. Ways, most of it, are columns rather than objects (a country has millions):
 * way i is drawn as kinds[wayKind[i]], its nodes are nodes[wayStart[i], wayEnd[i]) (a line, or one
 * ring when its kind is an area), its box is wayBox[4i, 4i + 4) (west, south, east, north). Nodes are
 * indices into lon and lat (1e-7 degrees, OSM's own precision), so a node that ways share is stored once.
 */
export interface TileSource {
  ways: number;
  kinds: Kind[];
  wayKind: Int32Array;
  wayStart: Int32Array;
  wayEnd: Int32Array;
  wayBox: Float32Array;
  /** Places and multipolygons: feature `ways + i` is others[i]. */
  others: SourceFeature[];
  nodes: Int32Array;
  lon: Int32Array;
  lat: Int32Array;
}

/** Degrees of the 1e-7 integers lon and lat hold. */
export const E7 = 1e-7;

export type SourceProgress = (stage: string, done: number, total: number) => void;

interface AreaRelation {
  kind: Kind;
  outer: number[];
  inner: number[];
}

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
  const kindsSeen = new Map<string, number>();
  const kindList: Kind[] = [];
  const intern = (kind: Kind): number => {
    let key = `${kind.layer}\u0000${kind.minzoom}\u0000${kind.area}`;
    for (const p in kind.props) key += `\u0000${p}\u0000${kind.props[p]}`;
    let i = kindsSeen.get(key);
    if (i === undefined) {
      kindsSeen.set(key, (i = kindList.length));
      kindList.push(kind);
    }
    return i;
  };

  // 2. Ways: their node references, one flat array; what each is drawn as.
  const refs = new Growable(Float64Array, 1 << 16);
  // Per drawn way: its kind and its refs' range.
  const wayKind = new Growable(Int32Array, 1 << 12),
    wayStart = new Growable(Int32Array, 1 << 12),
    wayEnd = new Growable(Int32Array, 1 << 12);
  const memberRefs = new Map<number, [number, number]>();
  const cursor = new WayCursor();
  const visitWay = (w: WayCursor): void => {
    const kind = w.hasAnyKey(WAY_KEYS) ? classifyWay(w.tags()) : null;
    const member = memberWays.has(w.id);
    if (!kind && !member) return;
    const start = refs.length;
    refs.reserve(w.refCount);
    for (let i = 0; i < w.refCount; i++) refs.push(w.refs[i]);
    const end = refs.length;
    const drawn = (k: Kind) => {
      wayKind.push(intern(k));
      wayStart.push(start);
      wayEnd.push(end);
    };
    if (kind) drawn(kind);
    if (member) memberRefs.set(w.id, [start, end]);
    const level = boundaryLevel.get(w.id);
    if (level !== undefined && kind?.layer !== 'boundaries') drawn(boundary(String(level))!);
  };
  for await (const { data } of readOsmBlobs(path, { want: has(WAYS), onProgress: pass('ways') })) {
    new PrimitiveBlock(data).forEachWay(cursor, visitWay);
  }
  finish('ways');

  // 3. Nodes: the coordinates of the referenced nodes (matched by a merge walk over the sorted ids
  // when the file lists nodes in id order, as extracts do), and the places.
  const ids = uniqueSorted(refs.view());
  // A node missing from the extract keeps MISSING (no coordinate is that far out).
  const lon = new Int32Array(ids.length).fill(MISSING),
    lat = new Int32Array(ids.length);
  const others: SourceFeature[] = [];
  let at = 0,
    lastId = -Infinity;
  const visitNode = (id: number, nLat: number, nLon: number, tags: Record<string, string> | null): void => {
    if (id < lastId) at = 0;
    lastId = id;
    while (at < ids.length && ids[at] < id) at++;
    if (at < ids.length && ids[at] === id) {
      lon[at] = Math.round(nLon / E7);
      lat[at] = Math.round(nLat / E7);
    }
    const place = tags ? classifyPlace(tags) : null;
    if (place) others.push({ kind: place, bbox: [nLon, nLat, nLon, nLat], point: [nLon, nLat] });
  };
  for await (const { data } of readOsmBlobs(path, { want: has(NODES), onProgress: pass('nodes') })) {
    new PrimitiveBlock(data).forEachNode(NODE_KEYS, visitNode);
  }
  finish('nodes');

  // The kept ways' nodes as indices into lon/lat, one Int32Array for all: a way's geometry is a range
  // of it, so a node shared by ways is stored once and no way has an array of its own.
  const data = refs.data;
  const nodes = new Int32Array(refs.length);
  const count = wayKind.length;
  // Compacted in place: way w of the pass becomes way `ways` of the source when it is drawn.
  const kindOf = wayKind.data,
    startOf = wayStart.data,
    endOf = wayEnd.data;
  const box = new Float32Array(count * 4);
  let k = 0,
    ways = 0,
    last = 0;
  for (let w = 0; w < count; w++) {
    const first = k,
      kind = kindList[kindOf[w]],
      start = startOf[w],
      end = endOf[w];
    for (let j = start; j < end; j++) {
      // A way's next node is often the next id (nodes made with their way): tried before a search.
      const id = data[j];
      const i = ids[last + 1] === id ? last + 1 : ids[last] === id ? last : indexOf(ids, id);
      if (i >= 0) last = i;
      if (i >= 0 && lon[i] !== MISSING) nodes[k++] = i;
    }
    const closed = end - start >= 4 && data[start] === data[end - 1];
    if (k - first < 2 || (kind.area && (!closed || k - first < 4))) {
      k = first; // too few nodes in the extract, or an open area: not drawn
      continue;
    }
    kindOf[ways] = kindOf[w];
    startOf[ways] = first;
    endOf[ways] = k;
    boxOfRange(nodes, first, k, lon, lat, box, ways * 4);
    ways++;
  }
  for (const rel of areas) {
    const ringsOf = (members: number[]) =>
      closedRings(
        members
          .flatMap((id) => {
            const r = memberRefs.get(id);
            return r ? [Array.from(data.subarray(r[0], r[1]))] : [];
          })
          // Last member first: the order the tiles were drawn in before they shared the geocoder's
          // assembler, so each ring starts where it did and tiles.bin stays byte for byte the same.
          .reverse(),
      )
        .map((ring) => ringCoords(ring, ids, lon, lat))
        .filter((c) => c.length >= 8);
    const outer = ringsOf(rel.outer).map((c) => orient(c, true));
    if (!outer.length) continue;
    const polygons = outer.map((o) => [o]);
    for (const inner of ringsOf(rel.inner).map((c) => orient(c, false))) {
      const home = polygons.find((p) => contains(bboxOf([p[0]]), inner[0], inner[1])) ?? polygons[0];
      home.push(inner);
    }
    others.push({ kind: rel.kind, bbox: bboxOf(outer), polygons });
  }
  return {
    ways,
    kinds: kindList,
    wayKind: kindOf.slice(0, ways),
    wayStart: startOf.slice(0, ways),
    wayEnd: endOf.slice(0, ways),
    wayBox: box.slice(0, ways * 4),
    others,
    nodes: nodes.slice(0, k),
    lon,
    lat,
  };
}

/** The distinct values of `v`, ascending (a view of one sorted copy: no second array at the peak). */
function uniqueSorted(v: Float64Array): Float64Array {
  const sorted = Float64Array.from(v).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i];
  return sorted.subarray(0, n);
}

function indexOf(ids: Float64Array, id: number): number {
  let lo = 0,
    hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < ids.length && ids[lo] === id ? lo : -1;
}

function ringCoords(ring: number[], ids: Float64Array, lon: Int32Array, lat: Int32Array): Float64Array {
  const out: number[] = [];
  for (const ref of ring) {
    const i = indexOf(ids, ref);
    if (i >= 0 && lon[i] !== MISSING) out.push(lon[i] * E7, lat[i] * E7);
  }
  return Float64Array.from(out);
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
  if (signedArea(c) > 0 === outer) return c;
  const r = new Float64Array(c.length);
  for (let i = 0; i < c.length; i += 2) {
    r[c.length - 2 - i] = c[i];
    r[c.length - 1 - i] = c[i + 1];
  }
  return r;
}

const MISSING = -(2 ** 31);

/** The box of nodes[start, end) in degrees, into out[at, at + 4). */
function boxOfRange(nodes: Int32Array, start: number, end: number, lon: Int32Array, lat: Int32Array, out: Float32Array, at: number): void {
  let w = Infinity,
    s = Infinity,
    e = -Infinity,
    n = -Infinity;
  for (let j = start; j < end; j++) {
    const x = lon[nodes[j]],
      y = lat[nodes[j]];
    if (x < w) w = x;
    if (x > e) e = x;
    if (y < s) s = y;
    if (y > n) n = y;
  }
  out[at] = w * E7;
  out[at + 1] = s * E7;
  out[at + 2] = e * E7;
  out[at + 3] = n * E7;
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
