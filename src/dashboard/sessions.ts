import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthInfo } from '../auth/authenticate.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { effectiveLimits, type PlanName } from '../auth/plans.js';
import type { Sql } from '../db/client.js';

/** A session ends this long after sign-in whatever its use. */
export const ABSOLUTE_HOURS = 12;

/** Failed sign-ins per e-mail within the window before further attempts get 429. */
export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MINUTES = 15;

export interface Session {
  userId: string;
  email: string;
  teamId: string;
  teamName: string;
  csrfToken: string;
  plan: PlanName;
  planActive: boolean;
  rateLimit: number | null;
  poiLimit: number | null;
}

const digestOf = (token: string) => createHash('sha256').update(token).digest();

/** Sessions live in PostgreSQL: every process sees a sign-out at once, and a restart signs nobody out.
 *  The cookie holds a random token; only its SHA-256 is stored. */
export class SessionStore {
  /** `idleMinutes`: minutes without a request after which a session ends (WAYMARK_DASHBOARD_IDLE_MINUTES). */
  constructor(
    private readonly sql: Sql,
    private readonly idleMinutes = 30,
  ) {}

  async create(userId: string, teamId: string): Promise<{ token: string; csrfToken: string }> {
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    await this.sql`
      INSERT INTO dashboard_sessions (digest, user_id, team_id, csrf_token)
      VALUES (${digestOf(token)}, ${userId}, ${teamId}, ${csrfToken})`;
    // Sweep sessions that can no longer be used (cheap: the index on last_seen_at).
    await this.sql`DELETE FROM dashboard_sessions WHERE last_seen_at < now() - make_interval(mins => ${this.idleMinutes})
                   OR created_at < now() - make_interval(hours => ${ABSOLUTE_HOURS})`;
    return { token, csrfToken };
  }

  /** The live session of the token, its idle clock restarted; undefined when unknown, idle or too old. */
  async touch(token: string | undefined): Promise<Session | undefined> {
    if (!token || !/^[\w-]{43}$/.test(token)) return undefined;
    const [row] = await this.sql<
      {
        user_id: string;
        team_id: string;
        csrf_token: string;
        email: string;
        name: string;
        plan: PlanName;
        plan_active: boolean;
        rate_limit: number | null;
        poi_limit: number | null;
      }[]
    >`
      UPDATE dashboard_sessions s SET last_seen_at = now()
      FROM dashboard_users u, teams t
      WHERE s.digest = ${digestOf(token)} AND u.id = s.user_id AND t.id = s.team_id
        AND s.last_seen_at > now() - make_interval(mins => ${this.idleMinutes})
        AND s.created_at > now() - make_interval(hours => ${ABSOLUTE_HOURS})
      RETURNING s.user_id, s.team_id, s.csrf_token, u.email, t.name, t.plan, t.plan_active, t.rate_limit, t.poi_limit`;
    if (!row) return undefined;
    return {
      userId: row.user_id,
      email: row.email,
      teamId: row.team_id,
      teamName: row.name,
      csrfToken: row.csrf_token,
      plan: row.plan,
      planActive: row.plan_active,
      rateLimit: row.rate_limit,
      poiLimit: row.poi_limit,
    };
  }

  async destroy(token: string | undefined): Promise<void> {
    if (!token) return;
    await this.sql`DELETE FROM dashboard_sessions WHERE digest = ${digestOf(token)}`;
  }

  /** Seconds to wait when the e-mail has too many recent failures; 0 when a try is allowed. */
  async signInBlockedFor(email: string): Promise<number> {
    const [row] = await this.sql<{ n: number; oldest: Date | null }[]>`
      SELECT count(*)::int AS n, min(at) AS oldest FROM dashboard_sign_in_failures
      WHERE email = ${email.toLowerCase()} AND at > now() - make_interval(mins => ${SIGN_IN_WINDOW_MINUTES})`;
    if (row.n < SIGN_IN_MAX_FAILURES || !row.oldest) return 0;
    return Math.max(1, Math.ceil((row.oldest.getTime() + SIGN_IN_WINDOW_MINUTES * 60_000 - Date.now()) / 1000));
  }

  async recordFailure(email: string): Promise<void> {
    await this.sql`INSERT INTO dashboard_sign_in_failures (email) VALUES (${email.toLowerCase()})`;
    await this.sql`DELETE FROM dashboard_sign_in_failures WHERE at < now() - interval '1 day'`;
  }

  async clearFailures(email: string): Promise<void> {
    await this.sql`DELETE FROM dashboard_sign_in_failures WHERE email = ${email.toLowerCase()}`;
  }
}

/** The team context an API handler sees for a dashboard request: the team's limits, every
 *  permission (a dashboard user manages the whole team). No key: dashboard calls are not counted. */
export function sessionAuth(session: Session): AuthInfo {
  const limits = effectiveLimits(session.plan, session.rateLimit, session.poiLimit);
  return {
    keyId: `dashboard:${session.userId}`,
    teamId: session.teamId,
    permissions: PERMISSIONS.map((_, i) => i + 1),
    expiresAt: null,
    isActive: true,
    planActive: session.planActive,
    rateLimit: limits.rateLimit,
    poiLimit: limits.poiLimit,
  };
}

export function sameToken(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
