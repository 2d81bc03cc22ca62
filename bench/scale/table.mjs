// The table across every bench/results/scale-*.json, with the 32x32 targets marked on each row.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const GB = 1e9; // decimal: the stricter reading of "8 GB"

/** Targets set for the 32x32 country; `value` picks the figure from a result file. */
export const TARGETS = [
  { key: 'build_s', label: 'build ≤ 600 s', max: 600, value: (r) => r.build?.wall_s },
  { key: 'build_peak_rss', label: 'build peak RSS ≤ 8 GB', max: 8 * GB, value: (r) => r.build?.peak_rss_bytes },
  { key: 'map_bytes', label: 'map dir ≤ 4.5 GB', max: 4.5 * GB, value: (r) => r.map?.bytes },
  { key: 'ready_s', label: 'ready ≤ 10 s', max: 10, value: (r) => r.serve?.ready_s },
  { key: 'serving_rss', label: 'serving RSS ≤ 6 GB', max: 6 * GB, value: (r) => r.serve?.rss_bytes },
  { key: 'a_p95', label: '(a) p95 ≤ 15 ms', max: 15, value: (r) => r.workloads?.a?.ms?.p95 },
  { key: 'b_p95', label: '(b) p95 ≤ 25 ms', max: 25, value: (r) => r.workloads?.b?.ms?.p95 },
  { key: 'c_p95', label: '(c) p95 ≤ 150 ms', max: 150, value: (r) => r.workloads?.c?.ms?.p95 },
  { key: 'd_p95', label: '(d) p95 ≤ 40 ms', max: 40, value: (r) => r.workloads?.d?.ms?.p95 },
  { key: 'errors', label: '0 errors', max: 0, value: (r) => r.errors_total },
];

/** ✓/✗ per target; null where the figure is missing (a failed or partial run). */
export function checkTargets(result) {
  return Object.fromEntries(
    TARGETS.map((t) => {
      const v = t.value(result);
      return [t.key, v == null ? null : v <= t.max];
    }),
  );
}

const mark = (ok) => (ok == null ? '' : ok ? ' ✓' : ' ✗');
const fmtBytes = (b) => (b == null ? '-' : b >= GB ? `${(b / GB).toFixed(2)} GB` : `${(b / 1e6).toFixed(0)} MB`);
const fmtNum = (x, digits = 1) => (x == null ? '-' : x.toFixed(digits));

/** Order rows by the number of tiles, then by name: 3x3, 10x10, 20x20, 32x32, then other extracts. */
function sizeKey(r) {
  const m = /^(\d+)x(\d+)/.exec(r.tiles ?? r.label ?? '');
  return m ? Number(m[1]) * Number(m[2]) : Number.MAX_SAFE_INTEGER;
}

export function readResults(dir) {
  let names = [];
  try {
    names = readdirSync(dir).filter((n) => /^scale-.*\.json$/.test(n));
  } catch {
    return [];
  }
  const out = [];
  for (const n of names) {
    try {
      out.push(JSON.parse(readFileSync(join(dir, n), 'utf8')));
    } catch {
      /* a half-written file: skip */
    }
  }
  return out.sort((a, b) => sizeKey(a) - sizeKey(b) || String(a.label).localeCompare(String(b.label)));
}

function renderTable(header, rows) {
  const width = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...String(r[i])].length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(width[i] + (String(c).length - [...String(c)].length))).join(' │ ');
  return [line(header), width.map((w) => '─'.repeat(w)).join('─┼─'), ...rows.map(line)].join('\n');
}

export function formatTable(results) {
  const header = [
    'map',
    'road nodes (car)',
    'build s',
    'build peak RSS',
    'map size',
    'B/node car·hgv·bike·foot',
    '+shared B/car node',
    'ready s',
    'serving RSS (peak)',
    'a p50/p95 ms',
    'b p50/p95 ms',
    'c p50/p95 ms',
    'd p50/p95 ms',
    'e p95 max ms',
    'errors',
  ];
  const rows = results.map((r) => {
    const ok = checkTargets(r);
    const w = r.workloads ?? {};
    const lat = (x, key) => (x?.ms?.n ? `${fmtNum(x.ms.p50)} / ${fmtNum(x.ms.p95)}${mark(ok[key])}` : '-');
    const p = r.map?.profiles ?? {};
    const perNode = ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking']
      .map((k) => (p[k]?.bytes_per_node == null ? '-' : Math.round(p[k].bytes_per_node)))
      .join('·');
    const eP95 = Object.values(w.e?.profiles ?? {})
      .map((x) => x.ms?.p95)
      .filter((x) => x != null);
    return [
      r.label + (r.status === 'failed' ? ' (FAILED)' : ''),
      p['driving-car']?.nodes?.toLocaleString('en-US') ?? '-',
      r.build?.wall_s == null ? '-' : `${fmtNum(r.build.wall_s)}${mark(ok.build_s)}`,
      r.build?.peak_rss_bytes == null ? '-' : `${fmtBytes(r.build.peak_rss_bytes)}${mark(ok.build_peak_rss)}`,
      r.map?.bytes == null ? '-' : `${fmtBytes(r.map.bytes)}${mark(ok.map_bytes)}`,
      perNode,
      r.map?.shared_bytes_per_car_node == null ? '-' : Math.round(r.map.shared_bytes_per_car_node),
      r.serve?.ready_s == null ? '-' : `${fmtNum(r.serve.ready_s, 2)}${mark(ok.ready_s)}`,
      r.serve?.rss_bytes == null ? '-' : `${fmtBytes(r.serve.rss_bytes)} (${fmtBytes(r.serve.hwm_bytes)})${mark(ok.serving_rss)}`,
      lat(w.a, 'a_p95'),
      lat(w.b, 'b_p95'),
      lat(w.c, 'c_p95'),
      lat(w.d, 'd_p95'),
      eP95.length ? fmtNum(Math.max(...eP95)) : '-',
      r.errors_total == null ? '-' : `${r.errors_total}${mark(ok.errors)}`,
    ];
  });
  const notes = results
    .filter((r) => r.status === 'failed')
    .map(
      (r) =>
        `  ${r.label}: failed at ${r.failed_stage}: ${String(r.error)
          .replace(/\s*\n\s*/g, ' / ')
          .slice(0, 400)}`,
    );
  const commits = results.map((r) => `${r.label} @ ${r.git?.commit ?? '?'}${r.git?.dirty ? '+dirty' : ''} ${r.finished_at?.slice(0, 16) ?? ''}`).join(', ');
  const target32 = results.find((r) => r.label === '32x32');
  const targetLine = TARGETS.map((t) => {
    const v = target32 ? checkTargets(target32)[t.key] : null;
    return `${t.label}${target32 ? (v == null ? ' ?' : mark(v)) : ''}`;
  }).join('; ');
  return [
    renderTable(header, rows),
    ...(notes.length ? ['failures:', ...notes] : []),
    `targets (set for 32x32, marked on every row): ${targetLine}${target32 ? '' : ' — no 32x32 result yet'}`,
    'b: 500 avoided POIs; e: every profile, worst p95; serving RSS after the workloads (peak VmHWM); GB = 10^9 bytes',
    `runs: ${commits}`,
  ].join('\n');
}
