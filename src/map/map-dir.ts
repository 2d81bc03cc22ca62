// The one door to a map directory, as OSRM's datafacade is to its files: nothing else in Waymark opens a
// map's files to read them. `MapDir.open` reads the manifest (refusing another format); every file read
// through it is checked against the manifest's size at once, read by one of two reader threads and
// hashed by it as it reads, and `verified()` reports the first damaged one by name. Files the service
// keeps (graphs, shapes, the geocoder and search index) are read into shared memory that every compute
// thread reads in place; `tiles.bin`, read a tile at a time, is only hashed.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { GEOCODER_FILES } from './geocoder/index-format.js';
import { ARRAY_TYPES, GRAPH_ARRAYS, SHAPE_ARRAYS, type RoadGraph, type Shapes } from './graphs/road-graph.js';
import { MAP_FORMAT_VERSION, manifestPath, MapFormatError, sha256, type GraphManifest, type MapManifest } from './map-files.js';
import { SEARCH_FILE } from './geocoder/search-format.js';
import { ArchiveReader, TILES_FILE } from './tiles/archive.js';

/** A geocoder index's files by name (`index.json`, `<array>.bin`, `search.bin`), each in a buffer of its
 *  own: shared ones from a served map, which compute threads take as they are. */
export type GeocoderFiles = Readonly<Record<string, Uint8Array>>;

/** Reads the whole file at `path` into `target` (its exact size), e.g. straight into shared memory. */
function readFileInto(path: string, target: Uint8Array): void {
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
    throw new MapFormatError(
      `${dir}: map format ${m.formatVersion}, this version of Waymark reads format ${MAP_FORMAT_VERSION}; rebuild the map with 'waymark map build'`,
    );
  }
  return m;
}

/** A map's id: the first 12 hex digits of its manifest's SHA-256. The manifest lists every file's size and
 *  checksum and when it was built, so the id names these bytes and no others. */
const readMapId = async (dir: string): Promise<string> => sha256(await readFile(manifestPath(dir))).slice(0, 12);

// The reader threads' code (an eval'd worker needs no file of its own). A file kept in shared memory is
// read into it a chunk at a time and each chunk hashed while it is still in the cache; tiles.bin, not kept,
// is read and hashed through a small buffer. Two of them read side by side: on a virtual machine most of a
// load is the kernel's first touch of each page of the new memory (32x32, 4.2 GB: 16–18 s of system time
// against 2 of user, reading from one thread), which two threads share out. The checksum is
// lib/checksum.ts's, through the same package, resolved here: an eval'd worker resolves packages from the
// working directory.
const READER = `const { parentPort } = require('node:worker_threads');
const { createXXHash128 } = require(${JSON.stringify(createRequire(import.meta.url).resolve('hash-wasm'))});
const { closeSync, openSync, readSync } = require('node:fs');
const made = createXXHash128();
const CHUNK = 1 << 23;
let spare;
function readAll(fd, view, at, path) {
  for (let got = 0; got < view.byteLength; ) {
    const n = readSync(fd, view, got, view.byteLength - got, at + got);
    if (n === 0) throw new Error(path + ' ended early');
    got += n;
  }
}
parentPort.on('message', async ({ id, path, target }) => {
  let hex, error;
  try {
    const hash = await made;
    hash.init();
    const fd = openSync(path, 'r');
    try {
      if (target) {
        for (let at = 0; at < target.byteLength; at += CHUNK) {
          const view = target.subarray(at, Math.min(target.byteLength, at + CHUNK));
          readAll(fd, view, at, path);
          hash.update(view);
        }
      } else {
        spare ??= Buffer.allocUnsafe(1 << 20);
        for (let n; (n = readSync(fd, spare, 0, spare.length, null)) > 0; ) hash.update(spare.subarray(0, n));
      }
    } finally { closeSync(fd); }
    hex = hash.digest('hex');
  } catch (err) { error = err.message; }
  parentPort.postMessage({ id, hex, error });
});`;

interface ReadReply {
  hex?: string;
  error?: string;
}

/**
 * Reads map files in two reader threads and checks each against the manifest: the size at once, the
 * checksum as the file is read. A read resolves once the bytes are in place; `done` reports the first
 * damaged file (in the order asked).
 */
