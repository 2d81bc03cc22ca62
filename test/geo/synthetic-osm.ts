// Builds small OsmData instances by hand for geocoder unit tests. Nodes at the same coordinate are
// shared, so ways meet at common node ids as they do in real OSM data.
import { OsmData } from '../../src/map/osm/osm-data.js';
import type { OsmMember, OsmNode, OsmRelation, OsmWay } from '../../src/map/osm/osm-pbf.js';

export type LatLonPair = [number, number];

export class SyntheticOsm {
  private nextId = 1;
  private readonly coords = new Map<number, LatLonPair>();
  private readonly byKey = new Map<string, number>();
  private readonly tagged: OsmNode[] = [];
  private readonly ways: OsmWay[] = [];
  private readonly relations: OsmRelation[] = [];

  private nodeAt([lat, lon]: LatLonPair): number {
    const key = `${lat},${lon}`;
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.nextId++;
      this.byKey.set(key, id);
      this.coords.set(id, [lat, lon]);
    }
    return id;
  }

  node([lat, lon]: LatLonPair, tags: Record<string, string>): number {
    const id = this.nextId++;
    this.coords.set(id, [lat, lon]);
    this.tagged.push({ id, lat, lon, tags });
    return id;
  }

  way(points: LatLonPair[], tags: Record<string, string> = {}): number {
    const id = this.nextId++;
    this.ways.push({ id, refs: points.map((p) => this.nodeAt(p)), tags });
    return id;
  }

  /** A way through nodes made with `node` (an addr:interpolation line between address nodes). */
  wayThrough(nodes: number[], tags: Record<string, string> = {}): number {
    const id = this.nextId++;
    this.ways.push({ id, refs: nodes, tags });
    return id;
  }

  relation(tags: Record<string, string>, members: Array<{ way: number; role?: string } | { node: number; role: string } | { missingWay: number }>): number {
    const id = this.nextId++;
    const list: OsmMember[] = members.map((m) =>
      'way' in m
        ? { type: 'way', ref: m.way, role: m.role ?? 'outer' }
        : 'node' in m
          ? { type: 'node', ref: m.node, role: m.role }
          : { type: 'way', ref: m.missingWay, role: 'outer' },
    );
    this.relations.push({ id, tags, members: list });
    return id;
  }

  /** A closed rectangle as a boundary relation, its outline split into two ways, one of them reversed. */
  boundary(
    tags: Record<string, string>,
    south: number,
    west: number,
    north: number,
    east: number,
    holes: Array<[number, number, number, number]> = [],
  ): number {
    const a = this.way([
      [south, west],
      [south, east],
      [north, east],
    ]);
    const b = this.way([
      [south, west],
      [north, west],
      [north, east],
    ]);
    const inner = holes.map(([s, w, n, e]) => ({
      way: this.way([
        [s, w],
        [s, e],
        [n, e],
        [n, w],
        [s, w],
      ]),
      role: 'inner',
    }));
    return this.relation({ type: 'boundary', ...tags }, [{ way: b }, { way: a }, ...inner]);
  }

  build(): OsmData {
    const ids = [...this.coords.keys()].sort((x, y) => x - y);
    const nodeIds = Float64Array.from(ids);
    const nodeCoords = new Float64Array(ids.length * 2);
    ids.forEach((id, i) => {
      const [lat, lon] = this.coords.get(id)!;
      nodeCoords[2 * i] = lat;
      nodeCoords[2 * i + 1] = lon;
    });
    return new OsmData(nodeIds, nodeCoords, this.tagged, this.ways, this.relations);
  }
}

/** Moves a point by meters north and east. */
export function offset([lat, lon]: LatLonPair, north: number, east: number): LatLonPair {
  return [lat + north / 111_195, lon + east / (111_195 * Math.cos((lat * Math.PI) / 180))];
}
