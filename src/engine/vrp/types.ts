// Problem and solution shapes of the delivery optimizer. Locations are indices into the matrices;
// times are seconds from a time origin chosen by the caller (e.g. the request's first datetime).

/** n × n, row = from: a flat row-major array or nested rows. */
export type Matrix = Int32Array | Float64Array | ArrayLike<number>[];

/**
 * Units in each load dimension (weight, volume, pallets…); a number is one dimension. Every capacity and
 * demand of a problem has the same number of dimensions, at most MAX_DIMENSIONS (problem.ts).
 */
export type Amount = number | readonly number[];

export interface VrpVehicle {
  /** Location index the vehicle leaves from. */
  start: number;
  /** Location index it must return to; null, undefined or -1 for an open route ending at the last stop. */
  end?: number | null;
  /** Most units carried, in each dimension; null or undefined carries any amount. */
  capacity?: Amount | null;
  /**
   * Working hours [start, end], default [0, Infinity]. They bound the whole tour: the vehicle leaves its
   * start no earlier than `start`, finishes the service of every stop by `end` (departure <= end; a
   * vehicle never waits past `end` for a window to open), and a closed route reaches its end location by
   * `end`. An open route's tour is over when it leaves its last stop, so that departure is what `end`
   * bounds. Service may start at `end` only when it takes no time.
   */
  hours?: readonly [number, number] | null;
  skills?: readonly string[];
  /** The most jobs its route may hold (VROOM's `max_tasks`); default no limit. */
  maxJobs?: number | null;
  /** The most travel time, in seconds, its route may add up to (VROOM's `max_travel_time`); default no limit. */
  maxTravel?: number | null;
  /** The most meters its route may add up to (VROOM's `max_distance`); needs the problem's distances. */
  maxDistance?: number | null;
  /** What using the vehicle costs, in the plan's cost units (VROOM's `costs.fixed`); default 0. */
  fixed?: number;
  /** What an hour of its travel costs (VROOM's `costs.per_hour`); default 3600, so that the cost is its travel seconds. */
  perHour?: number;
  /** What a km costs (VROOM's `costs.per_km`); default 0. Needs the problem's distances. */
  perKm?: number;
  /**
   * Its travel times are the matrix's divided by this, rounded to whole seconds (VROOM's `speed_factor`,
   * 2: twice as fast); default 1. Its schedule, travel limit and per_hour cost count them.
   */
  speedFactor?: number;
  /** Breaks taken where the vehicle is, each starting inside one of its windows (sorted, disjoint); placed by breaks.ts after the search. */
  breaks?: readonly VrpBreak[];
}

export interface VrpBreak {
  windows: ReadonlyArray<readonly [number, number]>;
  /** Seconds the break lasts. */
  service: number;
  /** The most units on board while it is taken, in each dimension (VROOM's `max_load`); none: any load. */
  maxLoad?: readonly number[];
}

/** One break as placed: after job `after` of the route (-1: right after the start), when it starts and ends. */
export interface PlacedBreak {
  /** Index of the break in the vehicle's `breaks`. */
  index: number;
  after: number;
  arrival: number;
  start: number;
  departure: number;
}

export interface VrpJob {
  location: number;
  /** Seconds spent at the stop; default 0. */
  service?: number;
  /**
   * Units on board for the whole route (loaded at the start), in each dimension; default 1 in each.
   * Counts only against vehicles that have a capacity.
   */
  demand?: Amount;
  /**
   * Units loaded at the stop and on board from there to the end of the route, in each dimension; default
   * none. The load after every stop must fit the capacity. (VROOM's `pickup`; the API's stops have none.)
   */
  pickup?: Amount;
  /** Service may start inside any window (and must end within the vehicle's hours); a vehicle arriving early waits. None: any time. */
  timeWindows?: ReadonlyArray<readonly [number, number]>;
  /** Served only by a vehicle that has all of them. */
  skills?: readonly string[];
  /**
   * 0–100, default 0 (VROOM's `priority`): the plan serves the largest sum of priorities before it serves
   * more jobs or drives less. A shipment's priority is its pickup job's.
   */
  priority?: number;
}