class MapReader {
  private readonly workers: Array<{ worker: Worker; queued: number }> = [];
  private readonly waiting = new Map<number, (reply: ReadReply) => void>();
  private readonly checks: Array<Promise<void>> = [];
  private nextId = 0;

  constructor(
    private readonly m: MapManifest,
    threads = 2,
  ) {
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(READER, { eval: true });
      worker.on('message', ({ id, ...reply }: ReadReply & { id: number }) => {
        this.waiting.get(id)?.(reply);
        this.waiting.delete(id);
      });
      // A reader that dies (out of memory) fails what it still had to read instead of leaving it waiting.
      worker.on('error', (err) => this.failAll(`reader thread failed: ${err.message}`));
      worker.on('exit', () => this.failAll('reader thread exited'));
      this.workers.push({ worker, queued: 0 });
    }
  }

  /** The manifest's entry for `rel`; throws unless `size` is what it lists. */
  private entry(rel: string, size: number) {
    const entry = this.m.files?.[rel];
    if (!entry) throw new MapFormatError(`map file ${rel} is not listed in the manifest; rebuild the map`, rel);
    if (size !== entry.bytes)
      throw new MapFormatError(`map file ${rel} has ${size} bytes, the manifest says ${entry.bytes}: the map is damaged; rebuild it`, rel);
    return entry;
  }

  /** Reads file `rel` (at `path`, `size` bytes) into `target` in shared memory, or without a target only
   *  hashes it; resolves once it is read, and throws at once on a wrong size. */
  read(rel: string, path: string, size: number, target?: Uint8Array): Promise<void> {
    const entry = this.entry(rel, size);
    const id = this.nextId++;
    // The thread with the fewest bytes still to read: files run from a few bytes to hundreds of MB.
    const slot = this.workers.reduce((a, b) => (b.queued < a.queued ? b : a));
    slot.queued += size;
    const reply = new Promise<ReadReply>((resolve) => {
      this.waiting.set(id, (r) => {
        slot.queued -= size;
        resolve(r);
      });
      slot.worker.postMessage({ id, path, target });
    });
    const unreadable = (error: string) => new MapFormatError(`map file ${rel} cannot be read (${error}); rebuild the map`, rel);
    this.checks.push(
      reply.then(({ hex, error }) => {
        if (error) throw unreadable(error);
        if (hex !== entry.xxh128) throw new MapFormatError(`map file ${rel} does not match its checksum: the map is damaged; rebuild it`, rel);
      }),
    );
    return reply.then(({ error }) => {
      if (error) throw unreadable(error);
    });
  }

  private failAll(error: string): void {
    for (const answer of this.waiting.values()) answer({ error });
    this.waiting.clear();
  }

  /** Waits for every checksum; throws for the first file (in the order asked) that does not match. */
  async done(): Promise<void> {
    try {
      const results = await Promise.allSettled(this.checks);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      await Promise.all(this.workers.map((w) => w.worker.terminate()));
    }
  }
}

/** An opened map directory: its manifest and id, and every read of its files (see the top of this file). */
export class MapDir {
  private reads?: MapReader;

  private constructor(
    /** The directory, links resolved: the map's files are these whatever a link is later pointed at. */
    readonly dir: string,
    readonly id: string,
    readonly manifest: MapManifest,
  ) {}

  /** The map in `dir`; refuses a directory that is not a map of this format, saying what to do. */
  static async open(dir: string): Promise<MapDir> {
    const real = await realpath(dir).catch(() => {
      throw new MapFormatError(`${dir} does not exist`);
    });
    const manifest = await readManifest(real);
    return new MapDir(real, await readMapId(real), manifest);
  }

  private get reader(): MapReader {
    this.reads ??= new MapReader(this.manifest);
    return this.reads;
  }

  /** The size of file `rel` on disk (checked against the manifest when it is read). */
  size(rel: string): number {
    try {
      return statSync(join(this.dir, rel)).size;
    } catch (err) {
      throw new MapFormatError(`map file ${join(this.dir, rel)} cannot be read (${(err as Error).message}); rebuild the map`, rel);
    }
  }

  /** Reads file `rel` into `target` in shared memory, which must be its size (`size`), e.g. straight into a
   *  kernel's memory; reads asked together run side by side. */
  readInto(rel: string, target: Uint8Array): Promise<void> {
    if (!(target.buffer instanceof SharedArrayBuffer)) throw new TypeError(`map file ${rel}: the reader threads write only shared memory`);
    return this.reader.read(rel, join(this.dir, rel), target.byteLength, target);
  }

