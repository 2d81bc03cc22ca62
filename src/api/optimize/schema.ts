// The body of POST /v1/routes/optimize (service-spec.md "POST /v1/routes/optimize", "Limits"): every
// limit and pairing rule that can be judged from the body alone, as 422 field paths.
import { z } from 'zod';
import { PROFILES } from '../../map/graphs/profiles.js';
import { arrayFirst } from '../../http/validate.js';
import { lineStringSchema } from '../../engine/line-json.js';
import { locationSchema } from '../locations.js';
import { excludeSchema } from '../routes/exclude.js';
import { MAX_DIMENSIONS } from '../../engine/vrp/problem.js';
import type { Amount } from '../../engine/vrp/types.js';
import { DATETIME_MESSAGE, parseDatetime, type Instant } from './datetimes.js';

export const MAX_VEHICLES = 3;
export const MAX_STOPS = 50;
export const MAX_WINDOWS = 5;
export const MAX_SKILLS = 20;
export const MAX_ID_LENGTH = 100;
export const MAX_SERVICE_S = 86_400;
// Loads are summed in 32-bit integers by the solver: 50 stops of the largest demand stay far below 2^31.
export const MAX_DEMAND = 10_000_000;
export const MAX_CAPACITY = 1_000_000_000;
/** VROOM's default cost of an hour of driving: a plan's cost is then its driving seconds. */
export const DEFAULT_PER_HOUR = 3600;

const datetime = z.string({ error: DATETIME_MESSAGE }).transform((text, ctx): Instant => {
  const at = parseDatetime(text);
  if (!at) {
    ctx.addIssue({ code: 'custom', message: DATETIME_MESSAGE });
    return z.NEVER;
  }
  return at;
});

const pair = z.tuple([datetime, datetime], { error: 'must be a [start, end] pair of datetimes' });

const id = z
  .string({ error: `must be a string of 1 to ${MAX_ID_LENGTH} characters` })
  .min(1, `must be a string of 1 to ${MAX_ID_LENGTH} characters`)
  .max(MAX_ID_LENGTH, `must be a string of 1 to ${MAX_ID_LENGTH} characters`);

const skills = z
  .array(
    z
      .string({ error: 'must be a string of 1 to 100 characters' })
      .min(1, 'must be a string of 1 to 100 characters')
      .max(100, 'must be a string of 1 to 100 characters'),
    { error: `must be an array of up to ${MAX_SKILLS} skills` },
  )
  .max(MAX_SKILLS, `may have at most ${MAX_SKILLS} skills`);

