// VROOM's input JSON (docs/API.md of VROOM 1.14) as a VrpProblem. Supported: jobs (delivery, pickup or
// the older amount, in up to MAX_DIMENSIONS dimensions, service, setup, skills, time windows, priority),
// shipments (a pickup and a delivery served in that order by one vehicle, the amount on board between),
// vehicles (start and end as indices or coordinates, capacity, skills, time window, max_tasks,
// max_travel_time, max_distance, steps as the search's starting plan), and matrices (`matrices.<profile>.durations` /
// `distances`, or the older `matrix`).
// vehicles' costs and speed factors too. What the solver cannot honour is refused with the field named
// (custom costs matrices).
import { z } from 'zod';
import { MAX_DIMENSIONS } from '../../engine/vrp/problem.js';
import type { VrpProblem } from '../../engine/vrp/types.js';

const int = z.number().int();
// The solver sums loads in 32-bit integers.
const amount = z.array(int.min(0).max(1_000_000_000)).max(MAX_DIMENSIONS, `has more than ${MAX_DIMENSIONS} dimensions`);
const coords = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);
const window = z.tuple([int.min(0), int.min(0)]).refine(([s, e]) => s <= e, 'must be [start, end] with start <= end');

/** What a job and each step of a shipment have: an id, a place, and the time spent there. */
const stopFields = {
  id: int.min(0),
  description: z.string().optional(),
  location: coords.optional(),
  location_index: int.min(0).optional(),
  setup: int.min(0).default(0),
  service: int.min(0).default(0),
  time_windows: z.array(window).optional(),
};
const hasPlace = (j: { location?: unknown; location_index?: unknown }) => j.location !== undefined || j.location_index !== undefined;

const jobSchema = z
  .object({
    ...stopFields,
    amount: amount.optional(),
    delivery: amount.optional(),
    pickup: amount.optional(),
    skills: z.array(int.min(0)).default([]),
    priority: int.min(0).max(100).default(0),
  })
  .refine(hasPlace, 'needs location or location_index');

const shipmentStepSchema = z.object(stopFields).refine(hasPlace, 'needs location or location_index');

const shipmentSchema = z.object({
  amount: amount.optional(),
  skills: z.array(int.min(0)).default([]),
  priority: int.min(0).max(100).default(0),
  pickup: shipmentStepSchema,
  delivery: shipmentStepSchema,
});

const breakSchema = z.object({
  id: int.min(0),
  description: z.string().optional(),
  time_windows: z.array(window).optional(),
  service: int.min(0).default(0),
  max_load: amount.optional(),
});

const stepSchema = z.object({ type: z.enum(['start', 'job', 'pickup', 'delivery', 'break', 'end']), id: int.min(0).optional() }).loose();

const vehicleSchema = z
  .object({
    id: int.min(0),
    profile: z.string().default('car'),
    description: z.string().optional(),
    start: coords.optional(),
    start_index: int.min(0).optional(),
    end: coords.optional(),
    end_index: int.min(0).optional(),
    capacity: amount.optional(),
    skills: z.array(int.min(0)).default([]),
    time_window: window.optional(),
    steps: z.array(stepSchema).optional(),
    costs: z.object({ fixed: int.min(0).default(0), per_hour: int.min(1).default(3600), per_km: int.min(0).default(0) }).optional(),
    breaks: z.array(breakSchema).optional(),
    speed_factor: z.number().gt(0).max(5).optional(),
    max_tasks: int.min(0).optional(),
    max_travel_time: int.min(0).optional(),
    max_distance: int.min(0).optional(),
  })
  .loose()
  .refine((v) => v.start !== undefined || v.start_index !== undefined || v.end !== undefined || v.end_index !== undefined, 'needs a start or an end');

const matrixRows = z.array(z.array(z.number().min(0)));

export const vroomInputSchema = z
  .object({
    jobs: z.array(jobSchema).default([]),
    shipments: z.array(shipmentSchema).default([]),
    vehicles: z.array(vehicleSchema).min(1),
    matrices: z
      .record(z.string(), z.object({ durations: matrixRows.optional(), distances: matrixRows.optional(), costs: matrixRows.optional() }).loose())
      .optional(),
    matrix: matrixRows.optional(),
  })
  .loose();

export type VroomInput = z.infer<typeof vroomInputSchema>;
export type VroomJob = VroomInput['jobs'][number];

/**
 * One stop to serve: a job, or one end of a shipment. What it does to the load: `start` rides from the
 * route's start (a job's delivery), then at the stop `dropped` leaves and `loaded` comes on.
 */
