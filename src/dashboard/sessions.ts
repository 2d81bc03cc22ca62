import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthInfo } from '../auth/authenticate.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { effectiveLimits, type PlanName } from '../auth/plans.js';
import { type Sql, retryable } from '../db/client.js';

/** A session ends this long after sign-in whatever its use. */
export const ABSOLUTE_HOURS = 12;

/** Failed sign-ins per e-mail within the window before further attempts get 429. */
export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MINUTES = 15;
/** Failed sign-ins from one client address (any e-mails) within the window before it waits: a person
 *  mistyping on a few accounts stays under it; one password sprayed over many accounts does not. */
export const SIGN_IN_MAX_CLIENT_FAILURES = 20;

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
  /** Seconds until `email` may be tried again from `client`, and which bound holds it (0: none). */
  async signInBlockedFor(email: string, client: string): Promise<{ wait: number; by?: 'email' | 'client' }> {
    const [row] = await retryable(this.sql<{ by_email: number; email_oldest: Date | null; by_client: number; client_oldest: Date | null }[]>`
      SELECT count(*) FILTER (WHERE email = ${email.toLowerCase()})::int AS by_email,
             min(at) FILTER (WHERE email = ${email.toLowerCase()}) AS email_oldest,
             count(*) FILTER (WHERE client = ${client})::int AS by_client,
             min(at) FILTER (WHERE client = ${client}) AS client_oldest
      FROM dashboard_sign_in_failures
      WHERE (email = ${email.toLowerCase()} OR client = ${client}) AND at > now() - make_interval(mins => ${SIGN_IN_WINDOW_MINUTES})`);
    const waitFrom = (oldest: Date) => Math.max(1, Math.ceil((oldest.getTime() + SIGN_IN_WINDOW_MINUTES * 60_000 - Date.now()) / 1000));
    if (row.by_email >= SIGN_IN_MAX_FAILURES && row.email_oldest) return { wait: waitFrom(row.email_oldest), by: 'email' };
    if (row.by_client >= SIGN_IN_MAX_CLIENT_FAILURES && row.client_oldest) return { wait: waitFrom(row.client_oldest), by: 'client' };
    return { wait: 0 };
  }

  async recordFailure(email: string, client: string): Promise<void> {
    await this.sql`INSERT INTO dashboard_sign_in_failures (email, client) VALUES (${email.toLowerCase()}, ${client})`;
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
