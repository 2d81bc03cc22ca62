// The routing engine facade the HTTP layer calls: load a map directory into shared memory (one memory
// per profile), hand it to the worker pool, and run route / matrix queries there. Failures surface as
// typed errors.
import { join } from 'node:path';
import { computePool, idleThreads, runTask, setWorkerData } from '../compute/pool.js';
import { MapFormatError, MapVerifier, readManifest, readShapeFiles, type MapManifest } from '../map/map-files.js';
import { shapeBytes, type Shapes } from '../map/graphs/road-graph.js';
import { PROFILES, type ProfileName } from '../map/graphs/profiles.js';
import { loadGraph, viewGraph, type SharedGraphs } from './graph-memory.js';
import { speedRange } from '../map/graphs/road-graph.js';
import { joinLineStrings } from './line-json.js';
import { joinPolylines, type GeometryOptions } from './polyline.js';
import { arenaOf, createArenaBuffer, heldSlots, releaseSlot, slotText, type SlotRef } from './reply-arena.js';
import type {
  Avoid,
  IsochroneQuery,
  IsochroneResult,
  MatrixResult,
  NearestRoad,
  NoRouteReason,
  Outcome,
  RouteFailure,
  RouteJsonResult,
  RouteJsonTaskResult,
  RouteQuery,
  RouteResult,
  TravelTimes,
  TravelTimesQuery,
  VehicleQuery,
} from './route-core.js';
import type { LatLon } from '../lib/lat-lon.js';
import type { WaypointOption } from './waypoint-options.js';

export type { AvoidPolygon, Circle } from './avoid.js';
export type { GeometryOptions } from './polyline.js';
export type { WaypointOption } from './waypoint-options.js';
export type { IsochroneResult, MatrixResult, NearestRoad, RouteJsonResult, RouteResult, TravelTimes } from './route-core.js';
export type { ProfileName } from '../map/graphs/profiles.js';

/** Waypoints (or matrix points) farther than 500 m from any road the profile may use, every one of them.
 *  HTTP: 422 `waypoints.<index>` for each. */
export class WaypointTooFarError extends Error {
  constructor(readonly indexes: number[]) {
    super(
      `Waypoint${indexes.length > 1 ? 's' : ''} ${indexes.join(', ')} ${indexes.length > 1 ? 'are' : 'is'} more than 500 m from a road usable by this profile.`,
    );
    this.name = 'WaypointTooFarError';
  }
}

/**
 * No route for leg `legIndex` (waypoint legIndex → legIndex+1). `blocked`: a route exists, but every one
 * enters an avoided circle; `too-big`: every one takes a way whose limits the requested lorry exceeds; `unreachable`: the road network does not connect the two points. HTTP: 422.
 */
export class NoRouteError extends Error {
  constructor(
    readonly reason: NoRouteReason,
    readonly legIndex: number,
  ) {
    super(
      reason === 'blocked'
        ? `No route from waypoint ${legIndex} to waypoint ${legIndex + 1} avoids the selected POIs: they block every way.`
        : reason === 'too-big'
          ? `No route from waypoint ${legIndex} to waypoint ${legIndex + 1} for a lorry of this size: every way has a lower limit.`
          : reason === 'excluded'
            ? `No route from waypoint ${legIndex} to waypoint ${legIndex + 1} keeps off the excluded classes of ways.`
            : `Waypoint ${legIndex + 1} cannot be reached by road from waypoint ${legIndex}.`,
    );
    this.name = 'NoRouteError';
  }
}

/** No map is loaded (yet). HTTP: 503. */
export class MapNotLoadedError extends Error {
  constructor() {
    super('Routing is not available: no map is loaded. Retry later.');
    this.name = 'MapNotLoadedError';
  }
}

export class UnknownProfileError extends Error {
  constructor(readonly profile: string) {
    super(`Unknown routing profile '${profile}'.`);
    this.name = 'UnknownProfileError';
  }
}

export interface RouteRequest {
  profile: ProfileName;
  /** 2 or more, in visiting order. */
  waypoints: LatLon[];
  /** Circles (radius in meters) the route must not enter. */
  avoid?: Avoid;
  /** `driving-hgv` only: the lorry's size; ways whose limits it exceeds are kept off. */
  vehicle?: VehicleQuery;
  /** Classes of ways kept off (bits of EXCLUDE_BIT, profiles.ts). */
  exclude?: number;
  /** Snap like the matrix: every waypoint to the main network's nearest road (optimize's tours). */
  mainNetwork?: boolean;
  /** Per waypoint: snapping radius, bearing, curbside approach (waypoint-options.ts). */
  waypointOptions?: ReadonlyArray<WaypointOption | null>;
  /** `routeJson`: the geometry's form (GeoJSON, the whole line, without). */
  geometry?: GeometryOptions;
  /** Alternatives to look for besides the route (2 waypoints): `RouteResult.alternatives`. */
  alternatives?: number;
  /** `routeJson`: turn-by-turn steps per leg, with an instruction in `language` when given. */
  steps?: boolean;
  language?: string;
}

