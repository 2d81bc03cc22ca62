// `waymark map build`: reads an extract, builds the four profile graphs (each with its contraction
// hierarchy) and the reverse-geocoding index, and writes a versioned map directory. The build writes into
// a temporary directory beside the target and renames it into place at the end, so an interrupted or
// failed build leaves no half-written map and a map a server is using stays whole.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { buildGeocoderIndex } from './geocoder/index-build.js';
import { geocoderDir } from './geocoder/index-format.js';
import { projectRoot } from '../lib/paths.js';
import { contractInWorker, contractionBytes, contractionInput } from './graphs/contraction.js';
import { assembleGraph } from './graphs/graph-assemble.js';
import { buildGraphInput } from './graphs/graph-build.js';
import { buildTilesInWorker, type TilesManifest } from './tiles/build.js';
import { buildShapePool, pendingShapes, shapesOf, type ShapePool } from './graphs/shapes.js';
import { fileChecksum } from '../lib/checksum.js';
import { graphManifest, manifestPath, writeShapeFiles, MAP_FORMAT_VERSION, writeGraphFiles, type FileEntry, type MapManifest } from './map-files.js';
import { readManifest } from './map-dir.js';
import { collectGarbage } from '../lib/gc.js';
import { loadOsm, type OsmData } from './osm/osm-data.js';
import { defaultVehicle, geometriesClosedTo, PROFILES, type ProfileName } from './graphs/profiles.js';
import { asBoundHierarchy, shapeBytes, type RoadGraph, type Shapes } from './graphs/road-graph.js';

/** Worker threads (contractions and the tiles step) run at once: one per core of the machine this is made for (2). */
const CONTRACTIONS = 2;
/**
 * Memory of the workers running at once. On a 50-million-node country the pedestrian and bicycle kernels
 * hold 2.4 and 2.5 GB: they run one after the other, each beside a car graph's or the tiles step, which
 * keeps the build under 8 GB for a minute or two more of wall time.
 */
const CONTRACTION_MEMORY = 4.5e9;
/** The tiles step's memory per byte of the extract (its tile source: ~270 MB for 36 MB on 10x10, ~0.7 GB for 143 MB on 20x20, less per byte as maps grow). */
const TILES_BYTES_PER_EXTRACT_BYTE = 4;
/** The largest graph first, the car graphs beside it, the bicycle graph once the pedestrian one is done. */
const BUILD_ORDER: readonly ProfileName[] = ['foot-walking', 'driving-car', 'driving-hgv', 'cycling-regular'];

/** In the repository (osm/README.md: its source and license), so that a plain clone starts. */
export const DEFAULT_EXTRACT = join(projectRoot, 'osm', 'liechtenstein.osm.pbf');

/** Progress callback: a stage name and how far it is (done of total; total 0 = the stage finished). */
export type BuildProgress = (stage: string, done: number, total: number) => void;

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Builds the map of `osmPath` into the new directory `outDir` and returns its manifest. */
async function buildInto(osmPath: string, outDir: string, onProgress: BuildProgress): Promise<MapManifest> {
  const started = Date.now();
  // The tiles step reads the extract on its own, in a worker, from the start: it takes the core this
  // thread leaves idle while it reads the extract and assembles the graphs (the longest stretch with one
  // busy core otherwise), and holds one of the worker slots, so only one contraction runs beside it.
  await mkdir(outDir, { recursive: true });
  const tilesJob = buildTilesInWorker(osmPath, outDir, onProgress);
  tilesJob.done.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
  try {
    return await buildBeside(osmPath, outDir, onProgress, started, tilesJob.done);
  } catch (err) {
    await tilesJob.stop();
    throw err;
  }
}

