// The named streets of a geocoder index as an R-tree of their polyline chunks: the nearest one to a
// point. Reverse geocoding names it when no house is near; the index build gives it to address points
// that have a house number but no street (as Nominatim parents them to the nearest named street).
import RBush from 'rbush';
import { SCALE, segmentDistance2 } from './areas.js';
import { METERS_PER_DEGREE } from './geometry.js';

const METERS_PER_UNIT = METERS_PER_DEGREE / SCALE;

interface StreetBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  street: number;
}

export class StreetIndex {
  private readonly tree = new RBush<StreetBox>();

  /** `coords`: lat, lon pairs in SCALE units; street s has vertices starts[s] … starts[s + 1] - 1. */
  constructor(
    private readonly coords: Int32Array,
    private readonly starts: Uint32Array,
  ) {
    const boxes: StreetBox[] = [];
    for (let s = 0; s + 1 < starts.length; s++) {
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
      boxes.push({ minX, minY, maxX, maxY, street: s });
    }
    this.tree.load(boxes);
  }

  /** Index of the street nearest to (lat, lon) (SCALE units) within `radiusM`, or -1. */
  nearest(lat: number, lon: number, radiusM: number): number {
    const kx = Math.cos((lat / SCALE) * (Math.PI / 180)) * METERS_PER_UNIT;
    const dLat = radiusM / METERS_PER_UNIT;
    const dLon = radiusM / kx;
    const c = this.coords,
      starts = this.starts;
    let best = -1;
    let bestD2 = radiusM * radiusM;
    for (const box of this.tree.search({ minX: lon - dLon, minY: lat - dLat, maxX: lon + dLon, maxY: lat + dLat })) {
      const s = box.street;
      for (let v = starts[s]; v + 1 < starts[s + 1]; v++) {
        const d2 = segmentDistance2(c[2 * v], c[2 * v + 1], c[2 * v + 2], c[2 * v + 3], lat, lon, kx, METERS_PER_UNIT);
        if (d2 <= bestD2) {
          bestD2 = d2;
          best = s;
        }
      }
    }
    return best;
  }
}
