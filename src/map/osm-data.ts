// Everything the map build needs from an extract, read in one pass: every node's coordinate in compact
// typed arrays (sorted ids + interleaved lat/lon, looked up by binary search), the tagged nodes, and
// all ways and relations. Both the road graph builder and the geocoder index builder consume this.
import { readOsmPbf, type OsmNode, type OsmRelation, type OsmWay } from './osm-pbf.js';

export class OsmData {
  constructor(
    /** Node ids, ascending. */
    readonly nodeIds: Float64Array,
    /** lat, lon per node, in the order of nodeIds. */
    readonly nodeCoords: Float64Array,
    readonly taggedNodes: OsmNode[],
    readonly ways: OsmWay[],
    readonly relations: OsmRelation[],
  ) {}

  get nodeCount(): number {
    return this.nodeIds.length;
  }

  /** Position of a node id in nodeIds, or -1. */
  nodeIndex(id: number): number {
    const ids = this.nodeIds;
    let lo = 0, hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid];
      if (v < id) lo = mid + 1;
      else if (v > id) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  coord(id: number): [number, number] | undefined {
    const i = this.nodeIndex(id);
    return i < 0 ? undefined : [this.nodeCoords[2 * i], this.nodeCoords[2 * i + 1]];
  }
}

/** Reads an extract once. Node ids are sorted here if the file does not already list them in order. */
export async function loadOsm(path: string, onProgress?: (bytesRead: number, totalBytes: number) => void): Promise<OsmData> {
  let ids: Float64Array<ArrayBuffer> = new Float64Array(1 << 16);
  let coords: Float64Array<ArrayBuffer> = new Float64Array(1 << 17);
  let n = 0;
  let sorted = true;
  const taggedNodes: OsmNode[] = [];
  const ways: OsmWay[] = [];
  const relations: OsmRelation[] = [];
  for await (const block of readOsmPbf(path, onProgress)) {
    for (const node of block.nodes) {
      if (n === ids.length) {
        const grownIds = new Float64Array(n * 2);
        grownIds.set(ids);
        ids = grownIds;
        const grownCoords = new Float64Array(n * 4);
        grownCoords.set(coords);
        coords = grownCoords;
      }
      if (n > 0 && node.id <= ids[n - 1]) sorted = false;
      ids[n] = node.id;
      coords[2 * n] = node.lat;
      coords[2 * n + 1] = node.lon;
      n++;
      if (node.tags) taggedNodes.push(node);
    }
    for (const way of block.ways) ways.push(way);
    for (const rel of block.relations) relations.push(rel);
  }
  ids = ids.slice(0, n);
  coords = coords.slice(0, 2 * n);
  if (!sorted) [ids, coords] = sortById(ids, coords);
  return new OsmData(ids, coords, taggedNodes, ways, relations);
}

function sortById(ids: Float64Array<ArrayBuffer>, coords: Float64Array<ArrayBuffer>): [Float64Array<ArrayBuffer>, Float64Array<ArrayBuffer>] {
  const order = new Uint32Array(ids.length).map((_, i) => i).sort((a, b) => ids[a] - ids[b]);
  const sortedIds = new Float64Array(ids.length);
  const sortedCoords = new Float64Array(coords.length);
  order.forEach((from, to) => {
    sortedIds[to] = ids[from];
    sortedCoords[2 * to] = coords[2 * from];
    sortedCoords[2 * to + 1] = coords[2 * from + 1];
  });
  return [sortedIds, sortedCoords];
}
