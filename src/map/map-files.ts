// The map directory: manifest.json, one flat little-endian binary file per graph array
// (`<profile>/<array>.u8|i32|u32|f64`), the shapes all profiles share (`shapes/`) and the geocoder
// index (`geocoder/`). The server reads the arrays
// straight into each profile's memory (src/routing/graph-memory.ts); readGraphFiles gives plain typed
// arrays for tools and tests. The manifest, written last, lists every file with its size and SHA-256.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ARRAY_TYPES, GRAPH_ARRAYS, SHAPE_ARRAYS, type GridParams, type RoadGraph, type Shapes } from './graphs/road-graph.js';
import type { TilesManifest } from './tiles/build.js';

/**
 * 5: no ALT landmark tables (blocked searches take their potentials from the hierarchy); a main-network
 * flag per node; no reverse CSR; coordinates as 1e-7-degree integers; the ways' points and the segment
 * grid stored once for all profiles; every file's size and SHA-256 in the manifest.
 * 6: same files; the profiles read OSM as OSRM's features specify (barrier nodes, access per direction,
 * physical limits, turn restrictions whose via node ends both ways), so older maps are rebuilt.
 * 7: the base map's vector tiles are built with the map (tiles.bin).
 * 8: two more arrays per profile, the physical limits of the lorry graph's geometries (`limitGeom`,
 * `limitValue`; empty for the other profiles); ferries and car trains (`route=ferry`, `duration`) are
 * routed and `destination` roads are slowed like other restricted access; the geocoder's addresses include
 * house numbers interpolated along `addr:interpolation` ways and associatedStreet houses' streets;
 * restrictions over several via ways add node copies.
 * 9: same files; tiles.bin's tiles come from the hierarchical tiler (simplified per zoom, an 8-px buffer
 * but for places) and are stored in the order they were made, its index still sorted by key.
 * 10: lengths in whole centimeters, u32 (`geomCm`, `upCm`, `dnCm`, were f64 meters): 4 bytes less per
 * geometry and per hierarchy edge, and sums of lengths are exact; no `geomWay` (only the build reads way
 * ids), no `nodeE7` and no `rank` (serving needs neither; nodePositionsE7 gives tools the positions).
 * 11: same files; the lorry graph keeps the ways below the default lorry's size (for smaller lorries),
 * their edges weighed down by CLOSED_PENALTY in its hierarchy: an older server would route the default
 * lorry over them.
 * 12: eight more arrays per profile, the lorry graph's bound hierarchy (`lbUpFirst` … `lbDnCm`: a second
 * contraction over the true weights of every edge, whose distances guide a smaller lorry's search; empty
 * for the other profiles).
 * 13: the segment grid lists consecutive segments of a cell as runs (point | RUN, length): 217 → 65 MB
 * on the 32x32 country.
 * 14: the routable ways' `name` and `ref` per run of shape points (`shapes/label*`: runs, labels, UTF-8
 * texts), for saying which road a point is on.
 * 15: the forward-search index (`geocoder/search.bin`: streets with their address points, places,
 * postcodes and their folded words); countries in `geocoder/index.json` carry their alpha-2 code.
 * 16: each label's road kind (`shapes/labelKind`: class, ramp, roundabout), for turn-by-turn steps.
 * 17: the address model as Nominatim parents it (geocoder format 3): streets' own postcode and city
 * (`streetPostcode`, `streetCity`), address points' addr:city (`addrCity`), address points with a
 * street and no number, municipalities' centres.
 * 18: per profile `geomClass.u8`, each geometry's exclude classes (toll, motorway, ferry, unpaved) for
 * routes that keep off them.
 * 19: search finds streets and places by their other names too (`name:xx`, alt_name, official_name,
 * short_name) in `geocoder/search.bin`; same layout, more words.
 */
export const MAP_FORMAT_VERSION = 19;

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
}

/** A file of the map, relative to its directory, with what it must hold. */
export interface FileEntry {
  bytes: number;
  sha256: string;
}

