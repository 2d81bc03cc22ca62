// VROOM's input JSON (docs/API.md of VROOM 1.14) as a VrpProblem. Supported: jobs (delivery, pickup or
// the older amount in one dimension, service, setup, skills, time windows, priority), vehicles (start and
// end as indices or coordinates, capacity in one dimension, skills, time window, steps as the search's
// starting plan), and matrices (`matrices.<profile>.durations` / `distances`, or the older `matrix`).
// What the solver cannot honour is refused with the field named (shipments, several amount dimensions,
// custom costs) or, when a plan without it stays valid for the rest, reported as a warning (breaks,
// max_tasks, speed_factor...).
import { z } from 'zod';
import type { VrpProblem } from '../optimize/types.js';

const int = z.number().int();
const amount = z.array(int.min(0)).max(1, 'has more than one dimension: only one is supported');
const coords = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);
const window = z.tuple([int.min(0), int.min(0)]).refine(([s, e]) => s <= e, 'must be [start, end] with start <= end');

const jobSchema = z.object({
  id: int.min(0),
  description: z.string().optional(),
  location: coords.optional(),
  location_index: int.min(0).optional(),
  setup: int.min(0).default(0),
  service: int.min(0).default(0),
  amount: amount.optional(),
  delivery: amount.optional(),
  pickup: amount.optional(),
  skills: z.array(int.min(0)).default([]),
  priority: int.min(0).max(100).default(0),
  time_windows: z.array(window).optional(),
}).refine((j) => j.location !== undefined || j.location_index !== undefined, 'needs location or location_index');

const stepSchema = z.object({ type: z.enum(['start', 'job', 'pickup', 'delivery', 'break', 'end']), id: int.min(0).optional() }).loose();

const vehicleSchema = z.object({
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
  costs: z.unknown().optional(),
  breaks: z.array(z.unknown()).optional(),
  speed_factor: z.number().optional(),
  max_tasks: int.optional(),
  max_travel_time: int.optional(),
  max_distance: int.optional(),
}).loose().refine((v) => v.start !== undefined || v.start_index !== undefined || v.end !== undefined || v.end_index !== undefined, 'needs a start or an end');

const matrixRows = z.array(z.array(z.number().min(0)));

export const vroomInputSchema = z.object({
  jobs: z.array(jobSchema).default([]),
  shipments: z.array(z.unknown()).max(0, 'are not supported: model each pickup and delivery as a job').optional(),
  vehicles: z.array(vehicleSchema).min(1),
  matrices: z.record(z.string(), z.object({ durations: matrixRows.optional(), distances: matrixRows.optional(), costs: matrixRows.optional() }).loose()).optional(),
  matrix: matrixRows.optional(),
}).loose();

export type VroomInput = z.infer<typeof vroomInputSchema>;
export type VroomJob = VroomInput['jobs'][number];
export type VroomVehicle = VroomInput['vehicles'][number];

/** Whether a parsed JSON document is VROOM's input (rather than a Waymark optimize body). */
export const isVroomInput = (doc: unknown): boolean =>
  doc !== null && typeof doc === 'object' && ('jobs' in doc || 'shipments' in doc || 'matrices' in doc || 'matrix' in doc);

export class VroomInputError extends Error {}

/** Fields the solver does not honour; the plan is made without them. */
const IGNORED_VEHICLE_FIELDS = ['breaks', 'speed_factor', 'max_tasks', 'max_travel_time', 'max_distance'] as const;