export interface VroomTask {
  type: 'job' | 'pickup' | 'delivery';
  id: number;
  description?: string;
  location?: [number, number];
  location_index?: number;
  setup: number;
  service: number;
  time_windows?: Array<[number, number]>;
  skills: number[];
  priority: number;
  start: number[];
  dropped: number[];
  loaded: number[];
  /** The index of its shipment, for its two stops. */
  shipment?: number;
}

/** The input's stops: its jobs, then each shipment's pickup and delivery. Amounts have `dims` entries. */
export function tasksOf(input: VroomInput): VroomTask[] {
  const dims = dimensionsOf(input);
  const zero = () => new Array<number>(dims).fill(0);
  const jobs: VroomTask[] = input.jobs.map((j) => {
    const { amount: _a, delivery: _d, pickup: _p, ...rest } = j;
    const delivery = dims ? deliveryOf(j, dims) : [];
    return { ...rest, type: 'job', start: delivery, dropped: delivery, loaded: dims ? pickupOf(j, dims) : [] };
  });
  const stops = input.shipments.flatMap((sh, shipment): VroomTask[] => {
    const amount = dims ? (sh.amount ?? zero()) : [];
    const common = { skills: sh.skills, shipment, start: dims ? zero() : [] };
    return [
      { ...sh.pickup, ...common, type: 'pickup', priority: sh.priority, dropped: dims ? zero() : [], loaded: amount },
      { ...sh.delivery, ...common, type: 'delivery', priority: 0, dropped: amount, loaded: dims ? zero() : [] },
    ];
  });
  return [...jobs, ...stops];
}

/** Where a task's fields are in the input, for messages: `jobs.3`, `shipments.1.pickup`. */
export function taskField(input: VroomInput, index: number): string {
  if (index < input.jobs.length) return `jobs.${index}`;
  const k = index - input.jobs.length;
  return `shipments.${k >> 1}.${k & 1 ? 'delivery' : 'pickup'}`;
}

/** Whether a parsed JSON document is VROOM's input (rather than a Waymark optimize body). */
export const isVroomInput = (doc: unknown): boolean =>
  doc !== null && typeof doc === 'object' && ('jobs' in doc || 'shipments' in doc || 'matrices' in doc || 'matrix' in doc);

export class VroomInputError extends Error {}

/** Parses and checks; a problem it cannot solve is a VroomInputError naming the field. */
export function parseVroomInput(doc: unknown): VroomInput {
  const parsed = vroomInputSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VroomInputError(`${issue.path.join('.') || 'input'}: ${issue.message}`);
  }
  const input = parsed.data;
  const ids = new Set<number>();
  input.jobs.forEach((j, i) => {
    if (ids.has(j.id)) throw new VroomInputError(`jobs.${i}.id: ${j.id} is the id of an earlier job`);
    ids.add(j.id);
  });
  // As in VROOM, pickups and deliveries each have ids of their own kind.
  for (const stop of ['pickup', 'delivery'] as const) {
    const seen = new Set<number>();
    input.shipments.forEach((sh, i) => {
      if (seen.has(sh[stop].id)) throw new VroomInputError(`shipments.${i}.${stop}.id: ${sh[stop].id} is the id of an earlier ${stop}`);
      seen.add(sh[stop].id);
    });
  }
  if (Object.values(input.matrices ?? {}).some((m) => m.costs))
    throw new VroomInputError("matrices: custom costs matrices are not supported (the objective is VROOM's cost from each vehicle's per_hour and per_km)");
  checkDimensions(input);
  return input;
}

/**
 * Load dimensions: the length of the vehicles' capacities, 0 when none has one (amounts are then
 * ignored). VROOM takes it from the first vehicle; here the first that has a capacity sets it (VROOM
 * refuses a file whose first vehicle has none while others have one; here the others' capacities count).
 */
export function dimensionsOf(input: VroomInput): number {
  return input.vehicles.find((v) => v.capacity?.length)?.capacity?.length ?? 0;
}

/** Every capacity and amount has the vehicles' number of dimensions (VROOM: "Inconsistent … length"). */
function checkDimensions(input: VroomInput): void {
  const dims = dimensionsOf(input);
  if (dims === 0) return;
  const first = input.vehicles.findIndex((v) => v.capacity?.length);
  const check = (a: number[] | undefined, field: string) => {
    if (a !== undefined && a.length !== dims) {
      throw new VroomInputError(`${field}: has ${a.length} ${a.length === 1 ? 'amount' : 'amounts'}, but vehicles.${first}.capacity has ${dims}`);
    }
  };
  input.vehicles.forEach((v, i) => check(v.capacity?.length ? v.capacity : undefined, `vehicles.${i}.capacity`));
  input.jobs.forEach((j, i) => {
    check(j.delivery, `jobs.${i}.delivery`);
    check(j.pickup, `jobs.${i}.pickup`);
    check(j.amount, `jobs.${i}.amount`);
  });
  input.shipments.forEach((sh, i) => check(sh.amount, `shipments.${i}.amount`));
  input.vehicles.forEach((v, i) => (v.breaks ?? []).forEach((b, k) => check(b.max_load, `vehicles.${i}.breaks.${k}.max_load`)));
}

