// The map directory: manifest.json plus one flat little-endian binary file per graph array
// (`<profile>/<array>.u8|i32|u32|f64`) and the geocoder index (`geocoder/`). The server reads the arrays
// straight into each profile's memory (src/routing/graph-memory.ts); readGraphFiles gives plain typed
// arrays for tools and tests. The manifest, written last, lists every file with its size and SHA-256.
import { createHash } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ARRAY_TYPES, GRAPH_ARRAYS, type GridParams, type RoadGraph } from './road-graph.js';

/**
 * 4: no ALT landmark tables (blocked searches take their potentials from the hierarchy); a main-network
 * flag per node; no reverse CSR; coordinates as 1e-7-degree integers; grid items are point indexes;
 * every file's size and SHA-256 in the manifest.
 */
export const MAP_FORMAT_VERSION = 4;

export interface GraphManifest {
  nodes: number;
  edges: number;
  geometries: number;
  restrictedViaNodes?: number;
  /** Edges of the contraction hierarchy (upward + downward, shortcuts included) and the time to build it. */
  hierarchyEdges: number;
  hierarchyMs?: number;
  /** Bytes of the profile's files. */
  bytes: number;
  grid: GridParams;
}

/** A file of the map, relative to its directory, with what it must hold. */
export interface FileEntry { bytes: number; sha256: string }

export interface MapManifest {
  formatVersion: number;
  source: { file: string; sha256: string; bytes: number };
  builtAt: string;
  buildMs: number;
  profiles: Record<string, GraphManifest>;
  geocoder: boolean;
  files: Record<string, FileEntry>;
}

export class MapFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MapFormatError';
  }
}

export const manifestPath = (dir: string): string => join(dir, 'manifest.json');

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const bytesOf = (arr: ArrayBufferView): Uint8Array => new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);

/** Writes a profile's arrays; returns their file entries (keyed by path relative to `dir`). */
export async function writeGraphFiles(dir: string, profile: string, g: RoadGraph): Promise<Record<string, FileEntry>> {
  await mkdir(join(dir, profile), { recursive: true });
  const files: Record<string, FileEntry> = {};
  for (const [key, type] of GRAPH_ARRAYS) {
    const rel = `${profile}/${key}.${type}`;
    const bytes = bytesOf(g[key]);
    await writeFile(join(dir, rel), bytes);
    files[rel] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
  }
  return files;
}

export function graphManifest(g: RoadGraph, bytes: number): GraphManifest {
  return { nodes: g.nodeCount, edges: g.edgeCount, geometries: g.geomCount, hierarchyEdges: g.chA.length, bytes, grid: g.grid };
}

/** The manifest of a map directory; a map of another format version is refused with what to do. */
export async function readManifest(dir: string): Promise<MapManifest> {
  let text: string;
  try {
    text = await readFile(manifestPath(dir), 'utf8');
  } catch {
    throw new MapFormatError(`${dir} is not a map directory (no manifest.json); build one with 'waymark map build --osm FILE.osm.pbf --out ${dir}'`);
  }
  let m: MapManifest;
  try {
    m = JSON.parse(text) as MapManifest;
  } catch {
    throw new MapFormatError(`${manifestPath(dir)} is not valid JSON; rebuild the map`);
  }
  if (m.formatVersion !== MAP_FORMAT_VERSION) {
    throw new MapFormatError(`${dir}: map format ${m.formatVersion}, this version of Waymark reads format ${MAP_FORMAT_VERSION}; rebuild the map with 'waymark map build'`);
  }
  return m;
}

/** Checks bytes read from a map file against the manifest's entry for it. */
export function verifyFile(m: MapManifest, rel: string, bytes: Uint8Array): void {
  const entry = m.files?.[rel];
  if (!entry) throw new MapFormatError(`map file ${rel} is not listed in the manifest; rebuild the map`);
  if (bytes.byteLength !== entry.bytes) throw new MapFormatError(`map file ${rel} has ${bytes.byteLength} bytes, the manifest says ${entry.bytes}: the map is damaged; rebuild it`);
  if (sha256(bytes) !== entry.sha256) throw new MapFormatError(`map file ${rel} does not match its checksum: the map is damaged; rebuild it`);
}

/** One profile's arrays as plain typed arrays (tools, tests, benchmarks). */
export async function readGraphFiles(dir: string, profile: string, meta: GraphManifest): Promise<RoadGraph> {
  const arrays: Record<string, ArrayBufferView> = {};
  for (const [key, type] of GRAPH_ARRAYS) {
    const buf = await readFile(join(dir, profile, `${key}.${type}`));
    // Copy into an aligned buffer: Buffer slices from the pool need not be 8-byte aligned.
    const bytes = new Uint8Array(buf.byteLength);
    bytes.set(buf);
    arrays[key] = new ARRAY_TYPES[type](bytes.buffer);
  }
  return { nodeCount: meta.nodes, edgeCount: meta.edges, geomCount: meta.geometries, grid: meta.grid, ...arrays } as unknown as RoadGraph;
}
