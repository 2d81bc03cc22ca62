import { randomBytes } from 'node:crypto';
import { listenerName, type Sql, retryable } from '../db/client.js';
import { isWellFormedKey, keyDigest } from './keys.js';
import { effectiveLimits, type PlanName } from './plans.js';
import { backgroundError } from '../lib/background-errors.js';

export interface AuthInfo {
  keyId: string;
  teamId: string;
  permissions: number[];
  expiresAt: number | null;
  isActive: boolean;
  planActive: boolean;
  rateLimit: number | null;
  poiLimit: number | null;
}

/** Channel on which every process that changes keys or teams announces it, so caches drop at once. */
export const AUTH_CHANGED = 'waymark_auth_changed';
/** Channel on which each server answers an announced change once its cache has let the old state go. */
const AUTH_HEARD = 'waymark_auth_heard';
/** The application_name of a server's connections: its listener is one to wait for (see announceAuthChange). */
export const SERVER_APPLICATION = 'waymark serve';

const TTL_MS = 30_000;
const NEGATIVE_TTL_MS = 2_000;
/** A key or team that was refused is looked up again soon, so a reactivation takes effect even
 *  before its NOTIFY arrives. */
const REFUSED_TTL_MS = 100;

/** Keys put in the cache at start, the most recently used first: a deploy's first requests find theirs
 *  there. Bounded because every change announced reads every cached key again (`revalidate`). */
const PRELOADED = 1000;

const ttl = (info: AuthInfo | null) => (!info ? NEGATIVE_TTL_MS : info.isActive && info.planActive ? TTL_MS : REFUSED_TTL_MS);

type KeyRow = {
  digest: Buffer;
  id: string;
  team_id: string;
  permissions: number[];
  expires_at: Date | null;
  is_active: boolean;
  plan: PlanName;
  plan_active: boolean;
  rate_limit: number | null;
  poi_limit: number | null;
};

/**
 * Looks keys up by digest with a per-process cache that NOTIFY invalidates across processes.
 *
 * A notification (or the listening connection coming back after it was lost, when notifications may
 * have been missed) does not empty the cache: every cached key is read again in one statement, and
 * lookups wait for it. Emptied, the cache would send each waiting request to the database at once.
 */
