// The routing engine facade the HTTP layer calls: load a map directory into shared memory (one memory
// per profile), hand it to the worker pool, and run route / matrix queries there. Failures surface as
// typed errors.
import {
  activeGeneration,
  computePool,
  idleThreads,
  newGeneration,
  PoolBusyError,
  poolSize,
  promote,
  retire,
  runOn,
  runTask,
  type PoolGeneration,
} from '../compute/pool.js';
import { MapFormatError, type MapManifest } from '../map/map-files.js';
import { MapDir } from '../map/map-dir.js';
import type { ThreadCollection, ThreadWarmUp, WarmUpInput } from './warm-up.js';
import { shapeBytes, type Shapes } from '../map/graphs/road-graph.js';
import { PROFILES, type ProfileName } from '../map/graphs/profiles.js';
import { loadGraph, viewGraph, type SharedGraphs } from './graph-memory.js';
import { geocoderWorkerData } from './geocoder/task.js';
import { speedRange } from '../map/graphs/road-graph.js';
import { joinLineStrings } from './line-json.js';
import { joinPolylines, type GeometryOptions } from './polyline.js';
import { arenaOf, createArenaBuffer, framedText, heldSlots, releaseSlot, slotText, type SlotRef } from './reply-arena.js';
import type {
  Avoid,
  IsochroneQuery,
  IsochroneResult,
  MatrixJsonTaskResult,
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

export type { Circle } from './avoid.js';
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
  /** A loop: each leg after the first keeps off the ways taken before it where it can. */
  roundTrip?: boolean;
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
  /** The map directory, symbolic links resolved: a link moved later does not change what this map is. */
  dir: string;
  /** The map's id: the first 12 hex digits of its manifest's SHA-256 (the manifest lists every file's
   *  SHA-256, so two maps with the same id hold the same bytes). Responses carry it (`Waymark-Map`). */
  id: string;
  manifest: MapManifest;
  /** Its files, for what is read from them while it serves (the tiles). */
  files: MapDir;
  /** What each compute thread ran before the map served, and how long the slowest took. */
  warmUp: WarmUpReport;
  /** The profiles served, in PROFILES order. */
  profiles: ProfileName[];
  /** Bytes of graph data in the shared memories. */
  bytes: number;
}

