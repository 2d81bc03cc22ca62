// `waymark matrix`, `waymark isochrone`, `waymark nearest`: the reachability answers of the HTTP API
// (docs/reachability.md) computed here on a road map, without a database or a server. The map is --map,
// else WAYMARK_MAP, else the bundled Liechtenstein extract's (built on first use, as `waymark start` does).
// Answers go to stdout (or -o) as the API's `data`; a bad file or flag value is a UsageError (exit 2,
// naming the field), a point too far from a road fails the work (exit 1, naming the point).
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { closePool } from '../compute/pool.js';
import { loadConfig } from '../config.js';
import { ensureDefaultMap, stderrProgress } from '../map/build.js';
import { MapDir } from '../map/map-dir.js';
import { PROFILES, type ProfileName } from '../map/graphs/profiles.js';
import { farFromRoad, isochrone, loadMap, matrix, nearest, type MatrixResult } from '../engine/engine.js';
import { featureCollection, isochroneFeatures } from '../api/isochrones/features.js';
import { snappedPoint } from '../api/matrix/snapped.js';
import type { LatLon } from '../lib/lat-lon.js';
import { micro } from '../engine/line-json.js';

/** The largest matrix side here (the batch optimizer's); the HTTP endpoint stops at 100. */
const MAX_CLI_MATRIX = 2000;
/** Matrix cells per engine call: a larger matrix goes by pieces of rows, with progress on stderr. */
const PIECE_CELLS = 400_000;
const MAX_RANGE_S = 3600;
const MAX_RANGE_M = 100_000;
const MAX_VALUES = 10;
const MAX_NEAREST = 10;

/** A bad command line or input file: exit 2 with this message. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const say = (text: string) => process.stderr.write(`${text}\n`);
const tenths = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);

export interface MapOption {
  map?: string;
  output?: string;
}

/** --map, else WAYMARK_MAP, else the bundled extract's map (built into the data directory on first use). */
async function mapDir(flag: string | undefined): Promise<string> {
  if (flag !== undefined) {
    await MapDir.open(flag).catch((err: Error) => {
      throw new UsageError(`--map: no map directory at '${flag}': ${err.message}`);
    });
    return flag;
  }
  const config = loadConfig();
  if (config.mapDir === 'off') throw new Error('WAYMARK_MAP=off: no road map; name one with --map');
  return config.mapDir ?? (await ensureDefaultMap(config.dataDir, stderrProgress()));
}

/** Loads the map's one profile, runs the work, and stops the pool's threads whatever happens. */
async function withMap<T>(o: MapOption, profile: ProfileName, work: (dir: string) => Promise<T>): Promise<void> {
  const dir = await mapDir(o.map);
  try {
    await loadMap(dir, [profile]);
    const answer = await work(dir);
    const text = `${JSON.stringify(answer)}\n`;
    if (o.output) await writeFile(o.output, text);
    else process.stdout.write(text);
  } finally {
    await closePool();
  }
}

const farMessage = (profile: ProfileName, dir: string) => `more than 500 m from a road usable by the ${profile} profile on the map ${dir}`;

// ---------------------------------------------------------------------------------------------- matrix

interface MatrixBody {
  profile: ProfileName;
  sources: LatLon[];
  destinations: LatLon[] | null;
  annotations: Set<'duration' | 'distance'>;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function coordinate(value: unknown, field: string, max: number, problems: string[]): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) problems.push(`${field}: must be a number between -${max} and ${max}`);
  else if (value < -max || value > max) problems.push(`${field}: must be between -${max} and ${max}`);
  return value as number;
}

function locations(value: unknown, field: string, problems: string[]): LatLon[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CLI_MATRIX) {
    problems.push(`${field}: must be an array of 1 to ${MAX_CLI_MATRIX} locations`);
    return [];
  }
  return value.map((l, i) => {
    const at = `${field}.${i}`;
    if (!isObject(l)) {
      problems.push(`${at}: must be an object {latitude, longitude}`);
      return { lat: 0, lon: 0 };
    }
    for (const key of Object.keys(l)) {
      if (key === 'poi_id') problems.push(`${at}.poi_id: the CLI takes coordinates only (POIs need the API's POST /v1/matrix)`);
      else if (key !== 'latitude' && key !== 'longitude') problems.push(`${at}.${key}: unknown field`);
    }
    // A POI instead of coordinates is named once, not also for the coordinates it lacks.
    if (Object.hasOwn(l, 'poi_id') && l.latitude === undefined && l.longitude === undefined) return { lat: 0, lon: 0 };
    return { lat: coordinate(l.latitude, `${at}.latitude`, 90, problems), lon: coordinate(l.longitude, `${at}.longitude`, 180, problems) };
  });
}

