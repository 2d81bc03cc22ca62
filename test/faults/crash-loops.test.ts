// Background work across crash loops: `waymark worker` processes killed with SIGKILL again and again
// while they import and geocode. A death is not the work's failure: the import and the geocoding resume
// at once (a restarted worker on the same host does not wait for the dead one's lease), every row is
// imported once and every POI geocoded once, with its right address. A job whose worker dies every time
// before it gets anywhere is set aside, with a reason on the import.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createTeam } from '../../src/auth/admin.js';
import type { Sql } from '../../src/db/client.js';
import { loadGeocoder } from '../../src/engine/geocoder/reverse.js';
import { newId } from '../../src/lib/ids.js';
import { submitImport } from '../../src/api/imports/submit.js';
import { projectRoot } from '../../src/lib/paths.js';
import { testMapDir } from '../geo-api/support.js';
import { freshDatabase, sleep } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: Sql;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await freshDatabase('crashloop');
  sql = db.sql;
});
// A test that fails half-way must not leave workers behind to take the next test's work.
afterEach(async () => {
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of alive) c.kill('SIGKILL');
  await Promise.all(alive.map(exited));
  await endOthers();
});
afterAll(async () => {
  await db?.drop();
});

/** `waymark worker` on the suite's database. The lease is the default 30 s: only a takeover of a dead
 *  worker of this host at once keeps these loops fast. */
function worker(env: Record<string, string> = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'worker'], {
    env: { ...process.env, DATABASE_URL: db.url, WAYMARK_MAP: 'off', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  children.push(child);
  return Object.assign(child, { output: () => output });
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => done({ code, signal }));
  });

async function killHard(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await exited(child);
}

/** Polls until `check` returns a value, or fails naming `what`. */
async function until<T>(check: () => Promise<T | undefined>, what: string, ms = 30_000, every = 10): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}

/** Ends the sessions a killed worker left behind (one may wait on a lock the test holds). */
const endOthers = () => sql`
  SELECT pg_terminate_backend(pid) FROM pg_stat_activity
  WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name <> 'waymark-test'`;

/** 50,000 rows, every 997th with a latitude out of range. */
function bigFile(): Uint8Array {
  const lines = ['name,latitude,longitude,category'];
  for (let i = 0; i < 50_000; i++) {
    const lat = i % 997 === 0 ? '95' : ((i % 170) - 85 + 0.123).toFixed(3);
    lines.push(`shop ${i},${lat},${((i % 350) - 175).toFixed(3)},cat ${i % 7}`);
  }
  return new TextEncoder().encode(lines.join('\n'));
}

describe('an import whose worker is killed 7 times', () => {
  it('completes with every row imported exactly once', async () => {
    const team = await createTeam(sql, { name: 'crash loop', plan: 'enterprise' });
    const imp = await submitImport(sql, { teamId: team.id, filename: 'big.csv', bytes: bigFile(), createMissingAttributes: false });
    const processed = async () => (await sql<{ n: number }[]>`SELECT processed_rows AS n FROM imports WHERE id = ${imp.id}`)[0].n;
    // A lease longer than the test: a worker can take the job over from the one killed before it only by
    // seeing that runner dead on this host, never by waiting for its lease to run out.
    const longLease = { WAYMARK_JOB_LEASE_MS: String(3_600_000) };
    let last = 0;
    for (let kill = 1; kill <= 7; kill++) {
      const w = worker(longLease);
      // Killed once it has committed a batch of its own: mid-import, every time.
      last = await until(
        async () => {
          const n = await processed();
          if (w.exitCode !== null) throw new Error(`worker exited: ${w.output()}`);
          return n > last ? n : undefined;
        },
        `worker ${kill} to commit a batch`,
        20_000,
        2,
      );
      await killHard(w);
      expect(last).toBeLessThan(50_000);
    }
    // The killed worker's lease has most of its hour left: the workers after it finish the job long before it
    // runs out (each took over from a dead one; an error would have used an attempt).
    const [held] = await sql`
      SELECT status, attempts, locked_until > now() + interval '30 minutes' AS leased FROM jobs WHERE payload->>'import_id' = ${imp.id}`;
    expect(held).toEqual({ status: 'running', attempts: 0, leased: true });
    const final = worker(longLease);
    const done = await until(
      async () => {
        const [row] = await sql<{ status: string }[]>`SELECT status FROM imports WHERE id = ${imp.id}`;
        return row.status === 'completed' || row.status === 'failed' ? row : undefined;
      },
      'the import to finish',
      60_000,
      50,
    );
    final.kill('SIGTERM');
    expect((await exited(final)).code).toBe(0);

    expect(done.status).toBe('completed');
    const [row] = await sql`SELECT total_rows, processed_rows, created, failed, jsonb_array_length(errors) AS errors FROM imports WHERE id = ${imp.id}`;
    expect(row).toEqual({ total_rows: 50_000, processed_rows: 50_000, created: 50_000 - 51, failed: 51, errors: 51 });
    const [pois] = await sql`SELECT count(*)::int AS n, count(DISTINCT name)::int AS names FROM pois WHERE import_id = ${imp.id}`;
    expect(pois).toEqual({ n: 50_000 - 51, names: 50_000 - 51 });
    expect((await sql`SELECT poi_count FROM teams WHERE id = ${team.id}`)[0].poi_count).toBe(50_000 - 51);
    expect(await sql`SELECT id FROM jobs WHERE payload->>'import_id' = ${imp.id}`).toEqual([]);
  }, 90_000);
});

