// Route and matrix queries over the shared graphs, as run inside one thread (a pool worker, or the
// main thread in benchmarks): snap, block circles, search with the WASM kernel, assemble geometry.
// Failures are returned as values: they cross the worker boundary, where thrown classes would not.
import { defaultVehicle, geometriesClosedTo, type ProfileName } from '../map/graphs/profiles.js';
import { CLOSED_PENALTY, E7, speedRange, type RoadGraph } from '../map/graphs/road-graph.js';
import type { GridView } from '../map/graphs/segment-grid.js';
import { blockCircles, blockPolygons, lineEntersCircles, lineEntersPolygons, type AvoidPolygon, type Circle } from './avoid.js';
import { type Corridor, corridorAlong } from './corridor.js';
import { claimReverse, ensureReverse, reverseView, viewGraph, type SharedGraphs } from './graph-memory.js';
import { hasModes, legSteps, type GuidanceGraph, type RawStep, withWaypointSides } from './guidance/steps.js';
import { legTraces, type LegTrace } from './guidance/trace.js';
import { settleTurns, takesForbiddenTurn, takesForbiddenTurnBeside, turnPriceOf, turnPrices, turnRules, turnsBetween, type TurnRules } from './turn-back.js';
import {
  appendEdgeShape,
  geometryPiece,
  Polyline,
  gridView,
  onMainNetwork,
  snap,
  SNAP_LIMIT_M,
  sourceSeeds,
  targetSeeds,
  ALONG,
  AGAINST,
  type Phantom,
  type PhantomSeed,
} from './phantom.js';
import { RouteKernel, SearchStopped, type SearchOptions, type ViaCandidate } from './route-kernel.js';
import { ALT_CANDIDATES, ALT_LOCAL, ALT_SHARE, ALT_STRETCH, ALT_UNPACKED } from './alternative-rules.js';
import { bearingFilter, waypointDirs, type WaypointOption } from './waypoint-options.js';
import { BoundsCanvas, CellGrid, tracePolygons, type PolygonRings } from './isochrone-shape.js';
import { drawReached, reachedBox, type Reached } from './reach-draw.js';
import { nearestSegment } from '../map/graphs/segment-grid.js';
import { roadLabelAt } from '../map/graphs/road-labels.js';
import type { SlotRef } from './reply-arena.js';
import type { LatLon } from '../lib/lat-lon.js';
import { METERS_PER_DEGREE } from '../lib/geo/sphere.js';

/** What a query keeps out of: circles (around POIs) and polygons. */
export interface Avoid {
  circles: Circle[];
  polygons?: AvoidPolygon[];
}
const avoids = (a: Avoid | undefined): boolean => !!a && (a.circles.length > 0 || (a.polygons?.length ?? 0) > 0);

/** A lorry's size (meters, tonnes); a field left out is the default lorry's (see `defaultVehicle`). */
export interface VehicleQuery {
  heightM?: number;
  widthM?: number;
  lengthM?: number;
  weightT?: number;
}
export interface RouteQuery {
  profile: string;
  waypoints: LatLon[];
  avoid?: Avoid;
  vehicle?: VehicleQuery;
  /** Classes of ways to keep off (bits of EXCLUDE_BIT); 0 or absent: none. */
  exclude?: number;
  /** As the matrix does: every waypoint snapped to the main network, no turn priced (a plan's tours and a
   *  detour's base route must follow the matrix they were timed by). */
  mainNetwork?: boolean;
  /** Per waypoint (by index) how it snaps and which way a path passes it; null or absent: the defaults. */
  waypointOptions?: ReadonlyArray<WaypointOption | null>;
  /** One of two threads searching the same avoiding route, this one from the targets when `backward`:
   *  the first to finish raises `flag` and answers; the other stops and answers `stopped`. */
  race?: { backward: boolean; flag: Int32Array };
  /** Turn-by-turn steps per leg (guidance/steps.ts) with the route. */
  steps?: boolean;
  /** With `steps`: every intersection each step passes, not only its maneuver's (OSRM's feature runner compares them). */
  passedIntersections?: boolean;
  /** How many alternatives to look for besides the route (2 waypoints only; 0 or absent: none; at most
   *  7 are looked for, the API asks for 1–3). */
  alternatives?: number;
  /** A loop (the first waypoint is the last): each leg after the first keeps off the ways taken before it
   *  where it can (RouteCore.roundTripBlocking). */
  roundTrip?: boolean;
  /** Snap every waypoint to its nearest road, even one cut off from the main network (OSRM's feature
   *  files put nodes 10 m apart, closer than the main network's preference of MAIN_NETWORK_PREFERENCE_M). */
  nearestRoad?: boolean;
}
export interface RouteResult {
  /** Meters. */
  distance: number;
  /** Seconds. */
  duration: number;
  /** lon, lat, lon, lat … from the first snapped waypoint to the last: flat, so it crosses threads as one copy. */
  geometry: Float64Array;
  legs: Array<{ distance: number; duration: number }>;
  snapped: LatLon[];
  /** [west, south, east, north] of the geometry. */
  bbox: [number, number, number, number];
  /** Geometries blocked by the circles and polygons (0 without avoidance). */
  blockedGeometries: number;
  /** Geometries closed to the requested lorry by its size (0 without a `vehicle`). */
  limitedGeometries: number;
  /** Every waypoint was snapped again to the main network, after a leg from a piece cut off from it found no route. */
  resnapped: boolean;
  /** With `alternatives`: the other routes found, fastest first. */
  alternatives?: RouteResult[];
}
/** A route whose geometry is lon, lat pairs in 1e-7° integers (bbox in them too): what replies are written from. */
export type RouteE7Result = Omit<RouteResult, 'geometry' | 'alternatives'> & {
  geometryE7: Int32Array;
  /** The index of each snapped waypoint's point in geometryE7 (points, not values). */
  waypointPoints: number[];
  /** With `steps`: each leg's steps, their positions indexes of points of geometryE7. */
  legSteps?: RawStep[][];
  /** With `alternatives` (2 waypoints): the other routes found, fastest first. */
  alternatives?: RouteE7Result[];
};
/** A route whose geometry is GeoJSON LineString text (UTF-8) in parts, for replies; `release` once the
 *  reply is sent gives back the shared memory the parts may be views of (reply-arena.ts). */
export type RouteJsonResult = Omit<RouteResult, 'geometry' | 'alternatives'> & {
  geometryJson: Uint8Array[];
  release: () => void;
  /** With `steps`: each leg's steps as a JSON array (guidance/step-json.ts), UTF-8, views like the geometry's. */
  stepsJson?: Uint8Array[];
  /** With `steps` on a whole route (StepText.legsText): the geometry's text goes on with `,"legs":[…]`, each
   *  leg's object around its steps (legs-json.ts), and there is no stepsJson. */
  withLegs?: true;
  alternatives?: Array<Omit<RouteJsonResult, 'alternatives' | 'release' | 'framed'>>;
  /** When the geometry is the whole text (no steps, no alternatives) and sits in an arena slot: the reply
   *  as one view of the slot, `before` and `after` written around the geometry (null: no room there). */
  framed?: (before: string, after: string) => Uint8Array | null;
};
/** What the compute thread answers for RouteJsonResult: the text itself, or where it is in the arena. */
export type RouteJsonTaskResult = Omit<RouteResult, 'geometry' | 'alternatives'> & {
  /** The geometry's text, followed with `steps` by each leg's steps as a JSON array (guidance/step-json.ts). */
  geometryJson: Uint8Array | SlotRef;
  /** With `steps`: where the geometry's text ends, then where each leg's steps end. */
  stepsAt?: number[];
  /** With `steps` and `legsText`: the text is the geometry's and then the legs' (`,"legs":[…]`). */
  withLegs?: true;
  /** With `alternatives`: the other routes, their texts after the route's in its slot, or copied. */
  alternatives?: RouteJsonTaskResult[];
};
export interface MatrixQuery {
  profile: string;
  /** The rows' points, and the columns' too unless `targets` is given. */
  points: LatLon[];
  /** The columns' points, when they are not the rows'. A point too far from a road is reported by its
   *  index in `points` followed by `targets`. */
  targets?: LatLon[];
  vehicle?: VehicleQuery;
  avoid?: Avoid;
  exclude?: number;
  /** Compute only these rows (the others come back empty); lets several workers share one matrix. */
  rows?: { from: number; to: number };
  /** Answer the rows in `packed` instead of nested arrays: a large matrix crosses threads as two copies
   *  of memory instead of millions of numbers to rebuild and collect. */
  packed?: boolean;
}
export interface MatrixResult {
  /** Seconds, [from][to]; null when unreachable. */
  durations: Array<Array<number | null>>;
  /** Meters of the fastest path. */
  distances: Array<Array<number | null>>;
  snapped: LatLon[];
  /** The columns' snapped points, with `targets`. */
  snappedTargets?: LatLon[];
  /** How far each point (then each target) lay from the road it was snapped to, meters. */
  offsets: number[];
  /** The name (or ref) of the road each point (then each target) was snapped to, when the map has labels. */
  names?: Array<string | null>;
  /** With `packed`: the rows asked for, row-major (rows × points), NaN when unreachable; the nested arrays stay empty. */
  packed?: { durations: Float64Array; distances: Float64Array };
}
/** `MatrixQuery` answered as text: which matrices to write. */
export interface MatrixJsonQuery extends MatrixQuery {
  annotations: { durations: boolean; distances: boolean };
}
export type MatrixJsonTaskResult = Omit<MatrixResult, 'durations' | 'distances' | 'packed'> & {
  /** The durations' rows then the distances' rows as JSON text (matrix-json.ts), in an arena slot or copied. */
  cellsJson: Uint8Array | SlotRef;
  /** Where the distances' rows start in `cellsJson`. */
  durationsEnd: number;
};
/** A search from one point over everything within limits. */
export interface ReachQuery {
  profile: string;
  source: LatLon;
  avoid?: Avoid;
  vehicle?: VehicleQuery;
  exclude?: number;
}
export interface IsochroneQuery extends ReachQuery {
  /** Increasing: seconds, or meters of road with `byDistance`. */
  limits: number[];
  byDistance?: boolean;
}
export interface IsochroneResult {
  snapped: LatLon;
  /** Per limit, the polygons reached within it (outer ring first, holes after). */
  shapes: PolygonRings[][];
  /** Meters of the grid's cells. */
  cellMeters: number;
}
export interface TravelTimesQuery extends ReachQuery {
  /** lat, lon pairs: crosses threads as one copy. */
  targets: Float64Array;
  /** Seconds; at least one of the two limits. */
  maxDuration?: number;
  /** Meters of the fastest path (with no time limit, the search runs as long as this many meters take on
   *  the profile's slowest way). */
  maxDistance?: number;
  /** The times from each target to the source instead (one search backward from the source). */
  toSource?: boolean;
}
/** Per target, the fastest path's seconds and meters, or null when none is within the limits. */
export type TravelTimes = Array<{ duration: number; distance: number } | null>;
/** A travel-time target as snapped once: its phantom (null: no road near), the seeds of paths arriving
 *  there and leaving from there (made when first needed). */
