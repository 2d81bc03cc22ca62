import type { Sql } from '../db/client.js';
import { isWellFormedKey, keyDigest } from './keys.js';
import { effectiveLimits, type PlanName } from './plans.js';

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

const TTL_MS = 30_000;
const NEGATIVE_TTL_MS = 2_000;
/** A key or team that was refused is looked up again soon, so a reactivation takes effect even
 *  before its NOTIFY arrives. */
const REFUSED_TTL_MS = 100;

const ttl = (info: AuthInfo | null) => (!info ? NEGATIVE_TTL_MS : info.isActive && info.planActive ? TTL_MS : REFUSED_TTL_MS);

/** Looks keys up by digest with a per-process cache that NOTIFY invalidates across processes. */
export class KeyStore {
  private cache = new Map<string, { info: AuthInfo | null; at: number }>();
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly sql: Sql) {}

  async listen(): Promise<void> {
    const sub = await this.sql.listen(AUTH_CHANGED, () => this.cache.clear());
    this.unlisten = () => sub.unlisten();
  }

  async close(): Promise<void> {
    await this.unlisten?.();
  }

  /** The key's info when it exists and may be used now; null otherwise (the caller answers 401). */
  async lookup(key: string | undefined): Promise<AuthInfo | null> {
    if (!key || !isWellFormedKey(key)) return null;
    const now = Date.now();
    const hit = this.cache.get(key);
    let info: AuthInfo | null;
    if (hit && now - hit.at < ttl(hit.info)) info = hit.info;
    else {
      info = await this.fetch(keyDigest(key));
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(key, { info, at: now });
    }
    if (!info || !info.isActive || (info.expiresAt !== null && info.expiresAt <= now)) return null;
    return info;
  }

  private async fetch(digest: Buffer): Promise<AuthInfo | null> {
    const [row] = await this.sql<{
      id: string; team_id: string; permissions: number[]; expires_at: Date | null; is_active: boolean;
      plan: PlanName; plan_active: boolean; rate_limit: number | null; poi_limit: number | null;
    }[]>`
      SELECT k.id, k.team_id, k.permissions, k.expires_at, k.is_active, t.plan, t.plan_active, t.rate_limit, t.poi_limit
      FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.digest = ${digest}`;
    if (!row) return null;
    const limits = effectiveLimits(row.plan, row.rate_limit, row.poi_limit);
    return {
      keyId: row.id,
      teamId: row.team_id,
      permissions: row.permissions.map(Number),
      expiresAt: row.expires_at ? row.expires_at.getTime() : null,
      isActive: row.is_active,
      planActive: row.plan_active,
      rateLimit: limits.rateLimit,
      poiLimit: limits.poiLimit,
    };
  }
}