describe('a job that takes its worker down every time', () => {
  it('is set aside after 5 deaths in a row, with a reason on the import', async () => {
    const team = await createTeam(sql, { name: 'poison', plan: 'enterprise' });
    const imp = await submitImport(sql, {
      teamId: team.id,
      filename: 'poison.csv',
      bytes: new TextEncoder().encode('name,latitude,longitude\na,1,2\nb,3,4\n'),
      createMissingAttributes: false,
    });
    // What a poison job does, from the outside: its worker dies every time, before it commits anything.
    // The import's row is held, so that no batch can commit; each worker is killed once it has claimed the job.
    let holder = '';
    for (let death = 1; death <= 5; death++) {
      let release!: () => void;
      const held = sql.begin(async (tx) => {
        await tx`SELECT 1 FROM imports WHERE id = ${imp.id} FOR SHARE`;
        await new Promise<void>((resolve) => (release = resolve));
      });
      const w = worker();
      holder = await until(async () => {
        const [job] = await sql<{ status: string; locked_by: string | null }[]>`SELECT status, locked_by FROM jobs WHERE payload->>'import_id' = ${imp.id}`;
        return job.status === 'running' && job.locked_by && job.locked_by !== holder ? job.locked_by : undefined;
      }, `worker ${death} to claim the job`);
      await killHard(w);
      await endOthers();
      release();
      await held;
    }
    const last = worker();
    const failed = await until(async () => {
      const [row] = await sql<{ status: string; errors: Array<{ line: number; message: string }> }[]>`SELECT status, errors FROM imports WHERE id = ${imp.id}`;
      return row.status === 'failed' ? row : undefined;
    }, 'the import to be set aside');
    last.kill('SIGTERM');
    expect((await exited(last)).code).toBe(0);
    expect(failed.errors).toEqual([
      {
        line: 2,
        message:
          'file: processing was set aside: the process importing it stopped 5 times in a row before it could commit the rows from this line on (killed, out of memory or crashed)',
      },
    ]);
    const [job] = await sql`SELECT status, attempts, crashes, last_error FROM jobs WHERE payload->>'import_id' = ${imp.id}`;
    expect(job).toMatchObject({ status: 'failed', attempts: 0, crashes: 5 });
    expect(job.last_error).toMatch(/^set aside: the process running it stopped 5 times in a row/);
    expect(await sql`SELECT id FROM pois WHERE import_id = ${imp.id}`).toEqual([]);
  }, 90_000);
});

