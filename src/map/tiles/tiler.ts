// The hierarchical tiler behind the tiles step: every tile of zooms 0 to MAX_ZOOM is cut from its
// parent's already-clipped geometry, depth first, so a feature is clipped once per zoom against a box
// that shrinks with it instead of being converted and clipped whole for every tile it touches. A feature
// enters the tree at its own minzoom, in the tiles its box touches there. Geometry is flat Float64Arrays
// of (x, y, importance) triples in Web Mercator world units (0..1); the importance is the squared
// Douglas–Peucker distance at which a vertex matters, so simplifying for a zoom is a filter, not a pass.
// Tiles are encoded straight to MVT with the `pbf` writer. Memory: the source, plus the clipped features
// of the tiles on the current path (at most MAX_ZOOM + 1 of them).
import { PbfWriter } from 'pbf';
import { tileKey } from './archive.js';
import { MAX_ZOOM, type Kind, type LayerName } from './classify.js';
import { E7, type SourceFeature, type TileSource } from './source.js';

export const EXTENT = 4096;
/**
 * Pixels of a 256-px tile drawn beyond its edge: lines and area edges need only their half width
 * (tippecanoe uses 5, Planetiler 4), places keep a wide one so a label near an edge is in both tiles.
 * A wide buffer for everything (64 before) made every z14 tile carry 2.25 times its area.
 */
export const BUFFER = 8;
export const PLACE_BUFFER = 64;
const padOf = (type: number): number => (type === POINT ? PLACE_BUFFER : BUFFER) / 256;
/** Douglas–Peucker tolerance in tile units (of EXTENT) at the tile's own zoom. */
const TOLERANCE = 3;
/** The importance below which no vertex is kept at any zoom: half a tile unit at the last zoom. */
const MIN_SQ_TOLERANCE = (0.5 / (2 ** MAX_ZOOM * EXTENT)) ** 2;
const LAYERS: readonly LayerName[] = ['landuse', 'water', 'buildings', 'boundaries', 'roads', 'places'];

const POINT = 1,
  LINE = 2,
  POLYGON = 3;

