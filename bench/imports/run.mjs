// CSV import throughput: a 50,000-row file (categories, typed attributes, quoted fields) from the upload
// to `completed`, against the real server process with its in-process job runner.
// Usage: node bench/imports/run.mjs [--runs 3] [--rows 50000] [--geocoding off]   (needs `npm run build` and local PostgreSQL)
// By default the server runs as deployed, geocoding the imported POIs in the background meanwhile.
// The machine's 2 cores are shared with other work: figures are noisy.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createKey, createTeam } from '../../dist/auth/admin.js';
import { parsePermissionList } from '../../dist/auth/permissions.js';
import { connect } from '../../dist/db/client.js';
import { migrate } from '../../dist/db/migrate.js';
import { projectRoot } from '../../dist/lib/paths.js';

const { values: opts } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, rows: { type: 'string', default: '50000' }, geocoding: { type: 'string', default: 'on' } },
});
const geocoding = opts.geocoding !== 'off';
const runs = Number(opts.runs);
const rowCount = Number(opts.rows);
const adminUrl = process.env.WAYMARK_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'waymark_bench_imports';
const dbUrl = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);
const log = (msg) => process.stderr.write(`[bench/imports] ${msg}\n`);

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

function csvFile() {
  const lines = ['name,latitude,longitude,category,rating,open'];
  for (let i = 0; i < rowCount; i++) {
    const name = i % 10 === 0 ? `"Shop ${i}, ""Corner"""` : `Shop ${i}`;
    lines.push(`${name},${(47 + (i % 1000) / 1000).toFixed(5)},${(9 + (i % 997) / 997).toFixed(5)},cat ${i % 20},${(i % 50) / 10},${i % 2 ? 'yes' : 'no'}`);
  }
  return `${lines.join('\n')}\n`;
}

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.unsafe(`CREATE DATABASE ${dbName}`);
await admin.end();
const sql = connect(dbUrl, 2);
await migrate(sql);

const port = await freePort();
const server = spawn(process.execPath, [join(projectRoot, 'bin/waymark.js'), 'serve'], {
  env: { ...process.env, DATABASE_URL: dbUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...(geocoding ? {} : { WAYMARK_MAP: 'off' }) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise((resolve, reject) => {
  let out = '';
  server.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  server.stdout.on('data', (chunk) => {
    out += chunk;
    if (/"msg":"listening"/.test(out)) {
      server.stdout.removeAllListeners('data');
      server.stdout.resume();
      resolve();
    }
  });
});
const base = `http://127.0.0.1:${port}`;

const csv = csvFile();
const bytes = Buffer.byteLength(csv);
log(`${rowCount} rows, ${(bytes / 1024 / 1024).toFixed(2)} MB`);
const results = [];
try {
  for (let run = 1; run <= runs; run++) {
    const team = await createTeam(sql, { name: `bench ${run}`, plan: 'enterprise' });
    const { key } = await createKey(sql, { teamId: team.id, name: 'bench', permissions: parsePermissionList('all') });
    for (const [name, type] of [
      ['rating', 'number'],
      ['open', 'boolean'],
    ]) {
      await fetch(`${base}/v1/attributes`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name, type }),
      });
    }
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    const t0 = performance.now();
    const res = await fetch(`${base}/v1/imports`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    const accepted = await res.json();
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${JSON.stringify(accepted)}`);
    const t1 = performance.now();
    let data;
    for (;;) {
      data = (await (await fetch(`${base}/v1/imports/${accepted.data.id}`, { headers: { 'x-api-key': key } })).json()).data;
      if (data.status === 'completed' || data.status === 'failed') break;
      await new Promise((done) => setTimeout(done, 25));
    }
    const t2 = performance.now();
    if (data.status !== 'completed' || data.created !== rowCount) throw new Error(`import ended ${data.status}, created ${data.created}`);
    // Then until the geocoding job has given every imported POI its address.
    let t3 = t2;
    if (geocoding) {
      for (;;) {
        const [{ pending }] = await sql`SELECT count(*)::int AS pending FROM pois WHERE team_id = ${team.id} AND geocode_pending`;
        if (pending === 0) break;
        await new Promise((done) => setTimeout(done, 50));
      }
      t3 = performance.now();
    }
    const r = {
      run,
      upload_ms: Math.round(t1 - t0),
      processing_ms: Math.round(t2 - t1),
      total_ms: Math.round(t2 - t0),
      rows_per_s: Math.round(rowCount / ((t2 - t0) / 1000)),
      ...(geocoding ? { all_geocoded_ms: Math.round(t3 - t0) } : {}),
    };
    log(
      `run ${run}: upload→202 ${r.upload_ms} ms, 202→completed ${r.processing_ms} ms, total ${r.total_ms} ms, ${r.rows_per_s} rows/s${geocoding ? `, all geocoded after ${r.all_geocoded_ms} ms` : ''}`,
    );
    results.push(r);
  }
} finally {
  server.kill('SIGTERM');
  await sql.end();
}

const sorted = [...results].sort((a, b) => a.total_ms - b.total_ms);
const median = sorted[Math.floor(sorted.length / 2)];
const summary = {
  benchmark: 'imports',
  rows: rowCount,
  file_bytes: bytes,
  batch_size: 500,
  background_geocoding: geocoding,
  target: '50,000 rows from upload to completed in under 20 s',
  median_total_ms: median.total_ms,
  ...(geocoding
    ? { median_all_geocoded_ms: [...results].sort((a, b) => a.all_geocoded_ms - b.all_geocoded_ms)[Math.floor(results.length / 2)].all_geocoded_ms }
    : {}),
  median_rows_per_s: median.rows_per_s,
  runs: results,
  note: 'one server process (API + in-process job runner) and local PostgreSQL on a 2-core machine shared with other work; figures are noisy',
  measured_at: new Date().toISOString(),
};
mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
writeFileSync(join(projectRoot, 'bench', 'results', geocoding ? 'imports.json' : 'imports-no-geocoding.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(
  `${rowCount} rows${geocoding ? '' : ' (geocoding off)'}: median ${median.total_ms} ms upload→completed, ${median.rows_per_s} rows/s (target < 20 s)`,
);