export interface MatrixRequest {
  profile: ProfileName;
  points: LatLon[];
  /** The columns, when they are not `points` (too-far indexes then count on from points.length). */
  targets?: LatLon[];
  vehicle?: VehicleQuery;
  avoid?: Avoid;
  exclude?: number;
  /** Rows in `MatrixResult.packed` (see route-core.ts). */
  packed?: boolean;
}

export interface LoadedMap {
  dir: string;
  manifest: MapManifest;
  /** The profiles served, in PROFILES order. */
  profiles: ProfileName[];
  /** Bytes of graph data in the shared memories. */
  bytes: number;
}

/** A profile that cannot be served: `serve` stops with this message rather than answer 503 to every route. */
export class MapLoadError extends Error {
  constructor(
    readonly profile: string,
    reason: string,
  ) {
    super(`cannot load routing profile ${profile}: ${reason}`);
    this.name = 'MapLoadError';
  }
}

let loaded: LoadedMap | null = null;

/**
 * Reads the profiles of a map directory (all four unless `profiles` names a subset), each straight into
 * a shared memory of its own with every file checked against the manifest, then restarts the pool's
 * workers over them. Any profile that cannot be loaded fails the whole load, naming it.
 */
export async function loadMap(dir: string, profiles: readonly ProfileName[] = PROFILES): Promise<LoadedMap> {
  const manifest = await readManifest(dir);
  const verifier = new MapVerifier(manifest);
  let shapes: Shapes;
  try {
    shapes = await readShapeFiles(dir, manifest, verifier);
  } catch (err) {
    // The read's own failure is the one reported; the verifier only waits for its threads here.
    await verifier.done().catch(() => {});
    throw new MapLoadError('shapes', err instanceof Error ? err.message : String(err));
  }
  const shared: SharedGraphs = { profiles: {}, shapes };
  let bytes = shapeBytes(shapes);
  for (const profile of PROFILES.filter((p) => profiles.includes(p))) {
    const meta = manifest.profiles[profile];
    if (!meta) throw new MapLoadError(profile, `the map in ${dir} has no graph for it`);
    try {
      shared.profiles[profile] = await loadGraph(
        profile,
        join(dir, profile),
        { nodeCount: meta.nodes, edgeCount: meta.edges, geomCount: meta.geometries },
        (file, data) => verifier.check(`${profile}/${file}`, data),
      );
    } catch (err) {
      // The read's own failure is the one reported; the verifier only waits for its threads here.
      await verifier.done().catch(() => {});
      throw new MapLoadError(profile, err instanceof Error ? err.message : String(err));
    }
    bytes += shared.profiles[profile].memory.buffer.byteLength;
  }
  try {
    await verifier.done();
  } catch (err) {
    const file = err instanceof MapFormatError ? (err.file ?? '') : '';
    throw new MapLoadError(file.includes('/') ? file.split('/')[0] : 'map', err instanceof Error ? err.message : String(err));
  }
  await setWorkerData({ routing: shared, replyArena: arenaBuffer });
  loaded = { dir, manifest, profiles: Object.keys(shared.profiles) as ProfileName[], bytes };
  loadedGraphs = shared;
  topSpeeds.clear();
  return loaded;
}

/** The graphs of the loaded map, read on the main thread only for bounds such as `topSpeed`. */
let loadedGraphs: SharedGraphs | null = null;
const topSpeeds = new Map<ProfileName, number>();

/** The speed (m/s) no way of the profile exceeds: no point is farther in a straight line than this × the
 *  time. Measured over the profile's ways on first use. */
export function topSpeed(profile: ProfileName): number {
  let speed = topSpeeds.get(profile);
  if (speed === undefined) {
    const pm = loadedGraphs?.profiles[profile];
    if (!pm || !loadedGraphs) throw new MapNotLoadedError();
    speed = speedRange(viewGraph(pm, loadedGraphs.shapes)).fastest;
    topSpeeds.set(profile, speed);
  }
  return speed;
}