export class KeyStore {
  /** By the key's digest in hex: keys never seen by this process can be put in at start (`warm`). */
  private cache = new Map<string, { digest: Buffer; info: AuthInfo | null; at: number }>();
  /** Keys being read for a miss, by digest: requests that miss on the same key share the one statement. */
  private fetching = new Map<string, Promise<AuthInfo | null>>();
  /** The last read of every cached key asked for, until it is done: lookups wait for it. */
  private revalidating: Promise<void> | undefined;
  /** A read is asked for and has not begun: changes announced now are covered by it. */
  private queued = false;
  /** Counts announced changes: a read begun before one must not be kept in the cache. */
  private generation = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly sql: Sql) {}

  async listen(): Promise<void> {
    const sub = await this.sql.listen(AUTH_CHANGED, (payload) => {
      this.changed();
      // From here every lookup waits for the read the change queued: the announcer may go on.
      if (payload) retryable(this.sql`SELECT pg_notify(${AUTH_HEARD}, ${payload})`).catch((err) => backgroundError('key-change-ack', err, { payload }));
    });
    this.unlisten = () => sub.unlisten();
  }

  async close(): Promise<void> {
    await this.unlisten?.();
  }

  /**
   * Before the first request: the lookup's statement once on each of `connections` connections at the
   * same time (a fresh database session's first read of the keys — catalog caches filled, the statement
   * planned — took 20–60 ms, paid by a new process's first request), and the PRELOADED keys used last put
   * in the cache, so that a deploy's first requests do not each wait for their key's read.
   */
  async warm(connections: number): Promise<void> {
    const generation = this.generation;
    const at = Date.now();
    const [recent] = await Promise.all([
      retryable(this.sql<{ digest: Buffer }[]>`
        SELECT digest FROM api_keys WHERE is_active AND last_used_at IS NOT NULL ORDER BY last_used_at DESC LIMIT ${PRELOADED}`),
      ...Array.from({ length: connections }, () => this.fetch([randomBytes(32)])),
    ]);
    const found = await this.fetch(recent.map((r) => r.digest));
    // A change announced meanwhile may predate the read: those keys are read when asked for.
    if (generation !== this.generation) return;
    for (const { digest } of recent) this.cache.set(digest.toString('hex'), { digest, info: found.get(digest.toString('hex')) ?? null, at });
  }

  /** The key's info when it exists and may be used now; null otherwise (the caller answers 401). */
  async lookup(key: string | undefined): Promise<AuthInfo | null> {
    if (!key || !isWellFormedKey(key)) return null;
    if (this.revalidating) await this.revalidating;
    const now = Date.now();
    const digest = keyDigest(key);
    const id = digest.toString('hex');
    const hit = this.cache.get(id);
    const info = hit && now - hit.at < ttl(hit.info) ? hit.info : await this.miss(digest, id);
    if (!info?.isActive || (info.expiresAt !== null && info.expiresAt <= now)) return null;
    return info;
  }

  private miss(digest: Buffer, id: string): Promise<AuthInfo | null> {
    let pending = this.fetching.get(id);
    if (!pending) {
      const generation = this.generation;
      const at = Date.now();
      pending = this.fetch([digest])
        .then((found) => {
          const info = found.get(id) ?? null;
          if (generation === this.generation) {
            if (this.cache.size > 50_000) this.cache.clear();
            this.cache.set(id, { digest, info, at });
          }
          return info;
        })
        .finally(() => {
          if (this.fetching.get(id) === pending) this.fetching.delete(id);
        });
      this.fetching.set(id, pending);
    }
    return pending;
  }

  /**
   * Keys or teams changed, or may have: every cached key is read again. Reads run one at a time; the
   * changes announced while one runs share the next, so that under a stream of changes (a listener
   * lost again and again) a lookup waits for at most two reads, never for the stream to stop.
   */
  private changed(): void {
    this.generation++;
    // A read under way may predate the change: later requests must not join it.
    this.fetching.clear();
    if (this.queued) return;
    this.queued = true;
    const previous = this.revalidating;
    const read = (async () => {
      await previous;
      this.queued = false;
      await this.revalidate();
    })();
    this.revalidating = read;
    void read.finally(() => {
      if (this.revalidating === read) this.revalidating = undefined;
    });
  }

  private async revalidate(): Promise<void> {
    const at = Date.now();
    // Entries past their TTL would be read again anyway when next asked for: not all at once.
    for (const [key, e] of this.cache) if (at - e.at >= ttl(e.info)) this.cache.delete(key);
    const entries = [...this.cache];
    try {
      const found = await this.fetch(entries.map(([, e]) => e.digest));
      // Read after the change this read is for; a later change has its own read queued behind.
      for (const [key, e] of entries) this.cache.set(key, { digest: e.digest, info: found.get(e.digest.toString('hex')) ?? null, at });
    } catch (err) {
      // The database is not answering: each key is read again when next asked for (or fails with 503 then).
      backgroundError('key-cache-refresh', err, { keys: entries.length });
      this.cache.clear();
    }
  }

  /** The keys of these digests that exist, by digest in hex. */
  private async fetch(digests: Buffer[]): Promise<Map<string, AuthInfo>> {
    const found = new Map<string, AuthInfo>();
    if (!digests.length) return found;
    const rows = await retryable(this.sql<KeyRow[]>`
      SELECT k.digest, k.id, k.team_id, k.permissions, k.expires_at, k.is_active, t.plan, t.plan_active, t.rate_limit, t.poi_limit
      FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.digest = ANY(ARRAY(SELECT decode(d, 'hex') FROM unnest(${digests.map((d) => d.toString('hex'))}::text[]) d))`);
    for (const row of rows) {
      const limits = effectiveLimits(row.plan, row.rate_limit, row.poi_limit);
      found.set(row.digest.toString('hex'), {
        keyId: row.id,
        teamId: row.team_id,
        permissions: row.permissions.map(Number),
        expiresAt: row.expires_at ? row.expires_at.getTime() : null,
        isActive: row.is_active,
        planActive: row.plan_active,
        rateLimit: limits.rateLimit,
        poiLimit: limits.poiLimit,
      });
    }
    return found;
  }
}

/**
 * Announces a change of keys or teams and waits (up to two seconds) until every server listening to
 * the database has answered that it heard it: its KeyStore answers once the old state can no longer
 * be served, so the next request with the key, to any server, sees the change. The servers to wait
 * for are counted by their listening connections' name; a server that starts after the count has
 * nothing cached. (Waiting only for the announcer's own listener was not enough: PostgreSQL delivers
 * a notification to each listening connection on its own, and a server's could come later.)
 */
const answers = new WeakMap<Sql, { ready: Promise<unknown>; waiting: Map<string, () => void> }>();
export async function announceAuthChange(sql: Sql): Promise<void> {
  let channel = answers.get(sql);
  if (!channel) {
    const waiting = new Map<string, () => void>();
    // Without the channel the change is announced all the same; it just does not wait for the servers.
    const ready = sql.listen(AUTH_HEARD, (payload) => waiting.get(payload)?.()).catch((err) => void backgroundError('key-change-listen', err));
    answers.set(sql, (channel = { ready, waiting }));
  }
  const sub = await channel.ready;
  const [{ servers }] = await retryable(sql<{ servers: number }[]>`
    SELECT count(*)::int AS servers FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = ${listenerName(SERVER_APPLICATION)}`);
  const nonce = `change:${randomBytes(9).toString('base64url')}`;
  const arrived =
    sub && servers > 0
      ? new Promise<void>((resolve) => {
          let heard = 0;
          const done = () => {
            channel.waiting.delete(nonce);
            resolve();
          };
          channel.waiting.set(nonce, () => ++heard >= servers && done());
          setTimeout(done, 2_000).unref();
        })
      : Promise.resolve();
  await retryable(sql`SELECT pg_notify(${AUTH_CHANGED}, ${nonce})`);
  await arrived;
}