/** Each distinct place of the input, by matrix index or by coordinates, with a row in the matrix. */
export interface Places {
  /** Coordinates [lon, lat] per row, when the input uses coordinates (then there are no matrices). */
  coordinates: Array<[number, number]> | null;
  /** Rows of the matrix: the places, then `free` when there is one. */
  size: number;
  /** A row at no distance from anywhere, where vehicles without a start begin (VROOM: a route without
   *  a start begins at its first job), or null. */
  free: number | null;
  jobRow: number[];
  vehicleStart: Array<number | null>;
  vehicleEnd: Array<number | null>;
}

/** Rows of the matrix: the input's indices as they are, or one row per distinct coordinate pair. */
export function placesOf(input: VroomInput): Places {
  const tasks = tasksOf(input);
  const indexed = tasks.some((j) => j.location_index !== undefined) || input.vehicles.some((v) => v.start_index !== undefined || v.end_index !== undefined);
  if (indexed) {
    const need = (i: number | undefined, field: string) => {
      if (i === undefined) throw new VroomInputError(`${field}: every location needs an index when matrices are used`);
      return i;
    };
    const places: Places = {
      coordinates: null,
      size: 0,
      free: null,
      jobRow: tasks.map((j, i) => need(j.location_index, `${taskField(input, i)}.location_index`)),
      vehicleStart: input.vehicles.map((v, i) =>
        v.start === undefined && v.start_index === undefined ? null : need(v.start_index, `vehicles.${i}.start_index`),
      ),
      vehicleEnd: input.vehicles.map((v, i) => (v.end === undefined && v.end_index === undefined ? null : need(v.end_index, `vehicles.${i}.end_index`))),
    };
    places.size = 1 + Math.max(...places.jobRow, ...places.vehicleStart.map((x) => x ?? 0), ...places.vehicleEnd.map((x) => x ?? 0));
    return withFree(places);
  }
  const coordinates: Array<[number, number]> = [];
  const rows = new Map<string, number>();
  const row = (c: [number, number] | undefined) => {
    if (!c) return null;
    const key = `${c[0]},${c[1]}`;
    let r = rows.get(key);
    if (r === undefined) rows.set(key, (r = coordinates.push(c) - 1));
    return r;
  };
  const vehicleStart = input.vehicles.map((v) => row(v.start));
  const vehicleEnd = input.vehicles.map((v) => row(v.end));
  const jobRow = tasks.map((j) => row(j.location)!);
  return withFree({ coordinates, size: coordinates.length, free: null, jobRow, vehicleStart, vehicleEnd });
}

function withFree(p: Places): Places {
  return p.vehicleStart.some((s) => s === null) ? { ...p, free: p.size, size: p.size + 1 } : p;
}

type Read = (a: number, b: number) => number | null | undefined;

/**
 * Whole-second durations and meter distances over `places.size` rows, read for the `real` places (the
 * free row and column stay 0). A missing or unreachable duration is an error naming the pair.
 */
export function flatMatrices(places: Places, real: number, duration: Read, distance?: Read) {
  const n = places.size;
  const d = new Int32Array(n * n);
  const m = distance ? new Float64Array(n * n) : undefined;
  for (let a = 0; a < real; a++) {
    for (let b = 0; b < real; b++) {
      const t = duration(a, b);
      if (t === undefined || t === null || !Number.isFinite(t)) throw new VroomInputError(`no travel time from location ${a} to location ${b}`);
      d[a * n + b] = Math.round(t);
      if (m) m[a * n + b] = Math.round(distance!(a, b) ?? 0);
    }
  }
  return { durations: d, distances: m };
}

/** The matrices of the input for the vehicles' profile (VROOM's default profile is `car`). */
export function inputMatrices(input: VroomInput): { durations: number[][]; distances?: number[][] } | null {
  const profiles = [...new Set(input.vehicles.map((v) => v.profile))];
  if (profiles.length > 1) throw new VroomInputError(`vehicles: every vehicle must use one profile, got ${profiles.join(', ')}`);
  const m = input.matrices?.[profiles[0]];
  if (m?.durations) return { durations: m.durations, distances: m.distances };
  if (input.matrix) return { durations: input.matrix };
  if (input.matrices) throw new VroomInputError(`matrices.${profiles[0]}.durations: is required for the vehicles' profile ${profiles[0]}`);
  return null;
}

