// A statement whose connection is lost mid-flight is run again only when its author marked it
// `retryable` (src/db/client.ts): nothing reads the SQL text. The function with side effects below is one
// no list of names knows, called from a SELECT; it must run once, however the statement reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, retryable, type Sql } from '../../src/db/client.js';
import { isConnectionLost } from '../../src/db/errors.js';
import { freshDatabase } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: Sql;
const APP = `retryable-${process.pid}`;

beforeAll(async () => {
  db = await freshDatabase(`retryable_${process.pid}`);
  // Volatile with an effect that outlives its transaction's rollback (a sequence), yet called the way a read is.
  await db.sql`CREATE SEQUENCE bumps`;
  await db.sql`CREATE FUNCTION bump() RETURNS bigint LANGUAGE sql VOLATILE AS $$ SELECT nextval('bumps') $$`;
  await db.sql`SELECT bump()`;
  pool = connect(db.url, 1, { application_name: APP });
  await pool`SELECT 1`;
});
afterAll(async () => {
  await pool?.end({ timeout: 1 });
  await db?.drop();
});

/** Ends the pool's session once its statement has started sleeping (the statement is then in flight) and
 *  `ready` says so: a session ended as its statement starts may not have run any of it yet. */
async function terminateWhenSleeping(ready: () => Promise<boolean> = async () => true): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (!(await ready())) {
      await new Promise((done) => setTimeout(done, 5));
      continue;
    }
    const [{ n }] = await db.sql<{ n: number }[]>`
      SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE application_name = ${APP} AND state = 'active' AND query LIKE '%pg_sleep%'`;
    if (n > 0) return;
    await new Promise((done) => setTimeout(done, 5));
  }
  throw new Error('the statement never started');
}

const bumps = async () => (await db.sql<{ n: number }[]>`SELECT last_value::int AS n FROM bumps`)[0].n;

describe('retries after a lost connection', () => {
  it('runs a statement marked retryable again on a new connection, and answers it', async () => {
    const statement = retryable(pool<{ v: number }[]>`SELECT 7 AS v FROM pg_sleep(0.3)`);
    const [rows] = await Promise.all([statement, terminateWhenSleeping()]);
    expect(rows).toEqual([{ v: 7 }]);
  });

  it('does not run an unmarked statement again: it fails with the lost connection, its side effect done once', async () => {
    const before = await bumps();
    const statement = pool`SELECT bump(), pg_sleep(0.3)`;
    const [outcome] = await Promise.all([
      statement.then(
        () => 'answered',
        (err: unknown) => err,
      ),
      // Once its side effect is done, so that a second run would show.
      terminateWhenSleeping(async () => (await bumps()) > before),
    ]);
    expect(isConnectionLost(outcome), String(outcome)).toBe(true);
    expect(await bumps()).toBe(before + 1);
    // The pool is whole again for the next statement.
    expect(await pool`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });
});
