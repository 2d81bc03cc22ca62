// `waymark optimize FILE`: solves a VROOM input file (or a Waymark optimize body) and writes VROOM's
// output JSON. Matrices from the file need nothing else; coordinates are routed on the road map (the
// bundled one, or WAYMARK_MAP) or, with --speed, taken as great-circle distances at that speed.
// No database either way. Progress goes to stderr, the answer to stdout or -o.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { closePool, runTask } from '../compute/pool.js';
import { loadConfig } from '../config.js';
import { ensureDefaultMap, stderrProgress } from '../map/build.js';
import { PROFILES, type ProfileName } from '../map/graphs/profiles.js';
import { loadMap, matrixInPieces, WaypointTooFarError } from '../engine/engine.js';
import { travelOf } from '../api/optimize/problem.js';
import type { VrpSolution } from '../engine/vrp/types.js';
import { applyBreaks } from '../engine/vrp/breaks.js';
import { greatCircleMeters } from '../lib/geo/sphere.js';
import { fromWaymark } from './vroom/from-waymark.js';
import {
  flatMatrices,
  inputMatrices,
  isVroomInput,
  parseVroomInput,
  placesOf,
  startingRoutes,
  toVrpProblem,
  VroomInputError,
  type Places,
  type VroomInput,
} from './vroom/input.js';
import { vroomOutput } from './vroom/output.js';

/** VROOM's profile names, and ours. */
const PROFILE_ALIASES: Record<string, ProfileName> = {
  car: 'driving-car',
  hgv: 'driving-hgv',
  truck: 'driving-hgv',
  bike: 'cycling-regular',
  bicycle: 'cycling-regular',
  foot: 'foot-walking',
  walking: 'foot-walking',
};

const say = (text: string) => process.stderr.write(`${text}\n`);

export interface OptimizeOptions {
  output?: string;
  matrix?: boolean;
  speed?: number;
  timeBudget?: number;
  iterations?: number;
  seed?: number;
}