/** A profile that cannot be served: `serve` stops with this message rather than answer 503 to every route. */
export class MapLoadError extends Error {
  /** `part`: the routing profile, or `shapes`, `geocoder`, `tiles.bin`, `map`. */
  constructor(part: string, reason: string) {
    super(`cannot load ${(PROFILES as readonly string[]).includes(part) ? `routing profile ${part}` : `the map's ${part}`}: ${reason}`);
    this.name = 'MapLoadError';
  }
}

/** A loaded map: what it is, and the graphs its compute threads read (on the main thread only for
 *  bounds such as `topSpeed`). One per pool generation. */
interface MapState {
  map: LoadedMap;
  graphs: SharedGraphs;
  topSpeeds: Map<ProfileName, number>;
}

const maps = new WeakMap<PoolGeneration, MapState>();

/** The map this request (or job) is answered from: the one pinned to it, else the current one. */
const active = (): MapState | undefined => maps.get(activeGeneration());

/** The map answering now (this request's, when one is pinned); undefined without a map. */
export const activeMap = (): LoadedMap | undefined => active()?.map;

/** The directory of the map answering now; MapNotLoadedError without one. */
export function activeMapDir(): string {
  const m = active();
  if (!m) throw new MapNotLoadedError();
  return m.map.dir;
}

/** Milliseconds each compute thread spends on plain routes after one request of each kind. */
export const WARM_UP_BUDGET_MS = 1000;
/** The warm-up's avoiding routes (far pairs around 500 circles: on a country map its longest part) are
 *  stopped this long after the warm-up was asked for, finished or not. */
export const WARM_UP_AVOID_MS = 3000;

export interface WarmUpReport {
  /** From the first thread starting to the last finishing. */
  ms: number;
  threads: ThreadWarmUp[];
}

/**
 * Reads the profiles of a map directory (all four unless `profiles` names a subset), each straight into
 * a shared memory of its own, and the geocoder's index into shared buffers every compute thread reads in
 * place, all through the map's one door (map/map-dir.ts), which checks every file, tiles.bin included,
 * against the manifest's checksums; then starts a new generation
 * of compute threads over them (compute/pool.ts), warms every thread up on it (warm-up.ts) and only then
 * makes it the one new requests go to. Requests already answering from a map loaded before finish on it;
 * its threads and memory go when the last one has. Any profile that cannot be loaded, or a warm-up that
 * fails, fails the whole load, naming it, and leaves the map that was serving as it was.
 */
export async function loadMap(dir: string, profiles: readonly ProfileName[] = PROFILES): Promise<LoadedMap> {
  const files = await MapDir.open(dir);
  dir = files.dir;
  const { id, manifest } = files;
  // The read's own failure is the one reported; the checks of what was read before only end here.
  const reading = async <T>(part: string, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (err) {
      await files.verified().catch(() => {});
      throw new MapLoadError(part, err instanceof Error ? err.message : String(err));
    }
  };
  // Every part is asked for at once: the reader threads read side by side while this thread lays out the
  // profiles whose files have arrived. A part that fails is named, the first in this order.
  const asked = <T>(read: Promise<T>): Promise<T> => {
    read.catch(() => {}); // reported where it is awaited, below
    return read;
  };
  const wanted = PROFILES.filter((p) => profiles.includes(p));
  const shapesRead = asked(files.shapes());
  const graphsRead = wanted.map((profile) =>
    asked(
      (async () => {
        const meta = manifest.profiles[profile];
        if (!meta) throw new Error(`the map in ${dir} has no graph for it`);
        return loadGraph(profile, files, { nodeCount: meta.nodes, edgeCount: meta.edges, geomCount: meta.geometries });
      })(),
    ),
  );
  const geocoderRead = asked(files.geocoder());
  const shapes = await reading('shapes', () => shapesRead);
  const shared: SharedGraphs = { profiles: {}, shapes };
  let bytes = shapeBytes(shapes);
  for (const [i, profile] of wanted.entries()) {
    shared.profiles[profile] = await reading(profile, () => graphsRead[i]);
    bytes += shared.profiles[profile].memory.buffer.byteLength;
  }
  const geocoder = await reading('geocoder', () => geocoderRead);
  await reading('tiles.bin', async () => files.checkTiles());
  try {
    await files.verified();
  } catch (err) {
    const file = err instanceof MapFormatError ? (err.file ?? '') : '';
    throw new MapLoadError(file.includes('/') ? file.split('/')[0] : file || 'map', err instanceof Error ? err.message : String(err));
  }
  const gen = newGeneration({ routing: shared, ...geocoderWorkerData(geocoder), replyArena: arenaBuffer });
  const map: LoadedMap = { dir, id, manifest, files, profiles: Object.keys(shared.profiles) as ProfileName[], bytes, warmUp: { ms: 0, threads: [] } };
  maps.set(gen, { map, graphs: shared, topSpeeds: new Map() });
  try {
    map.warmUp = await runOn(gen, async () => {
      const report = await warmThreads(map, shapes);
      await warmMainThread(map, samplePoints(shapes, 8));
      return report;
    });
  } catch (err) {
    await retire(gen);
    throw new MapLoadError('map', `the compute threads failed to warm up on it: ${err instanceof Error ? err.message : String(err)}`);
  }
  promote(gen);
  return map;
}

/** `count` points on `profile`'s roads of the active map, spread over them (the warm-ups ask there); `span`
 *  of the profile's ways from the middle of their list (1 = all): ways are numbered in the extract's
 *  order, which follows the map closely enough for a small span to stay in one region. */
export function roadPoints(profile: ProfileName, count: number, span = 1): LatLon[] {
  const m = active();
  const pm = m?.graphs.profiles[profile];
  if (!m || !pm) throw new MapNotLoadedError();
  const g = viewGraph(pm, m.graphs.shapes);
  const n = g.geomFirst.length;
  const from = Math.floor((n * (1 - span)) / 2);
  const width = Math.max(1, Math.floor(n * span));
  return Array.from({ length: Math.min(count, n) }, (_, i) => {
    const p = g.geomFirst[Math.min(n - 1, from + Math.floor(((i + 0.5) * width) / count))];
    return { lat: g.shapes.pointsE7[2 * p] * 1e-7, lon: g.shapes.pointsE7[2 * p + 1] * 1e-7 };
  });
}

/** Points spread over the map's roads (the geocoder's warm-up asks there). */
function samplePoints(shapes: Shapes, count: number): LatLon[] {
  const n = shapes.pointsE7.length / 2;
  return Array.from({ length: Math.min(count, n) }, (_, i) => {
    const p = Math.floor(((i + 0.5) * n) / count);
    return { lat: shapes.pointsE7[2 * p] * 1e-7, lon: shapes.pointsE7[2 * p + 1] * 1e-7 };
  });
}

/** One warm-up task per compute thread of the generation the caller runs on (warm-up.ts). */
async function warmThreads(map: LoadedMap, shapes: Shapes): Promise<WarmUpReport> {
  const started = performance.now();
  const threads = poolSize();
  const input: WarmUpInput = {
    barrier: new Int32Array(new SharedArrayBuffer(4)),
    stop: new Int32Array(new SharedArrayBuffer(8 * threads)),
    threads,
    budgetMs: WARM_UP_BUDGET_MS,
    mapDir: map.dir,
    geocoder: map.manifest.geocoder,
    samples: samplePoints(shapes, 8),
  };
  const deadline = setTimeout(() => {
    for (let i = 0; i < input.stop.length; i++) Atomics.store(input.stop, i, 1);
  }, WARM_UP_AVOID_MS);
  const reports = await Promise.all(Array.from({ length: threads }, () => runTask<ThreadWarmUp>('warmUp', input, { ownWork: true }))).finally(() =>
    clearTimeout(deadline),
  );
  return { ms: Math.round(performance.now() - started), threads: reports };
}

/** A full garbage collection in every compute thread of the active map, at once (warm-up.ts,
 *  collectGarbageTask): the last step of a fresh process's warm-up. What each took. */
export async function collectThreadGarbage(): Promise<ThreadCollection[]> {
  const threads = poolSize();
  const input = { barrier: new Int32Array(new SharedArrayBuffer(4)), threads };
  return Promise.all(Array.from({ length: threads }, () => runTask<ThreadCollection>('collectGarbage', input, { ownWork: true })));
}

/** An engine's verdict (no road near, no route) warms the same code as a route: it is not a failure here;
 *  nor is a pool whose queue limit refuses a request (WAYMARK_POOL_QUEUE=0): it refuses every request alike. */
const verdict = (err: unknown): null => {
  if (err instanceof WaypointTooFarError || err instanceof NoRouteError || err instanceof PoolBusyError) return null;
  throw err;
};

/**
 * This thread's side of each kind of request, on the generation the caller runs on: a route avoiding
 * circles (raced over two threads), one split in halves, a matrix and an isochrone, their answers read
 * from the reply arena and given back: the code a first request would otherwise compile.
 */
async function warmMainThread(map: LoadedMap, samples: LatLon[]): Promise<void> {
  if (samples.length < 8) return;
  const profile = map.profiles[0];
  const circles = samples.slice(4).map((p) => ({ ...p, radius: 30 }));
  (await routeJson({ profile, waypoints: [samples[0], samples[3]], avoid: { circles } }).catch(verdict))?.release();
  (await routeJson({ profile, waypoints: samples.slice(0, 4) }).catch(verdict))?.release();
  await matrix({ profile, points: samples.slice(0, 4) }).catch(verdict);
  await isochrone({ profile, source: samples[0], limits: [120] }).catch(verdict);
}

/** The speed (m/s) no way of the profile exceeds: no point is farther in a straight line than this × the
 *  time. Measured over the profile's ways on first use. */
export function topSpeed(profile: ProfileName): number {
  const m = active();
  let speed = m?.topSpeeds.get(profile);
  if (speed === undefined) {
    const pm = m?.graphs.profiles[profile];
    if (!pm || !m) throw new MapNotLoadedError();
    speed = speedRange(viewGraph(pm, m.graphs.shapes)).fastest;
    m.topSpeeds.set(profile, speed);
  }
  return speed;
}

/** The profiles being served (empty without a map). */
export function loadedProfiles(): ProfileName[] {
  return activeMap()?.profiles ?? [];
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

/** A text a compute thread wrote, in place, and how to give its slot back. */
function inPlace(text: Uint8Array | SlotRef): { bytes: Uint8Array; release: () => void } {
  if (text instanceof Uint8Array) return { bytes: text, release: () => {} };
  const release = () => {
    unreleased.unregister(release);
    releaseSlot(arena, text);
  };
  // Held by whoever may still send the text (a reply keeps it to call): when it is collected, no one can.
  unreleased.register(release, text, release);
  return { bytes: slotText(arena, text), release };
}

/** A compute thread's answer as the caller's: the text in place, and how to give its slot back. */
function received(r: RouteJsonTaskResult): RouteJsonResult {
  const { geometryJson, stepsAt, alternatives: others, ...fields } = r;
  const rest = others
    ? {
        ...fields,
        // In the route's slot (released with it) or copies.
        alternatives: others.map(({ geometryJson: text, stepsAt: at, ...a }) => ({
          ...a,
          ...routeTexts(text instanceof Uint8Array ? text : slotText(arena, text), at),
        })),
      }
    : fields;
  const { bytes, release } = inPlace(geometryJson);
  const framed =
    !stepsAt && !others && !(geometryJson instanceof Uint8Array)
      ? { framed: (before: string, after: string) => framedText(arena, geometryJson, before, after) }
      : {};
  return { ...rest, ...routeTexts(bytes, stepsAt), release, ...framed };
}

/** A route's text as its geometry's and, with steps, each leg's steps' (views of it). */
function routeTexts(text: Uint8Array, stepsAt: number[] | undefined): Pick<RouteJsonResult, 'geometryJson' | 'stepsJson'> {
  if (!stepsAt) return { geometryJson: [text] };
  return { geometryJson: [text.subarray(0, stepsAt[0])], stepsJson: stepsAt.slice(1).map((end, i) => text.subarray(stepsAt[i], end)) };
}

/** Arena slots held now: texts received and not yet released. @internal (tests) */
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
  // A route answered by one task writes its legs around its steps: its reply is then one text (withLegs).
  const one = req.steps && !req.alternatives ? { ...req, legsText: true } : req;
  const whole = async () => unwrap(receivedOutcome(await routeTask('routeJson', one)));
  // Only onto two idle threads: a half queued behind a batch job's search slice would wait longer than
  // the whole route takes on one.
  // Alternatives and a loop's legs (each keeps off the ones before) are one search each.
  if (!activeMap() || idleThreads() < 2 || req.alternatives || req.roundTrip) return whole();
  if (req.avoid?.circles.length || req.avoid?.polygons?.length || req.exclude) return (await raced(one)) ?? whole();
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
  if (!activeMap()) throw new MapNotLoadedError();
  if (req.waypoints.length < 2) throw new RangeError('a route needs at least 2 waypoints');
  return runTask<Outcome<T>>(task, req);
}

async function routeIn<T>(task: string, req: RouteRequest): Promise<T> {
  return unwrap(await routeTask<T>(task, req));
}

/** The indexes of the points farther than 500 m (or a point's own `radius`, of its `bearing`) from any road
 *  the profile may use, of a class not in `exclude` (none searched). */
export async function farFromRoad(
  profile: ProfileName,
  points: LatLon[],
  how: { exclude?: number; options?: ReadonlyArray<WaypointOption | null> } = {},
): Promise<number[]> {
  if (!activeMap()) throw new MapNotLoadedError();
  if (!points.length) return [];
  return unwrap(await runTask<Outcome<number[]>>('far', { profile, points, ...how }));
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
  if (!activeMap()) throw new MapNotLoadedError();
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
function matrixRowParts(req: MatrixRequest): Array<{ from: number; to: number }> {
  const loaded = activeMap();
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
  return Array.from({ length: parts }, (_, k) => ({ from: k * size, to: Math.min(n, (k + 1) * size) }));
}

export async function matrix(req: MatrixRequest): Promise<MatrixResult> {
  const n = req.points.length;
  const rowParts = matrixRowParts(req);
  const parts = rowParts.length,
    size = rowParts[0].to;
  const chunks = await Promise.all(rowParts.map((rows) => runTask<Outcome<MatrixResult>>('matrix', { ...req, rows })));
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

export type MatrixJsonResult = Omit<MatrixResult, 'durations' | 'distances' | 'packed'> & {
  /** The rows of each matrix asked for as JSON text in pieces (matrix-json.ts), to join with commas
   *  inside brackets: `[` + pieces.join(',') + `]`. Empty when not asked for. */
  durations: Uint8Array[];
  distances: Uint8Array[];
  /** Gives back the shared memory the texts are in; call once the reply is sent. */
  release: () => void;
};

/** `matrix`, with the cells written as JSON text by the compute threads (shared out as `matrix` does). */
export async function matrixJson(req: Omit<MatrixRequest, 'packed'> & { annotations: { durations: boolean; distances: boolean } }): Promise<MatrixJsonResult> {
  const settled = await Promise.allSettled(matrixRowParts(req).map((rows) => runTask<Outcome<MatrixJsonTaskResult>>('matrixJson', { ...req, rows })));
  const texts = settled.map((s) => (s.status === 'fulfilled' && s.value.ok ? { value: s.value.value, ...inPlace(s.value.value.cellsJson) } : null));
  const release = () => {
    for (const t of texts) t?.release();
  };
  const failed = settled.find((s) => s.status === 'rejected' || !s.value.ok);
  if (failed) {
    release();
    if (failed.status === 'rejected') throw failed.reason;
    unwrap(failed.value);
  }
  const { cellsJson: _c, durationsEnd: _e, ...first } = texts[0]!.value;
  return {
    ...first,
    durations: texts.map((t) => t!.bytes.subarray(0, t!.value.durationsEnd)),
    distances: texts.map((t) => t!.bytes.subarray(t!.value.durationsEnd)),
    release,
  };
}

/** Polygons of what the source reaches within each limit (seconds, or meters with `byDistance`). */
export async function isochrone(req: IsochroneQuery & { profile: ProfileName }): Promise<IsochroneResult> {
  if (!activeMap()) throw new MapNotLoadedError();
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
  if (!activeMap()) throw new MapNotLoadedError();
  return unwrap(await runTask<Outcome<Float64Array>>('travelTimes', req));
}

/** The nearest roads of the profile within the snapping limit, one point per geometry, nearest first. */
export async function nearest(req: { profile: ProfileName; point: LatLon; count: number }): Promise<NearestRoad[]> {
  if (!activeMap()) throw new MapNotLoadedError();
  return unwrap(await runTask<Outcome<NearestRoad[]>>('nearest', req));
}
