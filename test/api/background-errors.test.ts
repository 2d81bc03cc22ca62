// Background work that fails is logged with its context and counted (waymark_background_errors_total),
// never dropped in silence (issue 33). Here a rate-limit give-back: quota a process leased and did not use
// goes back to the shared count; the database refusing it (a real refusal: rate_give replaced by one that
// raises, in a database of this test's own) used to vanish in a `.catch(() => {})`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam } from '../../src/auth/admin.js';
import { RateLimiter } from '../../src/auth/rate-limit.js';
import { backgroundErrorCounts, setBackgroundLog } from '../../src/lib/background-errors.js';
import { freshDatabase } from '../faults/support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase('bgerrors');
});
afterAll(() => db?.drop());

const counted = async (teamId: string) =>
  (await db.sql<{ n: number }[]>`SELECT coalesce(sum(count), 0)::int AS n FROM rate_counters WHERE team_id = ${teamId}`)[0].n;

describe('a failed rate-limit give-back', () => {
  it('is logged with the team and the units, counted, and tried again until the database takes the units back', async () => {
    const team = await createTeam(db.sql, { name: 'give back', plan: 'pro' });
    const limiter = new RateLimiter(db.sql);
    // The first take leases one unit; the second a block (1/64 of what is left), mostly unused.
    for (let i = 0; i < 2; i++) expect((await limiter.take(team.id, 1000)).allowed).toBe(true);
    await db.sql.unsafe(`
      ALTER FUNCTION rate_give(text, timestamptz, integer) RENAME TO rate_give_kept;
      CREATE FUNCTION rate_give(p_team text, p_minute timestamptz, p_units integer) RETURNS void
      LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'give-back refused'; END $$;`);
    const logged: Array<{ obj: any; msg: string }> = [];
    setBackgroundLog({ warn: (obj, msg) => logged.push({ obj, msg }) });
    const before = backgroundErrorCounts().get('rate-limit-give-back') ?? 0;
    try {
      // The lease expires unused; the sweeper gives it back (every second).
      await expect.poll(() => backgroundErrorCounts().get('rate-limit-give-back') ?? 0, { timeout: 10_000, interval: 100 }).toBe(before + 1);
      const line = logged.find((l) => l.obj.task === 'rate-limit-give-back');
      expect(line?.msg).toBe('background task failed: rate-limit-give-back');
      expect(line?.obj).toMatchObject({ teamId: team.id });
      expect(line?.obj.units).toBeGreaterThan(0);
      expect(String(line?.obj.err)).toContain('give-back refused');
      expect(line?.obj).toMatchObject({ tries: 1, retry: true });
      // The leased block is still counted against the team: more than the two requests it made.
      expect(await counted(team.id)).toBeGreaterThan(2);
    } finally {
      await db.sql.unsafe(`DROP FUNCTION rate_give(text, timestamptz, integer);
        ALTER FUNCTION rate_give_kept(text, timestamptz, integer) RENAME TO rate_give;`);
    }
    // The database takes them again: the sweeper's next try gives the units back, and the team's count
    // is what it used.
    await expect.poll(() => counted(team.id), { timeout: 10_000, interval: 100 }).toBe(2);
    await limiter.close();
  });
});