  /** File `rel` in a SharedArrayBuffer of its own (aligned for any typed array over it). */
  async readShared(rel: string): Promise<Uint8Array> {
    const bytes = new Uint8Array(new SharedArrayBuffer(this.size(rel)));
    await this.readInto(rel, bytes);
    return bytes;
  }

  /** The shapes every profile shares, in shared memory. */
  async shapes(): Promise<Shapes> {
    const arrays: Record<string, ArrayBufferView> = {};
    await Promise.all(
      SHAPE_ARRAYS.map(async ([key, type]) => {
        const bytes = await this.readShared(`shapes/${key}.${type}`);
        arrays[key] = new (ARRAY_TYPES[type] as new (b: ArrayBufferLike) => ArrayBufferView)(bytes.buffer);
      }),
    );
    return { ...(arrays as unknown as Omit<Shapes, 'grid'>), grid: this.manifest.shapes.grid };
  }

  /** The geocoder's index and its search index, in shared memory; none when the map was built without. */
  async geocoder(): Promise<GeocoderFiles | undefined> {
    if (!this.manifest.geocoder) return undefined;
    const names = [...GEOCODER_FILES, SEARCH_FILE];
    const bytes = await Promise.all(names.map((name) => this.readShared(`geocoder/${name}`)));
    return Object.fromEntries(names.map((name, i) => [name, bytes[i]]));
  }

  /** Has `tiles.bin` checked (read by a reader thread, not held here); a map built without tiles has none. */
  checkTiles(): void {
    if (!this.manifest.tiles) return;
    // Its outcome is the checksum's, which `verified` reports.
    this.reader.read(TILES_FILE, join(this.dir, TILES_FILE), this.size(TILES_FILE)).catch(() => {});
  }

  /** The tile archive, opened for reads of one tile at a time. */
  openTiles(): Promise<ArchiveReader> {
    return ArchiveReader.open(join(this.dir, TILES_FILE));
  }

  /** Waits for the checks of every file read so far; throws a MapFormatError naming the first damaged one. */
  async verified(): Promise<void> {
    const reads = this.reads;
    this.reads = undefined;
    await reads?.done();
  }
}

/** One profile's arrays as typed arrays over shared memory, over the map's shapes (tools, tests, benchmarks). Each file
 *  is checked against the manifest as the service's reads are. @internal */
export async function readGraphFiles(dir: string, profile: string, meta: GraphManifest, shapes: Shapes): Promise<RoadGraph> {
  const map = await MapDir.open(dir);
  const arrays: Record<string, ArrayBufferView> = {};
  await whole(map, () =>
    Promise.all(
      GRAPH_ARRAYS.map(async ([key, type]) => {
        const bytes = await map.readShared(`${profile}/${key}.${type}`);
        arrays[key] = new (ARRAY_TYPES[type] as new (b: ArrayBufferLike) => ArrayBufferView)(bytes.buffer);
      }),
    ),
  );
  return { nodeCount: meta.nodes, edgeCount: meta.edges, geomCount: meta.geometries, shapes, ...arrays } as unknown as RoadGraph;
}

/** The map's shared shapes, checked (tools, tests, benchmarks). @internal */
export async function readShapeFiles(dir: string): Promise<Shapes> {
  const map = await MapDir.open(dir);
  return whole(map, () => map.shapes());
}

/** `read`'s result once every file it read is verified; a failed read is the error reported. */
async function whole<T>(map: MapDir, read: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await read();
  } catch (err) {
    await map.verified().catch(() => {});
    throw err;
  }
  await map.verified();
  return result;
}

/** A directory holding only a geocoder index as `buildGeocoderIndex` writes it, no map around it and so no
 *  manifest to check it against (tests, the Nominatim feature runner). */
export async function readGeocoderDir(dir: string): Promise<GeocoderFiles> {
  const files: Record<string, Uint8Array> = {};
  for (const name of [...GEOCODER_FILES, SEARCH_FILE]) {
    const path = join(dir, 'geocoder', name);
    const bytes = new Uint8Array(statSync(path).size);
    readFileInto(path, bytes);
    files[name] = bytes;
  }
  return files;
}
