// The body of POST /v1/optimizations: the contract optimize body with batch limits (2,000 stops, 200
// vehicles) and a search time budget. Field rules and 422 paths are the contract's.
import { z } from 'zod';
import { dataSchema, pageSchema, timestamp, ulid } from '../../http/openapi.js';
import { amountOf, MAX_DIMENSIONS } from '../../engine/vrp/problem.js';
import { batchPlanSchema, optimizeFields, shipmentsField } from '../optimize/schema.js';
import { POI_STOPS_ERROR, poiStopsSchema } from './poi-stops.js';

export const MAX_BATCH_VEHICLES = 200;
export const MAX_BATCH_STOPS = 2_000;
export const MAX_BATCH_SHIPMENTS = 1_000;
export const MAX_TIME_BUDGET_S = 900;
export const DEFAULT_TIME_BUDGET_S = 30;
/** The solver sums loads in 32-bit integers: the demand of all stops together, in each dimension, must stay below 2^31. */
export const MAX_TOTAL_DEMAND = 2_000_000_000;

const budgetMessage = `must be an integer number of seconds between 1 and ${MAX_TIME_BUDGET_S}`;

const fields = optimizeFields(MAX_BATCH_VEHICLES, MAX_BATCH_STOPS, true, true);

/** Steps and their timing are plan mode's input: in a search they would be silently ignored. */
function refusePlanFieldsOutsidePlanMode(body: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (body.mode === 'plan') return;
  const vehicles: Array<Record<string, unknown>> = Array.isArray(body.vehicles) ? body.vehicles.map((v) => (v !== null && typeof v === 'object' ? v : {})) : [];
  vehicles.forEach((v, i) => {
    if (v.steps !== undefined)
      ctx.addIssue({ code: 'custom', path: ['vehicles', i, 'steps'], message: 'is read in plan mode only: send mode "plan" to time these steps' });
  });
  if (body.plan_timing !== undefined) ctx.addIssue({ code: 'custom', path: ['plan_timing'], message: 'is read in plan mode only: send mode "plan" with it' });
}

const batchObject = <S extends z.ZodType>(stops: S) =>
  z.strictObject({
    ...fields,
    stops,
    shipments: shipmentsField(MAX_BATCH_SHIPMENTS)
      .optional()
      .describe(
        "VROOM's shipments: a pickup, then its delivery by the same vehicle, the amount on board between them. A plan may have shipments only, `stops` empty.",
      ),
    mode: z
      .enum(['optimize', 'plan'], { error: 'must be optimize or plan' })
      .default('optimize')
      .describe(
        "`plan`: no search; each vehicle drives its `steps` as given, the plan reports every step's times and `violations` (VROOM's plan mode: each step, route and the summary list the causes broken), each route's `violation_messages` in words, timed as `plan_timing` says. Stops in no vehicle's steps are unassigned.",
      ),
    plan_timing: z
      .enum(['retime', 'check'], { error: 'must be retime or check' })
      .optional()
      .describe(
        "Plan mode only. `retime` (the default): each step as early as its windows allow: the vehicle waits where it is early for a window, leaves its start late enough not to wait at the first stop, and takes breaks not named in its steps where they end the route earliest; a violation only where a window or rule cannot be kept. `check` (VROOM's `-c`): the steps as driven, never waiting: the vehicle leaves at the start of its `time_window` and serves every stop on arrival, each break starts on arrival where its step is (every break must be a step); a stop reached before its window opens is a violation, as is one after it closes.",
      ),
    time_budget: z
      .number({ error: budgetMessage })
      .int(budgetMessage)
      .min(1, budgetMessage)
      .max(MAX_TIME_BUDGET_S, budgetMessage)
      .default(DEFAULT_TIME_BUDGET_S),
  });

