// The body of POST /v1/optimizations: the contract optimize body with batch limits (2,000 stops, 200
// vehicles) and a search time budget. Field rules and 422 paths are the contract's.
import { z } from 'zod';
import { optimizeFields } from '../routing/optimize-api/schema.js';

export const MAX_BATCH_VEHICLES = 200;
export const MAX_BATCH_STOPS = 2_000;
export const MAX_TIME_BUDGET_S = 900;
export const DEFAULT_TIME_BUDGET_S = 30;
/** The solver sums loads in 32-bit integers: the demand of all stops together must stay below 2^31. */
export const MAX_TOTAL_DEMAND = 2_000_000_000;

const budgetMessage = `must be an integer number of seconds between 1 and ${MAX_TIME_BUDGET_S}`;

export const batchBodySchema = z.strictObject({
  ...optimizeFields(MAX_BATCH_VEHICLES, MAX_BATCH_STOPS),
  time_budget: z.number({ error: budgetMessage }).int(budgetMessage).min(1, budgetMessage).max(MAX_TIME_BUDGET_S, budgetMessage)
    .default(DEFAULT_TIME_BUDGET_S),
}).superRefine((body, ctx) => {
  const total = body.stops.reduce((a, s) => a + s.demand, 0);
  if (total > MAX_TOTAL_DEMAND) ctx.addIssue({ code: 'custom', path: ['stops'], message: `the demands may add up to at most ${MAX_TOTAL_DEMAND}` });
});

export type BatchBody = z.infer<typeof batchBodySchema>;
