import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/client.js';

/** A request's place in the counts, to settle its status class once the reply is known. */
export type UsageMark = string;

/** What one flush writes, under an id that makes writing it twice the same as writing it once. */
interface Batch {
  id: string;
  counts: Map<string, number>;
  lastUsed: Map<string, number>;
}

/** Counts requests per key, minute and endpoint in memory and writes them in one statement per flush,
 *  so counting costs no database round trip on the request path. */
export class UsageRecorder {
  private counts = new Map<string, number>();
  private lastUsed = new Map<string, number>();
  /** A batch whose write failed: it may have committed all the same (the connection lost during
   *  COMMIT), so it is sent again as it is, under its id, before anything counted since. */
  private unconfirmed: Batch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(() => {}), this.intervalMs);
    this.timer.unref();
  }

  /** Counts an admitted request (status class 0 until `settle` tells its reply's status). */
  record(keyId: string, method: string, endpoint: string): UsageMark {
    const now = Date.now();
    const mark = `${keyId}\u0000${Math.floor(now / 60_000) * 60_000}\u0000${method}\u0000${endpoint}`;
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

  /** Writes what was counted; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(
      () => this.write(),
      () => this.write(),
    );
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.unconfirmed) {
      await this.writeBatch(this.unconfirmed);
      this.unconfirmed = undefined;
    }
    if (this.counts.size === 0) return;
    const batch: Batch = { id: randomUUID(), counts: this.counts, lastUsed: this.lastUsed };
    this.counts = new Map();
    this.lastUsed = new Map();
    try {
      await this.writeBatch(batch);
    } catch (err) {
      // Not merged into what is counted meanwhile: only this batch, under this id, may have committed.
      this.unconfirmed = batch;
      throw err;
    }
  }

  private async writeBatch({ id, counts, lastUsed }: Batch): Promise<void> {
    const keys: string[] = [],
      minutes: string[] = [],
      methods: string[] = [],
      endpoints: string[] = [],
      classes: number[] = [],
      ns: number[] = [];
    for (const [k, n] of counts) {
      if (n === 0) continue;
      const [key, minute, method, endpoint, statusClass] = k.split('\u0000');
      keys.push(key);
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
      // The keys' rows are locked first: a key deleted meanwhile then either waits for this flush (and
      // its cascade removes the counts) or goes first (and its counts are skipped). Counting first took a
      // share lock on the key through the foreign key and then asked for more, which deadlocked against a
      // concurrent DELETE and failed it.
      await tx`
        UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, x.at)
        FROM unnest(${usedIds}::text[], ${usedAt}::timestamptz[]) AS x(id, at) WHERE k.id = x.id`;
      await tx`
        INSERT INTO key_usage AS u (key_id, minute, method, endpoint, status_class, count)
        SELECT * FROM unnest(${keys}::text[], ${minutes}::timestamptz[], ${methods}::text[], ${endpoints}::text[], ${classes}::smallint[], ${ns}::int[])
          AS x(key_id, minute, method, endpoint, status_class, count)
        WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = x.key_id)
        ON CONFLICT (key_id, minute, method, endpoint, status_class) DO UPDATE SET count = u.count + EXCLUDED.count`;
      // Usage older than a day is never shown (GET /v1/info): without this the table grows for ever.
      await tx`DELETE FROM key_usage WHERE key_id = ANY(${usedIds}::text[]) AND minute <= now() - interval '24 hours'`;
      await tx`DELETE FROM usage_batches WHERE written_at <= now() - interval '24 hours'`;
    });
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
