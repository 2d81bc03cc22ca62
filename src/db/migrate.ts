import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../lib/paths.js';
import type { Sql } from './client.js';

const dir = join(projectRoot, 'src', 'db', 'migrations');

/** The migrations this version of the code expects, in the order they apply. */
export const migrationNames = (): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();

/** Migrations not yet applied to the database (a process started on an older schema, or one that another
 *  process is still migrating). */
export async function pendingMigrations(sql: Sql): Promise<string[]> {
  const done = new Set((await sql<{ name: string }[]>`SELECT name FROM schema_migrations`).map((r) => r.name));
  return migrationNames().filter((f) => !done.has(f));
}

/** Applies the SQL files of src/db/migrations in name order, each once, under an advisory lock so
 *  several processes starting together do not race. */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = migrationNames();
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(7242001)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set((await tx<{ name: string }[]>`SELECT name FROM schema_migrations`).map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.unsafe(readFileSync(join(dir, file), 'utf8'));
      await tx`INSERT INTO schema_migrations (name) VALUES (${file})`;
      applied.push(file);
    }
  });
  return applied;
}
