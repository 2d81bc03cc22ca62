// PostgreSQL needs no extension: a fresh database is migrated without PostGIS, and a database made when
// migration 001 still created PostGIS and a geometry column migrates on and serves as before.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../src/db/client.js';
import { migrate, migrationNames } from '../../src/db/migrate.js';
import { projectRoot } from '../../src/lib/paths.js';
import { TEST_DATABASE_URL } from '../support/app.js';

const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
const names = ['fresh', 'old'].map((s) => `${new URL(TEST_DATABASE_URL).pathname.slice(1)}_${s}`);
const pools: Sql[] = [];

async function database(name: string): Promise<Sql> {
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const sql = connect(TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${name}`), 1);
  pools.push(sql);
  return sql;
}

const extensions = async (sql: Sql) => (await sql<{ extname: string }[]>`SELECT extname FROM pg_extension ORDER BY 1`).map((r) => r.extname);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 1 })));
  for (const name of names) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await admin.end();
});

describe('migrations without PostGIS', () => {
  it('a fresh database gets no extension, and no migration mentions one', async () => {
    const sql = await database(names[0]);
    await migrate(sql);
    expect(await extensions(sql)).toEqual(['plpgsql']);
    for (const file of migrationNames()) {
      const text = readFileSync(join(projectRoot, 'src', 'db', 'migrations', file), 'utf8').replace(/--[^\n]*/g, '');
      expect(text, file).not.toMatch(/CREATE EXTENSION|geometry\s*\(|ST_\w+\(/i);
    }
  });

  it('a database made with PostGIS and the geometry column (001 before) migrates on and keeps its data', async (ctx) => {
    const sql = await database(names[1]);
    const [available] = await sql`SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'`;
    if (!available) {
      console.warn('PostGIS is not installed on this PostgreSQL: the upgrade of a database that has it is not exercised here');
      return ctx.skip();
    }
    // What 001..011 left before: the extension and the generated geometry column with its GiST index.
    await sql`CREATE EXTENSION postgis`;
    await sql`CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    for (const file of migrationNames().filter((f) => f < '012')) {
      await sql.unsafe(readFileSync(join(projectRoot, 'src', 'db', 'migrations', file), 'utf8'));
      if (file === '001_core.sql') {
        await sql`ALTER TABLE pois ADD COLUMN geom geometry(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)) STORED`;
        await sql`CREATE INDEX pois_geom ON pois USING gist (geom)`;
      }
      await sql`INSERT INTO schema_migrations (name) VALUES (${file})`;
    }
    await sql`INSERT INTO teams (id, name, plan) VALUES ('t1', 'old', 'basic')`;
    await sql`INSERT INTO pois (id, team_id, name, latitude, longitude) VALUES ('p1', 't1', 'Vaduz', 47.14, 9.52)`;

    const applied = await migrate(sql);
    expect(applied[0]).toBe('012_poi_location_index.sql');
    expect(applied).toEqual(migrationNames().filter((f) => f >= '012'));
    const columns = (await sql<{ column_name: string }[]>`SELECT column_name FROM information_schema.columns WHERE table_name = 'pois'`).map(
      (r) => r.column_name,
    );
    expect(columns).not.toContain('geom');
    expect(columns).toContain('location');
    // The extension is left alone (dropping it is the operator's choice); the data is all there.
    expect(await extensions(sql)).toContain('postgis');
    const [poi] = await sql`SELECT name, location[0] AS lon, location[1] AS lat FROM pois WHERE id = 'p1'`;
    expect(poi).toEqual({ name: 'Vaduz', lon: 9.52, lat: 47.14 });
    expect(await migrate(sql)).toEqual([]);
  });
});
