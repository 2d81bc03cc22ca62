// The map directory: manifest.json plus one flat little-endian binary file per graph array
// (`<profile>/<array>.u32|f64`). Reading returns typed arrays ready to place in shared memory.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GRAPH_ARRAYS, type GridParams, type RoadGraph } from './road-graph.js';

/** 2: per profile also the contraction hierarchy (rank, upward and downward CSR, chA/chB unpacking). */
export const MAP_FORMAT_VERSION = 2;

export interface GraphManifest {
  nodes: number;
  edges: number;
  geometries: number;
  landmarks: number;
  restrictedViaNodes?: number;
  /** Edges of the contraction hierarchy (upward + downward, shortcuts included) and the time to build it. */
  hierarchyEdges: number;
  hierarchyMs?: number;
  grid: GridParams;
}

export interface MapManifest {
  formatVersion: number;
  source: { file: string; sha256: string; bytes: number };
  builtAt: string;
  buildMs: number;
  profiles: Record<string, GraphManifest>;
  geocoder: boolean;
}

export const manifestPath = (dir: string): string => join(dir, 'manifest.json');

export async function writeGraphFiles(dir: string, profile: string, g: RoadGraph): Promise<number> {
  const sub = join(dir, profile);
  await mkdir(sub, { recursive: true });
  let bytes = 0;
  for (const [key, type] of GRAPH_ARRAYS) {
    const arr = g[key];
    bytes += arr.byteLength;
    await writeFile(join(sub, `${key}.${type}`), new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));
  }
  return bytes;
}

export function graphManifest(g: RoadGraph): GraphManifest {
  return { nodes: g.nodeCount, edges: g.edgeCount, geometries: g.geomCount, landmarks: g.landmarkCount, hierarchyEdges: g.chA.length, grid: g.grid };
}

export async function readManifest(dir: string): Promise<MapManifest> {
  const m = JSON.parse(await readFile(manifestPath(dir), 'utf8')) as MapManifest;
  if (m.formatVersion !== MAP_FORMAT_VERSION) throw new Error(`${dir}: map format ${m.formatVersion}, this build reads ${MAP_FORMAT_VERSION}; rebuild the map`);
  return m;
}

export async function readGraphFiles(dir: string, profile: string, meta: GraphManifest): Promise<RoadGraph> {
  const arrays: Record<string, Uint32Array | Float64Array> = {};
  for (const [key, type] of GRAPH_ARRAYS) {
    const buf = await readFile(join(dir, profile, `${key}.${type}`));
    // Copy into an aligned buffer: Buffer slices from the pool need not be 8-byte aligned.
    const bytes = new Uint8Array(buf.byteLength);
    bytes.set(buf);
    arrays[key] = type === 'u32' ? new Uint32Array(bytes.buffer) : new Float64Array(bytes.buffer);
  }
  return {
    nodeCount: meta.nodes, edgeCount: meta.edges, geomCount: meta.geometries, landmarkCount: meta.landmarks, grid: meta.grid,
    ...arrays,
  } as unknown as RoadGraph;
}
