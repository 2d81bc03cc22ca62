// Tile bench: the tiles step of `waymark map build` alone on one extract: time (per stage; CPU seconds of
// the process, which a shared machine does not inflate as much as wall time), peak memory,
// tiles and bytes per zoom, written to bench/results/tiles-<label>.json.
//
//   node bench/tiles/run.mjs [--osm FILE.osm.pbf] [--label NAME]      (default: the bundled Liechtenstein)
//
// Needs `npm run build`. The archive goes to a temporary directory and is removed afterwards.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { DEFAULT_EXTRACT, stderrProgress } = await import(join(root, 'dist/map/build.js'));
const { buildTiles } = await import(join(root, 'dist/map/tiles/build.js'));
const { values } = parseArgs({ options: { osm: { type: 'string' }, label: { type: 'string' } } });
const osm = resolve(values.osm ?? DEFAULT_EXTRACT);
const label = values.label ?? 'liechtenstein';

const gitCommit = () => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
};

const out = mkdtempSync(join(tmpdir(), 'waymark-tiles-'));
const stages = {};
const progress = stderrProgress();
const started = Date.now();
const cpuStart = process.cpuUsage();
let last = started;
let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 200);
try {
  const manifest = await buildTiles(osm, out, (stage, done, total) => {
    progress(stage, done, total);
    if (total === 0) {
      stages[stage] = Date.now() - last;
      last = Date.now();
    }
  });
  clearInterval(sampler);
  const result = {
    label,
    extract: osm.split('/').pop(),
    commit: gitCommit(),
    measuredAt: new Date().toISOString(),
    machine: { cpus: cpus().length, loadavg1AtEnd: Number(loadavg()[0].toFixed(1)) },
    buildMs: manifest.buildMs,
    cpuSeconds: Number(((({ user, system }) => user + system)(process.cpuUsage(cpuStart)) / 1e6).toFixed(2)),
    stagesMs: stages,
    peakRssBytes: peakRss,
    tiles: manifest.tiles,
    bytes: manifest.bytes,
    bytesPerTile: Math.round(manifest.bytes / manifest.tiles),
    perZoom: manifest.perZoom,
    bounds: manifest.bounds,
  };
  writeFileSync(join(root, 'bench', 'results', `tiles-${label}.json`), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  clearInterval(sampler);
  rmSync(out, { recursive: true, force: true });
}
