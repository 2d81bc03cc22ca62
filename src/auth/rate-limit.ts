import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/client.js';
import { backgroundError } from '../lib/background-errors.js';

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfter?: number;
}

interface Lease {
  units: number;
  /** Size of the last grant: a lease of more than one unit is refilled before it runs dry. */
  size: number;
  refilling: boolean;
  minute: number;
  expiresAt: number;
  used: number;
  oldest: number;
}

/** Leased units the database has not taken back yet: a give-back that failed, retried by the sweeper. */
interface Owed {
  teamId: string;
  minute: number;
  units: number;
  tries: number;
}

interface Grant {
  granted: number;
  used: number;
  oldest: Date | null;
  minute: Date;
}

/** Unused leased units go back after this long, so a quiet process does not sit on quota. */
const LEASE_MS = 1_000;
/** A process leases 1/SHARE of what is left, so leases shrink to single units near the limit: then
 *  every admission is decided by the database and N+1 concurrent requests admit exactly N. */
const SHARE = 64;
const MAX_LEASE = 5_000;
/** A give-back that keeps failing is tried once a sweep this many times; then its units stay counted until
 *  their minute leaves the rolling hour (logged). */
const GIVE_BACK_TRIES = 60;
const HOUR_MS = 3_600_000;

/**
 * Per-team rolling-hour limiter. Counts live in PostgreSQL (rate_take), so every process shares them;
 * each process leases blocks of quota while the team is far from its limit so that a busy team costs
 * one database round trip per block rather than per request.
 */