/** Parses and checks; a problem it cannot solve is a VroomInputError naming the field. */
export function parseVroomInput(doc: unknown): { input: VroomInput; warnings: string[] } {
  const parsed = vroomInputSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VroomInputError(`${issue.path.join('.') || 'input'}: ${issue.message}`);
  }
  const input = parsed.data;
  const warnings: string[] = [];
  const ids = new Set<number>();
  input.jobs.forEach((j, i) => {
    if (ids.has(j.id)) throw new VroomInputError(`jobs.${i}.id: ${j.id} is the id of an earlier job`);
    ids.add(j.id);
  });
  input.vehicles.forEach((v, i) => {
    if (v.costs !== undefined) throw new VroomInputError(`vehicles.${i}.costs: custom costs are not supported (the objective is travel duration)`);
    for (const f of IGNORED_VEHICLE_FIELDS) {
      if (v[f] !== undefined && !(Array.isArray(v[f]) && (v[f] as unknown[]).length === 0)) warnings.push(`vehicles.${i}.${f} is not supported and was ignored`);
    }
  });
  if (Object.values(input.matrices ?? {}).some((m) => m.costs)) throw new VroomInputError('matrices: custom costs matrices are not supported (the objective is travel duration)');
  return { input, warnings };
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
  const indexed = input.jobs.some((j) => j.location_index !== undefined) || input.vehicles.some((v) => v.start_index !== undefined || v.end_index !== undefined);
  if (indexed) {
    const need = (i: number | undefined, field: string) => {
      if (i === undefined) throw new VroomInputError(`${field}: every location needs an index when matrices are used`);
      return i;
    };
    const places: Places = {
      coordinates: null, size: 0, free: null,
      jobRow: input.jobs.map((j, i) => need(j.location_index, `jobs.${i}.location_index`)),
      vehicleStart: input.vehicles.map((v, i) => (v.start === undefined && v.start_index === undefined ? null : need(v.start_index, `vehicles.${i}.start_index`))),
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
  const jobRow = input.jobs.map((j) => row(j.location)!);
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

/** Units of a job on board: deliveries ride from the start, pickups to the end. */
export const deliveryOf = (j: VroomJob) => (j.delivery ?? j.amount ?? [])[0] ?? 0;
export const pickupOf = (j: VroomJob) => (j.pickup ?? [])[0] ?? 0;

/**
 * The solver's problem over `durations` (and `distances`), whole seconds and meters. A vehicle without
 * a start begins at the free row, so its first leg costs nothing. Setup is added to service
 * (it is due at every job here). Pickups count against the capacity from the start, as deliveries do: a
 * plan is then within capacity whatever the order, at the price of fewer stops per vehicle when both mix.
 */
export function toVrpProblem(input: VroomInput, places: Places, durations: Int32Array, distances?: Float64Array): VrpProblem {
  const n = places.size;
  const capacitated = input.vehicles.some((v) => v.capacity?.length);
  return {
    durations,
    distances,
    vehicles: input.vehicles.map((v, i) => {
      const start = places.vehicleStart[i] ?? places.free!;
      if (start >= n) throw new VroomInputError(`vehicles.${i}: location index ${start} is outside the ${n} × ${n} matrix`);
      return {
        start,
        end: places.vehicleEnd[i],
        capacity: v.capacity?.length ? v.capacity[0] : null,
        hours: v.time_window ? [v.time_window[0], v.time_window[1]] as const : null,
        skills: v.skills.map(String),
      };
    }),
    jobs: input.jobs.map((j, i) => {
      if (places.jobRow[i] >= n) throw new VroomInputError(`jobs.${i}.location_index: ${places.jobRow[i]} is outside the ${n} × ${n} matrix`);
      return {
        location: places.jobRow[i],
        service: j.service + j.setup,
        demand: capacitated ? deliveryOf(j) + pickupOf(j) : 0,
        timeWindows: j.time_windows,
        skills: j.skills.map(String),
      };
    }),
  };
}

/** The vehicles' `steps` as the search's starting routes (VROOM solves from them too), by job id. */
export function startingRoutes(input: VroomInput): Array<{ vehicle: number; jobs: number[] }> {
  const byId = new Map(input.jobs.map((j, i) => [j.id, i]));
  return input.vehicles.flatMap((v, vehicle) => {
    const jobs = (v.steps ?? []).filter((s) => s.type === 'job' && s.id !== undefined && byId.has(s.id)).map((s) => byId.get(s.id!)!);
    return jobs.length ? [{ vehicle, jobs }] : [];
  });
}