const checkBody = (body: Record<string, unknown>, ctx: z.RefinementCtx) => {
  // Every capacity and demand has as many dimensions as the first one given (an integer is one); a stop
  // without a demand takes 1 in each. Checked beside the other fields' errors, so a body may be partly
  // invalid here: only well-formed amounts are compared.
  const items = (list: unknown): Array<Record<string, unknown>> => (Array.isArray(list) ? list.map((x) => (x !== null && typeof x === 'object' ? x : {})) : []);
  const units = (a: unknown): number[] | null => {
    const all = typeof a === 'number' ? [a] : Array.isArray(a) ? a : null;
    return all && all.length >= 1 && all.length <= MAX_DIMENSIONS && all.every((x) => Number.isInteger(x) && x >= 0) ? amountOf(all) : null;
  };
  const given = [
    ...items(body.vehicles).map((v, i) => ({ path: ['vehicles', i, 'capacity'], units: units(v.capacity) })),
    ...items(body.stops).map((s, i) => ({ path: ['stops', i, 'demand'], units: units(s.demand) })),
    ...items(body.shipments).map((s, i) => ({ path: ['shipments', i, 'amount'], units: units(s.amount) })),
    ...items(body.vehicles).flatMap((v, i) =>
      items(v.breaks).flatMap((b, k) => (b.max_load === undefined ? [] : [{ path: ['vehicles', i, 'breaks', k, 'max_load'], units: units(b.max_load) }])),
    ),
  ];
  const first = given.find((g) => g.units !== null);
  const dims = first?.units?.length ?? 1;
  const like = first?.path[0] === 'vehicles' ? "like the vehicles' capacities" : `like ${first?.path.join('.')}`;
  for (const g of given) {
    if (g.units !== null && g.units.length !== dims)
      ctx.addIssue({ code: 'custom', path: g.path, message: `must have ${dims} ${dims === 1 ? 'amount' : 'amounts'}, ${like}` });
  }
  const total = new Array<number>(dims).fill(0);
  for (const s of items(body.stops)) (s.demand === undefined ? new Array<number>(dims).fill(1) : (units(s.demand) ?? [])).forEach((x, d) => (total[d] += x));
  for (const s of items(body.shipments)) (units(s.amount) ?? []).forEach((x, d) => (total[d] += x));
  if (total.some((t) => t > MAX_TOTAL_DEMAND))
    ctx.addIssue({ code: 'custom', path: ['stops'], message: `the demands and shipment amounts may add up to at most ${MAX_TOTAL_DEMAND} in each dimension` });
  if (Array.isArray(body.stops) && body.stops.length === 0 && items(body.shipments).length === 0)
    ctx.addIssue({ code: 'custom', path: ['stops'], message: 'must have at least 1 stop when there are no shipments' });
  refusePlanFieldsOutsidePlanMode(body, ctx);
  if (body.mode === 'plan') checkPlanSteps(body, ctx);
};

/** Plan mode: every step names a stop or shipment of the body, each served at most once. */
function checkPlanSteps(body: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const list = (x: unknown): Array<Record<string, unknown>> => (Array.isArray(x) ? x.map((v) => (v !== null && typeof v === 'object' ? v : {})) : []);
  const stopIds = new Set(list(body.stops).flatMap((s) => (s.id === undefined ? [] : [String(s.id)])));
  const shipmentIds = new Set(list(body.shipments).flatMap((s) => (s.id === undefined ? [] : [String(s.id)])));
  const seen = new Map<string, string>();
  list(body.vehicles).forEach((v, i) => {
    const breakIds = new Set(list(v.breaks).flatMap((b) => (b.id === undefined ? [] : [String(b.id)])));
    const named = new Set<string>();
    list(v.steps).forEach((step, k) => {
      const type = step.type;
      if (type === 'break') {
        const path = ['vehicles', i, 'steps', k, 'id'];
        if (step.id === undefined) return ctx.addIssue({ code: 'custom', path, message: 'is required for a break step' });
        if (!breakIds.has(String(step.id))) return ctx.addIssue({ code: 'custom', path, message: "is not the id of one of the vehicle's breaks" });
        if (named.has(String(step.id))) return ctx.addIssue({ code: 'custom', path, message: 'is already a step of this vehicle' });
        named.add(String(step.id));
        return;
      }
      if (type !== 'stop' && type !== 'pickup' && type !== 'delivery') return;
      const path = ['vehicles', i, 'steps', k, 'id'];
      if (step.id === undefined) return ctx.addIssue({ code: 'custom', path, message: `is required for a ${type} step` });
      const known = type === 'stop' ? stopIds : shipmentIds;
      if (!known.has(String(step.id))) return ctx.addIssue({ code: 'custom', path, message: `is not the id of a ${type === 'stop' ? 'stop' : 'shipment'}` });
      const key = `${type} ${step.id}`;
      const first = seen.get(key);
      if (first) ctx.addIssue({ code: 'custom', path, message: `is already a step at ${first}` });
      else seen.set(key, `vehicles.${i}.steps.${k}`);
    });
    // Given positions for some breaks and chosen ones for the others would be two plans in one.
    if (named.size && named.size < breakIds.size)
      ctx.addIssue({
        code: 'custom',
        path: ['vehicles', i, 'steps'],
        message: `names ${named.size} of the vehicle's ${breakIds.size} breaks: name all of them, or none to have them placed`,
      });
  });
}

