// Runs the tiles step in a worker thread, so the map build cuts tiles on a core its last contractions
// leave free instead of after them. The worker reads the extract itself: nothing is copied in.
import { parentPort, workerData } from 'node:worker_threads';
import { buildTiles } from './build.js';

const { osmPath, outDir } = workerData as { osmPath: string; outDir: string };
// A failure rejects unhandled, which ends the worker with an 'error' event carrying it.
void buildTiles(osmPath, outDir, (stage, done, total) => parentPort!.postMessage({ progress: [stage, done, total] })).then((manifest) =>
  parentPort!.postMessage({ done: manifest }),
);