interface SnappedTarget {
  lat: number;
  lon: number;
  ph: Phantom | null;
  in?: PhantomSeed[];
  out?: PhantomSeed[];
}
export interface NearestRoad {
  lat: number;
  lon: number;
  /** Meters from the asked point. */
  distance: number;
  /** Degrees clockwise from north of the way's direction there. */
  bearing: number;
  name: string | null;
  ref: string | null;
}

export type RouteFailure =
  | { kind: 'unknown-profile'; profile: string }
  /** Every point too far from a road, in order (a client fixes them all at once). */
  | { kind: 'waypoint-too-far'; indexes: number[] }
  /** `too-big`: only ways too small for the requested lorry connect the points (no circles in the way);
   *  `excluded`: only ways of an excluded class do. */
  | { kind: 'no-route'; reason: NoRouteReason; legIndex: number }
  /** The other thread of a race answered first (never an answer to a client). */
  | { kind: 'stopped' };
const isFar = (snapped: Phantom[] | number[]): snapped is number[] => typeof snapped[0] === 'number';

export type NoRouteReason = 'blocked' | 'too-big' | 'excluded' | 'unreachable';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: RouteFailure };

/**
 * A leg found: its cost, meters, whether it touches a circle, and how to draw it. Shapes are drawn only
 * for the legs kept (a plain leg that touches a circle is searched again), straight into the route's line.
 */
interface LegPath {
  cost: number;
  meters: number;
  touches: boolean;
  /** The whole geometries it runs over, in order (the pieces at its ends left out): what alternatives
   *  measure their sharing by and block to find others. */
  geoms: number[];
  /** Its search edges (none for a leg along one road). */
  edges: Uint32Array;
  /** Appends the leg's shape to `line`; `joined` drops its first point (where the line already stands).
   *  With `trace`, records the pieces of road drawn, for turn guidance. With `beside` (no trace), the
   *  edges it begins and ends with alike are copied from that leg's line (an alternative beside its route). */
  draw(line: Polyline, joined: boolean, trace?: LegTrace, beside?: DrawnLeg): void;
  /** The price of each turn it takes (turnPrices), where its profile prices turns. */
  prices?: Float64Array | null;
  /** Once drawn: how many values of its line come before its first edge's shape, and after its last's. */
  drawnStart?: number;
  drawnEnd?: number;
}

/** A leg drawn alone into `line` (from its start): what alternatives copy their shared edges' shapes from. */
interface DrawnLeg {
  leg: LegPath;
  line: Int32Array;
}

const appendPoints = (line: Polyline, points: ReadonlyArray<readonly [number, number]>, from: number): void => {
  for (let k = from; k < points.length; k++) line.push(points[k][0], points[k][1]);
};
/** How many values (two per point) the shapes of edges `from` to `to` append to a line (appendEdgeShape). */
function shapeValues(g: RoadGraph, edges: Uint32Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const geom = g.orig[edges[i]] >> 1;
    n += 2 * (g.geomLast[geom] - g.geomFirst[geom]);
  }
  return n;
}
/** Appends `count` values of `source` from `at`. */
function copyValues(line: Polyline, source: Int32Array, at: number, count: number): void {
  if (count === 0) return;
  line.reserve(count).set(source.subarray(at, at + count), line.length);
  line.length += count;
}
/** The smallest cell of an isochrone's grid (meters), and how many cells its longer side has at most. */
const MIN_CELL_M = 50;
const CELLS_ACROSS = 600;
/** Snapped points (matrix points, travel-time targets) a thread keeps per profile (a few hundred bytes each) before starting over. */
const MAX_CACHED_SNAPS = 200_000;
/** Holes smaller than a square of this side (meters) are filled: blocks between streets, not places the
 *  roads do not reach (every point of one lies within half of it from a reachable road). */
const MIN_HOLE_M = 300;

/** Initial bearing from one point to another, degrees clockwise from north in [0, 360). */
function bearingDeg(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const y = Math.sin((lon2 - lon1) * r) * Math.cos(lat2 * r);
  const x = Math.cos(lat1 * r) * Math.sin(lat2 * r) - Math.sin(lat1 * r) * Math.cos(lat2 * r) * Math.cos((lon2 - lon1) * r);
  return (((Math.atan2(y, x) / r) % 360) + 360) % 360;
}

/** The stretches of the fastest route (parts of its length) blocked, one at a time, to find alternatives. */
const ALT_WINDOWS: ReadonlyArray<[number, number]> = [
  [0.3, 0.7],
  [0.15, 0.45],
  [0.55, 0.85],
  [0.4, 0.6],
  [0.1, 0.3],
  [0.7, 0.9],
  [0.2, 0.8],
];

/** How a round trip's legs keep off the ways it took (RouteCore.roundTripBlocking): the blocking of a leg
 *  after `legs`, and the query's own blocking, armed again. */
interface RoundTripBlocking {
  taken(legs: LegPath[], from: Phantom, to: Phantom): Blocking;
  again(): Blocking | null;
}
/** Meters around a round trip's start where it may use the ways it took. */
const ROUND_TRIP_HOME_M = 300;
/** How many times its own time a way already taken weighs for a round trip's later legs (GraphHopper's
 *  AvoidEdgesWeighting penalty factor for round trips, 5). */
const ROUND_TRIP_PENALTY = 5;

/** A candidate alternative: its duration, its leg (drawn when asked: a long one is thousands of edges);
 *  whether its sharing with the main route is known to be within the rule; and the checks beyond the
 *  rules' (a hierarchy query at most, before the leg is made). */
interface AltCandidate {
  /** Tenths of a second. */
  cost: number;
  leg: () => LegPath;
  sharingChecked: boolean;
  admissible: () => boolean;
}

/** The seed a path leaving (or reaching) `node` used: the cheapest there, as the kernel seeds its searches. */
const pickSeed = (seeds: PhantomSeed[], node: number): PhantomSeed => seeds.filter((s) => s.node === node).reduce((a, b) => (b.cost < a.cost ? b : a));
/** The directed edge a waypoint's piece runs along (-1 for none: a waypoint on the node). */
const dirOf = (ph: Phantom, s: PhantomSeed): number => (s.kind === 'node' || s.meters === 0 ? -1 : 2 * ph.geom + (s.kind === 'fwd' ? 0 : 1));

/** Meters from a road within which a waypoint counts as on it. */
const ON_ROAD_M = 1;
/** Geometries blocked: by circles and polygons (with those each enters: circles first, then polygons numbered
 *  on from them), and whole ones (too small for the vehicle, of an excluded class). */
interface Blocking {
  circles: readonly Circle[];
  polygons: readonly AvoidPolygon[];
  hits: Map<number, number[]>;
  whole: ReadonlySet<number>;
  /** Whether the kernel's bitset holds them yet: the whole ones are written only before a search reads it. */
  written: boolean;
}
interface ProfileView {
  kernel: RouteKernel;
  graph: RoadGraph;
  /** The graph with its reverse, for turn guidance. */
  guidance: GuidanceGraph;
  /** The turns a route may not take (turn-back.ts), and how many legs were searched again for them. */
  turns: TurnRules;
  turnSearches: number;
  grid: GridView;
  /** Geometries closed to the profile's default vehicle (the lorry graph's ways below its size). */
  closed: ReadonlySet<number>;
  /** `closed` with the geometries of excluded classes, by class bits (made on first use). */
  closedExcluding: Map<number, ReadonlySet<number>>;
  /** A byte per geometry, zero between calls: the bits of the routes an alternatives search kept (made on first use). */
  altMask?: Uint8Array;
  /** The view with no turn priced, as the matrix searches (made on first use). */
  unpriced?: ProfileView;
}

/** A profile's view whose routes price no turns, as its matrices do; its turns kept out are the same. */
function asMatrix(v: ProfileView): ProfileView {
  if (!v.turns.price) return v;
  v.unpriced ??= { ...v, turns: { ...v.turns, price: null, junctions: null }, turnSearches: 0, altMask: undefined, unpriced: undefined };
  return v.unpriced;
}

const NO_GEOMS: ReadonlySet<number> = new Set();

/** The geometries whose limits a lorry exceeds (a field it leaves out is the default lorry's). */
export function closedTo(g: RoadGraph, profile: string, vehicle: VehicleQuery = {}): Set<number> {
  const base = g.limitGeom.length ? defaultVehicle(profile as ProfileName) : undefined;
  if (!base) return new Set();
  const v = {
    heightM: vehicle.heightM ?? base.heightM,
    widthM: vehicle.widthM ?? base.widthM,
    lengthM: vehicle.lengthM ?? base.lengthM,
    weightT: vehicle.weightT ?? base.weightT,
  };
  return new Set(geometriesClosedTo(g, v));
}

