import type { Sql } from '../db/client.js';

/** Counts requests per key, minute and endpoint in memory and writes them in one statement per flush,
 *  so counting costs no database round trip on the request path. */
export class UsageRecorder {
  private counts = new Map<string, number>();
  private lastUsed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly sql: Sql, private readonly intervalMs = 500) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(() => {}), this.intervalMs);
    this.timer.unref();
  }

  record(keyId: string, method: string, endpoint: string): void {
    const now = Date.now();
    const k = `${keyId}\u0000${Math.floor(now / 60_000) * 60_000}\u0000${method}\u0000${endpoint}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    this.lastUsed.set(keyId, now);
  }

  /** Writes what was counted; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write(), () => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.counts.size === 0) return;
    const counts = this.counts;
    const lastUsed = this.lastUsed;
    this.counts = new Map();
    this.lastUsed = new Map();
    try {
      await this.writeCounts(counts, lastUsed);
    } catch (err) {
      // Keep what could not be written for the next flush (the transaction wrote nothing).
      for (const [k, n] of counts) this.counts.set(k, (this.counts.get(k) ?? 0) + n);
      for (const [id, at] of lastUsed) this.lastUsed.set(id, Math.max(at, this.lastUsed.get(id) ?? 0));
      throw err;
    }
  }

  private async writeCounts(counts: Map<string, number>, lastUsed: Map<string, number>): Promise<void> {
    const keys: string[] = [], minutes: string[] = [], methods: string[] = [], endpoints: string[] = [], ns: number[] = [];
    for (const [k, n] of counts) {
      const [key, minute, method, endpoint] = k.split('\u0000');
      keys.push(key); minutes.push(new Date(Number(minute)).toISOString()); methods.push(method); endpoints.push(endpoint); ns.push(n);
    }
    const usedIds = [...lastUsed.keys()];
    const usedAt = usedIds.map((id) => new Date(lastUsed.get(id)!).toISOString());
    await this.sql.begin(async (tx) => {
      await tx`
        INSERT INTO key_usage AS u (key_id, minute, method, endpoint, count)
        SELECT * FROM unnest(${keys}::text[], ${minutes}::timestamptz[], ${methods}::text[], ${endpoints}::text[], ${ns}::int[])
          AS x(key_id, minute, method, endpoint, count)
        WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = x.key_id)
        ON CONFLICT (key_id, minute, method, endpoint) DO UPDATE SET count = u.count + EXCLUDED.count`;
      await tx`
        UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, x.at)
        FROM unnest(${usedIds}::text[], ${usedAt}::timestamptz[]) AS x(id, at) WHERE k.id = x.id`;
      // Usage older than a day is never shown (GET /v1/info): without this the table grows for ever.
      await tx`DELETE FROM key_usage WHERE key_id = ANY(${usedIds}::text[]) AND minute <= now() - interval '24 hours'`;
    });
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