const integer = (min: number, max: number) => {
  const message = `must be an integer between ${min} and ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
};

/** An array checked for its type before its length, so a string is not measured as one. */
const list = <T extends z.ZodType>(item: T, min: number, max: number, what: string) =>
  arrayFirst(`must be an array of ${min} to ${max} ${what}`).pipe(
    z.array(item).min(min, `must have at least ${min} ${what}`).max(max, `may have at most ${max} ${what}`),
  );

/** Ids must be unique among the items that have one; `defaults(i)` names items sent without. */
function uniqueIds(items: Array<{ id?: string }>, ctx: z.RefinementCtx, defaults?: (i: number) => string): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const name = item.id ?? defaults?.(i);
    if (name === undefined) return;
    const first = seen.get(name);
    if (first === undefined) seen.set(name, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `must be unique: '${name}' is already the id of item ${first}` });
  });
}

export const defaultVehicleId = (i: number) => `vehicle-${i + 1}`;

/**
 * Units: an integer (the contract), or with `several` dimensions also an array of up to MAX_DIMENSIONS
 * integers, one per load dimension (weight, volume…). Lengths are matched across the body by the caller.
 */
const amount = (max: number, several: boolean, what: string) => {
  const one = integer(0, max);
  if (!several) return one;
  const message = `must be an integer between 0 and ${max}, or an array of 1 to ${MAX_DIMENSIONS} such integers (one per load dimension)`;
  return z
    .union([one, z.array(one, { error: message }).min(1, message).max(MAX_DIMENSIONS, message)], { error: message })
    .describe(`${what}: an integer, or an array with one per load dimension (weight, volume…), as long as every other capacity and demand of the body.`);
};

/** A [start, end] pair a stop may be served in; several must not overlap (touching is fine). */
const windowList = z
  .array(pair, { error: `must be an array of up to ${MAX_WINDOWS} [start, end] pairs of datetimes` })
  .max(MAX_WINDOWS, `may have at most ${MAX_WINDOWS} time windows`)
  .superRefine((windows, ctx) => {
    windows.forEach(([start, end], i) => {
      if (end.epoch < start.epoch) ctx.addIssue({ code: 'custom', path: [i], message: 'must not end before it starts' });
    });
    // Sorted by start, a window overlaps an earlier one when it starts before the latest end so far;
    // windows that only touch (one ends when the next starts) do not overlap.
    const order = windows.map((_, i) => i).sort((a, b) => windows[a][0].epoch - windows[b][0].epoch || a - b);
    let latestEnd = -Infinity,
      latestIndex = -1;
    for (const i of order) {
      const [start, end] = windows[i];
      if (start.epoch < latestEnd) ctx.addIssue({ code: 'custom', path: [i], message: `overlaps time window ${latestIndex}` });
      if (end.epoch > latestEnd) [latestEnd, latestIndex] = [end.epoch, i];
    }
  });

const priority = integer(0, 100).describe(
  "0–100, default 0: the plan serves the largest sum of priorities first, then as many stops as it can, then drives least (VROOM's `priority`).",
);

/** A driver's break (VROOM's). */
const breakSchema = z.strictObject(
  {
    id: z.union([id, z.int().min(0)], { error: 'must be a string of 1 to 100 characters or a whole number' }),
    time_windows: windowList.optional().describe('When the break may start; none: any time.'),
    service: integer(0, MAX_SERVICE_S).default(0).describe('Seconds the break lasts.'),
    description: z.string({ error: 'must be a string of at most 255 characters' }).max(255, 'must be a string of at most 255 characters').optional(),
    max_load: amount(MAX_CAPACITY, true, "The most units on board while the break is taken (VROOM's `max_load`); none: any load").optional(),
  },
  { error: 'must be a break object with an id' },
);

/**
 * What batch jobs take beyond the contract, named as in VROOM's API. Breaks, costs and given steps are
 * parsed so that the 422 can name them: the solver cannot honour them yet (batchBodySchema refuses them).
 */
const batchVehicleFields = {
  max_tasks: integer(0, 100_000).optional().describe('The most stops (a shipment counts two) the route may hold.'),
  max_travel_time: integer(0, 7 * 86_400)
    .optional()
    .describe('The most seconds of driving the route may add up to.'),
  max_distance: integer(0, 100_000_000).optional().describe('The most meters the route may add up to.'),
  // At least 0.01: slower factors would push travel times past the solver's 32-bit seconds.
  speed_factor: z
    .number({ error: 'must be a number from 0.01 to 5' })
    .min(0.01, 'must be a number from 0.01 to 5')
    .max(5, 'must be a number from 0.01 to 5')
    .optional()
    .describe(
      "Divides every travel time of this vehicle, each leg rounded to whole seconds (VROOM's: 2 drives twice as fast). Its schedule, `max_travel_time` and cost per hour count these times.",
    ),
  breaks: z
    .array(breakSchema, { error: 'must be an array of up to 10 breaks' })
    .max(10, 'may have at most 10 breaks')
    .superRefine((bs, ctx) =>
      uniqueIds(
        bs.map((b) => ({ id: String(b.id) })),
        ctx,
      ),
    )
    .optional()
    .describe(
      "VROOM's `breaks`: each used vehicle takes each of its breaks where it is (after its start or a stop), starting inside one of the break's windows. Steps of type `break` carry its `id`.",
    ),
  costs: z
    .strictObject(
      {
        // Bounded so that the solver's weights (a stop left out outweighs every fixed cost) stay exact in doubles.
        fixed: integer(0, 10_000_000).optional().describe('What using the vehicle costs; default 0.'),
        per_hour: integer(1, 1_000_000)
          .optional()
          .describe("What an hour of the vehicle's driving costs; default 3600 (the cost is then its driving seconds)."),
        per_km: integer(0, 1_000_000).optional().describe('What a km of its driving costs; default 0.'),
      },
      { error: 'must be an object of costs: fixed, per_hour, per_km' },
    )
    .optional()
    .describe(
      "VROOM's vehicle costs. **Objective**: after the largest sum of priorities and the most stops served, the least cost: the sum over the vehicles used of `fixed + per_hour × driving hours + per_km × km` (the hours after the vehicle's `speed_factor`). Each route and the summary report it as `cost`.",
    ),
  steps: z
    .array(
      z.strictObject(
        {
          type: z.enum(['start', 'stop', 'pickup', 'delivery', 'break', 'end'], { error: 'must be one of start, stop, pickup, delivery, break, end' }),
          id: z.union([id, z.int().min(0)], { error: 'must be the id of a stop, shipment or break' }).optional(),
        },
        { error: 'must be a step object {type, id}' },
      ),
      { error: 'must be an array of steps' },
    )
    .max(5_000, 'may have at most 5000 steps')
    .optional()
    .describe(
      'Plan mode (`mode: "plan"`): the route as given, `stop` steps naming a stop by its `id`, `pickup` and `delivery` a shipment by its `id`, `break` one of the vehicle\'s breaks by its `id`; `start` and `end` may be left out. Breaks named in the steps are taken there (all of the vehicle\'s or none); otherwise they are placed where they end the route earliest.',
    ),
};

/** The batch fields are typed through OptimizeBody: the contract's schema must not change its type. */
const vehicleSchema = (several: boolean, batch = false) => {
  const base = contractVehicle(several);
  return batch ? (base.safeExtend(batchVehicleFields) as unknown as typeof base) : base;
};

const contractVehicle = (several: boolean) =>
  z.strictObject(
    {
      start: locationSchema,
      id: id.optional(),
      end: locationSchema.optional(),
      capacity: amount(MAX_CAPACITY, several, 'Most units carried').optional(),
      time_window: pair
        .superRefine(([start, end], ctx) => {
          if (end.epoch <= start.epoch) ctx.addIssue({ code: 'custom', message: 'must end after it starts' });
        })
        .optional(),
      skills: skills.optional(),
    },
    { error: 'must be a vehicle object with a start location' },
  );

const stopSchema = (several: boolean, batch = false) => {
  const base = contractStop(several);
  return batch ? (base.safeExtend({ priority: priority.optional() }) as unknown as typeof base) : base;
};

const contractStop = (several: boolean) =>
  locationSchema.safeExtend({
    id: id.optional(),
    service: integer(0, MAX_SERVICE_S).default(0),
    // With several dimensions a stop without a demand takes 1 in each (the solver's default), whatever their number.
    demand: several ? amount(MAX_DEMAND, true, 'Units delivered, default 1 in each dimension').optional() : integer(0, MAX_DEMAND).default(1),
    time_windows: windowList.optional(),
    skills: skills.optional(),
  });

/** One end of a shipment: where, how long, when. */
const shipmentStep = locationSchema.safeExtend({
  service: integer(0, MAX_SERVICE_S).default(0),
  time_windows: windowList.optional(),
});

/** VROOM's shipments: a pickup, then its delivery by the same vehicle, `amount` on board between the two. */
export const shipmentSchema = (several: boolean) =>
  z.strictObject(
    {
      id: id.optional(),
      amount: several ? amount(MAX_DEMAND, true, 'Units carried from the pickup to the delivery, default 0').optional() : integer(0, MAX_DEMAND).optional(),
      skills: skills.optional(),
      priority: priority.optional(),
      pickup: shipmentStep,
      delivery: shipmentStep,
    },
    { error: 'must be a shipment object with a pickup and a delivery' },
  );

/**
 * The fields of an optimize body with the given size limits: the contract's, or the batch jobs' larger
 * ones, whose capacities and demands may also be arrays (`severalDimensions`).
 */
export const optimizeFields = (maxVehicles: number, maxStops: number, severalDimensions = false, batch = false) => ({
  profile: z.enum(PROFILES, { error: `must be one of ${PROFILES.join(', ')}` }).default('driving-car'),
  exclude: excludeSchema,
  vehicles: list(vehicleSchema(severalDimensions, batch), 1, maxVehicles, 'vehicles').superRefine((vs, ctx) => uniqueIds(vs, ctx, defaultVehicleId)),
  stops: list(stopSchema(severalDimensions, batch), batch ? 0 : 1, maxStops, 'stops').superRefine((ss, ctx) => uniqueIds(ss, ctx)),
});

/** Shipments of a batch body (at most `max`), ids unique among them. */
export const shipmentsField = (max: number) => list(shipmentSchema(true), 0, max, 'shipments').superRefine((ss, ctx) => uniqueIds(ss, ctx));

export const optimizeBodySchema = z.strictObject(optimizeFields(MAX_VEHICLES, MAX_STOPS)).meta({
  id: 'OptimizeRequest',
  examples: [
    {
      vehicles: [
        { id: 'van', start: { latitude: 47.141, longitude: 9.521 }, capacity: 10, time_window: ['2026-03-02T08:00:00+01:00', '2026-03-02T17:00:00+01:00'] },
      ],
      stops: [
        { id: 'a', latitude: 47.166, longitude: 9.51, service: 300 },
        { id: 'b', latitude: 47.06, longitude: 9.5, time_windows: [['2026-03-02T10:00:00+01:00', '2026-03-02T12:00:00+01:00']] },
      ],
    },
  ],
});

/** VROOM's violation object (its docs/API.md, "Violation"). */
const violationSchema = z
  .object({
    cause: z.enum(['lead_time', 'delay', 'load', 'max_tasks', 'skills', 'precedence', 'missing_break', 'max_travel_time', 'max_load', 'max_distance']),
    duration: z.int().optional().describe('Seconds early (`lead_time`) or late (`delay`); only for those two causes.'),
  })
  .meta({ id: 'Violation' });

const contractLoad = z.int().nullable().describe('On board after the step; null when no vehicle has a capacity.');

const stepOf = (load: z.ZodType, batch: boolean) =>
  z.object({
    type: batch
      ? z
          .enum(['start', 'stop', 'pickup', 'delivery', 'break', 'end'])
          .describe(
            "`pickup` and `delivery`: the two ends of a shipment, `id` and `index` naming it; `break`: one of the vehicle's breaks (`id`, `index` in its `breaks`), taken where the step before it is.",
          )
      : z.enum(['start', 'stop', 'end']),
    index: z
      .int()
      .optional()
      .describe(batch ? 'Stop steps: the position in `stops`; pickups and deliveries: in `shipments`.' : 'Stop steps: the position in the request.'),
    id: z.string().nullable().optional(),
    poi_id: z.string().nullable().optional(),
    latitude: z.number(),
    longitude: z.number(),
    arrival: z.string(),
    departure: z.string(),
    waiting_time: z.number(),
    service: z.number(),
    distance: z.number().describe('Meters so far.'),
    duration: z.number().describe('Seconds so far.'),
    load,
    ...(batch
      ? {
          violations: z
            .array(violationSchema)
            .describe(
              "Plan mode: the rules this step breaks, VROOM's violations (its docs/API.md): `lead_time`/`delay` (service starts before/after its window, or past the working hours, with `duration` seconds; the end step: reached late), `load` (more on board than the capacity), `skills`, `max_tasks` (every task past the limit), `precedence` (a pickup without a later delivery, a delivery without an earlier pickup), `max_travel_time`/`max_distance` (from the step where the driving so far passes the limit), `max_load` (a break taken with more on board than its `max_load`). Empty in a searched plan.",
            ),
        }
      : {}),
  });

/** The plan: the answer of POST /v1/routes/optimize and (with loads that may be arrays) the `result` of a completed batch optimization. */
const planOf = (load: z.ZodType, routeLoad: z.ZodType, batch = false) =>
  z.object({
    summary: z.object({
      vehicles: z.int(),
      stops: z.int(),
      assigned: z.int(),
      unassigned: z.int(),
      distance: z.number(),
      duration: z.number(),
      service: z.number(),
      waiting_time: z.number(),
      ...(batch
        ? {
            cost: z.int().describe("The objective after priorities and stops served: the routes' costs added up."),
            violations: z
              .array(violationSchema)
              .describe("Plan mode: each cause of the routes' violations once, `lead_time` and `delay` summed (VROOM's). Empty in a searched plan."),
          }
        : {}),
    }),
    routes: z.array(
      z.object({
        vehicle: z.string(),
        stops: z.int(),
        ...(batch
          ? {
              cost: z
                .int()
                .describe(
                  "As VROOM counts it: the vehicle's `costs.fixed` + round(`costs.per_hour` × `duration` / 3600 + `costs.per_km` × `distance` / 1000); by default its driving seconds.",
                ),
              violations: z
                .array(violationSchema)
                .describe(
                  "Plan mode: VROOM's route violations: each cause of the route's steps once (`lead_time` and `delay` with their seconds summed), and `missing_break` when a break of the vehicle is not taken. Empty in a searched plan.",
                ),
              violation_messages: z
                .array(z.string())
                .describe(
                  "Plan mode: every rule the given steps break, in words naming the request's stops, shipments and breaks, in the order met (a late arrival, an overload…); empty in a searched plan.",
                ),
            }
          : {}),
        distance: z.number(),
        duration: z.number(),
        service: z.number(),
        waiting_time: z.number(),
        load: routeLoad,
        start_at: z.string(),
        end_at: z.string(),
        geometry: lineStringSchema,
        steps: z.array(stepOf(load, batch)),
      }),
    ),
    unassigned: z.array(
      z.object({
        ...(batch ? { type: z.enum(['stop', 'shipment']).describe('A stop of `stops`, or a whole shipment (latitude and longitude: its pickup).') } : {}),
        index: z.int(),
        id: z.string().nullable(),
        poi_id: z.string().nullable(),
        latitude: z.number(),
        longitude: z.number(),
        reason: z.string(),
      }),
    ),
  });

export const optimizePlanSchema = planOf(contractLoad, z.int().nullable()).meta({ id: 'OptimizePlan' });

const dimensionedLoad = (what: string) =>
  z
    .union([z.int(), z.array(z.int())])
    .nullable()
    .describe(
      `${what}: an integer, or an array with one integer per load dimension when the request's capacities or demands are arrays; null when no vehicle has a capacity.`,
    );