/** The matrix file's body, every problem named at once (by its path in the file). */
function parseMatrixBody(doc: unknown): MatrixBody {
  if (!isObject(doc)) throw new UsageError('the file must hold a JSON object {profile?, sources, destinations?, annotations?}');
  const problems: string[] = [];
  for (const key of Object.keys(doc)) {
    if (key === 'avoid' || key === 'vehicle') problems.push(`${key}: not supported by the CLI (the API's POST /v1/matrix takes it)`);
    else if (!['profile', 'sources', 'destinations', 'annotations'].includes(key)) problems.push(`${key}: unknown field`);
  }
  const profile = doc.profile ?? 'driving-car';
  if (!(PROFILES as readonly unknown[]).includes(profile)) problems.push(`profile: must be one of ${PROFILES.join(', ')}`);
  if (doc.sources === undefined) problems.push('sources: is required');
  const sources = doc.sources === undefined ? [] : locations(doc.sources, 'sources', problems);
  const destinations = doc.destinations === undefined ? null : locations(doc.destinations, 'destinations', problems);
  const annotations = doc.annotations ?? ['duration', 'distance'];
  if (
    !Array.isArray(annotations) ||
    annotations.length === 0 ||
    annotations.some((a) => a !== 'duration' && a !== 'distance') ||
    new Set(annotations).size !== annotations.length
  ) {
    problems.push('annotations: must name duration, distance or both, each once');
  }
  if (problems.length) throw new UsageError(problems.join('\n'));
  return { profile: profile as ProfileName, sources, destinations, annotations: new Set(annotations as Array<'duration' | 'distance'>) };
}

