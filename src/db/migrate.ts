import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../lib/paths.js';
import { type Sql, retryable } from './client.js';

const MIGRATIONS_DIR = join(projectRoot, 'src', 'db', 'migrations');

/** The migrations this version of the code expects, in the order they apply. */
export const migrationNames = (dir = MIGRATIONS_DIR): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();

/** Migrations not yet applied to the database (a process started on an older schema, or one that another
 *  process is still migrating). */
export async function pendingMigrations(sql: Sql): Promise<string[]> {
  const done = new Set((await retryable(sql<{ name: string }[]>`SELECT name FROM schema_migrations`)).map((r) => r.name));
  return migrationNames().filter((f) => !done.has(f));
}

/** A migration file that differs from the one applied: the schema it describes is not the database's. */
export class ChangedMigrationError extends Error {
  constructor(readonly files: Array<{ name: string; applied: string; now: string }>) {
    super(
      `${files.map((f) => f.name).join(', ')} changed after ${files.length > 1 ? 'they were' : 'it was'} applied ` +
        `(${files.map((f) => `${f.name}: applied sha256 ${f.applied}, the file now ${f.now}`).join('; ')}). ` +
        'An applied migration never changes: restore the file as it was, and put the change in a new migration.',
    );
    this.name = 'ChangedMigrationError';
  }
}

const sha256 = (text: Buffer) => createHash('sha256').update(text).digest('hex');

/**
 * Applies the SQL files of src/db/migrations in name order, each once, under an advisory lock so
 * several processes starting together do not race. Each applied file's SHA-256 is recorded; a file that
 * no longer matches its record stops the start (ChangedMigrationError) before anything is applied.
 * Rows applied before hashes were kept get the hash of the file as it is now.
 */
export async function migrate(sql: Sql, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = migrationNames(dir).map((name) => {
    const bytes = readFileSync(join(dir, name));
    return { name, text: bytes.toString('utf8'), sha: sha256(bytes) };
  });
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(7242001)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    await tx`ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS sha256 text`;
    const done = new Map((await tx<{ name: string; sha256: string | null }[]>`SELECT name, sha256 FROM schema_migrations`).map((r) => [r.name, r.sha256]));
    const changed = files.flatMap((f) => {
      const recorded = done.get(f.name);
      return recorded && recorded !== f.sha ? [{ name: f.name, applied: recorded, now: f.sha }] : [];
    });
    if (changed.length) throw new ChangedMigrationError(changed);
    for (const file of files) {
      if (done.has(file.name)) {
        if (done.get(file.name) === null) await tx`UPDATE schema_migrations SET sha256 = ${file.sha} WHERE name = ${file.name}`;
        continue;
      }
      await tx.unsafe(file.text);
      await tx`INSERT INTO schema_migrations (name, sha256) VALUES (${file.name}, ${file.sha})`;
      applied.push(file.name);
    }
  });
  return applied;
}
