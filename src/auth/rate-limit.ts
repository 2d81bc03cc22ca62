import type { Sql } from '../db/client.js';

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfter?: number;
}

interface Lease {
  units: number;
  minute: number;
  expiresAt: number;
  used: number;
  oldest: number;
}

/** Unused leased units go back after this long, so a quiet process does not sit on quota. */
const LEASE_MS = 1_000;
/** A process leases 1/SHARE of what is left, so leases shrink to single units near the limit: then
 *  every admission is decided by the database and N+1 concurrent requests admit exactly N. */
const SHARE = 64;
const MAX_LEASE = 1_000;

/**
 * Per-team rolling-hour limiter. Counts live in PostgreSQL (rate_take), so every process shares them;
 * each process leases blocks of quota while the team is far from its limit so that a busy team costs
 * one database round trip per block rather than per request.
 */
export class RateLimiter {
  private leases = new Map<string, Lease>();
  private queues = new Map<string, Promise<unknown>>();

  constructor(private readonly sql: Sql) {}

  /** Admits or refuses one request of the team; never counts refused ones. */
  take(teamId: string, limit: number | null): Promise<RateDecision> {
    if (limit === null) {
      return Promise.resolve({
        allowed: true,
        // Nothing to reset: the end of the current rolling window keeps the header a future epoch second.
        headers: { 'X-RateLimit-Limit': '-1', 'X-RateLimit-Remaining': '-1', 'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 3600) },
      });
    }
    const lease = this.leases.get(teamId);
    const now = Date.now();
    if (lease && lease.units > 0 && now < lease.expiresAt && minuteOf(now) === lease.minute) {
      lease.units--;
      return Promise.resolve(decision(true, limit, lease));
    }
    // One database trip at a time per team and process; followers then usually find a fresh lease.
    const prev = this.queues.get(teamId) ?? Promise.resolve();
    const next = prev.then(() => this.takeSlow(teamId, limit), () => this.takeSlow(teamId, limit));
    this.queues.set(teamId, next);
    next.finally(() => {
      if (this.queues.get(teamId) === next) this.queues.delete(teamId);
    }).catch(() => {});
    return next;
  }

  private async takeSlow(teamId: string, limit: number): Promise<RateDecision> {
    const now = Date.now();
    let lease = this.leases.get(teamId);
    if (lease && lease.units > 0 && now < lease.expiresAt && minuteOf(now) === lease.minute) {
      lease.units--;
      return decision(true, limit, lease);
    }
    if (lease && lease.units > 0) await this.giveBack(teamId, lease);
    const want = lease ? Math.max(1, Math.min(MAX_LEASE, Math.floor((limit - lease.used) / SHARE))) : 1;
    const [row] = await this.sql<{ granted: number; used: number; oldest: Date | null; minute: Date }[]>`
      SELECT granted, used, oldest, minute FROM rate_take(${teamId}, ${want}, ${limit})`;
    lease = {
      units: row.granted,
      minute: row.minute.getTime(),
      expiresAt: Date.now() + LEASE_MS,
      used: row.used,
      oldest: row.oldest ? row.oldest.getTime() : row.minute.getTime(),
    };
    this.leases.set(teamId, lease);
    if (lease.units === 0) return decision(false, limit, lease);
    lease.units--;
    return decision(true, limit, lease);
  }

  private async giveBack(teamId: string, lease: Lease): Promise<void> {
    const units = lease.units;
    lease.units = 0;
    await this.sql`SELECT rate_give(${teamId}::text, ${new Date(lease.minute)}::timestamptz, ${units}::int)`;
  }

  /** Returns every unused unit (at shutdown). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values()]);
    await Promise.all([...this.leases].filter(([, l]) => l.units > 0).map(([team, l]) => this.giveBack(team, l)));
  }
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000) * 60_000;

function decision(allowed: boolean, limit: number, lease: Lease): RateDecision {
  const reset = Math.ceil((lease.oldest + 3_600_000) / 1000);
  const remaining = allowed ? Math.max(0, limit - lease.used + lease.units) : 0;
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(reset),
  };
  if (allowed) return { allowed, headers };
  const retryAfter = Math.max(1, reset - Math.floor(Date.now() / 1000));
  headers['X-RateLimit-Retry-After'] = String(retryAfter);
  headers['Retry-After'] = String(retryAfter);
  return { allowed, headers, retryAfter };
}