/** Everything but the tiles, beside the tiles step already running (`tilesDone`). */
async function buildBeside(
  osmPath: string,
  outDir: string,
  onProgress: BuildProgress,
  started: number,
  tilesDone: Promise<TilesManifest>,
): Promise<MapManifest> {
  const sha = await sha256File(osmPath);
  const bytes = (await stat(osmPath)).size;
  let reading = '';
  let osm: OsmData | null = await loadOsm(osmPath, (read, total, phase?: string) => {
    const stage = `read extract${phase ? ` (${phase})` : ''}`;
    if (reading && stage !== reading) onProgress(reading, 0, 0);
    reading = stage;
    onProgress(stage, read, total);
  });
  if (reading) onProgress(reading, 0, 0);
  // The graph stage: the profiles applied to the extract's ways, and the ways' points, stored once (each
  // profile's geometries are runs of them).
  let pool: ShapePool | null = buildShapePool(osm);
  const profiles: MapManifest['profiles'] = {};
  const files: Record<string, FileEntry> = {};
  // Contractions (most of the work) run in worker threads, CONTRACTIONS at a time and within
  // CONTRACTION_MEMORY, while this thread assembles the next graphs and then builds the geocoder index.
  const running = new Set<Promise<unknown>>();
  let kernelBytes = TILES_BYTES_PER_EXTRACT_BYTE * bytes;
  const tilesSlot = tilesDone.finally(() => {
    running.delete(tilesSlot);
    kernelBytes -= TILES_BYTES_PER_EXTRACT_BYTE * bytes;
  });
  tilesSlot.catch(() => {}); // awaited below (through tilesDone)
  running.add(tilesSlot);
  const whenRoom = async (need: number): Promise<void> => {
    while (running.size >= CONTRACTIONS || (running.size > 0 && kernelBytes + need > CONTRACTION_MEMORY)) await Promise.race(running);
    kernelBytes += need;
  };
  const jobs: Array<Promise<void>> = [];
  for (const profile of BUILD_ORDER) {
    // In a function of its own, so that the graph's input is garbage once it returns.
    const assemble = (): { graph: RoadGraph | null; restrictedViaNodes: number } => {
      const input = buildGraphInput(osm!, profile, pool!);
      return { graph: assembleGraph(input, pendingShapes(pool!)), restrictedViaNodes: new Set(input.restrictions.map((r) => r.via)).size };
    };
    const assembled = assemble();
    const { restrictedViaNodes } = assembled;
    const { nodeCount, edgeCount, geomCount } = assembled.graph!;
    // The graph goes to disk now and the contraction gets copies of what it reads, so this thread holds
    // one assembled graph at a time, not four.
    const written = await writeGraphFiles(outDir, profile, assembled.graph!);
    onProgress(`graph ${profile}: ${nodeCount} nodes, ${edgeCount} edges assembled`, 0, 0);
    // The lorry graph's hierarchy weighs down the ways closed to the default lorry; a second one, over the
    // true weights, gives the lower bounds that guide a smaller lorry's search.
    const lorry = defaultVehicle(profile);
    const closed = lorry ? geometriesClosedTo(assembled.graph!, lorry) : new Uint32Array(0);
    const inputs = [{ input: contractionInput(assembled.graph!, { closed }), bound: false }];
    if (closed.length) inputs.push({ input: contractionInput(assembled.graph!), bound: true });
    assembled.graph = null;
    // The graph and its input are garbage now, but V8 collects typed arrays only when its heap asks for
    // it, not when the process's memory does: gigabytes on a country while two contractions run.
    collectGarbage();
    // One after the other into `running`: each waits for room only once the one before has its place.
    let previous: Promise<unknown> = Promise.resolve();
    const contractions = inputs.map(({ input, bound }) => {
      const need = contractionBytes(input);
      const stage = `contract ${profile}${bound ? ' (bound hierarchy)' : ''}`;
      const started = previous
        .then(() => whenRoom(need))
        .then(() => {
          const chStarted = Date.now();
          const job = contractInWorker(input, (done, total) => onProgress(stage, done, total))
            .then(async (ch) => {
              Object.assign(written, await writeGraphFiles(outDir, profile, bound ? asBoundHierarchy(ch) : ch));
              onProgress(stage, 0, 0);
              return { ch, ms: Date.now() - chStarted };
            })
            .finally(() => {
              running.delete(job);
              kernelBytes -= need;
            });
          running.add(job);
          job.catch(() => {}); // reported through `queued`, awaited below
          return { job };
        });
      previous = started;
      return started.then(({ job }) => job);
    });
    const queued = Promise.all(contractions).then(([{ ch, ms }]) => {
      Object.assign(files, written);
      const size = Object.values(written).reduce((a, f) => a + f.bytes, 0);
      profiles[profile] = { ...graphManifest({ nodeCount, edgeCount, geomCount, chA: ch.chA }, size), restrictedViaNodes, hierarchyMs: ms };
      onProgress(
        `graph ${profile}: ${ch.chA.length} hierarchy edges, ${size.toLocaleString('en-US')} bytes written, ${(size / nodeCount).toFixed(0)} bytes per node`,
        0,
        0,
      );
    });
    queued.catch(() => {}); // awaited with the others below; a failure must not go unhandled meanwhile
    jobs.push(queued);
  }
  // Every profile has marked the segments it uses: the shared grid covers those.
  pool.roads = null;
  let shapes: Shapes | null = shapesOf(pool);
  pool = null;
  Object.assign(files, await writeShapeFiles(outDir, shapes));
  const shapesSize = shapeBytes(shapes);
  const shapesManifest = { points: shapes.pointsE7.length / 2, grid: shapes.grid, bytes: shapesSize };
  onProgress(`shapes: ${shapesManifest.points.toLocaleString('en-US')} points, ${shapesSize.toLocaleString('en-US')} bytes for all profiles`, 0, 0);
  // The shapes are on disk: the geocoder index is built without them in memory (32x32: the build's peak,
  // 8.07 GB, was while it ran beside two contractions).
  shapes = null;
  collectGarbage();
  await buildGeocoderIndex(osm, outDir);
  osm = null; // the extract's data is not needed past here, while the last contractions may still run
  collectGarbage();
  onProgress('geocoder index', 0, 0);
  await Promise.all(jobs);
  const tiles = await tilesDone;
  // The writer hashed the file as it wrote it: 0.4 GB on a country is not read back.
  files[tiles.file] = { bytes: tiles.bytes, xxh128: tiles.xxh128 };
  onProgress(`tiles: ${tiles.tiles.toLocaleString('en-US')} tiles, ${tiles.bytes.toLocaleString('en-US')} bytes`, 0, 0);
  for (const name of await readdir(geocoderDir(outDir))) {
    const data = await readFile(join(geocoderDir(outDir), name));
    files[`geocoder/${name}`] = { bytes: data.byteLength, xxh128: await fileChecksum(data) };
  }
  const manifest: MapManifest = {
    formatVersion: MAP_FORMAT_VERSION,
    source: { file: basename(osmPath), sha256: sha, bytes },
    builtAt: new Date().toISOString(),
    buildMs: Date.now() - started,
    // In PROFILES order, whatever order the contractions finished in.
    profiles: Object.fromEntries(PROFILES.map((p) => [p, profiles[p]])),
    shapes: shapesManifest,
    geocoder: true,
    tiles,
    files,
  };
  // The manifest goes last: a directory without one is an unfinished build.
  await writeFile(manifestPath(outDir), JSON.stringify(manifest, null, 2));
  return manifest;
}