/** Snapping's filter for a lorry kept off `closed` (none when nothing is closed). */
const openOf = (closed: ReadonlySet<number>): ((geom: number) => boolean) | undefined => (closed.size ? (geom) => !closed.has(geom) : undefined);

/** Whether every element of `b` is in `a`. */
function includesAll(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a === b) return true;
  for (const x of b) if (!a.has(x)) return false;
  return true;
}

/** `closed` and every geometry of a class in `exclude` (bits of EXCLUDE_BIT). */
function withClasses(g: RoadGraph, closed: ReadonlySet<number>, exclude: number): Set<number> {
  const out = new Set(closed);
  const classes = g.geomClass;
  for (let geom = 0; geom < classes.length; geom++) if (classes[geom] & exclude) out.add(geom);
  return out;
}

/** Avoided circles of the warm-up's avoiding routes: as many as a request of 500 avoided POIs. */
const WARM_UP_CIRCLES = 500;
/** The warm-up's route along circles: as long as the routes of 500 avoided POIs the bench times, each
 *  circle as wide as the POIs' default radius (the spec's 50 m). */
const CORRIDOR_M = 120_000;
const CORRIDOR_RADIUS_M = 50;

/** What RouteCore.warmUp ran, by kind of request. */
export interface WarmUpCounts {
  route: number;
  avoid: number;
  matrix: number;
  isochrone: number;
}

/** The spec's default profile: the one most requests ask for, whose search scratch is made resident in
 *  full before a map serves (RouteKernel.pageIn). Every profile's would cost ~2.3 GB more on a 53 M-node
 *  country with two compute threads; the others' pages come in as their searches reach them. */
const DEFAULT_PROFILE = 'driving-car';

export class RouteCore {
  private readonly views = new Map<string, ProfileView>();

  /** `turnPrices`: whether the driving and cycling profiles' routes price their turns (turn-back.ts); off,
   *  a route costs what its matrix cell does. */
  constructor(
    private readonly shared: SharedGraphs,
    private readonly options: { turnPrices: boolean } = { turnPrices: true },
  ) {}

  /** The shapes every profile shares (road names and refs for the steps). */
  get shapes(): SharedGraphs['shapes'] {
    return this.shared.shapes;
  }

  /** Searches run by this thread so far, by kind (hierarchy, blocked, plain, and `turns`: legs whose turns
   *  were settled again, for a turn the hierarchy's path took that routes may not or, where turns are
   *  priced, every leg not avoiding); for tests and measurements. */
  get searches(): Readonly<{ hierarchy: number; blocked: number; plain: number; turns: number }> {
    const total = { hierarchy: 0, blocked: 0, plain: 0, turns: 0 };
    for (const v of this.views.values()) {
      total.turns += v.turnSearches + (v.unpriced?.turnSearches ?? 0);
      total.hierarchy += v.kernel.searches.hierarchy;
      total.blocked += v.kernel.searches.blocked;
      total.plain += v.kernel.searches.plain;
    }
    return total;
  }

  /** Makes this thread's search scratch of DEFAULT_PROFILE resident (RouteKernel.pageIn); returns its bytes,
   *  0 when the map has no such profile. */
  pageInDefault(): number {
    return this.view(DEFAULT_PROFILE)?.kernel.pageIn() ?? 0;
  }

  /** The making of each profile's reverse graph, the largest first, for the warm-up's threads to take in
   *  turn (graph-memory.ts, claimReverse): each returns true when this thread made it. */
  reverseBuilds(): Array<() => boolean> {
    const profiles = Object.values(this.shared.profiles).sort((a, b) => b.layout.edgeCount - a.layout.edgeCount);
    return profiles.map((pm) => () => claimReverse(pm));
  }

  /** A profile's kernel and views, made on its first query in this thread (its scratch is claimed then). */
  private view(profile: string): ProfileView | null {
    let v = this.views.get(profile);
    const pm = Object.hasOwn(this.shared.profiles, profile) ? this.shared.profiles[profile] : undefined;
    if (!v && pm) {
      ensureReverse(pm);
      const graph = viewGraph(pm, this.shared.shapes);
      const guidance = { ...graph, ...reverseView(pm) };
      const turns = turnRules(guidance, profile === 'driving-car' || profile === 'driving-hgv', this.options.turnPrices ? turnPriceOf(profile) : null);
      // Its ways looked through for ferries and pushed bicycles now (a scan of every geometry's classes),
      // not by its first steps.
      hasModes(guidance);
      v = {
        kernel: new RouteKernel(pm),
        graph,
        guidance,
        turns,
        turnSearches: 0,
        grid: gridView(graph),
        closed: closedTo(graph, profile),
        closedExcluding: new Map(),
      };
      this.views.set(profile, v);
    }
    return v ?? null;
  }

  /**
   * Every kind of request once per profile, then more plain routes while `budgetMs` lasts: a thread's
   * first request of a kind costs several times its later ones (the code not yet compiled, this thread's
   * search scratch, blocked-geometry bitset and the upper hierarchy not yet touched). On the 32x32 country
   * far routes over HTTP had a p95 of 28 ms in their first 50 and 10–12 ms after; the first route around
   * 500 avoided POIs after ready took 0.5–1.6 s on a 53 M-node country, 15–64 ms after. Run on every thread
   * before the map serves (engine.ts, loadMap); `write` is what a reply does with the geometry. The avoiding
   * routes (a far pair: on a country map the longest part) stop when `stop[0]` (forward) or `stop[1]`
   * (backward) is raised, as a raced search does. Returns the requests made of each kind (/ready shows them).
   */
  warmUp(budgetMs: number, write: (geometryE7: Int32Array) => unknown, stop: [Int32Array, Int32Array]): WarmUpCounts {
    const started = performance.now();
    const left = () => performance.now() - started < budgetMs;
    const counts: WarmUpCounts = { route: 0, avoid: 0, matrix: 0, isochrone: 0 };
    const PAIRS = 16;
    for (const profile of Object.keys(this.shared.profiles)) {
      const g = this.view(profile)?.graph;
      const n = g?.geomFirst.length ?? 0;
      if (!g || n < 2) continue;
      // Geometries are numbered in the extract's way order, which follows the map closely enough for
      // points far apart in number to be far apart on the map.
      const at = (i: number, of = 2 * PAIRS - 1): LatLon => {
        const p = g.geomFirst[Math.floor((i * (n - 1)) / of)];
        return { lat: g.shapes.pointsE7[2 * p] * 1e-7, lon: g.shapes.pointsE7[2 * p + 1] * 1e-7 };
      };
      const far = [at(0), at(2 * PAIRS - 1)];
      // Motor profiles only: 120 km on foot or by bicycle is a search of seconds, and nobody's first request.
      const plain = profile.startsWith('driving') ? this.routeE7({ profile, waypoints: far }) : null;
      const corridor = plain?.ok ? corridorAlong(plain.value.geometryE7, CORRIDOR_M, WARM_UP_CIRCLES, CORRIDOR_RADIUS_M) : null;
      // Avoided circles as a request with many POIs puts them: spread over the map, on roads, each search
      // direction of the race (engine.ts, raced) once.
      const circles = Array.from({ length: WARM_UP_CIRCLES }, (_, i) => ({ ...at(i + 0.5, WARM_UP_CIRCLES), radius: 30 }));
      for (const backward of [false, true]) {
        // A finished search raises its flag (the race's end): each direction has its own.
        const found = this.routeE7({ profile, waypoints: far, avoid: { circles }, race: { backward, flag: stop[backward ? 1 : 0] } });
        if (found.ok) write(found.value.geometryE7);
        counts.avoid++;
      }
      // Circles along a stretch of the far route (corridor.ts): the searches around roads cut near the path.
      if (corridor) {
        this.warmCorridors.set(profile, corridor);
        this.routeCorridor(profile, corridor, write);
        counts.avoid += 2;
      }
      // Over the hierarchy (a matrix with circles searches rows as the avoiding route does).
      this.matrix({ profile, points: Array.from({ length: 10 }, (_, i) => at(3 * i + 1)) });
      counts.matrix++;
      // The reach searches and the isochrone's drawing and tracing.
      this.isochrone({ profile, source: at(PAIRS), limits: [120, 240] });
      counts.isochrone++;
      // Ten waypoints close together (geometries near in number): short legs, which a profile that prices
      // turns searches again edge-based (turn-back.ts).
      const tour = this.routeE7({ profile, waypoints: Array.from({ length: 10 }, (_, i) => at(PAIRS + i / 500)) });
      if (tour.ok) write(tour.value.geometryE7);
      counts.route++;
      for (let i = 0; i < PAIRS && (i === 0 || left()); i++) {
        const found = this.routeE7({ profile, waypoints: [at(i), at(2 * PAIRS - 1 - i)] });
        if (found.ok) write(found.value.geometryE7);
        counts.route++;
      }
    }
    return counts;
  }

  /** The corridors the warm-up routed around, by profile (`warmAvoidAgain`). */
  private readonly warmCorridors = new Map<string, Corridor>();

  /** Routes around `corridor`'s circles, each direction of the race once. */
  private routeCorridor(profile: string, corridor: Corridor, write: (geometryE7: Int32Array) => unknown): void {
    for (const backward of [false, true]) {
      const flag = new Int32Array(new SharedArrayBuffer(4));
      const found = this.routeE7({ profile, waypoints: corridor.ends, avoid: { circles: corridor.circles }, race: { backward, flag } });
      if (found.ok) write(found.value.geometryE7);
    }
  }