/**
 * Units of a job on board, in each of `dims` dimensions: deliveries ride from the start, pickups to the
 * end. The older `amount` is a delivery when neither delivery nor pickup is given (as VROOM reads it).
 */
export const deliveryOf = (j: VroomJob, dims: number): number[] =>
  j.delivery ?? (j.pickup === undefined ? j.amount : undefined) ?? new Array<number>(dims).fill(0);
export const pickupOf = (j: VroomJob, dims: number): number[] => j.pickup ?? new Array<number>(dims).fill(0);

/**
 * The solver's problem over `durations` (and `distances`), whole seconds and meters. A vehicle without
 * a start begins at the free row, so its first leg costs nothing. Setup is added to service
 * (it is due at every job here). Deliveries and pickups stay apart: the solver keeps the load after
 * every stop within capacity, as VROOM does.
 */
export function toVrpProblem(input: VroomInput, places: Places, durations: Int32Array, distances?: Float64Array): VrpProblem {
  const n = places.size;
  const dims = dimensionsOf(input);
  const tasks = tasksOf(input);
  return {
    durations,
    distances,
    vehicles: input.vehicles.map((v, i) => {
      const start = places.vehicleStart[i] ?? places.free!;
      if (start >= n) throw new VroomInputError(`vehicles.${i}: location index ${start} is outside the ${n} × ${n} matrix`);
      if (v.max_distance !== undefined && !distances)
        throw new VroomInputError(`vehicles.${i}.max_distance: needs distances (matrices.${v.profile}.distances, or coordinates)`);
      if (v.costs?.per_km && !distances)
        throw new VroomInputError(`vehicles.${i}.costs.per_km: needs distances (matrices.${v.profile}.distances, or coordinates)`);
      return {
        start,
        end: places.vehicleEnd[i],
        // As VROOM: a vehicle without a capacity beside vehicles with one carries nothing (a zero amount).
        capacity: v.capacity?.length ? v.capacity : dims ? new Array<number>(dims).fill(0) : null,
        hours: v.time_window ? ([v.time_window[0], v.time_window[1]] as const) : null,
        skills: v.skills.map(String),
        maxJobs: v.max_tasks ?? null,
        maxTravel: v.max_travel_time ?? null,
        maxDistance: v.max_distance ?? null,
        // VROOM's costs and speed factor, as the kernel counts them.
        fixed: v.costs?.fixed ?? 0,
        perHour: v.costs?.per_hour ?? 3600,
        perKm: v.costs?.per_km ?? 0,
        speedFactor: v.speed_factor ?? 1,
        breaks: (v.breaks ?? []).map((b) => ({
          windows: [...(b.time_windows ?? [])].sort((x, y) => x[0] - y[0]),
          service: b.service,
          // Amounts count only with capacities (dims 0: none), as VROOM ignores them then.
          ...(b.max_load && dims ? { maxLoad: b.max_load } : {}),
        })),
      };
    }),
    jobs: tasks.map((j, i) => {
      if (places.jobRow[i] >= n) throw new VroomInputError(`${taskField(input, i)}.location_index: ${places.jobRow[i]} is outside the ${n} × ${n} matrix`);
      return {
        location: places.jobRow[i],
        service: j.service + j.setup,
        demand: dims ? j.start : 0,
        ...(j.type === 'job' && dims ? { pickup: j.loaded } : {}),
        timeWindows: j.time_windows,
        skills: j.skills.map(String),
        // A shipment's priority rides on its pickup, where the solver reads it.
        priority: j.priority,
      };
    }),
    // Tasks list each shipment's pickup and delivery one after the other, after the jobs.
    shipments: input.shipments.map((sh, k) => ({
      pickup: input.jobs.length + 2 * k,
      delivery: input.jobs.length + 2 * k + 1,
      ...(dims ? { amount: sh.amount ?? new Array<number>(dims).fill(0) } : {}),
    })),
  };
}

/** The vehicles' `steps` as the search's starting routes (VROOM solves from them too), by task. */
export function startingRoutes(input: VroomInput): Array<{ vehicle: number; jobs: number[] }> {
  const byStep = new Map(tasksOf(input).map((t, i) => [`${t.type} ${t.id}`, i]));
  return input.vehicles.flatMap((v, vehicle) => {
    const jobs = (v.steps ?? []).flatMap((s) => {
      const task = s.id === undefined ? undefined : byStep.get(`${s.type} ${s.id}`);
      return task === undefined ? [] : [task];
    });
    return jobs.length ? [{ vehicle, jobs }] : [];
  });
}
