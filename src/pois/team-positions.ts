import KDBush from 'kdbush';
import { EARTH_DIAMETER_M, greatCircleMeters } from '../geo/great-circle.js';
import { boxesAround } from '../geo/search-box.js';

export interface Near {
  latitude: number;
  longitude: number;
  distance: number;
}

// Past this many points expected in the search boxes, walking the POIs in id order finds a page sooner
// than collecting every point of the boxes.
const ORDERED_WALK_FROM = 8192;

/** One team's POI positions at one version, in id order, with a k-d tree over longitude/latitude. */
export class TeamPositions {
  private readonly tree: KDBush;
  private readonly west: number;
  private readonly south: number;
  private readonly east: number;
  private readonly north: number;

  /** `ids` sorted ascending (JavaScript string order); `lat`/`lon` aligned with them. */
  constructor(readonly ids: string[], private readonly lat: Float64Array, private readonly lon: Float64Array) {
    this.tree = new KDBush(Math.max(ids.length, 1));
    let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = 0; i < ids.length; i++) {
      this.tree.add(lon[i], lat[i]);
      west = Math.min(west, lon[i]);
      east = Math.max(east, lon[i]);
      south = Math.min(south, lat[i]);
      north = Math.max(north, lat[i]);
    }
    if (!ids.length) this.tree.add(0, 0); // KDBush cannot be empty; position 0 is then out of range
    this.tree.finish();
    [this.west, this.south, this.east, this.north] = [west, south, east, north];
  }

  get size(): number {
    return this.ids.length;
  }

  /** The first `take` ids after `cursor` (exclusive; null for the start) within `near.distance`
   *  meters, in id order: the same selection as the SQL distance filter (great_circle_m ≤ distance). */
  within(near: Near, cursor: string | null, take: number): string[] {
    const from = cursor === null ? 0 : this.firstAfter(cursor);
    const inside = circleTest(near);
    const boxes = boxesAround(near.latitude, near.longitude, near.distance);
    const out: string[] = [];
    if (this.expectedInBoxes(boxes) > ORDERED_WALK_FROM) {
      for (let i = from; i < this.ids.length && out.length < take; i++) if (inside(this.lat[i], this.lon[i])) out.push(this.ids[i]);
      return out;
    }
    const found: number[] = [];
    for (const b of boxes) {
      for (const i of this.tree.range(b.west, b.south, b.east, b.north)) {
        if (i >= from && i < this.ids.length && inside(this.lat[i], this.lon[i])) found.push(i);
      }
    }
    // Positions are id order: the page is the smallest `take` of them.
    const sorted = Uint32Array.from(found).sort();
    for (let k = 0; k < sorted.length && out.length < take; k++) out.push(this.ids[sorted[k]]);
    return out;
  }

  /** Position of the first id greater than `cursor`. */
  private firstAfter(cursor: string): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid] <= cursor) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Points the boxes would hold if the team's POIs were spread evenly over their bounding box. */
  private expectedInBoxes(boxes: Array<{ west: number; south: number; east: number; north: number }>): number {
    const width = Math.max(this.east - this.west, 1e-9);
    const height = Math.max(this.north - this.south, 1e-9);
    let share = 0;
    for (const b of boxes) {
      const w = Math.max(0, Math.min(b.east, this.east) - Math.max(b.west, this.west));
      const h = Math.max(0, Math.min(b.north, this.north) - Math.max(b.south, this.south));
      share += (w / width) * (h / height);
    }
    return share * this.ids.length;
  }
}

const RAD = Math.PI / 180;

/**
 * `greatCircleMeters(near, point) <= near.distance`, with the haversine's constant factors worked out
 * once per query and the arcsine skipped away from the edge: within a relative 1e-9 of the edge it
 * falls back to the exact formula, so the selection is the SQL function's to the last bit.
 */
function circleTest(near: Near): (lat: number, lon: number) => boolean {
  const cosLat = Math.cos(near.latitude * RAD);
  const s = Math.sin(Math.min(Math.PI / 2, near.distance / EARTH_DIAMETER_M));
  const edge = s * s; // haversine term at exactly `distance`
  const [below, above] = [edge * (1 - 1e-9), edge * (1 + 1e-9)];
  return (lat, lon) => {
    const sLat = Math.sin((lat - near.latitude) * RAD / 2);
    const sLon = Math.sin((lon - near.longitude) * RAD / 2);
    const a = sLat * sLat + cosLat * Math.cos(lat * RAD) * sLon * sLon;
    if (a < below) return true;
    if (a > above) return false;
    return greatCircleMeters(near.latitude, near.longitude, lat, lon) <= near.distance;
  };
}