/** The profiles being served (empty without a map). */
export function loadedProfiles(): ProfileName[] {
  return loaded?.profiles ?? [];
}

function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  const e: RouteFailure = outcome.error;
  if (e.kind === 'waypoint-too-far') throw new WaypointTooFarError(e.indexes);
  if (e.kind === 'no-route') throw new NoRouteError(e.reason, e.legIndex);
  if (e.kind === 'stopped') throw new Error('a raced route search was stopped without an answer');
  throw new UnknownProfileError(e.profile);
}

/** Fastest route through the waypoints in order; with `avoid`, one that enters none of the circles. */
export function route(req: RouteRequest): Promise<RouteResult> {
  return routeIn<RouteResult>('route', req);
}

/** From this many waypoints a plain route's legs are shared out over two workers. */
const SPLIT_ROUTE_FROM = 4;

/** Where the compute threads write route texts for this thread to read in place (reply-arena.ts). */
const arenaBuffer = createArenaBuffer();
const arena = arenaOf(arenaBuffer);
/** A text whose reply never released it (a handler that failed after the route was found) gives its
 *  slot back once its `release` can no longer be called. */
const unreleased = new FinalizationRegistry<SlotRef>((ref) => releaseSlot(arena, ref));

/** A compute thread's answer as the caller's: the text in place, and how to give its slot back. */
function received(r: RouteJsonTaskResult): RouteJsonResult {
  const { geometryJson, alternatives: others, ...fields } = r;
  const rest = others ? { ...fields, alternatives: others.map((a) => ({ ...a, geometryJson: [a.geometryJson] })) } : fields;
  if (geometryJson instanceof Uint8Array) return { ...rest, geometryJson: [geometryJson], release: () => {} };
  const release = () => {
    unreleased.unregister(release);
    releaseSlot(arena, geometryJson);
  };
  // Held by whoever may still send the text (a reply keeps it to call): when it is collected, no one can.
  unreleased.register(release, geometryJson, release);
  return { ...rest, geometryJson: [slotText(arena, geometryJson)], release };
}

/** Arena slots held now: texts received and not yet released. */
export const heldReplySlots = (): number => heldSlots(arena);

const receivedOutcome = (o: Outcome<RouteJsonTaskResult>): Outcome<RouteJsonResult> => (o.ok ? { ok: true, value: received(o.value) } : o);

/**
 * `route`, with the geometry written as GeoJSON text by the worker: a reply copies it as it is. A plain
 * route through several waypoints is searched in two halves at once when two threads are idle (legs are
 * independent without avoidance: each half ends where the other starts), which halves the wait for a
 * long one. A half that fails, or had to snap its waypoints again to the main network, makes the whole route
 * run as one, so that errors and snapping are exactly the whole route's. A route with avoided circles is
 * raced from both ends instead (`raced`). The caller calls `release` on the answer once its reply is sent.
 */
export async function routeJson(req: RouteRequest): Promise<RouteJsonResult> {
  const n = req.waypoints.length;
  const whole = async () => unwrap(receivedOutcome(await routeTask('routeJson', req)));
  // Only onto two idle threads: a half queued behind a batch job's search slice would wait longer than
  // the whole route takes on one.
  if (!loaded || idleThreads() < 2 || req.alternatives) return whole();
  if (req.avoid?.circles.length || req.avoid?.polygons?.length || req.exclude) return (await raced(req)) ?? whole();
  if (n < SPLIT_ROUTE_FROM) return whole();
  const k = Math.ceil((n - 1) / 2);
  const [a, b] = (
    await Promise.all([
      runTask<Outcome<RouteJsonTaskResult>>('routeJson', {
        ...req,
        waypoints: req.waypoints.slice(0, k + 1),
        ...(req.waypointOptions ? { waypointOptions: req.waypointOptions.slice(0, k + 1) } : {}),
        legCount: n - 1,
      }),
      runTask<Outcome<RouteJsonTaskResult>>('routeJson', {
        ...req,
        waypoints: req.waypoints.slice(k),
        ...(req.waypointOptions ? { waypointOptions: req.waypointOptions.slice(k) } : {}),
        legBase: k,
        legCount: n - 1,
      }),
    ])
  ).map(receivedOutcome);
  if (!a.ok || !b.ok || a.value.resnapped || b.value.resnapped) {
    if (a.ok) a.value.release();
    if (b.ok) b.value.release();
    return whole();
  }
  return joinRoutes(a.value, b.value, req.geometry);
}

