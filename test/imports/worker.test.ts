import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createImport } from '../../src/api/imports/store.js';
import { startJobRunner } from '../../src/job-kinds.js';
import { projectRoot } from '../../src/lib/paths.js';
import postgres from 'postgres';
import { connect } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { api, makeTeam, startTestApp, TEST_DATABASE_URL } from '../support/app.js';
import { upload, waitForImport } from './support.js';

let app: App & { url: string };
const children: ChildProcess[] = [];
// Its own database: the job runners of the other test files' apps would otherwise take these imports.
const DB_URL = `${TEST_DATABASE_URL}_worker`;

/** The CLI from dist/ against the test database. */
function waymark(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), ...args], {
    env: { ...process.env, DATABASE_URL: DB_URL, WAYMARK_JOB_LEASE_MS: '1000', WAYMARK_MAP: 'off', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => done({ code, signal }));
  });

/** 50,000 rows with categories, an attribute column the import creates, and some invalid rows. */
function bigFile(): string {
  const lines = ['name,latitude,longitude,category,shop_code'];
  for (let i = 0; i < 50_000; i++) {
    const lat = i % 997 === 0 ? '95' : ((i % 170) - 85 + 0.123).toFixed(3);
    lines.push(`shop ${i},${lat},${((i % 350) - 175).toFixed(3)},cat ${i % 7},"c,${i}"`);
  }
  return lines.join('\n');
}

beforeAll(async () => {
  const name = new URL(DB_URL).pathname.slice(1);
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const sql = connect(DB_URL, 1);
  await migrate(sql);
  await sql.end();
  // API only: the job runners of this test are child processes
  app = await startTestApp({ DATABASE_URL: DB_URL, WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off' });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await app.close();
});

describe('durable import processing', () => {
  it('resumes after a worker is killed mid-import, with the counts of a clean run and no duplicate POI', async () => {
    const crashed = await makeTeam(app);
    const clean = await makeTeam(app);
    const csv = bigFile();
    const res = await upload(app, crashed.key, csv, { fields: { create_missing_attributes: '1' } });
    expect(res.status).toBe(202);
    const id = res.body.data.id;
    await new Promise((done) => setTimeout(done, 300));
    expect((await api(app, 'GET', `/v1/imports/${id}`, { key: crashed.key })).body.data.status).toBe('queued');

    const first = waymark(['worker']);
    for (;;) {
      const [row] = await app.sql<{ processed_rows: number }[]>`SELECT processed_rows FROM imports WHERE id = ${id}`;
      if (row.processed_rows >= 500) break;
      if (first.exitCode !== null) throw new Error('worker exited early');
      await new Promise((done) => setTimeout(done, 2));
    }
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');

    const [midway] = await app.sql<{ status: string; processed_rows: number; created: number; next_row: number }[]>`
      SELECT status, processed_rows, created, next_row FROM imports WHERE id = ${id}`;
    expect(midway.status).toBe('processing');
    expect(midway.processed_rows).toBeLessThan(50_000);
    expect(midway.next_row).toBe(midway.processed_rows);
    const [{ n: committed }] = await app.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pois WHERE import_id = ${id}`;
    expect(committed).toBe(midway.created);

    const second = waymark(['worker']);
    const resumed = await waitForImport(app, crashed.key, id);
    const reference = (await upload(app, clean.key, csv, { fields: { create_missing_attributes: 'yes' } })).body.data;
    const cleanRun = await waitForImport(app, clean.key, reference.id);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);

    const counts = (d: any) => ({
      status: d.status,
      total_rows: d.total_rows,
      processed_rows: d.processed_rows,
      created: d.created,
      failed: d.failed,
      errors: d.errors,
    });
    expect(counts(resumed)).toEqual(counts(cleanRun));
    expect(resumed).toMatchObject({ status: 'completed', total_rows: 50_000, created: 50_000 - 51, failed: 51 });
    for (const [team, importId] of [
      [crashed.teamId, id],
      [clean.teamId, reference.id],
    ]) {
      const [stats] = await app.sql<{ pois: number; names: number; counted: number; categories: number }[]>`
        SELECT count(*)::int AS pois, count(DISTINCT name)::int AS names,
          (SELECT poi_count FROM teams WHERE id = ${team}) AS counted,
          (SELECT count(*)::int FROM categories WHERE team_id = ${team}) AS categories
        FROM pois WHERE import_id = ${importId}`;
      expect(stats).toEqual({ pois: resumed.created, names: resumed.created, counted: resumed.created, categories: 7 });
    }
    const [job] = await app.sql`SELECT count(*)::int AS n FROM jobs WHERE payload->>'import_id' = ${id}`;
    expect(job.n).toBe(0);
  });

  it('imports a file from the CLI with a progress bar on stderr', async () => {
    const team = await makeTeam(app);
    const dir = mkdtempSync(join(tmpdir(), 'waymark-import-'));
    const file = join(dir, 'cafés.csv');
    writeFileSync(file, 'name;latitude;longitude\nA;1.5;2.5\nB;3;x\n');
    const child = waymark(['import', file, '--team', team.teamId, '--json']);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    expect((await exited(child)).code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      status: 'completed',
      filename: 'cafés.csv',
      total_rows: 2,
      created: 1,
      failed: 1,
      errors: [{ line: 3, message: 'longitude: must be a number with a dot as the decimal separator' }],
    });
    expect(stderr).toMatch(/\[#+\] 100%\s+2\/2 rows/);

    const rejected = waymark(['import', file, '--team', 'nope']);
    let err = '';
    rejected.stderr!.on('data', (d) => (err += d));
    expect((await exited(rejected)).code).toBe(1);
    expect(err).toMatch(/team nope not found/);
  });

  it('fails an import whose stored file cannot be read, saying why', async () => {
    const team = await makeTeam(app);
    // past the upload checks, damaged in storage
    const row = await createImport(app.sql, {
      teamId: team.teamId,
      filename: 'broken.csv',
      columns: ['name', 'latitude', 'longitude'],
      totalRows: 1,
      createMissingAttributes: false,
      content: new TextEncoder().encode('name,latitude,longitude\n"x,1,2\n'),
    });
    const runner = await startJobRunner(app.sql, pino({ level: 'silent' }), { pollMs: 50 });
    try {
      const failed = await waitForImport(app, team.key, row.id);
      expect(failed).toMatchObject({
        status: 'failed',
        processed_rows: 0,
        created: 0,
        errors: [{ line: 2, message: 'file: has an unterminated quoted field starting at line 2' }],
      });
      expect(failed.finished_at).toMatch(/Z$/);
    } finally {
      await runner.stop();
    }
    const [job] = await app.sql`SELECT status, attempts FROM jobs WHERE payload->>'import_id' = ${row.id}`;
    expect(job).toEqual({ status: 'failed', attempts: 1 });
  });
});