export async function optimizeCommand(file: string, values: OptimizeOptions): Promise<void> {
  const speed = values.speed;
  if (speed !== undefined && !(speed > 0 && speed <= 1000)) throw new Error('--speed must be a number of km/h between 0 and 1000');
  const budgetS = values.timeBudget ?? 60;
  const seed = values.seed ?? 1;

  const started = performance.now();
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${err instanceof SyntaxError ? `not JSON (${err.message})` : (err as Error).message}`);
  }
  try {
    let input: VroomInput;
    let profileName: string;
    if (isVroomInput(doc)) {
      input = parseVroomInput(doc);
      profileName = input.vehicles[0].profile;
    } else {
      ({ input, profile: profileName } = fromWaymark(doc));
    }
    const places = placesOf(input);
    const m = await matricesFor(input, places, { matrixOnly: Boolean(values.matrix), speed, profileName });
    const problem = toVrpProblem(input, places, m.durations, m.distances);
    const loaded = performance.now();

    const stops = problem.jobs.length;
    const iterations = values.iterations ?? 12_000 + 200 * stops;
    const shipments = input.shipments.length ? ` and ${input.shipments.length} shipments` : '';
    say(
      `solving ${input.jobs.length} jobs${shipments} with ${input.vehicles.length} vehicles (${places.size} locations): up to ${iterations} iterations or ${budgetS} s`,
    );
    // Breaks as the API places them: planned by the search, then timed in each route.
    const searched = await withTicker(
      budgetS,
      runTask<VrpSolution>('vrp', {
        problem,
        options: { iterations, timeLimitMs: budgetS * 1000, seed, warmStart: startingRoutes(input) },
      }),
    );
    const solution = applyBreaks(problem, searched);
    const solved = performance.now();
    const out = vroomOutput(input, places, solution, { loading: loaded - started, solving: solved - loaded, routing: 0 }, m.distances !== undefined);
    say(
      `done: ${out.summary.routes} routes, ${stops - out.summary.unassigned} of ${stops} ${shipments ? 'stops' : 'jobs'} assigned, cost ${out.summary.cost}, ${solution.iterations} iterations in ${((solved - loaded) / 1000).toFixed(1)} s`,
    );
    const text = `${JSON.stringify(out)}\n`;
    if (values.output) await writeFile(values.output, text);
    else process.stdout.write(text);
  } catch (err) {
    if (err instanceof VroomInputError) throw new Error(`${file}: ${err.message}`);
    throw err;
  } finally {
    await closePool();
  }
}

interface MatrixChoice {
  matrixOnly: boolean;
  speed: number | undefined;
  profileName: string;
}

async function matricesFor(input: VroomInput, places: Places, how: MatrixChoice): Promise<{ durations: Int32Array; distances?: Float64Array }> {
  const given = inputMatrices(input);
  if (given) {
    const n = given.durations.length;
    if (n < places.size - (places.free === null ? 0 : 1)) throw new VroomInputError(`matrices: ${n} rows, but the locations go up to index ${places.size - 1}`);
    const { durations, distances } = given;
    return flatMatrices(places, places.size - (places.free === null ? 0 : 1), (a, b) => durations[a]?.[b], distances && ((a, b) => distances[a]?.[b]));
  }
  if (!places.coordinates) throw new VroomInputError('matrices: location indices need matrices');
  if (how.matrixOnly) throw new VroomInputError('--matrix: the file gives coordinates and no matrices');
  const points = places.coordinates;
  if (how.speed !== undefined) {
    const metersPerSecond = (how.speed * 1000) / 3600;
    const meters = (a: number, b: number) => greatCircle(points[a], points[b]);
    return flatMatrices(places, points.length, (a, b) => meters(a, b) / metersPerSecond, meters);
  }
  const profile = PROFILE_ALIASES[how.profileName] ?? (PROFILES as readonly string[]).find((p) => p === how.profileName);
  if (!profile)
    throw new VroomInputError(`vehicles.0.profile: '${how.profileName}' is not a profile of the road map (${PROFILES.join(', ')}, or car, hgv, bike, foot)`);
  const config = loadConfig();
  const dir = config.mapDir ?? (await ensureDefaultMap(config.dataDir, stderrProgress()));
  say(`loading the road map ${dir}`);
  await loadMap(dir, [profile]);
  try {
    const m = travelOf(
      await matrixInPieces({ profile, points: points.map(([lon, lat]) => ({ lat, lon })) }, (percent) => {
        say(`road matrix ${percent}%`);
      }),
    );
    return flatMatrices(places, points.length, m.duration, m.distance);
  } catch (err) {
    if (err instanceof WaypointTooFarError) {
      throw new VroomInputError(
        `${err.indexes.length > 1 ? 'locations' : 'location'} ${err.indexes.map((i) => `[${points[i].join(', ')}]`).join(', ')} ${err.indexes.length > 1 ? 'are' : 'is'} more than 500 m from a road of the ${profile} profile on ${dir} (route it on another map with WAYMARK_MAP, or use --speed)`,
      );
    }
    throw err;
  }
}

/** Meters between [lon, lat] points on the mean Earth sphere. */
const greatCircle = (a: [number, number], b: [number, number]): number => greatCircleMeters(a[1], a[0], b[1], b[0]);

/** Elapsed time on stderr while the search runs (a line a second on a terminal, every 10 s otherwise). */
async function withTicker<T>(budgetS: number, work: Promise<T>): Promise<T> {
  const started = Date.now();
  const tty = process.stderr.isTTY;
  const timer = setInterval(() => {
    const s = Math.round((Date.now() - started) / 1000);
    if (tty) process.stderr.write(`\rsearching… ${s} s of at most ${budgetS} s`);
    else if (s % 10 === 0) say(`searching… ${s} s of at most ${budgetS} s`);
  }, 1000);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    if (tty) process.stderr.write('\n');
  }
}