export interface MapManifest {
  formatVersion: number;
  source: { file: string; sha256: string; bytes: number };
  builtAt: string;
  buildMs: number;
  profiles: Record<string, GraphManifest>;
  /** The shared shapes: points (pairs) and the grid's parameters. */
  shapes: { points: number; grid: GridParams; bytes: number };
  geocoder: boolean;
  /** The base map's vector tiles (format 6 on). */
  tiles: TilesManifest;
  files: Record<string, FileEntry>;
}

export class MapFormatError extends Error {
  /** `file`: the map file at fault, relative to the map directory (`<profile>/<array>.<type>`), if one is. */
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'MapFormatError';
  }
}

/** Reads the whole file at `path` into `target` (its exact size), e.g. straight into shared memory. */
export function readFileInto(path: string, target: Uint8Array): void {
  const fd = openSync(path, 'r');
  try {
    for (let done = 0; done < target.byteLength; ) {
      const n = readSync(fd, target, done, Math.min(target.byteLength - done, 1 << 30), done);
      if (n === 0) throw new Error(`${path} ended early`);
      done += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Lets the event loop run between two map files read synchronously: a country's map is seconds of reads,
 * and a loop held that long lets timers started meanwhile (the database's connect timeout) expire before
 * it ever sees their sockets answer.
 */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export const manifestPath = (dir: string): string => join(dir, 'manifest.json');

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const bytesOf = (arr: ArrayBufferView): Uint8Array => new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);

/** Writes a profile's arrays (those of `g` among GRAPH_ARRAYS); returns their file entries (keyed by path relative to `dir`). */
export async function writeGraphFiles(dir: string, profile: string, g: Partial<RoadGraph>): Promise<Record<string, FileEntry>> {
  await mkdir(join(dir, profile), { recursive: true });
  const files: Record<string, FileEntry> = {};
  for (const [key, type] of GRAPH_ARRAYS) {
    if (!g[key]) continue;
    const rel = `${profile}/${key}.${type}`;
    const bytes = bytesOf(g[key]!);
    await writeFile(join(dir, rel), bytes);
    files[rel] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
  }
  return files;
}

export function graphManifest(g: Pick<RoadGraph, 'nodeCount' | 'edgeCount' | 'geomCount' | 'chA'>, bytes: number): GraphManifest {
  return { nodes: g.nodeCount, edges: g.edgeCount, geometries: g.geomCount, hierarchyEdges: g.chA.length, bytes };
}

/** Writes the shared shapes to `shapes/`; returns their file entries. */
export async function writeShapeFiles(dir: string, shapes: Shapes): Promise<Record<string, FileEntry>> {
  await mkdir(join(dir, 'shapes'), { recursive: true });
  const files: Record<string, FileEntry> = {};
  for (const [key, type] of SHAPE_ARRAYS) {
    const rel = `shapes/${key}.${type}`;
    const bytes = bytesOf(shapes[key]);
    await writeFile(join(dir, rel), bytes);
    files[rel] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
  }
  return files;
}

/**
 * The shared shapes, read into SharedArrayBuffers (workers use them in place) and checked against the
 * manifest.
 */
export async function readShapeFiles(dir: string, m: MapManifest, verifier?: MapVerifier): Promise<Shapes> {
  const check = verifier ?? new MapVerifier(m, 1);
  const arrays: Record<string, ArrayBufferView> = {};
  for (const [key, type] of SHAPE_ARRAYS) {
    const rel = `shapes/${key}.${type}`;
    let bytes: Uint8Array;
    try {
      // Straight into the shared buffer the workers will use: no copy through a Buffer.
      bytes = new Uint8Array(new SharedArrayBuffer(statSync(join(dir, rel)).size));
      readFileInto(join(dir, rel), bytes);
    } catch (err) {
      throw new MapFormatError(`map file ${rel} cannot be read (${(err as Error).message}); rebuild the map`, rel);
    }
    check.check(rel, bytes);
    arrays[key] = new (ARRAY_TYPES[type] as new (b: ArrayBufferLike) => ArrayBufferView)(bytes.buffer);
    await yieldToLoop();
  }
  if (!verifier) await check.done();
  return { ...(arrays as unknown as Omit<Shapes, 'grid'>), grid: m.shapes.grid };
}

/** The manifest of a map directory; a map of another format version is refused with what to do. */
/** A map's id: the first 12 hex digits of its manifest's SHA-256. The manifest lists every file's size and
 *  SHA-256 and when it was built, so the id names these bytes and no others. */
export const readMapId = async (dir: string): Promise<string> => sha256(await readFile(manifestPath(dir))).slice(0, 12);

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
    throw new MapFormatError(
      `${dir}: map format ${m.formatVersion}, this version of Waymark reads format ${MAP_FORMAT_VERSION}; rebuild the map with 'waymark map build'`,
    );
  }
  return m;
}

const HASHER = `const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
parentPort.on('message', ({ id, bytes }) => parentPort.postMessage({ id, hex: createHash('sha256').update(bytes).digest('hex') }));`;

/**
 * Checks map files read into memory against the manifest: the size at once, the SHA-256 in two worker
 * threads while the caller reads the next files (bytes in shared memory are hashed in place), so a map
 * of several GB is verified in about the time it takes to read it. `done` reports the first damaged file.
 */
export class MapVerifier {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, { rel: string; resolve: (hex: string) => void }>();
  private readonly checks: Array<Promise<void>> = [];
  private nextId = 0;

  constructor(
    private readonly m: MapManifest,
    threads = 2,
  ) {
    for (let i = 0; i < threads; i++) {
      const w = new Worker(HASHER, { eval: true });
      w.on('message', ({ id, hex }: { id: number; hex: string }) => {
        this.waiting.get(id)?.resolve(hex);
        this.waiting.delete(id);
      });
      this.workers.push(w);
    }
  }

  /** Checks `bytes` as map file `rel` (relative to the map directory); throws at once on a wrong size. */
  check(rel: string, bytes: Uint8Array): void {
    const entry = this.m.files?.[rel];
    if (!entry) throw new MapFormatError(`map file ${rel} is not listed in the manifest; rebuild the map`, rel);
    if (bytes.byteLength !== entry.bytes)
      throw new MapFormatError(`map file ${rel} has ${bytes.byteLength} bytes, the manifest says ${entry.bytes}: the map is damaged; rebuild it`, rel);
    const id = this.nextId++;
    const worker = this.workers[id % this.workers.length];
    this.checks.push(
      new Promise<string>((resolve) => {
        this.waiting.set(id, { rel, resolve });
        worker.postMessage({ id, bytes });
      }).then((hex) => {
        if (hex !== entry.sha256) throw new MapFormatError(`map file ${rel} does not match its checksum: the map is damaged; rebuild it`, rel);
      }),
    );
  }

  /** Waits for every checksum; throws for the first file (in the order checked) that does not match. */
  async done(): Promise<void> {
    try {
      const results = await Promise.allSettled(this.checks);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      await Promise.all(this.workers.map((w) => w.terminate()));
    }
  }
}

/** One profile's arrays as plain typed arrays, over the map's shapes (tools, tests, benchmarks). */
export async function readGraphFiles(dir: string, profile: string, meta: GraphManifest, shapes: Shapes): Promise<RoadGraph> {
  const arrays: Record<string, ArrayBufferView> = {};
  for (const [key, type] of GRAPH_ARRAYS) {
    const buf = await readFile(join(dir, profile, `${key}.${type}`));
    // Copy into an aligned buffer: Buffer slices from the pool need not be 8-byte aligned.
    const bytes = new Uint8Array(buf.byteLength);
    bytes.set(buf);
    arrays[key] = new ARRAY_TYPES[type](bytes.buffer);
  }
  return { nodeCount: meta.nodes, edgeCount: meta.edges, geomCount: meta.geometries, shapes, ...arrays } as unknown as RoadGraph;
}
