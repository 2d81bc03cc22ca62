/**
 * Coalesces lookups made in the same turn of the event loop into one call of `loadMany`.
 * Under load a single query fetching many rows costs the database and this process far less than
 * as many round trips (one write, one wake-up, one plan instead of N), and it stays exact: every
 * caller still reads committed rows, nothing is cached between turns.
 */
export class BatchLoader<K, V> {
  private pending: Array<{ key: K; resolve: (v: V | undefined) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly loadMany: (keys: K[]) => Promise<Map<string, V>>,
    private readonly keyOf: (key: K) => string,
    private readonly maxBatch = 256,
  ) {}

  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    if (!batch.length) return;
    this.loadMany(batch.map((b) => b.key)).then(
      (found) => {
        for (const b of batch) b.resolve(found.get(this.keyOf(b.key)));
      },
      (err) => {
        for (const b of batch) b.reject(err);
      },
    );
  }
}