  /**
   * The warm-up's routes around circles along a far route again (after the thread's garbage collection,
   * warm-up.ts): the collection threw away code compiled for them, and the handlers' last round before
   * ready (ops/warm-handlers.ts) avoids only a polygon, its team having no POIs. On 32x32 each compute
   * thread's CPU for the first route avoiding 500 POIs after ready was 13–17 ms against 4–5 for later ones.
   */
  warmAvoidAgain(write: (geometryE7: Int32Array) => unknown): void {
    for (const [profile, corridor] of this.warmCorridors) this.routeCorridor(profile, corridor, write);
  }

  /**
   * The geometries a query keeps off as wholes: those closed to its lorry (the default one's without a
   * `vehicle`) and those of the classes it excludes. The default lorry's sets per class combination are
   * kept: at most 15 per profile.
   */
  private limitedFor(v: ProfileView, profile: string, vehicle: VehicleQuery | undefined, exclude: number | undefined): ReadonlySet<number> {
    if (!vehicle && !exclude) return v.closed;
    if (vehicle) return exclude ? withClasses(v.graph, closedTo(v.graph, profile, vehicle), exclude) : closedTo(v.graph, profile, vehicle);
    let set = v.closedExcluding.get(exclude!);
    if (!set) v.closedExcluding.set(exclude!, (set = withClasses(v.graph, v.closed, exclude!)));
    return set;
  }

  /** The phantoms, or the indexes of every point that has no road near enough (within its `radius`, of its
   *  `bearing`, when `options` give them). */
  private snapAll(
    g: RoadGraph,
    grid: GridView,
    points: LatLon[],
    mainPreference?: number,
    usable?: (geom: number) => boolean,
    options?: ReadonlyArray<WaypointOption | null>,
  ): Phantom[] | number[] {
    const out: Phantom[] = [];
    const far: number[] = [];
    for (let i = 0; i < points.length; i++) {
      const o = options?.[i];
      const bearing = bearingFilter(g, o);
      const accept = bearing && usable ? (geom: number, point: number) => usable(geom) && bearing(geom, point) : (bearing ?? usable);
      const ph = snap(g, grid, points[i].lat, points[i].lon, o?.radius, mainPreference, accept);
      if (ph && o) {
        const dirs = waypointDirs(g, ph, points[i].lat, points[i].lon, o);
        if (dirs !== undefined) ph.dirs = dirs;
      }
      if (ph) out.push(ph);
      else far.push(i);
    }
    return far.length ? far : out;
  }

  /**
   * What the circles, polygons and whole geometries block; null when nothing is (unless `always`). Circles and polygons are
   * measured into the kernel's bitset at once; whole geometries alone are written by `arm` before a search
   * reads the bitset: the default lorry's routes carry the ways closed to it, and most never search the graph.
   */
  private blocking(v: ProfileView, avoid: Avoid | undefined, whole: ReadonlySet<number> = NO_GEOMS, always = false): Blocking | null {
    if (!avoids(avoid) && whole.size === 0 && !always) return null;
    const circles = avoid?.circles ?? [],
      polygons = avoid?.polygons ?? [];
    const block: Blocking = { circles, polygons, hits: new Map(), whole, written: false };
    if (avoids(avoid)) {
      this.arm(v, block);
      const put = (geom: number) => v.kernel.blockGeometry(geom);
      if (circles.length) block.hits = blockCircles(v.graph, v.grid, circles, put);
      if (polygons.length) blockPolygons(v.graph, v.grid, polygons, circles.length, block.hits, put);
    }
    return block;
  }

  /** Clears the kernel's bitset and writes `block`'s whole geometries into it. */
  private arm(v: ProfileView, block: Blocking): void {
    v.kernel.clearBlocked();
    for (const g of block.whole) v.kernel.blockGeometry(g);
    block.written = true;
  }

  /** The indexes of the points with no road of the profile within the snapping limit (or a point's own
   *  `radius`, of its `bearing`), none of an `exclude`d class: what `route` and `matrix` would report as too
   *  far, without searching (a 422 that goes out for other reasons names them too). */
  far(q: { profile: string; points: LatLon[]; exclude?: number; options?: ReadonlyArray<WaypointOption | null> }): Outcome<number[]> {
    const v = this.view(q.profile);
    if (!v) return { ok: false, error: { kind: 'unknown-profile', profile: q.profile } };
    const limited = this.limitedFor(v, q.profile, undefined, q.exclude);
    const snapped = this.snapAll(v.graph, v.grid, q.points, undefined, openOf(limited), q.options);
    return { ok: true, value: isFar(snapped) ? snapped : [] };
  }

  /** The route with its geometry in degrees. */
  route(q: RouteQuery): Outcome<RouteResult> {
    const found = this.routeE7(q);
    if (!found.ok) return found;
    const degrees = (r: RouteE7Result): RouteResult => {
      const { geometryE7, waypointPoints: _points, bbox, alternatives, legSteps: _steps, ...rest } = r;
      const geometry = new Float64Array(geometryE7.length);
      for (let i = 0; i < geometry.length; i++) geometry[i] = geometryE7[i] * E7;
      return {
        ...rest,
        geometry,
        bbox: [bbox[0] * E7, bbox[1] * E7, bbox[2] * E7, bbox[3] * E7],
        ...(alternatives ? { alternatives: alternatives.map(degrees) } : {}),
      };
    };
    return { ok: true, value: degrees(found.value) };
  }

  /** The route with its geometry (and bbox) in 1e-7° integers, as the shapes hold them. */
  routeE7(q: RouteQuery): Outcome<RouteE7Result> {
    const race = q.race;
    if (!race) return this.routeE7With(q, {});
    try {
      const found = this.routeE7With(q, { backward: race.backward, stop: () => Atomics.load(race.flag, 0) !== 0 });
      // Exactly one thread of a race answers, the one that raises the flag: the other writes no text.
      return Atomics.compareExchange(race.flag, 0, 0, 1) === 0 ? found : { ok: false, error: { kind: 'stopped' } };
    } catch (err) {
      if (err instanceof SearchStopped) return { ok: false, error: { kind: 'stopped' } };
      throw err;
    }
  }

  private routeE7With(q: RouteQuery, search: SearchOptions): Outcome<RouteE7Result> {
    const profileView = this.view(q.profile);
    if (!profileView) return { ok: false, error: { kind: 'unknown-profile', profile: q.profile } };
    const v = q.mainNetwork ? asMatrix(profileView) : profileView;
    const limited = this.limitedFor(v, q.profile, q.vehicle, q.exclude);
    const open = openOf(limited);
    const snapped = this.snapAll(v.graph, v.grid, q.waypoints, q.mainNetwork ? Infinity : q.nearestRoad ? 0 : undefined, open, q.waypointOptions);
    if (isFar(snapped)) return { ok: false, error: { kind: 'waypoint-too-far', indexes: snapped } };
    let phantoms = snapped;
    // The hierarchy keeps off what is closed to the default lorry: a lorry kept off all of that too can
    // take its routes (and its distances as potentials); a smaller one is searched over the graph, guided
    // by the bound hierarchy (true weights everywhere).
    const smaller = !includesAll(limited, v.closed);
    const block = this.blocking(v, q.avoid, limited, smaller);
    const reason: NoRouteReason = avoids(q.avoid) ? 'blocked' : q.exclude ? 'excluded' : 'too-big';
    const loop = q.roundTrip ? this.roundTripBlocking(v, q, limited, smaller) : undefined;
    let found = this.legs(v, phantoms, block, smaller, search, reason, loop);
    let resnapped = false;
    // A waypoint near a piece cut off from the main network (a driveway behind a private road) that no
    // leg can leave or reach: again from the main network's nearest road within the snapping limit. A
    // waypoint right on a road is taken at its word: no route is the answer there, as OSRM gives it.
    if (
      !found.ok &&
      found.error.kind === 'no-route' &&
      found.error.reason === 'unreachable' &&
      phantoms.some((p) => !onMainNetwork(v.graph, p.geom) && p.offset > ON_ROAD_M)
    ) {
      const again = this.snapAll(v.graph, v.grid, q.waypoints, Infinity, open, q.waypointOptions);
      if (!isFar(again)) {
        const retried = this.legs(v, again, loop ? loop.again() : block, smaller, search, reason, loop);
        if (retried.ok) {
          phantoms = again;
          found = retried;
          resnapped = true;
        }
      }
    }
    if (!found.ok) return found;
    const route = this.drawRoute(v, q, found.value, phantoms, block, resnapped);
    // The routes an alternatives search keeps have a bit each in a byte (`alternatives`): 8 with the main one.
    const wanted = Math.min(q.alternatives ?? 0, 7);
    if (wanted > 0 && phantoms.length === 2 && route.ok) {
      const drawn = { leg: found.value[0], line: route.value.geometryE7 };
      const alternatives = this.alternatives(v, q, drawn, phantoms, limited, smaller, wanted, resnapped);
      return { ok: true, value: { ...route.value, alternatives } };
    }
    return route;
  }

