import type { Sql } from '../db/client.js';

export type PlanName = 'basic' | 'pro' | 'enterprise';

/** Requests per rolling hour and POIs per team; null = unlimited. Teams may override both. */
export const PLANS: Record<PlanName, { rateLimit: number | null; poiLimit: number | null }> = {
  basic: { rateLimit: 100, poiLimit: 1_000 },
  pro: { rateLimit: 1_000, poiLimit: 100_000 },
  enterprise: { rateLimit: null, poiLimit: null },
};

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

export function effectiveLimits(plan: PlanName, rateOverride: number | null, poiOverride: number | null) {
  return {
    rateLimit: rateOverride ?? PLANS[plan].rateLimit,
    poiLimit: poiOverride ?? PLANS[plan].poiLimit,
  };
}

/** Takes `n` POI slots of the team's limit in one atomic row update; returns how many were granted. */
export async function reservePoiSlots(sql: Sql, teamId: string, n: number, limit: number | null): Promise<number> {
  const [row] = await sql<{ granted: number }[]>`
    WITH t AS (SELECT poi_count FROM teams WHERE id = ${teamId} FOR UPDATE),
    g AS (SELECT CASE WHEN ${limit}::int IS NULL THEN ${n}::int ELSE least(${n}::int, greatest(${limit}::int - t.poi_count, 0)) END AS granted FROM t)
    UPDATE teams SET poi_count = poi_count + g.granted FROM g WHERE id = ${teamId} RETURNING g.granted`;
  return row ? row.granted : 0;
}