/**
 * An avoiding route searched on two threads at once, from the start and from the end (route-core.ts,
 * RouteQuery.race); the first answer wins and stops the other. The avoiding search settles every node
 * whose detour is within the avoided route's extra time, and which end holds more of them depends on
 * where the circles cut: the two differ by up to 20× on the same query. Both answers are shortest routes
 * that keep out of every circle. A thread that fails (killed, say) leaves the answer to the other; null
 * when one stopped because the other answered and then failed: the caller runs the route once more, alone.
 */
async function raced(req: RouteRequest): Promise<RouteJsonResult | null> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const runs = [false, true].map((backward) =>
    routeTask<RouteJsonTaskResult>('routeJson', { ...req, race: { backward, flag } }).then(receivedOutcome, (err: unknown) => ({ failed: err })),
  );
  type Settled = Outcome<RouteJsonResult> | { failed: unknown };
  const isAnswer = (r: Settled): r is Outcome<RouteJsonResult> => !('failed' in r) && (r.ok || r.error.kind !== 'stopped');
  const first = await new Promise<Outcome<RouteJsonResult> | null>((resolve) => {
    let left = runs.length;
    for (const run of runs) void run.then((r) => (isAnswer(r) ? resolve(r) : --left === 0 && resolve(null)));
  });
  if (first) return unwrap(first);
  const [a, b] = await Promise.all(runs);
  if ('failed' in a && 'failed' in b) throw a.failed;
  return null;
}

/** Two routes where the second starts at the waypoint the first ends at, as one (their geometries in the
 *  form `geometry` asked for: each half simplifies between its waypoints as the whole would). */
function joinRoutes(a: RouteJsonResult, b: RouteJsonResult, geometry: GeometryOptions | undefined): RouteJsonResult {
  const join = geometry?.overview === 'false' ? (x: Uint8Array) => [x] : (geometry?.format ?? 'geojson') === 'geojson' ? joinLineStrings : joinPolylines;
  return {
    distance: a.distance + b.distance,
    duration: a.duration + b.duration,
    legs: [...a.legs, ...b.legs],
    snapped: [...a.snapped, ...b.snapped.slice(1)],
    bbox: [Math.min(a.bbox[0], b.bbox[0]), Math.min(a.bbox[1], b.bbox[1]), Math.max(a.bbox[2], b.bbox[2]), Math.max(a.bbox[3], b.bbox[3])],
    blockedGeometries: a.blockedGeometries + b.blockedGeometries,
    limitedGeometries: a.limitedGeometries,
    resnapped: false,
    geometryJson: join(a.geometryJson[0], b.geometryJson[0]),
    ...(a.stepsJson && b.stepsJson ? { stepsJson: [...a.stepsJson, ...b.stepsJson] } : {}),
    release: () => {
      a.release();
      b.release();
    },
  };
}

async function routeTask<T>(task: string, req: RouteRequest & Pick<RouteQuery, 'race'>): Promise<Outcome<T>> {
  if (!loaded) throw new MapNotLoadedError();
  if (req.waypoints.length < 2) throw new RangeError('a route needs at least 2 waypoints');
  return runTask<Outcome<T>>(task, req);
}

async function routeIn<T>(task: string, req: RouteRequest): Promise<T> {
  return unwrap(await routeTask<T>(task, req));
}

/** The indexes of the points farther than 500 m from any road the profile may use (none searched). */
export async function farFromRoad(profile: ProfileName, points: LatLon[]): Promise<number[]> {
  if (!loaded) throw new MapNotLoadedError();
  if (!points.length) return [];
  return unwrap(await runTask<Outcome<number[]>>('far', { profile, points }));
}

/** Matrix rows per pool task of `matrixInPieces`. */
const PIECE_ROWS = 200;

/**
 * A large matrix piece by piece: rows in pool tasks of PIECE_ROWS, one at a time, answered packed
 * (MatrixResult.packed, all rows). A batch job holds one worker at a time this way and interactive
 * requests get the pool between its pieces. `onPiece` hears the percentage done after each piece (and
 * may throw to stop).
 */