const when = { when: (payload: { value: unknown }) => payload.value !== null && typeof payload.value === 'object' };

/** The body a job runs: stops as a list (POI stops already expanded at submission). */
export const batchBodySchema = batchObject(fields.stops).superRefine(checkBody, when);

/** The body POST /v1/optimizations takes: `stops` a list, or `{pois, …}` for the team's POIs. */
export const batchRequestSchema = batchObject(
  z.union([fields.stops, poiStopsSchema], { error: POI_STOPS_ERROR }).describe("The stops, or `{pois, …}`: the team's POIs as the stops."),
)
  .superRefine(checkBody, when)
  .meta({
    id: 'OptimizationRequest',
    description: `The POST /v1/routes/optimize body with up to ${MAX_BATCH_STOPS} stops and ${MAX_BATCH_VEHICLES} vehicles, and the search's time budget. Capacities and demands may also be arrays, one integer per load dimension (weight, volume…; at most ${MAX_DIMENSIONS}), all of the same length; a stop without a demand then takes 1 in each dimension, and the plan's loads are arrays too.`,
    examples: [
      {
        time_budget: 60,
        vehicles: [
          { id: 'van-1', start: { latitude: 47.141, longitude: 9.521 }, capacity: 40, time_window: ['2026-03-02T07:00:00+01:00', '2026-03-02T19:00:00+01:00'] },
        ],
        stops: [
          { id: 'a', latitude: 47.166, longitude: 9.51, service: 300 },
          { id: 'b', poi_id: '01JH8Z6Q4W3Y9V5T2R1P0N8M7K' },
        ],
      },
    ],
  });

// ---- the resource (store.ts optimizationJson) ---------------------------------------------------------

const optimizationFields = {
  id: ulid,
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  progress: z
    .object({
      phase: z.enum(['queued', 'matrix', 'solving', 'routes', 'done']),
      percent: z.int().min(0).max(100),
    })
    .describe('Phases in this order; the percentage of the current one.'),
  time_budget: z.int().describe('Seconds of search.'),
  stops: z.int().describe('Stops to serve: those of `stops` (or the POIs selected), and two for each shipment.'),
  vehicles: z.int(),
  runs: z.int().describe('Times a job runner took it up (more than 1 after a restart, which continues from the last checkpoint).'),
  error: z
    .object({ message: z.string(), errors: z.record(z.string(), z.array(z.string())).optional() })
    .nullable()
    .describe(
      'Why a `failed` optimization failed: the 422 body POST /v1/routes/optimize would have answered (locations far from a road or unreachable), or a message; null otherwise.',
    ),
  created_at: timestamp,
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
};

export const optimizationSummarySchema = z
  .object(optimizationFields)
  .meta({ id: 'OptimizationSummary', description: 'An optimization as lists show it: without its plan.' });
export const optimizationSchema = z
  .object({
    ...optimizationFields,
    result: batchPlanSchema
      .nullable()
      .describe(
        'The plan once `completed`, as POST /v1/routes/optimize answers it (loads are arrays when the request gave capacities or demands as arrays); null before and otherwise.',
      ),
  })
  .meta({ id: 'Optimization' });

const exampleOptimization = {
  id: '01JH8Z6Q4W3Y9V5T2R1P0N8M7K',
  status: 'queued',
  progress: { phase: 'queued', percent: 0 },
  time_budget: 60,
  stops: 2,
  vehicles: 1,
  runs: 0,
  error: null,
  created_at: '2026-03-02T06:30:00.123000Z',
  started_at: null,
  finished_at: null,
  result: null,
};
export const optimizationData = dataSchema('OptimizationData', optimizationSchema);
export const optimizationPage = pageSchema('OptimizationPage', optimizationSummarySchema);
export { exampleOptimization };
