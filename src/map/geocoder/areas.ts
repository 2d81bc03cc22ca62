// Polygons of the geocoder (countries, municipalities, postal areas) in one flat layout, and a
// point-in-polygon index over them. Coordinates are fixed-point integers (degrees × 1e7, OSM's own
// precision) so files stay compact and comparisons are exact.
import RBush from 'rbush';

export const SCALE = 1e7;

/** Any number of areas, each a set of closed rings; rings repeat their first vertex at the end. */
export interface FlatAreas {
  /** lat, lon per vertex, scaled by SCALE. */
  coords: Int32Array;
  /** Per ring, its first vertex index; one extra entry closes the last ring. */
  ringStarts: Uint32Array;
  /** Per area, its first ring index; one extra entry closes the last area. */
  areaRings: Uint32Array;
}

/** Rings as [lat, lon] degree pairs. */
export type DegreeRings = Array<Array<[number, number]>>;

export function flattenAreas(areas: readonly DegreeRings[]): FlatAreas {
  let vertices = 0;
  let rings = 0;
  for (const a of areas) for (const r of a) (vertices += r.length), rings++;
  const coords = new Int32Array(vertices * 2);
  const ringStarts = new Uint32Array(rings + 1);
  const areaRings = new Uint32Array(areas.length + 1);
  let v = 0;
  let r = 0;
  areas.forEach((area, a) => {
    areaRings[a] = r;
    for (const ring of area) {
      ringStarts[r++] = v;
      for (const [lat, lon] of ring) {
        coords[2 * v] = Math.round(lat * SCALE);
        coords[2 * v + 1] = Math.round(lon * SCALE);
        v++;
      }
    }
  });
  ringStarts[r] = v;
  areaRings[areas.length] = r;
  return { coords, ringStarts, areaRings };
}

/**
 * One area prepared for fast containment tests: its edges are bucketed into horizontal bands, so a
 * ray cast from the point only looks at the edges of the band the point lies in instead of all of them.
 */
class BandedShape {
  readonly minLat: number;
  readonly maxLat: number;
  readonly minLon: number;
  readonly maxLon: number;
  private readonly bandHeight: number;
  private readonly bandStarts: Uint32Array;
  private readonly bandEdges: Uint32Array;

  constructor(
    private readonly coords: Int32Array,
    edgeStarts: number[],
  ) {
    let minLat = Infinity,
      maxLat = -Infinity,
      minLon = Infinity,
      maxLon = -Infinity;
    for (const i of edgeStarts) {
      for (const k of [i, i + 1]) {
        const lat = coords[2 * k],
          lon = coords[2 * k + 1];
        if (lat < minLat) minLat = lat;
        if (lat > maxLat) maxLat = lat;
        if (lon < minLon) minLon = lon;
        if (lon > maxLon) maxLon = lon;
      }
    }
    this.minLat = minLat;
    this.maxLat = maxLat;
    this.minLon = minLon;
    this.maxLon = maxLon;
    const bands = Math.max(1, Math.min(1 << 16, Math.ceil(edgeStarts.length / 8)));
    this.bandHeight = Math.max(1, (maxLat - minLat + 1) / bands);
    const bandOf = (lat: number) => Math.min(bands - 1, Math.floor((lat - minLat) / this.bandHeight));
    const counts = new Uint32Array(bands + 1);
    const span = (i: number): [number, number] => {
      const a = coords[2 * i],
        b = coords[2 * i + 2];
      return a < b ? [bandOf(a), bandOf(b)] : [bandOf(b), bandOf(a)];
    };
    for (const i of edgeStarts) {
      const [lo, hi] = span(i);
      for (let b = lo; b <= hi; b++) counts[b + 1]++;
    }
    for (let b = 0; b < bands; b++) counts[b + 1] += counts[b];
    this.bandStarts = counts.slice();
    this.bandEdges = new Uint32Array(counts[bands]);
    for (const i of edgeStarts) {
      const [lo, hi] = span(i);
      for (let b = lo; b <= hi; b++) this.bandEdges[counts[b]++] = i;
    }
  }

