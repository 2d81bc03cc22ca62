// `waymark map build`: reads an extract once, builds the four profile graphs (with ALT landmarks and a
// contraction hierarchy) and the reverse-geocoding index, and writes a versioned map directory.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { buildGeocoderIndex } from '../geo/index-build.js';
import { projectRoot } from '../paths.js';
import { addHierarchy } from './contraction.js';
import { assembleGraph } from './graph-assemble.js';
import { buildGraphInput } from './graph-build.js';
import { addLandmarks } from './landmarks.js';
import { graphManifest, manifestPath, MAP_FORMAT_VERSION, readManifest, writeGraphFiles, type MapManifest } from './map-files.js';
import { loadOsm } from './osm-data.js';
import { PROFILES } from './profiles.js';

export const LANDMARKS = 16;
export const DEFAULT_EXTRACT = join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf');

/** Progress callback: a stage name and how far it is (done of total; total 0 = the stage finished). */
export type BuildProgress = (stage: string, done: number, total: number) => void;

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Builds the map of `osmPath` into `outDir` (created if needed) and returns its manifest. */
export async function buildMap(osmPath: string, outDir: string, onProgress: BuildProgress = () => {}): Promise<MapManifest> {
  const started = Date.now();
  await mkdir(outDir, { recursive: true });
  const sha256 = await sha256File(osmPath);
  let bytes = 0;
  const osm = await loadOsm(osmPath, (read, total) => {
    bytes = total;
    onProgress('read extract', read, total);
  });
  onProgress('read extract', 0, 0);
  const profiles: MapManifest['profiles'] = {};
  for (const profile of PROFILES) {
    const input = buildGraphInput(osm, profile);
    const withLandmarks = addLandmarks(assembleGraph(input), LANDMARKS);
    const chStarted = Date.now();
    const graph = addHierarchy(withLandmarks);
    const hierarchyMs = Date.now() - chStarted;
    await writeGraphFiles(outDir, profile, graph);
    profiles[profile] = { ...graphManifest(graph), restrictedViaNodes: new Set(input.restrictions.map((r) => r.via)).size, hierarchyMs };
    onProgress(`graph ${profile} (${graph.nodeCount} nodes, ${graph.edgeCount} edges, ${graph.chA.length} hierarchy edges)`, 0, 0);
  }
  await buildGeocoderIndex(osm, outDir);
  onProgress('geocoder index', 0, 0);
  const manifest: MapManifest = {
    formatVersion: MAP_FORMAT_VERSION,
    source: { file: basename(osmPath), sha256, bytes },
    builtAt: new Date().toISOString(),
    buildMs: Date.now() - started,
    profiles,
    geocoder: true,
  };
  // The manifest goes last: a directory without one is an unfinished build.
  await writeFile(manifestPath(outDir), JSON.stringify(manifest, null, 2));
  return manifest;
}

/** A progress renderer for stderr: a percentage line while reading, then one line per finished stage with its time. */
export function stderrProgress(): BuildProgress {
  let stageStart = Date.now();
  let lastPct = -1;
  return (stage, done, total) => {
    if (total > 0) {
      const pct = Math.floor((done / total) * 100);
      if (pct !== lastPct) {
        lastPct = pct;
        process.stderr.write(`\r${stage}: ${pct}%`);
      }
      return;
    }
    process.stderr.write(`${lastPct >= 0 ? '\n' : ''}${stage} ... done in ${((Date.now() - stageStart) / 1000).toFixed(1)} s\n`);
    lastPct = -1;
    stageStart = Date.now();
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
 * extract's hash is unchanged. Builds go to a temporary directory renamed into place, so concurrent
 * starts never see a half-written map.
 */
export async function ensureMap(dataDir: string, osmPath: string, onProgress?: BuildProgress): Promise<string> {
  const sha = await sha256File(osmPath);
  const dir = join(dataDir, 'maps', sha.slice(0, 16));
  if (existsSync(manifestPath(dir))) {
    try {
      const m = await readManifest(dir);
      if (m.source.sha256 === sha) return dir;
    } catch {
      // another format version: rebuild below
    }
    await rm(dir, { recursive: true, force: true });
  }
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await buildMap(osmPath, tmp, onProgress);
  try {
    await rename(tmp, dir);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    if (!existsSync(manifestPath(dir))) throw err; // someone else finished first otherwise
  }
  return dir;
}

/** The default map (the Liechtenstein extract shipped with the project) under `dataDir`. */
export function ensureDefaultMap(dataDir: string, onProgress?: BuildProgress): Promise<string> {
  return ensureMap(dataDir, DEFAULT_EXTRACT, onProgress);
}