export async function matrixCommand(file: string, o: MapOption): Promise<void> {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: ${err instanceof SyntaxError ? `not JSON (${err.message})` : (err as Error).message}`);
  }
  const body = parseMatrixBody(doc);
  await withMap(o, body.profile, async (dir) => {
    const { profile, sources, destinations } = body;
    const columns = destinations ?? sources;
    const all = destinations ? [...sources, ...destinations] : sources;
    const far = await farFromRoad(profile, all);
    if (far.length) {
      const name = (i: number) => {
        const field = i < sources.length ? `sources.${i}` : `destinations.${i - sources.length}`;
        return `${field} (${all[i].lat}, ${all[i].lon})`;
      };
      throw new Error(`${far.map(name).join(', ')} ${far.length > 1 ? 'are' : 'is'} ${farMessage(profile, dir)}`);
    }
    const m = await matrixByRows(profile, sources, destinations);
    const n = sources.length;
    const point = (at: LatLon, snapped: LatLon, offset: number, name: string | null | undefined) =>
      snappedPoint({ poiId: null, latitude: at.lat, longitude: at.lon }, snapped, offset, name);
    return {
      profile,
      ...(body.annotations.has('duration') ? { durations: m.durations.map((r) => r.map(tenths)) } : {}),
      ...(body.annotations.has('distance') ? { distances: m.distances.map((r) => r.map(tenths)) } : {}),
      sources: sources.map((at, i) => point(at, m.snapped[i], m.offsets[i], m.names?.[i])),
      destinations: columns.map((at, j) =>
        destinations ? point(at, m.snappedTargets![j], m.offsets[n + j], m.names?.[n + j]) : point(at, m.snapped[j], m.offsets[j], m.names?.[j]),
      ),
    };
  });
}

/**
 * The engine's matrix, in one call when it is small and by pieces of rows (each against every column)
 * otherwise: every point snaps on its own, so the pieces join into the matrix of one call. All to all
 * in pieces, a row's own column is 0 as in one call.
 */
async function matrixByRows(profile: ProfileName, sources: LatLon[], destinations: LatLon[] | null): Promise<MatrixResult> {
  const columns = destinations ?? sources;
  const rowsPerPiece = Math.max(1, Math.floor(PIECE_CELLS / columns.length));
  if (sources.length <= rowsPerPiece) return matrix({ profile, points: sources, targets: destinations ?? undefined });
  const n = sources.length;
  const whole: MatrixResult = { durations: [], distances: [], snapped: [], snappedTargets: [], offsets: [], names: [] };
  const targetOffsets: number[] = [];
  const targetNames: Array<string | null> = [];
  const started = Date.now();
  for (let from = 0; from < n; from += rowsPerPiece) {
    const to = Math.min(n, from + rowsPerPiece);
    const part = await matrix({ profile, points: sources.slice(from, to), targets: columns });
    const rows = to - from;
    for (let i = 0; i < rows; i++) {
      if (!destinations) {
        part.durations[i][from + i] = 0;
        part.distances[i][from + i] = 0;
      }
      whole.durations.push(part.durations[i]);
      whole.distances.push(part.distances[i]);
      whole.snapped.push(part.snapped[i]);
      whole.offsets.push(part.offsets[i]);
      whole.names!.push(part.names?.[i] ?? null);
    }
    if (from === 0) {
      whole.snappedTargets = part.snappedTargets;
      targetOffsets.push(...part.offsets.slice(rows));
      targetNames.push(...(part.names?.slice(rows) ?? columns.map(() => null)));
    }
    say(`matrix ${Math.round((100 * to) / n)}% (${to} of ${n} rows, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  if (destinations) {
    whole.offsets.push(...targetOffsets);
    whole.names!.push(...targetNames);
  } else {
    delete whole.snappedTargets;
  }
  return whole;
}

// ------------------------------------------------------------------------------------------- isochrone

export interface PointOptions extends MapOption {
  latitude: number;
  longitude: number;
  profile: ProfileName;
}

export interface IsochroneOptions extends PointOptions {
  range?: string;
  rangeType: 'time' | 'distance';
  interval?: number;
}

/** The range values asked for: --range's list (or its default), or --interval's bands up to its one value. */
function rangeValues(o: IsochroneOptions): number[] {
  const byTime = o.rangeType === 'time';
  const max = byTime ? MAX_RANGE_S : MAX_RANGE_M;
  const unit = byTime ? 'seconds' : 'meters';
  const text = o.range ?? (byTime ? '600' : '5000');
  const values = text.split(',').map((v) => v.trim());
  if (values.length > MAX_VALUES) throw new UsageError(`--range: at most ${MAX_VALUES} values`);
  const numbers = values.map((v, i) => {
    const x = Number(v);
    if (v === '' || !Number.isFinite(x) || x <= 0) throw new UsageError(`--range: '${v}' (value ${i + 1}) must be a number greater than 0`);
    if (x > max) throw new UsageError(`--range: ${v} (value ${i + 1}) must be at most ${max} ${unit} for --range-type ${o.rangeType}`);
    if (i > 0 && x <= Number(values[i - 1])) throw new UsageError(`--range: ${v} (value ${i + 1}) must be greater than the value before it`);
    return x;
  });
  if (o.interval === undefined) return numbers;
  if (numbers.length !== 1) throw new UsageError('--interval: is only allowed with a single --range value');
  const interval = o.interval;
  const count = Math.ceil(numbers[0] / interval - 1e-9);
  if (count > MAX_VALUES) throw new UsageError(`--interval: makes ${count} bands; at most ${MAX_VALUES} (use a larger interval)`);
  return Array.from({ length: count }, (_, k) => Math.min(numbers[0], (k + 1) * interval));
}

async function refuseFar(profile: ProfileName, point: LatLon, dir: string): Promise<void> {
  if ((await farFromRoad(profile, [point])).length) throw new Error(`the point (${point.lat}, ${point.lon}) is ${farMessage(profile, dir)}`);
}

export async function isochroneCommand(o: IsochroneOptions): Promise<void> {
  const values = rangeValues(o);
  const source = { lat: o.latitude, lon: o.longitude };
  await withMap(o, o.profile, async (dir) => {
    await refuseFar(o.profile, source, dir);
    const found = await isochrone({ profile: o.profile, source, limits: values, byDistance: o.rangeType === 'distance' });
    return featureCollection(isochroneFeatures(found, values, 0, { poiId: null, latitude: o.latitude, longitude: o.longitude }, o.rangeType));
  });
}

// --------------------------------------------------------------------------------------------- nearest

export interface NearestOptions extends PointOptions {
  number: number;
}

export async function nearestCommand(o: NearestOptions): Promise<void> {
  if (!Number.isInteger(o.number) || o.number < 1 || o.number > MAX_NEAREST) throw new UsageError(`--number: must be a whole number from 1 to ${MAX_NEAREST}`);
  await withMap(o, o.profile, async (dir) => {
    const roads = await nearest({ profile: o.profile, point: { lat: o.latitude, lon: o.longitude }, count: o.number });
    if (!roads.length) say(`no road of the ${o.profile} profile within 500 m of (${o.latitude}, ${o.longitude}) on the map ${dir}`);
    return roads.map((r) => ({
      location: { latitude: micro(r.lat), longitude: micro(r.lon) },
      distance: Math.round(r.distance * 10) / 10,
      name: r.name,
      ref: r.ref,
      bearing: Math.round(r.bearing * 10) / 10,
    }));
  });
}