describe('geocoding whose worker is killed 7 times', () => {
  it('geocodes every POI exactly once, with its address', async () => {
    const mapDir = await testMapDir();
    const team = await createTeam(sql, { name: 'geocoding loop', plan: 'enterprise' });
    // The imports above left 50,000 POIs waiting for an address: this run is about these 1,000 only.
    await sql`UPDATE pois SET geocode_pending = false WHERE geocode_pending`;
    await sql.unsafe(`
      CREATE TABLE geocode_log (poi_id text NOT NULL);
      CREATE FUNCTION log_geocode() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO geocode_log VALUES (NEW.id); RETURN NEW; END $$;
      CREATE TRIGGER pois_geocoded AFTER UPDATE ON pois FOR EACH ROW
        WHEN (OLD.geocode_pending AND NOT NEW.geocode_pending) EXECUTE FUNCTION log_geocode();`);
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const ids = Array.from({ length: 1000 }, () => newId());
    await sql`
      INSERT INTO pois (id, team_id, name, latitude, longitude)
      SELECT id, ${team.id}, 'g ' || id, lat, lon
      FROM unnest(${ids}::text[], ${ids.map(() => 47.05 + random() * 0.2)}::float8[], ${ids.map(() => 9.48 + random() * 0.14)}::float8[]) AS t(id, lat, lon)`;
    const written = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM geocode_log`)[0].n;
    // One compute thread and one routing profile: these workers only geocode, and start faster so.
    const geocodingEnv = { WAYMARK_MAP: mapDir, WAYMARK_WORKERS: '1', WAYMARK_PROFILES: 'foot-walking' };

    for (let kill = 1; kill <= 7; kill++) {
      // The team's counters row is held, so that a geocoding write (whose trigger bumps it) waits while
      // claims (which leave it alone) go ahead: the worker is killed with its batches claimed, geocoded
      // and not written. What the deaths before left unfinished is claimed first, in smaller batches,
      // so some POIs are in flight at several deaths in a row: still not enough to set them aside.
      let release!: () => void;
      const held = sql.begin(async (tx) => {
        await tx`SELECT 1 FROM poi_versions WHERE team_id = ${team.id} FOR UPDATE`;
        await new Promise<void>((resolve) => (release = resolve));
      });
      const w = worker(geocodingEnv);
      await until(
        async () => {
          const [row] = await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pois WHERE geocode_pending AND geocode_lease_until > now() AND geocode_claimed_by LIKE ${`%:${w.pid}:%`}
            AND geocode_claims >= ${Math.min(kill, 3)}`;
          if (w.exitCode !== null) throw new Error(`worker exited: ${w.output()}`);
          return row.n > 0 ? true : undefined;
        },
        `worker ${kill} to claim a batch of POIs claimed ${Math.min(kill, 3)} times`,
        30_000,
        5,
      );
      await sleep(100);
      await killHard(w);
      await endOthers();
      release();
      await held;
      expect(await written()).toBe(0);
    }
    const [{ max }] = await sql`SELECT max(geocode_claims)::int AS max FROM pois WHERE team_id = ${team.id}`;
    expect(max).toBeGreaterThanOrEqual(3);
    const final = worker(geocodingEnv);
    await until(
      async () => ((await sql`SELECT 1 FROM pois WHERE team_id = ${team.id} AND geocode_pending LIMIT 1`).length ? undefined : true),
      'every POI to be geocoded',
      60_000,
      50,
    );
    final.kill('SIGTERM');
    expect((await exited(final)).code).toBe(0);

    const [log] = await sql<{ n: number; pois: number }[]>`SELECT count(*)::int AS n, count(DISTINCT poi_id)::int AS pois FROM geocode_log`;
    expect(log).toEqual({ n: 1000, pois: 1000 });
    const rows = await sql<
      {
        latitude: number;
        longitude: number;
        street: string | null;
        display_name: string | null;
        geocoded_at: Date | null;
        geocode_error: string | null;
        city: string | null;
        country: string | null;
        zipcode: string | null;
      }[]
    >`
      SELECT p.latitude, p.longitude, p.street, p.display_name, p.geocoded_at, p.geocode_error, ci.name AS city, co.name AS country, z.code AS zipcode
      FROM pois p LEFT JOIN cities ci ON ci.id = p.city_id LEFT JOIN countries co ON co.id = p.country_id LEFT JOIN zipcodes z ON z.id = p.zipcode_id
      WHERE p.team_id = ${team.id}`;
    const geocoder = await loadGeocoder(mapDir);
    let wrong = 0;
    for (const r of rows) {
      const a = geocoder.reverseGeocode(r.latitude, r.longitude);
      if (
        !r.geocoded_at ||
        r.geocode_error ||
        r.street !== a.street ||
        r.display_name !== a.display_name ||
        r.city !== a.city ||
        r.country !== a.country ||
        r.zipcode !== a.zipcode
      )
        wrong++;
    }
    expect(rows.length).toBe(1000);
    expect(wrong).toBe(0);
  }, 120_000);
});

describe('a POI whose geocoding takes its process down every time', () => {
  it('is claimed alone, then set aside with a reason after 8 deaths in a row', async () => {
    const mapDir = await testMapDir();
    const { GeocodingRunner } = await import('../../src/geocoding/runner.js');
    const pino = (await import('pino')).default;
    const team = await createTeam(sql, { name: 'poison poi', plan: 'enterprise' });
    await sql`UPDATE pois SET geocode_pending = false WHERE geocode_pending`;
    // Seven deaths in a row behind it (as the claims of dead workers leave it), and others with fewer.
    const [poison, ...others] = Array.from({ length: 40 }, () => newId()).sort();
    await sql`
      INSERT INTO pois (id, team_id, name, latitude, longitude, geocode_claims)
      SELECT id, ${team.id}, 'p', 47.14, 9.52, claims FROM unnest(${[poison, ...others]}::text[], ${[8, ...others.map(() => 2)]}::int[]) AS t(id, claims)`;
    // Geocoding runs on the map this process serves (the compute threads'), as in `waymark worker`.
    const { loadMap } = await import('../../src/engine/engine.js');
    const { closePool } = await import('../../src/compute/pool.js');
    await loadMap(mapDir);
    onTestFinished(closePool);
    const w = new GeocodingRunner(sql, { mapDir, log: pino({ level: 'silent' }) });
    // The ninth claim: alone, and set aside.
    expect(await w.runBatch()).toBe(1);
    const [row] = await sql`SELECT geocode_pending, geocoded_at IS NOT NULL AS finished, street, geocode_error FROM pois WHERE id = ${poison}`;
    expect(row).toEqual({
      geocode_pending: false,
      finished: true,
      street: null,
      geocode_error: 'set aside: the process geocoding it stopped 8 times in a row (killed, out of memory or crashed)',
    });
    // Two deaths behind them: batches of 500 >> 4 = 31, geocoded as usual.
    expect(await w.runBatch()).toBe(31);
    expect(await w.runBatch()).toBe(8);
    const rest = await sql`SELECT count(*)::int AS n FROM pois WHERE team_id = ${team.id} AND street IS NOT NULL AND geocode_error IS NULL`;
    expect(rest[0].n).toBe(39);
  });
});
