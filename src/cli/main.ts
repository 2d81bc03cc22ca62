import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import pino, { type Logger } from 'pino';
import { ConfigError, loadConfig, mapSettingAsWritten, type Config } from '../config.js';
import { asConnectionError, isConnectionLost, isDatabaseUnavailable } from '../db/errors.js';
import { projectRoot } from '../lib/paths.js';
import { keyCommand, teamCommand, type WithDatabase } from './admin-commands.js';
import { output, wholeNumber } from './args.js';
import type { OptimizeOptions } from './optimize-command.js';
import { reachCommands } from './reach-commands.js';
import { userCommand } from './user-commands.js';
import { setBackgroundLog } from '../lib/background-errors.js';

// The service's modules (uWS, the pool, the map code) load only for the commands that use them:
// `--help`, `--version` and a mistyped command answer without them.
const service = () => import('./service.js');

/** Exit codes: 0 done, 1 the work failed (its reason on stderr), 2 the command line was wrong (usage on stderr). */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * SIGTERM and SIGINT stop the process gracefully and exit 0. A second signal, or a stop that overruns
 * the shutdown timeout by 5 s (a database that does not answer its goodbyes), exits 1 at once.
 */
function onShutdownSignal(log: Logger, timeoutMs: number, close: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, timeoutMs }, 'shutting down');
    setTimeout(() => {
      log.error({ timeoutMs }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, timeoutMs + 5000).unref();
    close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** For the long-running commands: postgres.js 3.4.9 can reject a promise nobody holds when a connection
 *  dies at the wrong moment (porsager/postgres#1133, #1154, #1208); Node would end the process, and
 *  every request with it. */
function keepRunningOnStrayRejections(log: Logger): void {
  process.on('unhandledRejection', (err) => {
    if (isConnectionLost(err)) log.warn({ err: asConnectionError(err) }, 'postgres.js dropped a statement of a connection that had closed');
    else log.error({ err }, 'unhandled rejection (process kept running)');
  });
}

async function serve(config: Config, demo: boolean): Promise<void> {
  keepRunningOnStrayRejections(pino({ level: config.logLevel }));
  const { startApp, ensureDemoKey, ensureDemoUser } = await service();
  const app = await startApp(config);
  const base = `http://localhost:${app.port}`;
  // Always printed, whatever the log level: scripts and process supervisors wait for this line.
  console.log(`waymark listening on ${base}`);
  if (demo) {
    const key = await ensureDemoKey(app.sql, config.dataDir);
    const user = await ensureDemoUser(app.sql, config.dataDir, key.teamId);
    console.log(
      `\nWaymark is running.\n  API:     ${base}/v1\n  Health:  ${base}/health  (ready: ${base}/ready)\n  API key: ${key.key}  (team ${key.teamId}, enterprise demo)\n\n  curl -H 'X-API-KEY: ${key.key}' ${base}/v1/info\n`,
    );
    console.log(`  Dashboard: ${base}/dashboard/\n  Sign in:   ${user.email} / ${user.password}\n`);
  }
  onShutdownSignal(app.log, config.shutdownTimeoutMs, () => app.close());
  onReloadSignal(app.reloadMap);
}

/** SIGHUP: look at WAYMARK_MAP's link now, and load the map it points at (a refused one again too). */
function onReloadSignal(reload: (() => Promise<void>) | undefined): void {
  process.on('SIGHUP', () => void reload?.());
}

async function worker(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel });
  keepRunningOnStrayRejections(log);
  setBackgroundLog(log);
  const { configurePool, openDatabase, startJobRunner, openMap, startGeocoding, closePool, MapSwaps } = await service();
  configurePool(config);
  const { sql, embedded } = await openDatabase(config, log, { share: true, wait: true });
  // The map first: a runner with a map also takes optimization jobs.
  const mapDir = await openMap(config, log);
  const runner = await startJobRunner(sql, log, { leaseMs: config.jobLeaseMs, mapDir });
  log.info({ runner: runner.runnerId }, 'job runner started');
  const geocoding = mapDir ? await startGeocoding(sql, { mapDir, log: log.child({ component: 'geocoding' }), leaseMs: config.jobLeaseMs }) : undefined;
  // Jobs and geocoding batches follow WAYMARK_MAP's link as serve does (ops/map-swap.ts).
  const swaps = config.mapDir && config.mapDir !== 'off' ? new MapSwaps({ link: config.mapDir, profiles: config.profiles, log }).watch() : undefined;
  onReloadSignal(swaps && (() => swaps.check(true)));
  onShutdownSignal(log, config.shutdownTimeoutMs, async () => {
    swaps?.stop();
    // Running jobs are given back (another process resumes them at once), batches in flight finish.
    await Promise.allSettled([runner.stop(config.shutdownTimeoutMs), geocoding?.stop()]);
    await closePool();
    await sql.end({ timeout: 2 });
    await embedded?.stop();
  });
}

/** The command's notes below its flags in `waymark optimize --help`. */
const OPTIMIZE_NOTES = `Supported: jobs with service, setup, amounts (delivery, pickup, amount), skills, time
windows and priority; shipments (pickup, then delivery, by one vehicle, the amount on board between;
served whole or left out whole); vehicles with start and/or end, capacity, skills, time window,
max_tasks, max_travel_time, max_distance, speed_factor and steps (taken as the starting plan).
Amounts have up to 8 dimensions (weight, volume...), as many as the vehicles' capacities (an absent
one is zeros). Deliveries ride from the start, pickups to the end, and the load after every step
stays within capacity in every dimension. Breaks (with max_load) and each vehicle's costs (fixed,
per_hour, per_km: per_km needs distances) and speed_factor are honoured, the objective being VROOM's
cost. Times are whole seconds, distances meters.`;

/** The command line, every command with its own --help. */
export function program(): Command {
  const withDatabase: WithDatabase = async (work) => {
    const config = loadConfig();
    const { openDatabase } = await service();
    const { sql, embedded } = await openDatabase(config, pino({ level: 'warn' }), { share: true });
    try {
      await work(sql);
    } finally {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    }
  };

  const cli = new Command('waymark')
    .description(
      'Self-hostable points-of-interest and routing service.\nSettings come from the environment (see .env.example); add --json to a command for machine-readable output.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpCommand('help [command]', 'help for a command');

  cli
    .command('start')
    .description('first start: migrate, make a demo team, key and dashboard user, serve, print the URLs')
    .action(() => serve(loadConfig(), true));
  cli
    .command('serve')
    .description('serve the API (PORT, DATABASE_URL, WAYMARK_MAP, … from the environment)')
    .action(() => serve(loadConfig(), false));
  cli
    .command('worker')
    .description('run only the background work (imports; geocoding and optimizations with a map); WAYMARK_JOBS=off keeps it out of serve')
    .action(() => worker(loadConfig()));
  cli.addCommand(teamCommand(withDatabase));
  cli.addCommand(keyCommand(withDatabase));
  cli.addCommand(userCommand(withDatabase));
  const map = cli.command('map').description('build routing maps, and switch running processes to another');
  map
    .command('build')
    .description('build a map from an OpenStreetMap extract (progress on stderr)')
    .requiredOption('--osm <file>', 'the .osm.pbf extract')
    .requiredOption('--out <dir>', 'the map directory to write')
    .option('--json', 'print the manifest as JSON')
    .action(async (o) => {
      const { runMapBuild } = await service();
      const manifest = await runMapBuild(o.osm, o.out);
      output(o.json, manifest, `map written to ${o.out} (serve it with WAYMARK_MAP=${o.out})`);
    });
  map
    .command('activate')
    .description(
      "point WAYMARK_MAP's link at a built map: every serve and worker using the link loads it beside the one serving and switches to it within seconds (at once on SIGHUP), with no request lost",
    )
    .argument('<dir>', 'the map directory (from waymark map build)')
    .option('--link <path>', 'the symbolic link the processes were started with as WAYMARK_MAP (default: WAYMARK_MAP)')
    .option('--json', 'print the result as JSON')
    .action(async (dir: string, o: { link?: string; json?: boolean }, cmd: Command) => {
      const link = o.link ?? mapSettingAsWritten();
      if (!link || link === 'off') cmd.error('error: map activate needs --link or WAYMARK_MAP naming the link to move', { exitCode: EXIT_USAGE });
      const { activateMap, MAP_WATCH_MS } = await service();
      const done = await activateMap(dir, link);
      output(
        o.json,
        { ...done, link },
        `map ${done.id} (${done.dir}) is now behind ${link}: processes with WAYMARK_MAP=${link} switch to it within ${MAP_WATCH_MS / 1000} s plus its load (at once on SIGHUP); /ready says which map answers`,
      );
    });
  cli
    .command('import')
    .description('import a CSV file of POIs for a team (processed here, progress on stderr)')
    .argument('<file>', 'the CSV file')
    .requiredOption('--team <id>', 'the team id')
    .option('--create-missing-attributes', 'create the attributes the header names that the team lacks')
    .option('--json', 'print the finished import as JSON')
    .action(async (file: string, o) => {
      const config = loadConfig();
      const { configurePool, openDatabase, importCommand } = await service();
      configurePool(config);
      const log = pino({ level: 'warn' });
      const { sql, embedded } = await openDatabase(config, log, { share: true });
      try {
        await importCommand(sql, log, file, o, config.jobLeaseMs);
      } finally {
        await sql.end({ timeout: 5 });
        await embedded?.stop();
      }
    });
  cli
    .command('optimize')
    .description('solve a VROOM-format (or Waymark optimize) problem; VROOM-format output (progress on stderr)')
    .argument('<file>', 'the problem as JSON (- reads standard input)')
    .option('-o, --output <file>', 'write the answer to this file instead of standard output')
    .option('--matrix', "use only the file's matrices: no road map is loaded (coordinates are an error)")
    .option('--speed <kmh>', 'coordinates without a road map: great-circle distances driven at this speed', Number)
    .option('--time-budget <s>', 'stop the search after this many seconds (default 60)', wholeNumber('--time-budget'))
    .option('--iterations <n>', 'search iterations (default 12000 + 200 per job); the same file and n give the same plan', wholeNumber('--iterations'))
    .option('--seed <n>', 'random seed (default 1)', wholeNumber('--seed'))
    .addHelpText('after', `\n${OPTIMIZE_NOTES}`)
    .action(async (file: string, o: OptimizeOptions) => {
      const { optimizeCommand } = await import('./optimize-command.js');
      await optimizeCommand(file, o);
    });
  for (const command of reachCommands()) cli.addCommand(command);
  // Every command, also those built on their own (team, key, user): errors are thrown to `main`, which
  // picks the exit code, rather than ending the process from inside commander.
  const configure = (command: Command): void => {
    command.exitOverride().showHelpAfterError('(add --help for usage)');
    command.commands.forEach(configure);
  };
  configure(cli);
  return cli;
}

/** A failure in words for the operator: configuration and database problems say which setting to look at. */
function describe(err: unknown): string {
  if (err instanceof ConfigError) return err.message;
  if (isDatabaseUnavailable(err)) return `cannot reach the database (check DATABASE_URL): ${(err as Error).message}`;
  if (err && typeof err === 'object' && (err as { name?: string }).name === 'PostgresError') {
    return `the database refused the change (${(err as { code?: string }).code}): ${(err as Error).message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Runs the command line; resolves with the exit code once a one-shot command is done (long-running
 *  ones resolve once started and exit on their signal). */
export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    await program().parseAsync(argv, { from: 'user' });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with code 0; usage went to stderr already.
      return err.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    const message = describe(err);
    console.error(json ? JSON.stringify({ error: message }) : `waymark: ${message}`);
    return EXIT_FAILED;
  }
}