export interface VrpProblem {
  /** Travel durations in whole seconds (non-negative integers). */
  durations: Matrix;
  /** Travel distances in meters: reported, and priced by vehicles with a cost per km. */
  distances?: Matrix;
  vehicles: readonly VrpVehicle[];
  jobs: readonly VrpJob[];
  /** Pairs of jobs served by one vehicle, the pickup first, the amount on board between them (VROOM's shipments). */
  shipments?: readonly VrpShipment[];
}

export interface VrpShipment {
  /** Job indices. Both jobs carry no demand or pickup of their own (their demand must be given as 0). */
  pickup: number;
  delivery: number;
  /** Units on board from the pickup to the delivery, in each dimension; default none. */
  amount?: Amount;
}

export interface SolveOptions {
  /** Wall-clock budget of the search, a hard stop that does not shape it; default 1000. */
  timeLimitMs?: number;
  /**
   * Ruin-and-recreate iterations; default 20000. The annealing temperature follows the fraction of them
   * spent, so a run that this cap stops (not the time limit) gives the same plan for the same input.
   */
  iterations?: number;
  /** PRNG seed; default 1. */
  seed?: number;
  /** Annealing temperature at start and end, as fractions of the mean travel duration between jobs; default [0.3, 0.003]. */
  temperature?: readonly [number, number];
  /** Routes to continue from (a previous slice's or a checkpoint's best); ignored when they do not fit the problem. */
  warmStart?: ReadonlyArray<{ vehicle: number; jobs: readonly number[] }>;
}

/** Times of one route, as scheduleRoute computes them. Arrays are per job in visiting order. */
export interface RouteSchedule {
  feasible: boolean;
  /** Why the order is infeasible, for the first broken rule. */
  violation?: string;
  /** Every broken rule, in the order met (plan mode reports them all). */
  violations?: string[];
  /** Departure from the start: the start of working hours, delayed by what would be a wait at the first stop. */
  start: number;
  /** Arrival at the end location, or at the last stop of an open route (its start without stops). */
  end: number;
  arrivals: number[];
  waits: number[];
  departures: number[];
  /** Units on board after each stop, one entry per load dimension. */
  loads: number[][];
  /** Units on board when leaving the start, per load dimension. */
  initialLoad: number[];
  /** Travel duration and distance of each leg: to each job, then to the end if the route is closed. */
  legDurations: number[];
  legDistances: number[];
  duration: number;
  distance: number;
  service: number;
  waiting: number;
}

export interface VrpRoute extends RouteSchedule {
  vehicle: number;
  /** Job indices in visiting order. */
  jobs: number[];
  /** The vehicle's breaks, in the order taken, when it has any (breaks.ts). */
  breaks?: PlacedBreak[];
  /** Plan mode: each step's violations in VROOM's shape (violations.ts). */
  stepViolations?: RouteViolations;
}

/** VROOM's violation causes (docs/API.md of VROOM 1.14, "Violation"). */
export type ViolationCause =
  | 'lead_time'
  | 'delay'
  | 'load'
  | 'max_tasks'
  | 'skills'
  | 'precedence'
  | 'missing_break'
  | 'max_travel_time'
  | 'max_load'
  | 'max_distance';

/** `duration` (seconds) only for `lead_time` (how early) and `delay` (how late). */
export interface Violation {
  cause: ViolationCause;
  duration?: number;
}

export interface RouteViolations {
  start: Violation[];
  /** Per job of the route, in its order. */
  jobs: Violation[][];
  /** Per entry of the route's `breaks`, in its order. */
  breaks: Violation[][];
  /** The end step (closed routes; an open route has none and this stays empty). */
  end: Violation[];
  /** The route's: every cause of its steps once, lead_time and delay summed, and missing_break. */
  route: Violation[];
}

export interface VrpSolution {
  /** Routes of vehicles that serve at least one job, in vehicle order. */
  routes: VrpRoute[];
  /** Job indices no route serves, ascending. */
  unassigned: number[];
  /**
   * The objective after priorities and jobs served: over the routes, fixed + per_hour × travel hours +
   * per_km × km (routeCost, unrounded; by default the travel seconds).
   */
  cost: number;
  /** Total travel distance, meters (0 without a distance matrix). */
  distance: number;
  iterations: number;
}