  /**
   * Up to `wanted` alternatives to the fastest route `best` (2 waypoints), each at most ALT_STRETCH times
   * its duration and sharing at most ALT_SHARE of the first route's length with it and with every
   * alternative kept before it (alternative-rules.ts says whose criteria), fastest first. Unblocked routes
   * take them from the via nodes of one search over the hierarchy (`viaAlternatives`); routes that keep
   * off something the hierarchy does not (avoided areas, excluded classes, a lorry of its own size) from
   * searches with stretches of the fastest route blocked (`windowAlternatives`).
   */
  private alternatives(
    v: ProfileView,
    q: RouteQuery,
    drawn: DrawnLeg,
    phantoms: Phantom[],
    limited: ReadonlySet<number>,
    smaller: boolean,
    wanted: number,
    resnapped: boolean,
  ): RouteE7Result[] {
    const g = v.graph;
    const best = drawn.leg;
    if (best.geoms.length < 3) return [];
    const cm = g.geomCm;
    const lengthOf = (list: readonly number[]) => {
      let sum = 0;
      for (const geom of list) sum += cm[geom];
      return sum;
    };
    // The routes kept, each with its bit in the profile's byte per geometry (written when a later candidate
    // is first measured against it: never the main route's for the via-node candidates, whose sharing the
    // kernel measured; cleared before returning). A far route runs over tens of thousands of geometries,
    // and a Set of them cost more than finding the alternatives.
    const kept: LegPath[] = [best];
    const mask = (v.altMask ??= new Uint8Array(g.geomFirst.length));
    let written = 0;
    const bitOf = (i: number): number => {
      if (!(written & (1 << i))) for (const geom of kept[i].geoms) mask[geom] |= 1 << i;
      written |= 1 << i;
      return 1 << i;
    };
    // A geometry run over twice counts twice: only a loop does that, and it is not let through.
    const shared = (list: readonly number[], i: number) => {
      const bit = bitOf(i);
      let sum = 0;
      for (const geom of list) if (mask[geom] & bit) sum += cm[geom];
      return sum;
    };
    const limit = ALT_SHARE * best.meters * 100;
    const overHierarchy = !smaller && !avoids(q.avoid) && !q.exclude && g.chA.length > 0;
    const candidates = overHierarchy
      ? this.viaAlternatives(v, best, phantoms, limited, limit, wanted)
      : this.windowAlternatives(v, q, best, phantoms, limited, smaller);
    try {
      for (const c of candidates) {
        if (kept.length > wanted) break;
        if (c.cost > ALT_STRETCH * best.cost || !c.admissible()) continue;
        const leg = c.leg();
        // The pieces of road at the two ends (from the waypoints to the first and last whole geometries)
        // count as shared: every route starts and ends there.
        let ends: number | undefined;
        const within = (i: number) => shared(leg.geoms, i) + (ends ??= leg.meters * 100 - lengthOf(leg.geoms)) <= limit;
        if (kept.every((_, i) => (i === 0 && c.sharingChecked) || within(i))) kept.push(leg);
      }
    } finally {
      kept.forEach((leg, i) => {
        if (written & (1 << i)) for (const geom of leg.geoms) mask[geom] = 0;
      });
    }
    const out: RouteE7Result[] = [];
    for (const leg of kept.slice(1)) {
      // Drawn beside the route: most of an alternative's shape is the route's, copied from its line.
      const route = this.drawRoute(v, q, [leg], phantoms, null, resnapped, drawn);
      if (route.ok) out.push(route.value);
    }
    return out;
  }

  /**
   * Candidates by the via-node method (RouteKernel.viaCandidates, the kernel's chAlternatives says whose):
   * paths s → v → t through the nodes v both searches of the hierarchy settle, by duration, with at most
   * `limit` centimeters on the main route (its pieces at the ends counted). A candidate is admissible when
   * it takes no turn a route may not (a via node is often where a path turns back) and is locally optimal
   * (the T-test of Abraham et al.: the stretch of it ALT_LOCAL × the main route's duration either side of v
   * is a shortest path, one hierarchy query): a detour that no driver would take, a loop out and back,
   * fails it.
   */
  private viaAlternatives(v: ProfileView, best: LegPath, phantoms: Phantom[], limited: ReadonlySet<number>, limit: number, wanted: number): AltCandidate[] {
    const g = v.graph;
    const [src, tgt] = phantoms;
    const sSeeds = sourceSeeds(g, src),
      tSeeds = targetSeeds(g, tgt);
    const endOf = (c: ViaCandidate) => (c.edges.length ? g.head[c.edges[c.edges.length - 1]] : c.start);
    const endsCm = (c: ViaCandidate) => (pickSeed(sSeeds, c.start).meters + pickSeed(tSeeds, endOf(c)).meters) * 100;
    const closed = (c: ViaCandidate) => limited.size > 0 && c.edges.some((e) => limited.has(g.orig[e] >> 1));
    const found = v.kernel.viaCandidates(
      sSeeds,
      tSeeds,
      ALT_STRETCH,
      best.edges,
      best.geoms,
      limit,
      (c) => c.cost <= ALT_STRETCH * best.cost && c.sharedCentimeters + endsCm(c) <= limit && !closed(c),
      ALT_CANDIDATES * wanted,
      ALT_UNPACKED,
    );
    // Candidates begin and end as the route does: the turns there are the route's, looked at once.
    let clean: boolean | undefined;
    const forbiddenTurn = (startDir: number, c: ViaCandidate, endDir: number): boolean =>
      (clean ??= !turnsBetween(v.turns, best.edges))
        ? takesForbiddenTurnBeside(v.turns, startDir, c.start, c.edges, endDir, best.edges)
        : takesForbiddenTurn(v.turns, startDir, c.start, c.edges, endDir);
    return found.map((c) => {
      const leg = () => this.pathLeg(v, src, tgt, sSeeds, tSeeds, c, null, undefined, best);
      const sharingChecked = true;
      const admissible = (): boolean => {
        const [a, b] = [pickSeed(sSeeds, c.start), pickSeed(tSeeds, endOf(c))];
        if (forbiddenTurn(dirOf(src, a), c, dirOf(tgt, b))) return false;
        return this.locallyOptimal(v, c, ALT_LOCAL * best.cost);
      };
      return { cost: c.cost, leg, sharingChecked, admissible };
    });
  }

  /** The T-test: whether the part of `c` from `window` tenths before its via node to `window` after it
   *  (or to its ends) is a shortest path. */
  private locallyOptimal(v: ProfileView, c: ViaCandidate, window: number): boolean {
    const { edges, viaAt: at } = c;
    const w = v.graph.weight,
      head = v.graph.head;
    let before = 0,
      i = at;
    while (i > 0 && before < window) before += w[edges[--i]];
    let after = 0,
      j = at;
    while (j < edges.length && after < window) after += w[edges[j++]];
    if (j - i < 2) return true;
    const from = i === 0 ? c.start : head[edges[i - 1]],
      to = j === 0 ? c.start : head[edges[j - 1]];
    // Durations are whole tenths: a shorter way is one at least a tenth shorter. The hierarchy always has
    // this stretch itself (its edges are unpacked from it), so no path below the bound means none shorter.
    return !v.kernel.hierarchyBelow(from, to, before + after - 0.5);
  }

  /**
   * Candidates for routes the hierarchy cannot search: the fastest route with one stretch of the fastest
   * route blocked (a fifth to a half of its length, at several places), each a shortest path of the graph
   * without that stretch, so locally reasonable outside it; fastest first.
   */
  private windowAlternatives(
    v: ProfileView,
    q: RouteQuery,
    best: LegPath,
    phantoms: Phantom[],
    limited: ReadonlySet<number>,
    smaller: boolean,
  ): AltCandidate[] {
    const g = v.graph;
    const geoms = best.geoms;
    const cum: number[] = [0];
    for (const geom of geoms) cum.push(cum[cum.length - 1] + g.geomCm[geom]);
    const total = cum[cum.length - 1];
    const candidates: LegPath[] = [];
    const seen = new Set<string>();
    for (const [from, to] of ALT_WINDOWS) {
      // The whole geometries whose middle lies in the window, never the first nor the last (the waypoints').
      const extra = new Set(limited);
      for (let i = 1; i + 1 < geoms.length; i++) {
        const mid = (cum[i] + cum[i + 1]) / 2 / total;
        if (mid >= from && mid <= to) extra.add(geoms[i]);
      }
      if (extra.size === limited.size) continue;
      const block = this.blocking(v, q.avoid, extra, true)!;
      const leg = this.leg(v, phantoms[0], phantoms[1], block, smaller ? 'bounded' : 'guided');
      if (!leg || leg.cost > ALT_STRETCH * best.cost) continue;
      const key = leg.geoms.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      candidates.push(leg);
    }
    candidates.sort((a, b) => a.cost - b.cost);
    return candidates.map((leg) => ({ cost: leg.cost, leg: () => leg, sharingChecked: false, admissible: () => true }));
  }

  /**
   * A round trip's legs after the first keep off the ways the loop has taken so far, as GraphHopper's round
   * trips weigh them down (AvoidEdgesWeighting): the fastest leg without them is taken when it costs less
   * than the usual one with their time counted ROUND_TRIP_PENALTY times (`legs`), else the usual one. The
   * ways within ROUND_TRIP_HOME_M of the start (every loop leaves and comes home by its own street) and
   * those of the leg's own waypoints are not counted.
   */
  private roundTripBlocking(v: ProfileView, q: RouteQuery, limited: ReadonlySet<number>, smaller: boolean): RoundTripBlocking {
    const g = v.graph;
    const home = q.waypoints[0];
    const k = Math.cos((home.lat * Math.PI) / 180);
    const near = (geom: number) =>
      [g.geomFirst[geom], g.geomLast[geom]].some((p) => {
        const dy = (g.shapes.pointsE7[2 * p] * E7 - home.lat) * METERS_PER_DEGREE,
          dx = (g.shapes.pointsE7[2 * p + 1] * E7 - home.lon) * METERS_PER_DEGREE * k;
        return Math.hypot(dx, dy) < ROUND_TRIP_HOME_M;
      });
    return {
      taken: (legs, from, to) => {
        const set = new Set(limited);
        for (const leg of legs) for (const geom of leg.geoms) if (geom !== from.geom && geom !== to.geom && !near(geom)) set.add(geom);
        return this.blocking(v, q.avoid, set, true)!;
      },
      again: () => this.blocking(v, q.avoid, limited, smaller),
    };
  }