/**
 * Builds the map of `osmPath` at `outDir`: into `<outDir>.tmp-<pid>` first, then renamed into place (an
 * existing map there is replaced only once the new one is complete). A failed build removes its
 * temporary directory; one killed outright leaves it, and the next build removes it.
 */
export async function buildMap(osmPath: string, outDir: string, onProgress: BuildProgress = () => {}): Promise<MapManifest> {
  const target = resolve(outDir);
  await removeStaleTemporaries(target);
  const tmp = `${target}.tmp-${process.pid}-${Date.now()}`;
  try {
    const manifest = await buildInto(osmPath, tmp, onProgress);
    if (existsSync(target)) {
      // Swap: the old map moves aside and is removed once the new one is in place.
      const old = `${target}.old-${process.pid}-${Date.now()}`;
      await rename(target, old);
      await rename(tmp, target);
      await rm(old, { recursive: true, force: true });
    } else {
      try {
        await rename(tmp, target);
      } catch (err) {
        // Another build of the same target (a concurrent first start) finished first: keep its map.
        if (!existsSync(manifestPath(target))) throw err;
        await rm(tmp, { recursive: true, force: true });
      }
    }
    return manifest;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** Removes `<target>.tmp-<pid>-…` and `.old-…` directories left by builds whose process is gone. */
async function removeStaleTemporaries(target: string): Promise<void> {
  const parent = dirname(target),
    base = basename(target);
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    // No parent directory: no leftovers to clear.
    return;
  }
  for (const name of names) {
    const m = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:tmp|old)-(\\d+)-\\d+$`).exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    await rm(join(parent, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A progress renderer for stderr. Stages that report progress (reading the extract in bytes, contracting
 * in nodes; two contractions run at once) are shown with a percentage, their counts and an ETA from
 * their rate so far: on a terminal as one line redrawn in place, elsewhere a line per 10%. A finished
 * stage gets a line with its time and the build's total.
 */
export function stderrProgress(): BuildProgress {
  const started = Date.now();
  const tty = process.stderr.isTTY;
  const active = new Map<string, { done: number; total: number; start: number; lastTenth: number }>();
  let finishedAt = Date.now();
  let drawn = false;
  const secs = (ms: number): string => (ms >= 90_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 1000).toFixed(1)} s`);
  const count = (stage: string, n: number): string => (stage.startsWith('read') ? `${(n / 1e6).toFixed(0)} MB` : n.toLocaleString('en-US'));
  const describe = (stage: string, s: { done: number; total: number; start: number }): string => {
    const elapsed = Date.now() - s.start;
    const eta = s.done > 0 ? (elapsed * (s.total - s.done)) / s.done : NaN;
    return `${stage}: ${Math.floor((s.done / s.total) * 100)}% (${count(stage, s.done)} of ${count(stage, s.total)}${Number.isFinite(eta) ? `, ETA ${secs(eta)}` : ''})`;
  };
  return (stage, done, total) => {
    if (total > 0) {
      let s = active.get(stage);
      if (!s) active.set(stage, (s = { done, total, start: Date.now(), lastTenth: -1 }));
      s.done = done;
      s.total = total;
      if (tty) {
        process.stderr.write(`\r${[...active].map(([name, st]) => describe(name, st)).join(' | ')}\x1b[K`);
        drawn = true;
      } else {
        const tenth = Math.floor((done / total) * 10);
        if (tenth !== s.lastTenth) {
          s.lastTenth = tenth;
          process.stderr.write(`${describe(stage, s)}\n`);
        }
      }
      return;
    }
    const s = active.get(stage);
    active.delete(stage);
    const took = Date.now() - (s?.start ?? finishedAt);
    process.stderr.write(`${drawn ? '\r\x1b[K' : ''}${stage} ... ${secs(took)} (total ${secs(Date.now() - started)})\n`);
    drawn = false;
    finishedAt = Date.now();
  };
}

