import KDBush from 'kdbush';
import { EARTH_DIAMETER_M, greatCircleMeters } from '../../lib/geo/sphere.js';
import { boxesAround } from '../../lib/geo/search-box.js';

/** POIs' ids and their lat, lon pairs, aligned. */
export interface Positions {
  ids: string[];
  latLon: Float64Array;
}

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
  /** Unit vectors (x, y, z) of the positions: a distance test without trigonometry. */
  private readonly xyz: Float64Array;

  /** `ids` sorted ascending (JavaScript string order); `lat`/`lon` aligned with them. */
  constructor(
    readonly ids: string[],
    private readonly lat: Float64Array,
    private readonly lon: Float64Array,
  ) {
    this.tree = new KDBush(Math.max(ids.length, 1));
    this.xyz = new Float64Array(3 * ids.length);
    let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = 0; i < ids.length; i++) {
      this.tree.add(lon[i], lat[i]);
      unitVector(lat[i], lon[i], this.xyz, 3 * i);
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

  /** Every POI inside the boxes (a box search, no distance test): a superset for callers that measure. */
  inBoxes(boxes: ReadonlyArray<{ west: number; south: number; east: number; north: number }>): Positions {
    const seen = new Uint8Array(this.ids.length);
    const chosen: number[] = [];
    for (const b of boxes)
      for (const i of this.tree.range(b.west, b.south, b.east, b.north))
        if (i < this.ids.length && !seen[i]) {
          seen[i] = 1;
          chosen.push(i);
        }
    const out: Positions = { ids: new Array<string>(chosen.length), latLon: new Float64Array(2 * chosen.length) };
    chosen.forEach((i, k) => {
      out.ids[k] = this.ids[i];
      out.latLon[2 * k] = this.lat[i];
      out.latLon[2 * k + 1] = this.lon[i];
    });
    return out;
  }

  /**
   * The first `take` POIs after `cursor` (exclusive; null for the start) within `near.distance` meters,
   * in id order, with their distance: the SQL distance filter's selection (great_circle_m ≤ distance).
   * Undefined when this process cannot vouch for printing what SQL prints: a POI within a hair of the
   * circle's edge (JavaScript's and PostgreSQL's sines may differ in the last bit and decide it apart),
   * or a distance within a hair of a half centimetre (they may round it apart). The caller asks SQL.
   */
  within(near: Near, cursor: string | null, take: number): Array<{ id: string; meters: number }> | undefined {
    const chosen = this.positionsWithin(near, cursor, take);
    if (!chosen) return undefined;
    const out: Array<{ id: string; meters: number }> = [];
    for (const i of chosen) {
      const meters = greatCircleMeters(near.latitude, near.longitude, this.lat[i], this.lon[i]);
      const cents = meters * 100;
      // Two platforms' distances differ by a few units in the last place (~1e-15 relative at most).
      if (Math.abs(cents - Math.floor(cents) - 0.5) <= 1e-13 * Math.max(1, cents)) return undefined;
      out.push({ id: this.ids[i], meters });
    }
    return out;
  }

  private positionsWithin(near: Near, cursor: string | null, take: number): number[] | undefined {
    const from = cursor === null ? 0 : this.firstAfter(cursor);
    const inside = this.circleTest(near);
    const boxes = boxesAround(near.latitude, near.longitude, near.distance);
    if (this.expectedInBoxes(boxes) > ORDERED_WALK_FROM) {
      const out: number[] = [];
      for (let i = from; i < this.ids.length && out.length < take; i++) {
        const verdict = inside(i);
        if (verdict === undefined) return undefined;
        if (verdict) out.push(i);
      }
      return out;
    }
    // Positions are id order: the page is the `take` smallest positions found, kept sorted as they come
    // (cheaper than sorting every point of the circle).
    const best: number[] = [];
    for (const b of boxes) {
      for (const i of this.tree.range(b.west, b.south, b.east, b.north)) {
        if (i < from || i >= this.ids.length || (best.length === take && i > best[take - 1])) continue;
        const verdict = inside(i);
        if (verdict === undefined) return undefined;
        if (!verdict) continue;
        let k = best.length;
        if (k === take) k--;
        while (k > 0 && best[k - 1] > i) {
          best[k] = best[k - 1];
          k--;
        }
        best[k] = i;
      }
    }
    return best;
  }

  /**
   * Whether position i is within `near.distance`; undefined within a hair of the edge, where the answer
   * would rest on the last bits of trigonometry (see within). The haversine term equals a quarter of the
   * squared chord between the unit vectors, so the chord decides, without trigonometry. The margin:
   * 1e-9 of the squared chord (the platforms' haversines differ by ~1e-15), plus what subtracting unit
   * vectors costs a short chord (their rounding, ~3e-16 a component, weighs most on a 1 m circle).
   */
  private circleTest(near: Near): (i: number) => boolean | undefined {
    const q = new Float64Array(3);
    unitVector(near.latitude, near.longitude, q, 0);
    const s = Math.sin(Math.min(Math.PI / 2, near.distance / EARTH_DIAMETER_M));
    const edge = 4 * s * s; // squared chord at exactly `distance`
    const margin = edge * 1e-9 + Math.sqrt(edge) * 1e-15;
    const [below, above] = [edge - margin, edge + margin];
    const v = this.xyz;
    return (i) => {
      const dx = v[3 * i] - q[0],
        dy = v[3 * i + 1] - q[1],
        dz = v[3 * i + 2] - q[2];
      const chord2 = dx * dx + dy * dy + dz * dz;
      return chord2 < below ? true : chord2 > above ? false : undefined;
    };
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

function unitVector(lat: number, lon: number, out: Float64Array, at: number): void {
  const cosLat = Math.cos(lat * RAD);
  out[at] = cosLat * Math.cos(lon * RAD);
  out[at + 1] = cosLat * Math.sin(lon * RAD);
  out[at + 2] = Math.sin(lat * RAD);
}
