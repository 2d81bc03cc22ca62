// The tiles step of `waymark map build`: the extract's base-map features cut into Mapbox Vector Tiles
// for zooms 0 to 14 by the hierarchical tiler (tiler.ts: each tile clipped from its parent's geometry,
// simplified per zoom, encoded with the `pbf` writer), gzipped, into one archive.
import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { distPath } from '../../lib/paths.js';
import { gzipSync } from 'node:zlib';
import { ArchiveWriter, tileKey, TILES_FILE } from './archive.js';
import { MAX_ZOOM } from './classify.js';
import { readTileSource, type SourceProgress } from './source.js';
import { walkTiles } from './tiler.js';

/** zlib level of the tiles: measured against 6 (see docs/dashboard.md). */
const GZIP_LEVEL = 6;

export interface TilesManifest {
  file: string;
  minzoom: number;
  maxzoom: number;
  /** [west, south, east, north] of the data. */
  bounds: [number, number, number, number];
  tiles: number;
  bytes: number;
  /** Tiles per zoom. */
  perZoom: number[];
  buildMs: number;
  /** SHA-256 of the whole file (hex), as the map manifest lists it. */
  /** The file's checksum as the manifest lists it (map-files.ts FileEntry). */
  xxh128: string;
}

/** Builds `tiles.bin` in `outDir` from the extract; reports `tiles: …` stages. */
export async function buildTiles(osmPath: string, outDir: string, onProgress: SourceProgress = () => {}): Promise<TilesManifest> {
  const started = Date.now();
  const source = await readTileSource(osmPath, onProgress);
  const bounds: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const grow = (w: number, s: number, e: number, n: number) => {
    bounds[0] = Math.min(bounds[0], w);
    bounds[1] = Math.min(bounds[1], s);
    bounds[2] = Math.max(bounds[2], e);
    bounds[3] = Math.max(bounds[3], n);
  };
  for (let i = 0; i < source.ways * 4; i += 4) grow(source.wayBox[i], source.wayBox[i + 1], source.wayBox[i + 2], source.wayBox[i + 3]);
  for (const { bbox } of source.others) grow(...bbox);
  const path = `${outDir}/${TILES_FILE}`;
  const writer = await ArchiveWriter.create(path);
  const perZoom: number[] = new Array(MAX_ZOOM + 1).fill(0);
  let lastReport = 0;
  try {
    // Progress counts the features that have entered the tree (every one does, at its minzoom, once in
    // each tile it touches there).
    walkTiles(
      source,
      (z, x, y, mvt) => {
        const gz = gzipSync(mvt, { level: GZIP_LEVEL });
        writer.add(tileKey(z, x, y), gz);
        perZoom[z]++;
      },
      (entered, placed) => {
        if (entered - lastReport >= 4096 || entered === placed) {
          lastReport = entered;
          onProgress('tiles', entered, placed);
        }
      },
    );
  } catch (err) {
    await writer.abort();
    await rm(path, { force: true });
    throw err;
  }
  const { tiles, bytes, xxh128 } = await writer.finish();
  onProgress('tiles', 0, 0);
  return { file: TILES_FILE, minzoom: 0, maxzoom: MAX_ZOOM, bounds, tiles, bytes, perZoom, buildMs: Date.now() - started, xxh128 };
}

/** `buildTiles` in a worker thread; `stop` ends it (the caller removes what it wrote). */
export function buildTilesInWorker(
  osmPath: string,
  outDir: string,
  onProgress: SourceProgress = () => {},
): { done: Promise<TilesManifest>; stop: () => Promise<void> } {
  const worker = new Worker(distPath('map', 'tiles', 'build-thread.js'), { workerData: { osmPath, outDir } });
  const done = new Promise<TilesManifest>((resolve, reject) => {
    worker.on('message', (msg: { progress: [string, number, number] } | { done: TilesManifest }) => {
      if ('progress' in msg) return onProgress(...msg.progress);
      resolve(msg.done);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`tiles worker exited with code ${code}`)));
  });
  return { done, stop: async () => void (await worker.terminate()) };
}