  /** The legs found, drawn into the route's line (and steps). */
  private drawRoute(
    v: ProfileView,
    q: RouteQuery,
    legs: LegPath[],
    phantoms: Phantom[],
    block: Blocking | null,
    resnapped: boolean,
    beside?: DrawnLeg,
  ): Outcome<RouteE7Result> {
    const limitedSize = q.vehicle && !q.exclude ? this.limitedFor(v, q.profile, q.vehicle, undefined).size : 0;
    // Made to the size it takes: a far line grown by doubling was twice its size in buffers thrown away,
    // and the buffers a request leaves behind set when the next full collection comes.
    const g = v.graph;
    let values = 0;
    for (const leg of legs) values += shapeValues(g, leg.edges, 0, leg.edges.length);
    // Each waypoint's piece of road: at most its geometry's points and the snapped one, into two legs.
    for (const p of phantoms) values += 4 * (g.geomLast[p.geom] - g.geomFirst[p.geom] + 2);
    const line = new Polyline(values);
    const waypointPoints = [0];
    const traces = q.steps ? legTraces(legs.length) : null;
    legs.forEach((leg, i) => {
      if (traces) traces[i].first = Math.max(0, line.length / 2 - 1);
      leg.draw(line, line.length > 0, traces?.[i], beside);
      waypointPoints.push(Math.max(0, line.length / 2 - 1));
    });
    const geometry = line.valuesE7();
    const legSteps_ = traces?.map((trace) => legSteps(v.guidance, geometry, trace, q.passedIntersections === true));
    // Each leg's waypoints, where the query's are its legs' ends (not where a caller asks a part of a route).
    if (legSteps_ && q.waypoints.length === legSteps_.length + 1)
      legSteps_.forEach((steps, i) => withWaypointSides(steps, geometry, q.waypoints[i], q.waypoints[i + 1]));
    let w = Infinity,
      s = Infinity,
      e = -Infinity,
      n = -Infinity;
    for (let i = 0; i < geometry.length; i += 2) {
      const lon = geometry[i],
        lat = geometry[i + 1];
      if (lon < w) w = lon;
      if (lon > e) e = lon;
      if (lat < s) s = lat;
      if (lat > n) n = lat;
    }
    return {
      ok: true,
      value: {
        distance: legs.reduce((a, l) => a + l.meters, 0),
        duration: legs.reduce((a, l) => a + l.cost, 0) / 10,
        geometryE7: geometry,
        waypointPoints,
        ...(legSteps_ ? { legSteps: legSteps_ } : {}),
        legs: legs.map((l) => ({ distance: l.meters, duration: l.cost / 10 })),
        // To the 1e-7° of the line, which starts and ends at them.
        snapped: phantoms.map((p) => ({ lat: Math.round(p.lat * 1e7) * E7, lon: Math.round(p.lon * 1e7) * E7 })),
        bbox: [w, s, e, n],
        blockedGeometries: block?.hits.size ?? 0,
        limitedGeometries: limitedSize,
        resnapped,
      },
    };
  }

  /** `smaller`: a lorry that may take ways the hierarchy keeps off, so that every leg searches the graph. */
  private legs(
    v: ProfileView,
    phantoms: Phantom[],
    block: Blocking | null,
    smaller: boolean,
    search: SearchOptions,
    reason: NoRouteReason,
    loop?: RoundTripBlocking,
  ): Outcome<LegPath[]> {
    const legs: LegPath[] = [];
    for (let i = 0; i + 1 < phantoms.length; i++) {
      if (loop && i > 0) {
        // The usual leg's time on ways taken before, weighed ROUND_TRIP_PENALTY times: a leg keeping off
        // them is taken when it costs less than that.
        const usual = this.leg(v, phantoms[i], phantoms[i + 1], null, 'hierarchy');
        const taken = loop.taken(legs, phantoms[i], phantoms[i + 1]);
        let again = 0;
        for (const e of usual?.edges ?? []) if (taken.whole.has(v.graph.orig[e] >> 1)) again += v.graph.weight[e];
        if (usual && again > 0) {
          const kept = this.leg(v, phantoms[i], phantoms[i + 1], taken, smaller ? 'bounded' : 'guided', search);
          // The bitset now holds the ways taken: the legs searched as usual have theirs written again.
          block = loop.again();
          if (kept && kept.cost <= usual.cost + (ROUND_TRIP_PENALTY - 1) * again) {
            legs.push(kept);
            continue;
          }
        }
      }
      let leg = this.leg(v, phantoms[i], phantoms[i + 1], block, 'hierarchy');
      if (!leg) return { ok: false, error: { kind: 'no-route', reason: 'unreachable', legIndex: i } };
      // A plain leg that touches no circle (nor a way closed to the lorry) is already the answer; only
      // the others search again.
      if (smaller || (block && leg.touches)) {
        leg = this.leg(v, phantoms[i], phantoms[i + 1], block, smaller ? 'bounded' : 'guided', search);
        if (!leg) return { ok: false, error: { kind: 'no-route', reason, legIndex: i } };
      }
      legs.push(leg);
    }
    return { ok: true, value: legs };
  }

  /** Start and end pieces of seeds; null for seeds at a node (nothing travelled on the phantom's geometry). */
  private seedPiece(g: RoadGraph, ph: Phantom, seed: PhantomSeed, asSource: boolean): Array<[number, number]> | null {
    if (seed.kind === 'node') return null;
    const len = g.geomCm[ph.geom] / 100;
    if (asSource) return seed.kind === 'fwd' ? geometryPiece(g, ph.geom, ph.along, len) : geometryPiece(g, ph.geom, ph.along, 0);
    return seed.kind === 'fwd' ? geometryPiece(g, ph.geom, 0, ph.along) : geometryPiece(g, ph.geom, len, ph.along);
  }

  private pieceBlocked(block: Blocking | null, geom: number, piece: Array<[number, number]> | null): boolean {
    if (piece && block?.whole.has(geom)) return true;
    const hit = block?.hits.get(geom);
    if (!hit || !piece) return false;
    const n = block!.circles.length;
    const circles = hit.filter((i) => i < n).map((i) => block!.circles[i]);
    const polygons = hit.filter((i) => i >= n).map((i) => block!.polygons[i - n]);
    return (circles.length > 0 && lineEntersCircles(piece, circles)) || (polygons.length > 0 && lineEntersPolygons(piece, polygons));
  }

  /** Cost and length of going from src to tgt along the one road they share; null when they do not share
   *  one or that direction is closed. */
  private alongRoad(g: RoadGraph, src: Phantom, tgt: Phantom): { cost: number; meters: number } | null {
    if (src.geom !== tgt.geom) return null;
    const d = src.along <= tgt.along ? 2 * src.geom : 2 * src.geom + 1;
    const w = g.origWeight[d];
    if (w === 0) return null;
    // A waypoint to pass one way only (a bearing, a curb side) is passed that way along the road too.
    const dir = d & 1 ? AGAINST : ALONG;
    if ((src.dirs !== undefined && !(src.dirs & dir)) || (tgt.dirs !== undefined && !(tgt.dirs & dir))) return null;
    return { cost: Math.abs(tgt.fraction - src.fraction) * w, meters: Math.abs(tgt.along - src.along) };
  }

  /** `alongRoad` as a leg, with its piece of road. */
  private direct(g: RoadGraph, src: Phantom, tgt: Phantom): (LegPath & { piece: Array<[number, number]> }) | null {
    const along = this.alongRoad(g, src, tgt);
    if (!along) return null;
    const piece = geometryPiece(g, src.geom, src.along, tgt.along);
    const d = src.along <= tgt.along ? 2 * src.geom : 2 * src.geom + 1;
    return {
      ...along,
      piece,
      touches: false,
      geoms: [],
      edges: new Uint32Array(0),
      draw: (line, joined, trace) => {
        appendPoints(line, piece, joined ? 1 : 0);
        trace?.piece(d, -1, line.length / 2 - 1, along.meters, along.cost);
      },
    };
  }

  private leg(
    v: ProfileView,
    src: Phantom,
    tgt: Phantom,
    block: Blocking | null,
    search: 'hierarchy' | 'guided' | 'bounded',
    options: SearchOptions = {},
  ): LegPath | null {
    const g = v.graph;
    const avoiding = search !== 'hierarchy';
    // Seeds whose partial piece enters a circle cannot be used while avoiding.
    const usable =
      (ph: Phantom, asSource: boolean) =>
      (seed: PhantomSeed): boolean =>
        !avoiding || !this.pieceBlocked(block, ph.geom, this.seedPiece(g, ph, seed, asSource));
    const sSeeds = sourceSeeds(g, src).filter(usable(src, true));
    const tSeeds = targetSeeds(g, tgt).filter(usable(tgt, false));
    let direct = this.direct(g, src, tgt);
    if (direct && this.pieceBlocked(block, src.geom, direct.piece)) {
      if (avoiding) direct = null;
      else direct.touches = true;
    }
    if (avoiding && block && !block.written) this.arm(v, block);
    let found = v.kernel.shortestPath(sSeeds, tSeeds, direct?.cost ?? Infinity, search, options);
    if (!found) return direct;
    // U-turns only at dead ends, no crossing of a roundabout's node, turns priced (turn-back.ts): a short
    // leg of a profile that prices turns, and a path taking a kept-out turn, is searched again. Avoiding
    // searches keep their paths (the search again does not know the blocked places); pathLeg prices them.
    let first = pickSeed(sSeeds, found.start),
      last = pickSeed(tSeeds, found.edges.length ? g.head[found.edges[found.edges.length - 1]] : found.start);
    {
      const [a, b] = [first, last];
      if (!avoiding && (v.turns.price || takesForbiddenTurn(v.turns, dirOf(src, a), found.start, found.edges, dirOf(tgt, b)))) {
        v.turnSearches++;
        const sources = sSeeds.map((s) => ({ node: s.node, cost: s.cost, dir: dirOf(src, s) }));
        const targets = tSeeds.map((s) => ({ node: s.node, cost: s.cost, dir: dirOf(tgt, s) }));
        const again = settleTurns(
          v.turns,
          sources,
          targets,
          { ...found, first: sources[sSeeds.indexOf(a)], last: targets[tSeeds.indexOf(b)] },
          direct?.cost ?? Infinity,
          () => v.kernel.distancesTo(tSeeds),
        );
        // A repaired far leg is not bounded by the piece between two waypoints on one road: compare.
        if (again === null || (direct && again.cost >= direct.cost)) return direct;
        found = again;
        [first, last] = [sSeeds[sources.indexOf(again.first)], tSeeds[targets.indexOf(again.last)]];
      }
    }
    return this.pathLeg(v, src, tgt, sSeeds, tSeeds, found, block, [first, last]);
  }