/** A feature as the tiles on the current path hold it: parts (lines) or rings (polygons) of triples. */
interface Clipped {
  kind: Kind;
  type: number;
  parts: Float64Array[];
  /** Polygons: whether each ring is an outer one (its holes follow it). */
  outer?: boolean[];
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export const projectX = (lon: number): number => lon / 360 + 0.5;
export const projectY = (lat: number): number => {
  const s = Math.sin((Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180);
  const y = 0.5 - (0.25 * Math.log((1 + s) / (1 - s))) / Math.PI;
  return y < 0 ? 0 : Math.min(y, 1);
};

/** A lon/lat ring or line as triples, with each vertex's importance. */
function project(c: Float64Array, polygon: boolean): Float64Array {
  const n = c.length / 2;
  const out = new Float64Array(n * 3);
  for (let i = 0, j = 0; i < c.length; i += 2, j += 3) {
    out[j] = projectX(c[i]);
    out[j + 1] = projectY(c[i + 1]);
  }
  return importances(out, polygon);
}

/** A way's nodes as triples, with each vertex's importance. */
function projectWay(src: TileSource, start: number, end: number, polygon: boolean): Float64Array {
  const out = new Float64Array((end - start) * 3);
  for (let j = start, o = 0; j < end; j++, o += 3) {
    const i = src.nodes[j];
    out[o] = projectX(src.lon[i] * E7);
    out[o + 1] = projectY(src.lat[i] * E7);
  }
  return importances(out, polygon);
}

function importances(out: Float64Array, polygon: boolean): Float64Array {
  simplify(out, 0, out.length - 3, polygon);
  out[2] = 1;
  out[out.length - 1] = 1;
  return out;
}

/**
 * Douglas–Peucker importances over triples [first, last] (an explicit stack: rings of big areas have
 * hundreds of thousands of vertices). A closed ring is split at its farthest vertex first.
 */
function simplify(g: Float64Array, first: number, last: number, polygon: boolean): void {
  const stack: number[] = [];
  if (polygon && last - first > 6) {
    // A ring's first and last vertex are the same point: split it at the vertex farthest from it.
    let far = first,
      best = -1;
    for (let i = first + 3; i < last; i += 3) {
      const dx = g[i] - g[first],
        dy = g[i + 1] - g[first + 1],
        d = dx * dx + dy * dy;
      if (d > best) {
        best = d;
        far = i;
      }
    }
    g[far + 2] = Math.max(best, MIN_SQ_TOLERANCE * 2);
    stack.push(first, far, far, last);
  } else {
    stack.push(first, last);
  }
  while (stack.length) {
    const b = stack.pop()!,
      a = stack.pop()!;
    if (b - a <= 3) continue;
    const ax = g[a],
      ay = g[a + 1],
      bx = g[b],
      by = g[b + 1];
    const dx = bx - ax,
      dy = by - ay;
    const len2 = dx * dx + dy * dy;
    let max = MIN_SQ_TOLERANCE,
      index = -1;
    for (let i = a + 3; i < b; i += 3) {
      let px = ax,
        py = ay;
      if (len2 > 0) {
        const t = ((g[i] - ax) * dx + (g[i + 1] - ay) * dy) / len2;
        if (t > 1) {
          px = bx;
          py = by;
        } else if (t > 0) {
          px = ax + dx * t;
          py = ay + dy * t;
        }
      }
      const ex = g[i] - px,
        ey = g[i + 1] - py,
        d = ex * ex + ey * ey;
      if (d > max) {
        max = d;
        index = i;
      }
    }
    if (index < 0) continue;
    g[index + 2] = max;
    stack.push(a, index, index, b);
  }
}

function boxOf(c: Clipped): void {
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  for (const p of c.parts) {
    for (let i = 0; i < p.length; i += 3) {
      const x = p[i],
        y = p[i + 1];
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  c.minX = minX;
  c.minY = minY;
  c.maxX = maxX;
  c.maxY = maxY;
}

/** The tree's form of source feature i (projected, with importances). */
export function toClipped(src: TileSource, i: number): Clipped {
  let c: Clipped;
  if (i < src.ways) {
    const kind = src.kinds[src.wayKind[i]],
      area = kind.area;
    const parts = [projectWay(src, src.wayStart[i], src.wayEnd[i], area)];
    c = { kind, type: area ? POLYGON : LINE, parts, outer: area ? [true] : undefined, minX: 0, minY: 0, maxX: 0, maxY: 0 };
    boxOf(c);
    return c;
  }
  const f: SourceFeature = src.others[i - src.ways];
  if (f.point) {
    c = { kind: f.kind, type: POINT, parts: [Float64Array.of(projectX(f.point[0]), projectY(f.point[1]), 1)], minX: 0, minY: 0, maxX: 0, maxY: 0 };
  } else {
    const parts: Float64Array[] = [],
      outer: boolean[] = [];
    for (const polygon of f.polygons!) {
      polygon.forEach((ring, r) => {
        parts.push(project(ring, true));
        outer.push(r === 0);
      });
    }
    c = { kind: f.kind, type: POLYGON, parts, outer, minX: 0, minY: 0, maxX: 0, maxY: 0 };
  }
  boxOf(c);
  return c;
}

// A scratch buffer the clipper writes a slice into before it is copied out at its size.
let scratch = new Float64Array(1 << 16);
let used = 0;
const add = (x: number, y: number, imp: number): void => {
  if (used + 3 > scratch.length) {
    const bigger = new Float64Array(scratch.length * 2);
    bigger.set(scratch);
    scratch = bigger;
  }
  scratch[used++] = x;
  scratch[used++] = y;
  scratch[used++] = imp;
};
const cut = (out: Float64Array[], min: number): void => {
  if (used >= min) out.push(scratch.slice(0, used));
  used = 0;
};

/** geojson-vt's clipLine on triples: the parts of `g` with k1 <= coordinate `axis` <= k2. */
function clipPart(g: Float64Array, k1: number, k2: number, axis: number, polygon: boolean, out: Float64Array[]): void {
  used = 0;
  const min = polygon ? 12 : 6;
  const o = axis;
  for (let i = 0; i < g.length - 3; i += 3) {
    const a = g[i + o],
      b = g[i + 3 + o];
    let exited = false;
    if (a < k1) {
      if (b > k1) {
        const t = (k1 - a) / (b - a);
        if (axis === 0) add(k1, g[i + 1] + (g[i + 4] - g[i + 1]) * t, 1);
        else add(g[i] + (g[i + 3] - g[i]) * t, k1, 1);
      }
    } else if (a > k2) {
      if (b < k2) {
        const t = (k2 - a) / (b - a);
        if (axis === 0) add(k2, g[i + 1] + (g[i + 4] - g[i + 1]) * t, 1);
        else add(g[i] + (g[i + 3] - g[i]) * t, k2, 1);
      }
    } else {
      add(g[i], g[i + 1], g[i + 2]);
    }
    if (b < k1 && a >= k1) {
      const t = (k1 - a) / (b - a);
      if (axis === 0) add(k1, g[i + 1] + (g[i + 4] - g[i + 1]) * t, 1);
      else add(g[i] + (g[i + 3] - g[i]) * t, k1, 1);
      exited = true;
    }
    if (b > k2 && a <= k2) {
      const t = (k2 - a) / (b - a);
      if (axis === 0) add(k2, g[i + 1] + (g[i + 4] - g[i + 1]) * t, 1);
      else add(g[i] + (g[i + 3] - g[i]) * t, k2, 1);
      exited = true;
    }
    if (!polygon && exited) cut(out, min);
  }
  const last = g.length - 3;
  const a = g[last + o];
  if (a >= k1 && a <= k2) add(g[last], g[last + 1], g[last + 2]);
  if (polygon && used >= 9 && (scratch[used - 3] !== scratch[0] || scratch[used - 2] !== scratch[1])) add(scratch[0], scratch[1], scratch[2]);
  cut(out, min);
}

function clipAxis(c: Clipped, k1: number, k2: number, axis: number): Clipped | null {
  const lo = axis === 0 ? c.minX : c.minY,
    hi = axis === 0 ? c.maxX : c.maxY;
  if (lo >= k1 && hi <= k2) return c;
  if (lo > k2 || hi < k1) return null;
  const parts: Float64Array[] = [];
  let outer: boolean[] | undefined;
  if (c.type === POINT) {
    for (const pt of c.parts) {
      const v = pt[axis];
      if (v >= k1 && v <= k2) parts.push(pt);
    }
  } else if (c.type === LINE) {
    for (const part of c.parts) clipPart(part, k1, k2, axis, false, parts);
  } else {
    outer = [];
    let keepHoles = false;
    for (let r = 0; r < c.parts.length; r++) {
      const isOuter = c.outer![r];
      if (!isOuter && !keepHoles) continue; // a hole of an outer ring clipped away
      const before = parts.length;
      clipPart(c.parts[r], k1, k2, axis, true, parts);
      const kept = parts.length > before;
      if (isOuter) keepHoles = kept;
      if (kept) outer.push(isOuter);
    }
  }
  if (!parts.length) return null;
  const out: Clipped = { kind: c.kind, type: c.type, parts, outer, minX: 0, minY: 0, maxX: 0, maxY: 0 };
  boxOf(out);
  return out;
}

/** `c` clipped to [x0, x1] × [y0, y1] (world units), itself when wholly inside, null when outside. */
function clipBox(c: Clipped, x0: number, y0: number, x1: number, y1: number): Clipped | null {
  const cx = clipAxis(c, x0, x1, 0);
  return cx && clipAxis(cx, y0, y1, 1);
}

/** One layer's features in MVT form while a tile is encoded. */
class LayerBuilder {
  readonly keys = new Map<string, number>();
  readonly values = new Map<string | number, number>();
  readonly features: Array<{ type: number; tags: number[]; geometry: number[] }> = [];
  constructor(readonly name: string) {}

  tags(props: Record<string, string | number>): number[] {
    const tags: number[] = [];
    for (const key in props) {
      const value = props[key];
      let k = this.keys.get(key);
      if (k === undefined) this.keys.set(key, (k = this.keys.size));
      // Numbers and strings are told apart by the map's key type, so 4 and '4' stay distinct.
      const vk = typeof value === 'number' ? value : `s${value}`;
      let v = this.values.get(vk);
      if (v === undefined) this.values.set(vk, (v = this.values.size));
      tags.push(k, v);
    }
    return tags;
  }
}

const zigzag = (n: number): number => (n << 1) ^ (n >> 31);

function writeValue(key: string | number, pbf: PbfWriter): void {
  if (typeof key === 'string') pbf.writeStringField(1, key.slice(1));
  else if (key % 1 !== 0) pbf.writeDoubleField(3, key);
  else if (key < 0) pbf.writeSVarintField(6, key);
  else pbf.writeVarintField(5, key);
}

function writeLayer(layer: LayerBuilder, pbf: PbfWriter): void {
  pbf.writeVarintField(15, 2);
  pbf.writeStringField(1, layer.name);
  for (const f of layer.features) {
    pbf.writeMessage(
      2,
      (feat: typeof f, w: PbfWriter) => {
        w.writePackedVarint(2, feat.tags);
        w.writeVarintField(3, feat.type);
        w.writePackedVarint(4, feat.geometry);
      },
      f,
    );
  }
  for (const key of layer.keys.keys()) pbf.writeStringField(3, key);
  for (const value of layer.values.keys()) pbf.writeMessage(4, writeValue, value);
  pbf.writeVarintField(5, EXTENT);
}

/**
 * MVT geometry commands for the kept vertices of a part in tile units; returns the new cursor or NaN
 * when the part degenerates (fewer than 2 distinct points, or a ring of no area) and was left out.
 */
function encodePart(
  part: Float64Array,
  sqTol: number,
  z2: number,
  tx: number,
  ty: number,
  ring: boolean,
  outerRing: boolean,
  geometry: number[],
  cursor: { x: number; y: number },
): boolean {
  const xs = pointsX,
    ys = pointsY;
  let n = 0;
  const last = part.length - 3;
  for (let i = 0; i <= last; i += 3) {
    if (part[i + 2] <= sqTol && i !== 0 && i !== last) continue;
    const x = Math.round((part[i] * z2 - tx) * EXTENT),
      y = Math.round((part[i + 1] * z2 - ty) * EXTENT);
    if (n > 0 && xs[n - 1] === x && ys[n - 1] === y) continue;
    xs[n] = x;
    ys[n] = y;
    n++;
    if (n === xs.length) grow();
  }
  if (ring) {
    if (n > 1 && xs[n - 1] === xs[0] && ys[n - 1] === ys[0]) n--; // the closing point: ClosePath draws it
    if (n < 3) return false;
    let area = 0;
    for (let i = 0, j = n - 1; i < n; j = i++) area += (xs[i] - xs[j]) * (ys[i] + ys[j]);
    if (area === 0) return false;
    // MVT: outer rings clockwise on screen (this sum negative), holes the other way.
    if (area > 0 === outerRing) {
      for (let i = 0, j = n - 1; i < j; i++, j--) {
        const x = xs[i],
          y = ys[i];
        xs[i] = xs[j];
        ys[i] = ys[j];
        xs[j] = x;
        ys[j] = y;
      }
    }
  } else if (n < 2) {
    return false;
  }
  geometry.push(9, zigzag(xs[0] - cursor.x), zigzag(ys[0] - cursor.y));
  geometry.push(((n - 1) << 3) | 2);
  for (let i = 1; i < n; i++) geometry.push(zigzag(xs[i] - xs[i - 1]), zigzag(ys[i] - ys[i - 1]));
  cursor.x = xs[n - 1];
  cursor.y = ys[n - 1];
  if (ring) geometry.push(15);
  return true;
}
let pointsX = new Int32Array(1 << 14),
  pointsY = new Int32Array(1 << 14);
const grow = (): void => {
  const x = new Int32Array(pointsX.length * 2),
    y = new Int32Array(pointsY.length * 2);
  x.set(pointsX);
  y.set(pointsY);
  pointsX = x;
  pointsY = y;
};

/** Length of a line part (world units). */
function lengthOf(p: Float64Array): number {
  let s = 0;
  for (let i = 3; i < p.length; i += 3) s += Math.hypot(p[i] - p[i - 3], p[i + 1] - p[i - 2]);
  return s;
}
/** Area of a ring (world units²). */
function areaOf(p: Float64Array): number {
  let s = 0;
  for (let i = 3; i < p.length; i += 3) s += p[i - 3] * p[i + 1] - p[i] * p[i - 2];
  return Math.abs(s / 2);
}

/** The uncompressed MVT of a tile's clipped features, or undefined when none of them draws anything. */
export function encodeTile(features: Clipped[], z: number, x: number, y: number): Uint8Array | undefined {
  const z2 = 2 ** z;
  // The last zoom is overzoomed by the map (to z18 and more): it keeps every vertex that rounding keeps.
  const tol = z === MAX_ZOOM ? Math.sqrt(MIN_SQ_TOLERANCE) : TOLERANCE / (z2 * EXTENT),
    sqTol = tol * tol;
  const layers = new Map<LayerName, LayerBuilder>();
  const cursor = { x: 0, y: 0 };
  for (const f of features) {
    const geometry: number[] = [];
    cursor.x = 0;
    cursor.y = 0;
    if (f.type === POINT) {
      const pts: number[] = [];
      for (const p of f.parts) pts.push(Math.round((p[0] * z2 - x) * EXTENT), Math.round((p[1] * z2 - y) * EXTENT));
      geometry.push(((pts.length / 2) << 3) | 1);
      for (let i = 0; i < pts.length; i += 2) {
        geometry.push(zigzag(pts[i] - cursor.x), zigzag(pts[i + 1] - cursor.y));
        cursor.x = pts[i];
        cursor.y = pts[i + 1];
      }
    } else if (f.type === LINE) {
      const big = f.maxX - f.minX >= tol || f.maxY - f.minY >= tol;
      for (const p of f.parts) {
        if (!big && lengthOf(p) < tol) continue; // shorter than the tolerance: not drawn at this zoom
        encodePart(p, sqTol, z2, x, y, false, false, geometry, cursor);
      }
    } else {
      let keepHoles = false;
      for (let r = 0; r < f.parts.length; r++) {
        const outer = f.outer![r];
        if (!outer && !keepHoles) continue;
        const kept = areaOf(f.parts[r]) >= sqTol && encodePart(f.parts[r], sqTol, z2, x, y, true, outer, geometry, cursor);
        if (outer) keepHoles = kept;
      }
    }
    if (!geometry.length) continue;
    let layer = layers.get(f.kind.layer);
    if (!layer) layers.set(f.kind.layer, (layer = new LayerBuilder(f.kind.layer)));
    layer.features.push({ type: f.type, tags: layer.tags(f.kind.props), geometry });
  }
  if (!layers.size) return undefined;
  const pbf = new PbfWriter();
  for (const name of LAYERS) {
    const layer = layers.get(name);
    if (layer) pbf.writeMessage(3, writeLayer, layer);
  }
  return pbf.finish();
}

/** Tile key → the source features entering the tree there (at their minzoom). */
export type EntryIndex = Map<number, number[]>;

/**
 * Where each feature enters: the tiles of its minzoom its box (grown by the buffer) touches. Also
 * returns the keys of every tile above an entry, which the walk must visit even when empty.
 */
export function entryIndex(src: TileSource): { entries: EntryIndex; ancestors: Set<number>; placed: number } {
  const entries: EntryIndex = new Map();
  const ancestors = new Set<number>();
  let placed = 0;
  const total = src.ways + src.others.length;
  for (let i = 0; i < total; i++) {
    let minzoom: number, w: number, s: number, e: number, north: number, pad: number;
    if (i < src.ways) {
      minzoom = src.kinds[src.wayKind[i]].minzoom;
      w = src.wayBox[i * 4];
      s = src.wayBox[i * 4 + 1];
      e = src.wayBox[i * 4 + 2];
      north = src.wayBox[i * 4 + 3];
      pad = padOf(LINE);
    } else {
      const f = src.others[i - src.ways];
      minzoom = f.kind.minzoom;
      [w, s, e, north] = f.bbox;
      pad = padOf(f.point ? POINT : POLYGON);
    }
    const z = Math.min(minzoom, MAX_ZOOM),
      n = 2 ** z;
    const x0 = Math.max(0, Math.floor(projectX(w) * n - pad)),
      x1 = Math.min(n - 1, Math.floor(projectX(e) * n + pad));
    const y0 = Math.max(0, Math.floor(projectY(north) * n - pad)),
      y1 = Math.min(n - 1, Math.floor(projectY(s) * n + pad));
    for (let x = x0; x <= x1; x++) {
      for (let y = y0; y <= y1; y++) {
        const key = tileKey(z, x, y);
        let list = entries.get(key);
        if (!list) {
          entries.set(key, (list = []));
          for (let az = z - 1, ax = x >> 1, ay = y >> 1; az >= 0; az--, ax >>= 1, ay >>= 1) {
            const k = tileKey(az, ax, ay);
            if (ancestors.has(k)) break;
            ancestors.add(k);
          }
        }
        list.push(i);
        placed++;
      }
    }
  }
  // A feature wider than a tile at its minzoom enters each tile it touches there: `placed` counts those.
  return { entries, ancestors, placed };
}

/**
 * Walks the tree depth first from tile 0/0/0 and calls `emit` with each tile that draws something
 * (in no particular key order).
 */
export function walkTiles(
  src: TileSource,
  emit: (z: number, x: number, y: number, mvt: Uint8Array) => void,
  onEntered: (entered: number, placed: number) => void = () => {},
): void {
  const { entries, ancestors, placed } = entryIndex(src);
  const pad = padOf(LINE),
    placePad = padOf(POINT);
  let entered = 0;
  const visit = (z: number, x: number, y: number, parent: Clipped[]): void => {
    const key = tileKey(z, x, y);
    const z2 = 2 ** z;
    const x0 = (x - pad) / z2,
      x1 = (x + 1 + pad) / z2,
      y0 = (y - pad) / z2,
      y1 = (y + 1 + pad) / z2;
    const px0 = (x - placePad) / z2,
      px1 = (x + 1 + placePad) / z2,
      py0 = (y - placePad) / z2,
      py1 = (y + 1 + placePad) / z2;
    const clip = (c: Clipped) => (c.type === POINT ? clipBox(c, px0, py0, px1, py1) : clipBox(c, x0, y0, x1, y1));
    const mine: Clipped[] = [];
    for (const c of parent) {
      const k = clip(c);
      if (k) mine.push(k);
    }
    const entering = entries.get(key);
    if (entering) {
      for (const i of entering) {
        const k = clip(toClipped(src, i));
        if (k) mine.push(k);
      }
      entries.delete(key);
      entered += entering.length;
      onEntered(entered, placed);
    }
    if (mine.length) {
      const mvt = encodeTile(mine, z, x, y);
      if (mvt) emit(z, x, y, mvt);
    }
    if (z === MAX_ZOOM || (!mine.length && !ancestors.has(key))) return;
    for (let dy = 0; dy < 2; dy++) for (let dx = 0; dx < 2; dx++) visit(z + 1, x * 2 + dx, y * 2 + dy, mine);
  };
  visit(0, 0, 0, []);
}
