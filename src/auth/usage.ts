import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/client.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { backgroundError } from '../lib/background-errors.js';

/** A request's place in the counts, to settle its status class once the reply is known. */
export type UsageMark = string;

/** What one flush writes, under an id that makes writing it twice the same as writing it once. */
interface Batch {
  id: string;
  counts: Map<string, number>;
  lastUsed: Map<string, number>;
  /** Failed writes so far. */
  attempts: number;
}

/** Batches whose write failed, kept apart (each may have committed): past this many, new counts wait in
 *  memory, merged, rather than making a batch per flush through a long outage. */
const MAX_PENDING = 8;

/** A batch that fails this often for a reason other than an unreachable database (a constraint, a
 *  trigger, a privilege: it would fail for ever) is dropped, logged with its size, and counted. */
const MAX_ATTEMPTS = 20;

/** Counts requests per key, minute and endpoint in memory and writes them in one statement per flush,
 *  so counting costs no database round trip on the request path. */
export class UsageRecorder {
  private counts = new Map<string, number>();
  private lastUsed = new Map<string, number>();
  /** Batches whose write failed: each may have committed all the same (the connection lost during
   *  COMMIT), so each is sent again as it is, under its id; one that keeps failing does not hold up the
   *  others, nor what is counted after it. */
  private pending: Batch[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    this.timer ??= setInterval(
      () => void this.flush().catch((err) => backgroundError('usage-flush', err, { pendingBatches: this.pending.length })),
      this.intervalMs,
    );
    this.timer.unref();
  }

  /** Counts an admitted request (status class 0 until `settle` tells its reply's status). */
  record(keyId: string, teamId: string, method: string, endpoint: string): UsageMark {
    const now = Date.now();
    const mark = `${keyId}\u0000${teamId}\u0000${Math.floor(now / 60_000) * 60_000}\u0000${method}\u0000${endpoint}`;
    this.add(`${mark}\u00000`, 1);
    this.lastUsed.set(keyId, now);
    return mark;
  }

  /** Moves the recorded request to its status class (2 for 2xx … 5 for 5xx), in the minute it was counted. */
  settle(mark: UsageMark, status: number): void {
    const statusClass = Math.min(5, Math.max(1, Math.floor(status / 100)));
    this.add(`${mark}\u00000`, -1);
    this.add(`${mark}\u0000${statusClass}`, 1);
  }

  private add(k: string, n: number): void {
    this.counts.set(k, (this.counts.get(k) ?? 0) + n);
  }

  /** Writes what was counted and retries the batches that failed before; concurrent callers wait for
   *  the same write. Rejects with the first failure, once every batch had its try. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(
      () => this.write(),
      () => this.write(),
    );
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.counts.size > 0 && this.pending.length < MAX_PENDING) {
      this.pending.push({ id: randomUUID(), counts: this.counts, lastUsed: this.lastUsed, attempts: 0 });
      this.counts = new Map();
      this.lastUsed = new Map();
    }
    let failure: unknown;
    for (const batch of [...this.pending]) {
      try {
        await this.writeBatch(batch);
        this.pending.splice(this.pending.indexOf(batch), 1);
      } catch (err) {
        failure ??= err;
        batch.attempts++;
        // The batches after it would meet the same unreachable database.
        if (isDatabaseUnavailable(err)) break;
        if (batch.attempts >= MAX_ATTEMPTS) {
          this.pending.splice(this.pending.indexOf(batch), 1);
          // A settled request moved from class 0 to its own: the sum counts each once.
          let requests = 0;
          for (const n of batch.counts.values()) requests += n;
          backgroundError('usage-batch-dropped', err, { batch: batch.id, attempts: batch.attempts, requests });
        }
      }
    }
    if (failure) throw failure;
  }

  private async writeBatch({ id, counts, lastUsed }: Batch): Promise<void> {
    const keys: string[] = [],
      teams: string[] = [],
      minutes: string[] = [],
      methods: string[] = [],
      endpoints: string[] = [],
      classes: number[] = [],
      ns: number[] = [];
    for (const [k, n] of counts) {
      if (n === 0) continue;
      const [key, team, minute, method, endpoint, statusClass] = k.split('\u0000');
      keys.push(key);
      teams.push(team);
      minutes.push(new Date(Number(minute)).toISOString());
      methods.push(method);
      endpoints.push(endpoint);
      classes.push(Number(statusClass));
      ns.push(n);
    }
    const usedIds = [...lastUsed.keys()];
    const usedAt = usedIds.map((id) => new Date(lastUsed.get(id)!).toISOString());
    await this.sql.begin(async (tx) => {
      const [first] = await tx`INSERT INTO usage_batches (id) VALUES (${id}) ON CONFLICT (id) DO NOTHING RETURNING id`;
      // Written before: its earlier commit went through.
      if (!first) return;
      await tx`
        UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, x.at)
        FROM unnest(${usedIds}::text[], ${usedAt}::timestamptz[]) AS x(id, at) WHERE k.id = x.id`;
      // Counted whether the key still exists or not: usage is the team's and outlives its keys
      // (migration 021); a team deleted meanwhile takes its counts along.
      await tx`
        INSERT INTO key_usage AS u (key_id, team_id, minute, method, endpoint, status_class, count)
        SELECT * FROM unnest(${keys}::text[], ${teams}::text[], ${minutes}::timestamptz[], ${methods}::text[], ${endpoints}::text[], ${classes}::smallint[], ${ns}::int[])
          AS x(key_id, team_id, minute, method, endpoint, status_class, count)
        WHERE EXISTS (SELECT 1 FROM teams t WHERE t.id = x.team_id)
        ON CONFLICT (key_id, minute, method, endpoint, status_class) DO UPDATE SET count = u.count + EXCLUDED.count`;
      // Usage older than a day is never shown (GET /v1/info): without this the table grows for ever.
      // By team, so that the minutes of its deleted keys go too.
      await tx`DELETE FROM key_usage WHERE team_id = ANY(${[...new Set(teams)]}::text[]) AND minute <= now() - interval '24 hours'`;
      await tx`DELETE FROM usage_batches WHERE written_at <= now() - interval '24 hours'`;
    });
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