  /** A path found between the seeds of two waypoints as a leg: its length, whether it touches what `block`
   *  blocks, its turns' prices, and how to draw it. `seeds`: the source and target seed it uses, when the
   *  search that found it said (else the cheapest at its ends). `beside`: the leg it runs beside (an
   *  alternative's route), whose turns' prices it copies where both take the same edges. */
  private pathLeg(
    v: ProfileView,
    src: Phantom,
    tgt: Phantom,
    sSeeds: PhantomSeed[],
    tSeeds: PhantomSeed[],
    found: { cost: number; edges: Uint32Array; start: number },
    block: Blocking | null,
    seeds?: [PhantomSeed, PhantomSeed],
    beside?: LegPath,
  ): LegPath {
    const g = v.graph;
    const { edges, start } = found;
    const end = edges.length ? g.head[edges[edges.length - 1]] : start;
    const [first, last] = seeds ?? [pickSeed(sSeeds, start), pickSeed(tSeeds, end)];
    // Each turn's price goes with the edge after it (the last, with the piece to the destination).
    const prices = turnPrices(
      v.turns,
      dirOf(src, first),
      start,
      edges,
      dirOf(tgt, last),
      beside?.prices ? { edges: beside.edges, prices: beside.prices } : undefined,
    );
    const startPiece = this.seedPiece(g, src, first, true);
    const endPiece = this.seedPiece(g, tgt, last, false);
    let touches = this.pieceBlocked(block, src.geom, startPiece) || this.pieceBlocked(block, tgt.geom, endPiece);
    const { orig, geomCm, weight } = g;
    let cm = 0;
    // With its turns priced, the leg's cost is its edges' and its turns' (the search's, without them).
    let cost = prices ? first.cost + last.cost : found.cost;
    const geoms = new Array<number>(edges.length);
    // One pass over the path's edges (a far one has tens of thousands, each read far from the last).
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i];
      const geom = orig[e] >> 1;
      geoms[i] = geom;
      cm += geomCm[geom];
      if (prices) cost += weight[e];
      if (block && (block.hits.has(geom) || block.whole.has(geom))) touches = true;
    }
    if (prices) for (let i = 0; i < prices.length; i++) cost += prices[i];
    const meters = first.meters + last.meters + cm / 100;
    const draw = (line: Polyline, joined: boolean, trace?: LegTrace, beside?: DrawnLeg): void => {
      const from = line.length;
      appendPoints(line, startPiece ?? [[src.lon, src.lat]], joined ? 1 : 0);
      leg.drawnStart = line.length - from;
      const at = (): number => line.length / 2 - 1;
      if (trace && startPiece) trace.piece(2 * src.geom + (first.kind === 'fwd' ? 0 : 1), start, at(), first.meters, first.cost);
      // An edge's shape is the same wherever it is drawn: those `beside` begins and ends with too are
      // copied from its line (the values of its edges lie between its start's and its end's).
      let head = 0,
        tail = 0;
      const other = !trace && beside?.leg.drawnStart !== undefined ? beside : undefined;
      if (other) {
        const o = other.leg.edges;
        while (head < edges.length && head < o.length && edges[head] === o[head]) head++;
        while (head + tail < edges.length && head + tail < o.length && edges[edges.length - 1 - tail] === o[o.length - 1 - tail]) tail++;
        copyValues(line, other.line, other.leg.drawnStart!, shapeValues(g, edges, 0, head));
      }
      for (let i = head; i < edges.length - tail; i++) {
        appendEdgeShape(line, g, orig[edges[i]]);
        trace?.piece(orig[edges[i]], g.head[edges[i]], at(), geomCm[orig[edges[i]] >> 1] / 100, g.weight[edges[i]] + (prices ? prices[i] : 0));
      }
      if (other && tail > 0) {
        const values = shapeValues(g, edges, edges.length - tail, edges.length);
        copyValues(line, other.line, other.line.length - other.leg.drawnEnd! - values, values);
      }
      const to = line.length;
      if (endPiece) appendPoints(line, endPiece, 1);
      else line.push(tgt.lon, tgt.lat);
      leg.drawnEnd = line.length - to;
      // The piece to the destination; a path ending at a node ends with a point on it, of no length.
      if (trace) {
        if (endPiece) trace.piece(2 * tgt.geom + (last.kind === 'fwd' ? 0 : 1), -1, at(), last.meters, last.cost + (prices ? prices[edges.length] : 0));
        else if (trace.count === 0) trace.piece(2 * tgt.geom, -1, at(), 0, 0);
        else trace.end[trace.count - 1] = at();
      }
    };
    const leg: LegPath = { cost, meters, touches, draw, edges, geoms, prices };
    return leg;
  }

  matrix(q: MatrixQuery): Outcome<MatrixResult> {
    const v = this.view(q.profile);
    if (!v) return { ok: false, error: { kind: 'unknown-profile', profile: q.profile } };
    const g = v.graph;
    // Every point must reach every other: a point on a piece cut off from the main network is taken to
    // the main network's nearest road within the snapping limit (each chunk of rows snaps alike).
    // Matrices are the default lorry's unless a `vehicle` says otherwise: off the ways closed to it (the
    // hierarchy weighs the default lorry's down, so an entry at or above CLOSED_PENALTY has no open path).
    const limited = this.limitedFor(v, q.profile, q.vehicle, q.exclude);
    const open = openOf(limited);
    const all = q.targets ? [...q.points, ...q.targets] : q.points;
    const kept = all.map((p) => this.snapKept(q.profile, g, v.grid, p.lat, p.lon, open, !q.vehicle && !q.exclude));
    const far = kept.flatMap((k, i) => (k.ph ? [] : [i]));
    if (far.length) return { ok: false, error: { kind: 'waypoint-too-far', indexes: far } };
    const snappedAll = kept.map((k) => k.ph!);
    const phantoms = snappedAll.slice(0, q.points.length);
    const columns = q.targets ? snappedAll.slice(q.points.length) : phantoms;
    const columnKept = q.targets ? kept.slice(q.points.length) : kept;
    // A lorry of its own size keeps off other ways than the hierarchy does: its rows search the graph.
    const ownSize = limited !== v.closed && !(includesAll(limited, v.closed) && includesAll(v.closed, limited));
    const withoutHierarchy = v.closed.size > 0 && g.chA.length === 0;
    const block = avoids(q.avoid) || withoutHierarchy || ownSize ? this.blocking(v, q.avoid, limited, true) : null;
    const avoiding = block !== null;
    const usable =
      (ph: Phantom, asSource: boolean) =>
      (seed: PhantomSeed): boolean =>
        !avoiding || !this.pieceBlocked(block, ph.geom, this.seedPiece(g, ph, seed, asSource));
    if (block && !block.written) this.arm(v, block);
    const targets = v.kernel.matrixTargets(
      columns.map((ph, j) => (columnKept[j].in ??= targetSeeds(g, ph)).filter(usable(ph, false))),
      avoiding,
    );
    const n = phantoms.length,
      cols = columns.length;
    const durations: Array<Array<number | null>> = [];
    const distances: Array<Array<number | null>> = [];
    const rows = q.rows ?? { from: 0, to: n };
    const packed = q.packed
      ? { durations: new Float64Array((rows.to - rows.from) * cols), distances: new Float64Array((rows.to - rows.from) * cols) }
      : undefined;
    for (let i = 0; i < n; i++) {
      if (i < rows.from || i >= rows.to) {
        if (!packed) {
          durations.push([]);
          distances.push([]);
        }
        continue;
      }
      const seeds = (kept[i].out ??= sourceSeeds(g, phantoms[i])).filter(usable(phantoms[i], true));
      const reach = targets.row(seeds);
      const rowD: Array<number | null> = [],
        rowM: Array<number | null> = [];
      const at = (i - rows.from) * cols;
      for (let j = 0; j < cols; j++) {
        const self = i === j && !q.targets;
        let best = self ? 0 : reach.durations[j],
          meters = self ? 0 : reach.meters[j];
        // A point to itself is 0 whatever its road; the piece of road is drawn only to check it against circles.
        const src = phantoms[i],
          tgt = columns[j];
        const direct = self ? null : this.alongRoad(g, src, tgt);
        if (direct && direct.cost < best && !(avoiding && this.pieceBlocked(block, src.geom, geometryPiece(g, src.geom, src.along, tgt.along)))) {
          best = direct.cost;
          meters = direct.meters;
        }
        if (best >= CLOSED_PENALTY) best = Infinity;
        if (packed) {
          packed.durations[at + j] = best === Infinity ? NaN : best / 10;
          packed.distances[at + j] = best === Infinity ? NaN : meters;
        } else {
          rowD.push(best === Infinity ? null : best / 10);
          rowM.push(best === Infinity ? null : meters);
        }
      }
      if (!packed) {
        durations.push(rowD);
        distances.push(rowM);
      }
    }
    const at = (ps: Phantom[]) => ps.map((p) => ({ lat: p.lat, lon: p.lon }));
    return {
      ok: true,
      value: {
        durations,
        distances,
        snapped: at(phantoms),
        ...(q.targets ? { snappedTargets: at(columns) } : {}),
        offsets: snappedAll.map((p) => p.offset),
        names: snappedAll.map((p) => {
          const label = roadLabelAt(g.shapes, g.geomFirst[p.geom]);
          return label.name ?? label.ref;
        }),
        ...(packed ? { packed } : {}),
      },
    };
  }

  /**
   * The search every reach query starts with: the start snapped like a matrix point, the lorry's closed
   * ways and the circles blocked, then every node within `maxDur` tenths and `maxCm` centimeters settled.
   */
  private reachFrom(
    q: ReachQuery,
    maxDur: number,
    maxCm: number,
    byMeters: boolean,
    backward = false,
  ): Outcome<{ v: ProfileView; start: Phantom; reached: Reached; block: Blocking | null }> {
    const v = this.view(q.profile);
    if (!v) return { ok: false, error: { kind: 'unknown-profile', profile: q.profile } };
    const g = v.graph;
    const limited = this.limitedFor(v, q.profile, q.vehicle, q.exclude);
    const snapped = this.snapAll(g, v.grid, [q.source], Infinity, openOf(limited));
    if (isFar(snapped)) return { ok: false, error: { kind: 'waypoint-too-far', indexes: snapped } };
    const start = snapped[0];
    const block = this.blocking(v, q.avoid, limited);
    if (block && !block.written) this.arm(v, block);
    const seeds = (backward ? targetSeeds(g, start) : sourceSeeds(g, start)).filter(
      (seed) => !block || !this.pieceBlocked(block, start.geom, this.seedPiece(g, start, seed, !backward)),
    );
    const reach = v.kernel.reach(seeds, maxDur, maxCm, byMeters, block !== null, backward);
    const startPieces = seeds.flatMap((seed) => {
      const points = this.seedPiece(g, start, seed, true);
      return points ? [{ points, key: byMeters ? seed.meters * 100 : seed.cost }] : [];
    });
    const blocked = block ? (geom: number) => v.kernel.isBlocked(geom) : () => false;
    return { ok: true, value: { v, start, reached: { g, reach, byMeters, blocked, startPieces, start }, block } };
  }

  /** What is reachable from the source within each limit, as polygons (isochrone-shape.ts). */
  isochrone(q: IsochroneQuery): Outcome<IsochroneResult> {
    const scale = q.byDistance ? 100 : 10;
    const max = Math.max(...q.limits) * scale;
    const found = this.reachFrom(q, q.byDistance ? Infinity : max, q.byDistance ? max : Infinity, q.byDistance === true);
    if (!found.ok) return found;
    const { reached, start } = found.value;
    // One grid for every limit, so that the shapes of smaller limits nest in those of larger ones.
    const box = reachedBox(reached, max, 500);
    const extent = Math.max((box[2] - box[0]) * METERS_PER_DEGREE * Math.cos(((box[1] + box[3]) / 2) * (Math.PI / 180)), (box[3] - box[1]) * METERS_PER_DEGREE);
    const cellMeters = Math.max(MIN_CELL_M, extent / CELLS_ACROSS);
    const draw = (grid: CellGrid) => {
      drawReached(reached, max, grid);
      return grid;
    };
    let grid = draw(CellGrid.over(box, cellMeters));
    // A geometry bent out of the box: once more over the box of everything drawn.
    if (grid.outside) {
      const bounds = new BoundsCanvas();
      drawReached(reached, max, bounds);
      grid = draw(CellGrid.over(bounds.box, cellMeters));
    }
    const minHole = Math.ceil((MIN_HOLE_M / cellMeters) ** 2);
    const shapes = q.limits.map((limit) => {
      if (limit * scale === max) return tracePolygons(grid, minHole);
      const band = new CellGrid(grid.west, grid.south, grid.cellLon, grid.cellLat, grid.cols, grid.rows);
      drawReached(reached, limit * scale, band);
      return tracePolygons(band, minHole);
    });
    return { ok: true, value: { snapped: { lat: start.lat, lon: start.lon }, shapes, cellMeters } };
  }

  /** The fastest path's seconds and meters from the source to each target within the limits (null when
   *  none is, or the target has no road within the snapping limit). */
  travelTimes(q: TravelTimesQuery): Outcome<Float64Array> {
    const maxCm = q.maxDistance === undefined ? Infinity : q.maxDistance * 100;
    // A length limit alone bounds the time too: no path of that length is slower than the profile's slowest
    // way makes it. The search is by duration (the fastest paths are what is measured), the length checked after.
    const v0 = this.view(q.profile);
    const slowest = v0 ? speedRange(v0.graph).slowest : 1;
    const maxDur = q.maxDuration !== undefined ? q.maxDuration * 10 : q.maxDistance !== undefined ? (q.maxDistance / slowest) * 10 : Infinity;
    const backward = q.toSource === true;
    const found = this.reachFrom(q, maxDur, Infinity, false, backward);
    if (!found.ok) return found;
    const { v, start, reached, block } = found.value;
    const g = v.graph;
    const { duration, centimeters, nodes } = reached.reach;
    // The piece of road between a target and its seed (or the source) is kept out of what is avoided too,
    // as a route's last piece is.
    const pieceOut = (ph: Phantom, piece: Array<[number, number]> | null) => !block || !this.pieceBlocked(block, ph.geom, piece);
    const open = openOf(this.limitedFor(v, q.profile, q.vehicle, q.exclude));
    // Settled nodes marked in this thread's own array: a look-up per seed without a call into the kernel.
    const marks = this.settledMarks(q.profile, g.nodeCount);
    for (let i = 0; i < nodes.length; i++) marks[nodes[i]] = 1;
    const pts = q.targets;
    const out = new Float64Array(pts.length).fill(Number.NaN);
    for (let t = 0; 2 * t < pts.length; t++) {
      const hit = this.snapKept(q.profile, g, v.grid, pts[2 * t], pts[2 * t + 1], open, !q.vehicle && !q.exclude);
      const ph = hit.ph;
      if (!ph) continue;
      // To the target: paths arrive at its seeds; from it (backward): they leave from them.
      const seeds = backward ? (hit.out ??= sourceSeeds(g, ph)) : (hit.in ??= targetSeeds(g, ph));
      let best = Infinity,
        meters = Infinity;
      for (const seed of seeds) {
        if (!marks[seed.node] || !pieceOut(ph, this.seedPiece(g, ph, seed, backward))) continue;
        const c = duration(seed.node) + seed.cost,
          m = centimeters(seed.node) / 100 + seed.meters;
        if (c < best || (c === best && m < meters)) {
          best = c;
          meters = m;
        }
      }
      if (ph.geom === start.geom && pieceOut(ph, geometryPiece(g, ph.geom, start.along, ph.along))) {
        const direct = backward ? this.alongRoad(g, ph, start) : this.alongRoad(g, start, ph);
        if (direct && (direct.cost < best || (direct.cost === best && direct.meters < meters))) {
          best = direct.cost;
          meters = direct.meters;
        }
      }
      if (best <= maxDur && meters * 100 <= maxCm) {
        out[2 * t] = best / 10;
        out[2 * t + 1] = meters;
      }
    }
    for (let i = 0; i < nodes.length; i++) marks[nodes[i]] = 0;
    return { ok: true, value: out };
  }

  private readonly snaps = new Map<string, Map<number, SnappedTarget>>();
  private readonly marks = new Map<string, Uint8Array>();

  /** Targets of travel times snapped so far in this thread, by profile, under a hash of their position. */
  /**
   * (lat, lon) snapped as a matrix point (the main network's nearest open road), with its seeds once asked
   * for. The default lorry's (`keep`) are kept per thread and profile: the same depots and POIs come back
   * request after request, to matrices and to travel-time lists.
   */
  private snapKept(
    profile: string,
    g: RoadGraph,
    grid: GridView,
    lat: number,
    lon: number,
    open: ((geom: number) => boolean) | undefined,
    keep: boolean,
  ): SnappedTarget {
    let cache = keep ? this.snaps.get(profile) : undefined;
    if (keep && !cache) this.snaps.set(profile, (cache = new Map()));
    const key = Math.round(lat * 1e7) * 3_600_000_001 + Math.round(lon * 1e7);
    let hit = cache?.get(key);
    if (!hit || hit.lat !== lat || hit.lon !== lon) {
      hit = { lat, lon, ph: snap(g, grid, lat, lon, undefined, Infinity, open) };
      if (cache) {
        if (cache.size >= MAX_CACHED_SNAPS) cache.clear();
        cache.set(key, hit);
      }
    }
    return hit;
  }

  /** A byte per node of the profile, all 0 between uses. */
  private settledMarks(profile: string, nodes: number): Uint8Array {
    let m = this.marks.get(profile);
    if (!m) this.marks.set(profile, (m = new Uint8Array(nodes)));
    return m;
  }

  /** The `count` nearest roads of the profile within the snapping limit, one point per geometry. */
  nearest(q: { profile: string; point: LatLon; count: number }): Outcome<NearestRoad[]> {
    const v = this.view(q.profile);
    if (!v) return { ok: false, error: { kind: 'unknown-profile', profile: q.profile } };
    const seen = new Set<number>();
    const found: NearestRoad[] = [];
    const pts = v.graph.shapes.pointsE7;
    while (found.length < q.count) {
      const hit = nearestSegment(v.grid, q.point.lat, q.point.lon, SNAP_LIMIT_M, (geom) => !seen.has(geom) && !v.closed.has(geom));
      if (!hit) break;
      seen.add(hit.geom);
      const p = hit.point;
      found.push({
        lat: hit.lat,
        lon: hit.lon,
        distance: hit.distance,
        bearing: bearingDeg(pts[2 * p] * E7, pts[2 * p + 1] * E7, pts[2 * p + 2] * E7, pts[2 * p + 3] * E7),
        ...roadLabelAt(v.graph.shapes, p),
      });
    }
    return { ok: true, value: found };
  }
}