export async function matrixInPieces(req: MatrixRequest, onPiece?: (percent: number) => Promise<void> | void): Promise<MatrixResult> {
  if (!loaded) throw new MapNotLoadedError();
  const n = req.points.length;
  const packed = { durations: new Float64Array(n * n), distances: new Float64Array(n * n) };
  let snapped: MatrixResult['snapped'] = [];
  for (let from = 0; from < n; from += PIECE_ROWS) {
    const to = Math.min(n, from + PIECE_ROWS);
    const part = unwrap(await runTask<Outcome<MatrixResult>>('matrix', { ...req, packed: true, rows: { from, to } }));
    packed.durations.set(part.packed!.durations, from * n);
    packed.distances.set(part.packed!.distances, from * n);
    snapped = part.snapped;
    await onPiece?.(Math.round((100 * to) / n));
  }
  return { durations: [], distances: [], snapped, offsets: [], packed };
}

/** Below this many points a matrix is not worth splitting over workers. */
const SPLIT_MATRIX_FROM = 8;

/**
 * Durations (s) and distances (m) between every pair of points (or from `points` to `targets`); null where
 * unreachable (with `packed`: NaN, rows × columns). Rows are shared out over the workers when each row is
 * a Dijkstra (avoidance, a lorry of its own size, or a map without hierarchy); over the hierarchy the whole
 * matrix takes a few milliseconds, less than splitting it would add (measured on the 32x32 country too).
 */
export async function matrix(req: MatrixRequest): Promise<MatrixResult> {
  if (!loaded) throw new MapNotLoadedError();
  const n = req.points.length;
  // A lorry of its own size searches its rows over the graph, as avoidance does.
  const overHierarchy =
    !req.avoid?.circles.length &&
    !req.avoid?.polygons?.length &&
    !req.vehicle &&
    !req.exclude &&
    (loaded.manifest.profiles[req.profile]?.hierarchyEdges ?? 0) > 0;
  const parts = n < SPLIT_MATRIX_FROM || overHierarchy ? 1 : Math.max(1, Math.min(computePool().options.maxThreads, n));
  const size = Math.ceil(n / parts);
  const chunks = await Promise.all(
    Array.from({ length: parts }, (_, k) => runTask<Outcome<MatrixResult>>('matrix', { ...req, rows: { from: k * size, to: Math.min(n, (k + 1) * size) } })),
  );
  const results = chunks.map(unwrap);
  const merged = results[0];
  if (parts === 1) return merged;
  if (req.packed) {
    // Each part packed its own rows, in order.
    const cells = n * (req.targets?.length ?? n);
    const packed = { durations: new Float64Array(cells), distances: new Float64Array(cells) };
    let at = 0;
    for (const r of results) {
      packed.durations.set(r.packed!.durations, at);
      packed.distances.set(r.packed!.distances, at);
      at += r.packed!.durations.length;
    }
    return { ...merged, packed };
  }
  results.forEach((r, k) => {
    for (let i = k * size; i < Math.min(n, (k + 1) * size); i++) {
      merged.durations[i] = r.durations[i];
      merged.distances[i] = r.distances[i];
    }
  });
  return merged;
}

/** Polygons of what the source reaches within each limit (seconds, or meters with `byDistance`). */
export async function isochrone(req: IsochroneQuery & { profile: ProfileName }): Promise<IsochroneResult> {
  if (!loaded) throw new MapNotLoadedError();
  return unwrap(await runTask<Outcome<IsochroneResult>>('isochrone', req));
}

/** The fastest path's seconds and meters from the source to each target within the limits (else null). */
export async function travelTimes(req: Omit<TravelTimesQuery, 'targets'> & { profile: ProfileName; targets: LatLon[] }): Promise<TravelTimes> {
  const targets = new Float64Array(2 * req.targets.length);
  req.targets.forEach((t, i) => {
    targets[2 * i] = t.lat;
    targets[2 * i + 1] = t.lon;
  });
  const pairs = await travelTimePairs({ ...req, targets });
  return req.targets.map((_, i) => (Number.isNaN(pairs[2 * i]) ? null : { duration: pairs[2 * i], distance: pairs[2 * i + 1] }));
}

/** `travelTimes` over lat, lon pairs, answered as seconds, meters pairs (NaN where none is within the
 *  limits): many targets cross between threads as two copies. */
export async function travelTimePairs(req: TravelTimesQuery & { profile: ProfileName }): Promise<Float64Array> {
  if (!loaded) throw new MapNotLoadedError();
  return unwrap(await runTask<Outcome<Float64Array>>('travelTimes', req));
}

/** The nearest roads of the profile within the snapping limit, one point per geometry, nearest first. */
export async function nearest(req: { profile: ProfileName; point: LatLon; count: number }): Promise<NearestRoad[]> {
  if (!loaded) throw new MapNotLoadedError();
  return unwrap(await runTask<Outcome<NearestRoad[]>>('nearest', req));
}
