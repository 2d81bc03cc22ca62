// The named streets of a geocoder index as an R-tree of their polyline chunks: the nearest one to a
// point. Reverse geocoding names it when no house is near; the index build gives it to address points
// that have a house number but no street (as Nominatim parents them to the nearest named street).
// A packed static tree (Flatbush) in typed arrays, not a tree of objects: a country has millions of
// chunks, and as JavaScript objects (RBush) they were ~280 MB of live heap in every compute thread,
// which each full garbage collection had to mark while routes waited.
import Flatbush from 'flatbush';
import { SCALE, segmentDistance2 } from './areas.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';

const METERS_PER_UNIT = METERS_PER_DEGREE / SCALE;

export class StreetIndex {
  /** `coords`: lat, lon pairs in SCALE units; street s has vertices starts[s] … starts[s + 1] - 1. `tree`:
   *  their boxes as `streetTree` builds it (item i is street i; null without streets), built here unless given. */
  constructor(
    private readonly coords: Int32Array,
    private readonly starts: Uint32Array,
    private readonly tree: Flatbush | null = streetTree(coords, starts),
  ) {}

  /** Index of the street nearest to (lat, lon) (SCALE units) within `radiusM` (of those `accept` takes), or -1. */
  nearest(lat: number, lon: number, radiusM: number, accept?: (s: number) => boolean): number {
    const kx = Math.cos((lat / SCALE) * (Math.PI / 180)) * METERS_PER_UNIT;
    const dLat = radiusM / METERS_PER_UNIT;
    const dLon = radiusM / kx;
    const c = this.coords,
      starts = this.starts;
    let best = -1;
    let bestD2 = radiusM * radiusM;
    if (!this.tree) return -1;
    // The box in whole units, grown outward: the tree's boxes are integers too.
    for (const s of this.tree.search(Math.floor(lon - dLon), Math.floor(lat - dLat), Math.ceil(lon + dLon), Math.ceil(lat + dLat))) {
      if (accept && !accept(s)) continue;
      for (let v = starts[s]; v + 1 < starts[s + 1]; v++) {
        const d2 = segmentDistance2(c[2 * v], c[2 * v + 1], c[2 * v + 2], c[2 * v + 3], lat, lon, kx, METERS_PER_UNIT);
        // Equally near streets (a shared vertex): the lowest index, whatever order the tree gives them in.
        if (d2 < bestD2 || (d2 === bestD2 && (best < 0 || s < best))) {
          bestD2 = d2;
          best = s;
        }
      }
    }
    return best;
  }
}

/** The streets' boxes as a packed tree (null without streets: Flatbush needs at least one item), its bytes in
 *  a buffer of `BufferType`: a SharedArrayBuffer for compute threads that read one tree (geocoder/trees.ts). */
export function streetTree(
  coords: Int32Array,
  starts: Uint32Array,
  BufferType: ArrayBufferConstructor | SharedArrayBufferConstructor = ArrayBuffer,
): Flatbush | null {
  const count = Math.max(0, starts.length - 1);
  if (count === 0) return null;
  // Coordinates are SCALE-unit integers: Int32Array holds them exactly, in half the memory of doubles.
  const tree = new Flatbush(count, 16, Int32Array, BufferType);
  for (let s = 0; s < count; s++) {
    let minX = Infinity,
      minY = Infinity,
      maxX = -Infinity,
      maxY = -Infinity;
    for (let v = starts[s]; v < starts[s + 1]; v++) {
      const y = coords[2 * v],
        x = coords[2 * v + 1];
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    tree.add(minX, minY, maxX, maxY);
  }
  tree.finish();
  return tree;
}
