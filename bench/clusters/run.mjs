// Clustering benchmark: 2,000 real address points (Liechtenstein extract) into 10 and 100 clusters, plain
// and balanced (and max_stops), timed in-thread against ml-kmeans doing plain k-means on the same points.
// Figures are wall-clock on a shared 2-core machine: noisy. Nothing passes or fails on time.
// Run: npm run build && node bench/clusters/run.mjs [--runs N]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kmeans as mlKmeans } from 'ml-kmeans';
import { loadOsm } from '../../dist/map/osm/osm-data.js';
import { projectRoot } from '../../dist/lib/paths.js';
import { clusterPoints } from '../../dist/engine/kmeans/kmeans.js';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 40;
const WARMUP = 5;
const N = 2_000;
const R = 6371008.8;
const RAD = Math.PI / 180;

/** Address points (nodes and building outlines with addr:housenumber), evenly spread: as the tests use. */
async function addressPoints(count) {
  const osm = await loadOsm(join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf'));
  const all = [];
  for (const node of osm.taggedNodes) if (node.tags?.['addr:housenumber']) all.push({ lat: node.lat, lon: node.lon });
  for (const way of osm.ways) {
    if (!way.tags['addr:housenumber']) continue;
    const refs = way.refs.length > 1 && way.refs[0] === way.refs[way.refs.length - 1] ? way.refs.slice(0, -1) : way.refs;
    let lat = 0,
      lon = 0,
      m = 0;
    for (const ref of refs) {
      const c = osm.coord(ref);
      if (c) {
        lat += c[0];
        lon += c[1];
        m++;
      }
    }
    if (m > 0) all.push({ lat: lat / m, lon: lon / m });
  }
  return Array.from({ length: count }, (_, i) => all[Math.floor((i * all.length) / count)]);
}

function toVectors(points) {
  return points.map(({ lat: latitude, lon: longitude }) => {
    const la = latitude * RAD,
      lo = longitude * RAD;
    return [R * Math.cos(la) * Math.cos(lo), R * Math.cos(la) * Math.sin(lo), R * Math.sin(la)];
  });
}

function sse(X, assignment, k) {
  const s = Array.from({ length: k }, () => [0, 0, 0, 0]);
  X.forEach((x, i) => {
    const c = s[assignment[i]];
    c[0] += x[0];
    c[1] += x[1];
    c[2] += x[2];
    c[3]++;
  });
  let e = 0;
  X.forEach((x, i) => {
    const c = s[assignment[i]];
    for (let d = 0; d < 3; d++) {
      const v = x[d] - c[d] / c[3];
      e += v * v;
    }
  });
  return e;
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const round2 = (x) => Math.round(x * 100) / 100;

/** Wall-clock p50/p95/mean, plus the process CPU time per run (less sensitive to other load on the machine). */
function summary({ times, cpu }) {
  const t = [...times].sort((a, b) => a - b);
  const c = [...cpu].sort((a, b) => a - b);
  return {
    p50: round2(quantile(t, 0.5)),
    p95: round2(quantile(t, 0.95)),
    mean: round2(t.reduce((a, b) => a + b, 0) / t.length),
    cpu_p50: round2(quantile(c, 0.5)),
    cpu_p95: round2(quantile(c, 0.95)),
  };
}

function time(fn, runs) {
  for (let i = 0; i < WARMUP; i++) fn(i);
  const times = [];
  const cpu = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    last = fn(i);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { times, cpu, last };
}

const points = await addressPoints(N);
const X = toVectors(points);
console.log(`clusters bench: ${N} address points, ${RUNS} runs per case (+${WARMUP} warm-up)`);

// The peer's plain k-means, one seeded k-means++ run per call, as a caller would use it.
const peer = {};
for (const k of [10, 100]) {
  const sses = [];
  const timing = time((i) => {
    const r = mlKmeans(X, k, { initialization: 'kmeans++', seed: i + 1 });
    sses.push(sse(X, r.clusters, k));
    return r;
  }, RUNS);
  sses.sort((a, b) => a - b);
  peer[k] = { ...summary(timing), sse_median: quantile(sses, 0.5), sse_best: sses[0] };
  const q = peer[k];
  console.log(
    `ml-kmeans k=${k}: p50 ${q.p50} ms, p95 ${q.p95} ms (cpu p50 ${q.cpu_p50}), ` +
      `SSE median ${q.sse_median.toExponential(4)} best ${q.sse_best.toExponential(4)}`,
  );
}

const cases = [
  { name: '2000 into 10, plain', k: 10, opts: { clusters: 10 } },
  { name: '2000 into 10, balanced', k: 10, opts: { clusters: 10, balanced: true } },
  { name: '2000 into 100, plain', k: 100, opts: { clusters: 100 } },
  { name: '2000 into 100, balanced', k: 100, opts: { clusters: 100, balanced: true } },
  { name: '2000, max_stops 25', k: 80, opts: { maxStops: 25 } },
  { name: '2000, max_stops 25, balanced', k: 80, opts: { maxStops: 25, balanced: true } },
  { name: '2000, max_stops 37', k: 55, opts: { maxStops: 37 } },
  { name: '2000 into 55, balanced', k: 55, opts: { clusters: 55, balanced: true } },
];
const results = [];
for (const c of cases) {
  const timing = time(() => clusterPoints(points, c.opts), RUNS);
  const { last } = timing;
  const s = summary(timing);
  const sizes = last.clusters.map((cl) => cl.members.length);
  const ours = { ...s, sse: last.sse, clusters: last.clusters.length, min_size: Math.min(...sizes), max_size: Math.max(...sizes) };
  const p = peer[c.k];
  const row = { case: c.name, options: c.opts, ours };
  if (p && (c.opts.clusters === 10 || c.opts.clusters === 100)) {
    row.peer_plain = p;
    row.time_ratio_p50 = Math.round((s.p50 / p.p50) * 1000) / 1000;
    row.time_ratio_p95 = Math.round((s.p95 / p.p95) * 1000) / 1000;
    // Quality is comparable only for plain k-means; balanced clusters pay for equal sizes.
    if (!c.opts.balanced && !c.opts.maxStops) {
      row.sse_ratio_vs_peer_median = Math.round((last.sse / p.sse_median) * 10000) / 10000;
      row.sse_ratio_vs_peer_best = Math.round((last.sse / p.sse_best) * 10000) / 10000;
    }
  }
  results.push(row);
  console.log(
    `${c.name}: p50 ${s.p50} ms, p95 ${s.p95} ms (cpu p50 ${s.cpu_p50}, p95 ${s.cpu_p95}), ` +
      `SSE ${last.sse.toExponential(4)}, sizes ${ours.min_size}..${ours.max_size}` +
      (row.time_ratio_p50 !== undefined ? `, time vs peer ${row.time_ratio_p50}` : '') +
      (row.sse_ratio_vs_peer_median !== undefined ? `, SSE vs peer median ${row.sse_ratio_vs_peer_median} (vs peer best ${row.sse_ratio_vs_peer_best})` : ''),
  );
}

const out = {
  bench: 'clusters',
  date: new Date().toISOString(),
  note:
    'wall-clock ms on a shared 2-core machine (noisy; cpu_* = process CPU ms per run, which other load ' +
    'disturbs less); SSE in m² of straight-line distances in 3-D; peer = ml-kmeans plain k-means++ (one seeded ' +
    'run per call, no balanced mode); time ratios = ours / peer',
  stops: N,
  runs: RUNS,
  targets: { plain_2000_100_p95_ms: 20, balanced_2000_100_p95_ms: 150, quality: "SSE at most the peer's" },
  results,
};
mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
writeFileSync(join(projectRoot, 'bench', 'results', 'clusters.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log('wrote bench/results/clusters.json');
