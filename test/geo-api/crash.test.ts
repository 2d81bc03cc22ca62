// Durability of background geocoding across processes: a server killed (SIGKILL) mid-batch loses nothing,
// and after restarting, two servers side by side finish the work with every POI geocoded exactly once.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam } from '../../src/auth/admin.js';
import { connect, retryable, type Sql } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { GeocodingRunner } from '../../src/geocoding/runner.js';
import { loadGeocoder } from '../../src/engine/geocoder/reverse.js';
import { newId } from '../../src/lib/ids.js';
import { TEST_DATABASE_URL } from '../support/app.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { testMapDir, waitFor } from './support.js';

// Its own database: the geocoding workers of the other test files' apps would otherwise take these POIs.
const DB_URL = `${TEST_DATABASE_URL}_geocrash`;
const POIS = 20_000;
// Liechtenstein's bounding box, a little beyond its borders.
const BOX = { south: 47.048, west: 9.471, north: 47.271, east: 9.636 };

let sql: Sql;
let teamId: string;
let mapDir: string;
const servers: ServerProcess[] = [];

const start = async () => {
  const server = await spawnServer({ DATABASE_URL: DB_URL, WAYMARK_MAP: mapDir, WAYMARK_JOB_LEASE_MS: '2000' });
  servers.push(server);
  return server;
};
const count = async (where: 'pending' | 'done') => {
  const [row] = await retryable(sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pois WHERE geocode_pending = ${where === 'pending'}`);
  return row.n;
};

beforeAll(async () => {
  mapDir = await testMapDir();
  const name = new URL(DB_URL).pathname.slice(1);
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  sql = connect(DB_URL, 2);
  await migrate(sql);
  // Every finished geocoding of a POI, to count them.
  await sql.unsafe(`
    CREATE TABLE geocode_log (poi_id text NOT NULL);
    CREATE FUNCTION log_geocode() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO geocode_log VALUES (NEW.id); RETURN NEW; END $$;
    CREATE TRIGGER pois_geocoded AFTER UPDATE ON pois FOR EACH ROW
      WHEN (OLD.geocode_pending AND NOT NEW.geocode_pending) EXECUTE FUNCTION log_geocode();`);
  teamId = (await createTeam(sql, { name: 'crash', plan: 'enterprise' })).id;
});

/** Pending POIs at pseudo-random points over the map. */
async function insertPois(n: number): Promise<string[]> {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const ids = Array.from({ length: n }, () => newId());
  const lats = ids.map(() => BOX.south + random() * (BOX.north - BOX.south));
  const lons = ids.map(() => BOX.west + random() * (BOX.east - BOX.west));
  await sql`
    INSERT INTO pois (id, team_id, name, latitude, longitude)
    SELECT id, ${teamId}, 'p ' || id, lat, lon FROM unnest(${ids}::text[], ${lats}::float8[], ${lons}::float8[]) AS t(id, lat, lon)`;
  return ids;
}
afterAll(async () => {
  const running = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
  await Promise.allSettled(running.map((s) => s.stop('SIGKILL')));
  await sql?.end();
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${new URL(DB_URL).pathname.slice(1)} WITH (FORCE)`);
  await admin.end();
});

describe('geocoding across process crashes', () => {
  it('backs a failed batch off; a failing geocoder uses up attempts', async () => {
    const ids = await insertPois(3);
    const broken = new GeocodingRunner(sql, { mapDir: join(tmpdir(), 'no-such-map'), log: pino({ level: 'silent' }) });
    await expect(broken.runBatch()).rejects.toThrow('the geocode task failed');
    const rows = await sql`
      SELECT geocode_pending, geocode_attempts, geocode_lease_until > now() + interval '1 second' AS backed_off FROM pois WHERE id = ANY(${ids})`;
    expect(rows).toEqual(ids.map(() => ({ geocode_pending: true, geocode_attempts: 1, backed_off: true })));
    await sql`DELETE FROM pois WHERE id = ANY(${ids})`;
  });

  it('resumes after a server is killed mid-batch; two servers then finish every POI exactly once', async () => {
    await insertPois(POIS);
    const first = await start();
    await waitFor(async () => ((await count('done')) >= 1_000 ? true : undefined), 'the first server to geocode 1,000 POIs', 60_000, 5);
    // Killed while it holds a claimed batch: share-locking claimed rows it is not writing yet keeps that
    // batch from being written, and ending the dead process's sessions rolls back whatever it had started.
    const held = await waitFor(
      () =>
        sql.begin(async (tx) => {
          const rows = await tx`SELECT id FROM pois WHERE geocode_pending AND geocode_lease_until > now() FOR SHARE SKIP LOCKED`;
          if (!rows.length) return undefined;
          await first.stop('SIGKILL');
          await tx`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`;
          return rows.map((r) => r.id as string);
        }),
      'a claimed batch',
      10_000,
      1,
    );
    expect(await count('done')).toBeLessThan(POIS);
    // The pool's other session was terminated with the rest: a read may go out on it and be repeated.
    const [stillHeld] = await retryable(sql`SELECT count(*)::int AS n FROM pois WHERE id = ANY(${held}) AND geocode_pending AND geocode_lease_until > now()`);
    expect(stillHeld.n).toBe(held.length);

    const [second, third] = await Promise.all([start(), start()]);
    await waitFor(async () => ((await count('pending')) === 0 ? true : undefined), 'every POI to be geocoded', 120_000);
    expect(await second.stop('SIGTERM')).toBe(0);
    expect(await third.stop('SIGTERM')).toBe(0);

    const [log] = await sql<{ n: number; pois: number }[]>`SELECT count(*)::int AS n, count(DISTINCT poi_id)::int AS pois FROM geocode_log`;
    expect(log).toEqual({ n: POIS, pois: POIS });
    const rows = await sql<
      {
        latitude: number;
        longitude: number;
        street: string | null;
        display_name: string | null;
        geocoded_at: Date | null;
        city: string | null;
        country: string | null;
        zipcode: string | null;
      }[]
    >`
      SELECT p.latitude, p.longitude, p.street, p.display_name, p.geocoded_at, ci.name AS city, co.name AS country, z.code AS zipcode
      FROM pois p LEFT JOIN cities ci ON ci.id = p.city_id LEFT JOIN countries co ON co.id = p.country_id LEFT JOIN zipcodes z ON z.id = p.zipcode_id`;
    expect(rows.length).toBe(POIS);
    const geocoder = await loadGeocoder(mapDir);
    let wrong = 0;
    for (const r of rows) {
      const { street, display_name, city, country, zipcode } = geocoder.reverseGeocode(r.latitude, r.longitude);
      if (!r.geocoded_at || r.street !== street || r.display_name !== display_name || r.city !== city || r.country !== country || r.zipcode !== zipcode)
        wrong++;
    }
    expect(wrong).toBe(0);
  });
});