/** The CLI's `map build --osm FILE --out DIR`. */
export async function runMapBuild(osmPath: string, outDir: string): Promise<MapManifest> {
  const manifest = await buildMap(osmPath, outDir, stderrProgress());
  process.stderr.write(`map written to ${outDir} in ${(manifest.buildMs / 1000).toFixed(1)} s\n`);
  return manifest;
}

/**
 * The map of an extract in `<dataDir>/maps/<sha256 prefix>/`, built on first use and reused while the
 * extract's hash and the map format are unchanged.
 */
export async function ensureMap(dataDir: string, osmPath: string, onProgress?: BuildProgress): Promise<string> {
  const sha = await sha256File(osmPath);
  const dir = join(dataDir, 'maps', sha.slice(0, 16));
  if (existsSync(manifestPath(dir))) {
    try {
      const m = await readManifest(dir);
      if (m.source.sha256 === sha) return dir;
    } catch {
      // another format version: rebuilt below
    }
  }
  await buildMap(osmPath, dir, onProgress);
  return dir;
}

/** The default map (the Liechtenstein extract shipped with the project) under `dataDir`. */
export function ensureDefaultMap(dataDir: string, onProgress?: BuildProgress): Promise<string> {
  return ensureMap(dataDir, DEFAULT_EXTRACT, onProgress);
}
