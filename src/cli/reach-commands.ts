// The command lines of `waymark matrix`, `waymark isochrone` and `waymark nearest`; the work is in
// reach-run.ts, loaded only when one of them runs (the engine and the map code are heavy).
import { Command, InvalidArgumentError, Option } from 'commander';
import { PROFILES } from '../map/graphs/profiles.js';

const run = () => import('./reach-run.js');

/** A flag's number within ±max; a bad one is a usage error (exit 2) naming the flag. */
const degrees =
  (flag: string, max: number) =>
  (value: string): number => {
    const x = Number(value);
    if (value.trim() === '' || !Number.isFinite(x)) throw new InvalidArgumentError(`${flag} must be a number between -${max} and ${max}`);
    if (x < -max || x > max) throw new InvalidArgumentError(`${flag} must be between -${max} and ${max}`);
    return x;
  };

const positive =
  (flag: string) =>
  (value: string): number => {
    const x = Number(value);
    if (value.trim() === '' || !Number.isFinite(x) || x <= 0) throw new InvalidArgumentError(`${flag} must be a number greater than 0`);
    return x;
  };

const whole =
  (flag: string) =>
  (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${flag} must be a whole number`);
    return Number(value);
  };

const MAP_HELP = 'the road map directory (default: WAYMARK_MAP, else the bundled Liechtenstein map, built on first use)';
const JSON_HELP = 'errors as {"error": "…"} on stderr (the answer is always JSON)';

/** Runs the work; its UsageError (a bad input file or flag value) becomes commander's usage error: exit 2. */
async function asUsage(command: Command, work: () => Promise<void>): Promise<void> {
  const { UsageError } = await run();
  try {
    await work();
  } catch (err) {
    if (err instanceof UsageError) command.error(`error: ${err.message}`, { exitCode: 2, code: 'waymark.usage' });
    throw err;
  }
}

const pointOptions = (command: Command): Command =>
  command
    .requiredOption('--latitude <lat>', 'the point: latitude (WGS84 degrees)', degrees('--latitude', 90))
    .requiredOption('--longitude <lon>', 'the point: longitude (WGS84 degrees)', degrees('--longitude', 180))
    .addOption(new Option('--profile <profile>', 'the routing profile').choices(PROFILES).default('driving-car'))
    .option('--map <dir>', MAP_HELP)
    .option('-o, --output <file>', 'write the answer to this file instead of standard output')
    .option('--json', JSON_HELP);

const MATRIX_NOTES = `The file: {"profile": "driving-car", "sources": [{"latitude": 47.14, "longitude": 9.52}, …],
"destinations": [ … ], "annotations": ["duration", "distance"]}. Coordinates only: no poi_id, no
avoid, no vehicle (those need the API's POST /v1/matrix). destinations is optional (without it, all to
all over sources); up to 2,000 sources and 2,000 destinations (more than 400,000 cells go by pieces
of rows, with progress on stderr). Points snap to the main road network's nearest road within 500 m.
The answer, as the API's data: {profile, durations, distances, sources, destinations}: seconds and
meters rounded to tenths, [source][destination], null where no route exists; each source and
destination with its snapped location, snapped_distance (m) and road name.
Exit codes: 2 for a bad file (every bad field named: sources.3.latitude, …), 1 for a point more than
500 m from a road usable by the profile (named).`;

const ISOCHRONE_NOTES = `The answer, as the API's data: a GeoJSON FeatureCollection, one feature per value (ascending,
cumulative), a Polygon or MultiPolygon with properties group_index, value, range_type, center (the
snapped point) and area (m²). Values: time 1–3600 s, distance 1–100,000 m, at most 10, increasing.
Exit 1 when the point is more than 500 m from a road usable by the profile.`;

const NEAREST_NOTES = `The answer, as the API's data: up to --number roads usable by the profile within 500 m, nearest
first: [{location, distance (m), name, ref, bearing}]; an empty list (and a note on stderr) when none.`;

/** `waymark matrix`, `waymark isochrone`, `waymark nearest`. */
export function reachCommands(): Command[] {
  const matrix = new Command('matrix')
    .description('durations and distances between points on the road map (as POST /v1/matrix; no database)')
    .argument('<file>', 'the request as JSON (- reads standard input)')
    .option('--map <dir>', MAP_HELP)
    .option('-o, --output <file>', 'write the answer to this file instead of standard output')
    .option('--json', JSON_HELP)
    .addHelpText('after', `\n${MATRIX_NOTES}`)
    .action(async (file: string, o) => {
      await asUsage(matrix, async () => (await run()).matrixCommand(file, o));
    });
  const isochrone = pointOptions(
    new Command('isochrone').description('the area reachable from a point within times or road distances, as GeoJSON (as POST /v1/isochrones)'),
  )
    .option('--range <values>', 'comma-separated increasing values: seconds, or meters with --range-type distance (default 600, or 5000 m)')
    .addOption(new Option('--range-type <type>', 'what --range measures').choices(['time', 'distance']).default('time'))
    .option('--interval <n>', 'with a single --range value: bands every n up to it (at most 10)', positive('--interval'))
    .addHelpText('after', `\n${ISOCHRONE_NOTES}`)
    .action(async (o) => {
      await asUsage(isochrone, async () => (await run()).isochroneCommand(o));
    });
  const nearest = pointOptions(new Command('nearest').description('the nearest roads to a point that a profile may use (as GET /v1/nearest)'))
    .option('--number <n>', 'how many roads, 1 to 10', whole('--number'), 1)
    .addHelpText('after', `\n${NEAREST_NOTES}`)
    .action(async (o) => {
      await asUsage(nearest, async () => (await run()).nearestCommand(o));
    });
  return [matrix, isochrone, nearest];
}