  /** Even-odd rule over all rings of the area, so holes and multiple outer rings need no roles. */
  contains(lat: number, lon: number): boolean {
    if (lat < this.minLat || lat > this.maxLat || lon < this.minLon || lon > this.maxLon) return false;
    const band = Math.min(this.bandStarts.length - 2, Math.floor((lat - this.minLat) / this.bandHeight));
    const c = this.coords;
    let inside = false;
    for (let k = this.bandStarts[band], end = this.bandStarts[band + 1]; k < end; k++) {
      const i = this.bandEdges[k] * 2;
      const y1 = c[i],
        y2 = c[i + 2];
      if (y1 > lat !== y2 > lat) {
        const x1 = c[i + 1],
          x2 = c[i + 3];
        if (lon < ((x2 - x1) * (lat - y1)) / (y2 - y1) + x1) inside = !inside;
      }
    }
    return inside;
  }

  /** Distance in meters from the point to the nearest edge, when within maxMeters; else Infinity. */
  edgeDistance(lat: number, lon: number, kx: number, ky: number, maxMeters: number): number {
    const dLat = maxMeters / ky;
    const bands = this.bandStarts.length - 1;
    const first = Math.max(0, Math.floor((lat - dLat - this.minLat) / this.bandHeight));
    const last = Math.min(bands - 1, Math.floor((lat + dLat - this.minLat) / this.bandHeight));
    const c = this.coords;
    let best = maxMeters * maxMeters;
    for (let k = this.bandStarts[first], end = this.bandStarts[last + 1]; k < end; k++) {
      const i = this.bandEdges[k] * 2;
      best = Math.min(best, segmentDistance2(c[i], c[i + 1], c[i + 2], c[i + 3], lat, lon, kx, ky));
    }
    return best < maxMeters * maxMeters ? Math.sqrt(best) : Infinity;
  }
}

/** Squared distance in meters from (lat, lon) to the segment (lat1, lon1)-(lat2, lon2); kx, ky are meters per unit. */
export function segmentDistance2(lat1: number, lon1: number, lat2: number, lon2: number, lat: number, lon: number, kx: number, ky: number): number {
  const ax = (lon1 - lon) * kx,
    ay = (lat1 - lat) * ky;
  const ex = (lon2 - lon1) * kx,
    ey = (lat2 - lat1) * ky;
  const len2 = ex * ex + ey * ey;
  const t = len2 > 0 ? Math.max(0, Math.min(1, -(ax * ex + ay * ey) / len2)) : 0;
  const px = ax + t * ex,
    py = ay + t * ey;
  return px * px + py * py;
}

interface AreaBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  area: number;
}

/** Containment queries over a chosen subset of the areas. Coordinates are scaled (degrees × SCALE). */
export class AreaIndex {
  private readonly shapes = new Map<number, BandedShape>();
  private readonly tree = new RBush<AreaBox>();

  constructor(areas: FlatAreas, include: (area: number) => boolean = () => true) {
    const boxes: AreaBox[] = [];
    const areaCount = areas.areaRings.length - 1;
    for (let a = 0; a < areaCount; a++) {
      if (!include(a)) continue;
      const edgeStarts: number[] = [];
      for (let r = areas.areaRings[a]; r < areas.areaRings[a + 1]; r++) {
        for (let i = areas.ringStarts[r]; i < areas.ringStarts[r + 1] - 1; i++) edgeStarts.push(i);
      }
      if (edgeStarts.length < 3) continue;
      const shape = new BandedShape(areas.coords, edgeStarts);
      this.shapes.set(a, shape);
      boxes.push({ minX: shape.minLon, minY: shape.minLat, maxX: shape.maxLon, maxY: shape.maxLat, area: a });
    }
    this.tree.load(boxes);
  }

  /** Indices of the areas containing the point, in no particular order. */
  containing(lat: number, lon: number): number[] {
    const found: number[] = [];
    for (const box of this.tree.search({ minX: lon, minY: lat, maxX: lon, maxY: lat })) {
      if (this.shapes.get(box.area)!.contains(lat, lon)) found.push(box.area);
    }
    return found;
  }

  /** The area whose boundary is nearest to the point, within maxMeters, or -1. kx, ky: meters per unit. */
  nearestEdge(lat: number, lon: number, kx: number, ky: number, maxMeters: number): number {
    const dLat = maxMeters / ky,
      dLon = maxMeters / kx;
    let best = -1;
    let bestMeters = maxMeters;
    for (const box of this.tree.search({ minX: lon - dLon, minY: lat - dLat, maxX: lon + dLon, maxY: lat + dLat })) {
      const m = this.shapes.get(box.area)!.edgeDistance(lat, lon, kx, ky, bestMeters);
      if (m < bestMeters) {
        bestMeters = m;
        best = box.area;
      }
    }
    return best;
  }
}
