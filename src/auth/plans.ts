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