/** The plan of a batch optimization: the contract's, with loads in several dimensions when asked in them. */
export const batchPlanSchema = planOf(dimensionedLoad('On board after the step'), dimensionedLoad('Loaded at the start'), true).meta({
  id: 'OptimizationPlan',
});

export const optimizeResponseSchema = z.object({ data: optimizePlanSchema }).meta({ id: 'OptimizeResponse' });

type ContractBody = z.infer<typeof optimizeBodySchema>;
/** An optimize body: the contract's, or a batch job's, whose capacities and demands may be arrays (then a stop may lack its demand). */
export type OptimizeBody = Omit<ContractBody, 'vehicles' | 'stops'> & {
  vehicles: Array<
    Omit<ContractBody['vehicles'][number], 'capacity'> & {
      capacity?: Amount;
      max_tasks?: number;
      max_travel_time?: number;
      max_distance?: number;
      speed_factor?: number;
      costs?: { fixed?: number; per_hour?: number; per_km?: number };
      steps?: Array<{ type: 'start' | 'stop' | 'pickup' | 'delivery' | 'break' | 'end'; id?: string | number }>;
      breaks?: Array<{ id: string | number; time_windows?: Array<[Instant, Instant]>; service: number; max_load?: Amount }>;
    }
  >;
  stops: Array<Omit<ContractBody['stops'][number], 'demand'> & { demand?: Amount; priority?: number }>;
  shipments?: ShipmentBody[];
  mode?: 'optimize' | 'plan';
  plan_timing?: 'retime' | 'check';
};

export type ShipmentBody = Omit<z.infer<ReturnType<typeof shipmentSchema>>, 'amount'> & { amount?: Amount };