export class RateLimiter {
  private leases = new Map<string, Lease>();
  private queues = new Map<string, Promise<unknown>>();
  private owed: Owed[] = [];
  private closed = false;

  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly sql: Sql) {
    // Leases a quiet process no longer uses go back to the shared count.
    this.sweeper = setInterval(() => this.sweep(), LEASE_MS);
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [teamId, lease] of this.leases) {
      if (now < lease.expiresAt) continue;
      if (lease.units === 0) {
        if (!this.queues.has(teamId)) this.leases.delete(teamId);
        continue;
      }
      void this.serialize(teamId, async () => {
        if (Date.now() >= lease.expiresAt && lease.units > 0) await this.giveBack(teamId, lease);
      });
    }
    for (const owed of this.owed.splice(0)) void this.serialize(owed.teamId, () => this.giveUnits(owed));
  }

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
      // Far from the limit, the next block is fetched while this one still serves, so a busy team
      // never waits for the database here.
      if (lease.size > 1 && lease.units < lease.size / 2 && !lease.refilling) {
        lease.refilling = true;
        void this.serialize(teamId, () => this.refill(teamId, limit, lease)).catch((err) => backgroundError('rate-limit-refill', err, { teamId }));
      }
      return Promise.resolve(decision(true, limit, lease));
    }
    return this.serialize(teamId, () => this.takeSlow(teamId, limit));
  }

  /** One database trip at a time per team and process; followers then usually find a fresh lease. */
  private serialize<T>(teamId: string, step: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(teamId) ?? Promise.resolve();
    const next = prev.then(step, step);
    this.queues.set(teamId, next);
    next
      .finally(() => {
        if (this.queues.get(teamId) === next) this.queues.delete(teamId);
      })
      // Only the bookkeeping's copy of the promise: `next` goes back to the caller, who handles its failure.
      .catch(() => {});
    return next;
  }

  /**
   * Before the first request (app.ts): one take of nothing on the limiter's connection, for a team that
   * does not exist, which writes no row. A session's first `rate_take` compiles the function and plans its
   * statements, and the statement (the grant's text) is prepared on the connection: a fresh process's
   * first request of a team with a limit paid it.
   */
  async warm(): Promise<void> {
    await this.sql<Grant[]>`SELECT granted, used, oldest, minute FROM rate_take(${randomUUID()}, ${0}, ${1})`;
  }

  private async grant(teamId: string, limit: number, used: number | undefined): Promise<Grant> {
    const want = used === undefined ? 1 : Math.max(1, Math.min(MAX_LEASE, Math.floor((limit - used) / SHARE)));
    // In a transaction, though one statement: a take lost with its connection is then repeated on a new
    // one when it did not commit, and not when it did (src/db/client.ts), so that a lost connection
    // neither answers 503 nor counts a block of quota twice. Outside one it could not be repeated safely.
    const [row] = await this.sql.begin((tx) => tx<Grant[]>`SELECT granted, used, oldest, minute FROM rate_take(${teamId}, ${want}, ${limit})`);
    return row;
  }

  private async refill(teamId: string, limit: number, lease: Lease): Promise<void> {
    try {
      const row = await this.grant(teamId, limit, lease.used);
      const current = this.leases.get(teamId);
      if (current && current.minute === row.minute.getTime()) {
        current.units += row.granted;
        current.size = row.granted;
        current.used = row.used;
        current.oldest = row.oldest ? row.oldest.getTime() : current.oldest;
        current.expiresAt = Date.now() + LEASE_MS;
      } else {
        // The minute rolled over: the new grant counts in the new minute's bucket.
        if (current && current.units > 0) await this.giveBack(teamId, current);
        this.leases.set(teamId, leaseOf(row));
      }
    } finally {
      lease.refilling = false;
    }
  }

  private async takeSlow(teamId: string, limit: number): Promise<RateDecision> {
    const now = Date.now();
    let lease = this.leases.get(teamId);
    if (lease && lease.units > 0 && now < lease.expiresAt && minuteOf(now) === lease.minute) {
      lease.units--;
      return decision(true, limit, lease);
    }
    if (lease && lease.units > 0) await this.giveBack(teamId, lease);
    lease = leaseOf(await this.grant(teamId, limit, lease?.used));
    this.leases.set(teamId, lease);
    if (lease.units === 0) return decision(false, limit, lease);
    lease.units--;
    return decision(true, limit, lease);
  }

  private giveBack(teamId: string, lease: Lease): Promise<void> {
    const units = lease.units;
    lease.units = 0;
    return this.giveUnits({ teamId, minute: lease.minute, units, tries: 0 });
  }

  /** Never fails: units the database did not take back stay owed and the sweeper tries again, so that a
   *  moment without the database does not leave a team's unused quota counted for the rest of the hour. */
  private async giveUnits(owed: Owed): Promise<void> {
    try {
      // In a transaction for the same reason as rate_take: given back once, even when a connection is lost.
      await this.sql.begin((tx) => tx`SELECT rate_give(${owed.teamId}::text, ${new Date(owed.minute)}::timestamptz, ${owed.units}::int)`);
    } catch (err) {
      owed.tries++;
      // Units of a minute out of the rolling hour no longer count against the team: nothing left to return.
      const retry = !this.closed && owed.tries < GIVE_BACK_TRIES && Date.now() - owed.minute < HOUR_MS;
      if (retry) this.owed.push(owed);
      backgroundError('rate-limit-give-back', err, { teamId: owed.teamId, units: owed.units, tries: owed.tries, retry });
    }
  }

  /** Returns every unused unit (at shutdown), and tries once more what is owed. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.closed = true;
    await Promise.allSettled([...this.queues.values()]);
    const owed = this.owed.splice(0);
    await Promise.all([...[...this.leases].filter(([, l]) => l.units > 0).map(([team, l]) => this.giveBack(team, l)), ...owed.map((o) => this.giveUnits(o))]);
  }
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000) * 60_000;

const leaseOf = (row: Grant): Lease => ({
  units: row.granted,
  size: row.granted,
  refilling: false,
  minute: row.minute.getTime(),
  expiresAt: Date.now() + LEASE_MS,
  used: row.used,
  oldest: row.oldest ? row.oldest.getTime() : row.minute.getTime(),
});

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
