import pino, { type Logger } from 'pino';
import { openDatabase, openMap, startApp } from '../app.js';
import { closePool } from '../compute/pool.js';
import { loadConfig } from '../config.js';
import { asConnectionError, isConnectionLost } from '../db/errors.js';
import { startGeocoding } from '../geo/geocoding-worker.js';
import { startJobRunner } from '../jobs/start.js';
import { runMapBuild } from '../map/build.js';
import { keyCommand, teamCommand } from './admin-commands.js';
import { output, parse } from './args.js';
import { ensureDemoKey } from './demo.js';
import { importCommand } from './import-command.js';
import { optimizeCommand } from './optimize-command.js';
import { userCommand } from './user-commands.js';
import { ensureDemoUser } from '../dashboard/demo.js';

const USAGE = `waymark <command>

  start                      first start: migrate, ensure a demo team and key, serve, print the URLs
  serve                      serve the API (PORT, DATABASE_URL, WAYMARK_MAP)
  team create --name N --plan basic|pro|enterprise [--poi-limit N] [--rate-limit N] [--inactive]
  team update ID [--name N] [--plan P] [--active|--inactive] [--poi-limit N|default] [--rate-limit N|default]
  key create --team ID --name N --permissions all|p1,p2 [--expires ISO]
  key list --team ID
  key activate|deactivate|delete ID
  user create --team ID --email E    a dashboard user (password from standard input or a prompt)
  user reset-password --email E      a new password (from standard input or a prompt); ends their sessions
  map build --osm FILE.osm.pbf --out DIR
  import FILE --team ID [--create-missing-attributes]
                             import a CSV file (processed here, progress on stderr)
  optimize FILE [--matrix] [-o OUT] [--time-budget S]
                             solve a VROOM-format (or Waymark optimize) problem; VROOM-format output
  worker                     run only the background work (imports; geocoding and optimizations with a map); WAYMARK_JOBS=off
                             keeps it out of serve

Add --json for machine-readable output.`;

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

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  if (command === 'serve' || command === 'start' || command === 'worker') {
    // postgres.js 3.4.9 can reject a promise nobody holds when a connection dies at the wrong moment
    // (its type lookup on a new connection, a write it schedules itself after the socket closed:
    // porsager/postgres#1133, #1154, #1208). Node would end the process, and every request with it.
    const log = pino({ level: config.logLevel });
    process.on('unhandledRejection', (err) => {
      if (isConnectionLost(err)) log.warn({ err: asConnectionError(err) }, 'postgres.js dropped a statement of a connection that had closed');
      else log.error({ err }, 'unhandled rejection (process kept running)');
    });
  }
  switch (command) {
    case 'serve':
    case 'start': {
      const app = await startApp(config);
      const base = `http://localhost:${app.port}`;
      // Always printed, whatever the log level: scripts and process supervisors wait for this line.
      console.log(`waymark listening on ${base}`);
      if (command === 'start') {
        const demo = await ensureDemoKey(app.sql, config.dataDir);
        const user = await ensureDemoUser(app.sql, config.dataDir, demo.teamId);
        console.log(`\nWaymark is running.\n  API:     ${base}/v1\n  Health:  ${base}/health\n  API key: ${demo.key}  (team ${demo.teamId}, enterprise demo)\n\n  curl -H 'X-API-KEY: ${demo.key}' ${base}/v1/info\n`);
        console.log(`  Dashboard: ${base}/dashboard/\n  Sign in:   ${user.email} / ${user.password}\n`);
      }
      onShutdownSignal(app.log, config.shutdownTimeoutMs, () => app.close());
      return;
    }
    case 'team':
    case 'key':
    case 'user': {
      const { sql, embedded } = await openDatabase(config, pino({ level: 'warn' }), { share: true });
      try {
        await (command === 'team' ? teamCommand : command === 'user' ? userCommand : keyCommand)(sql, rest);
      } finally {
        await sql.end({ timeout: 5 });
        await embedded?.stop();
      }
      return;
    }
    case 'import': {
      const log = pino({ level: 'warn' });
      const { sql, embedded } = await openDatabase(config, log, { share: true });
      try {
        await importCommand(sql, log, rest, config.jobLeaseMs);
      } finally {
        await sql.end({ timeout: 5 });
        await embedded?.stop();
      }
      return;
    }
    case 'optimize':
      await optimizeCommand(rest);
      return;
    case 'worker': {
      const log = pino({ level: config.logLevel });
      const { sql, embedded } = await openDatabase(config, log, { share: true });
      const mapDir = await openMap(config, log);
      const runner = await startJobRunner(sql, log, { leaseMs: config.jobLeaseMs, withMap: mapDir !== undefined });
      log.info({ worker: runner.workerId }, 'job runner started');
      const geocoding = mapDir ? await startGeocoding(sql, { mapDir, log: log.child({ component: 'geocoding' }), leaseMs: config.jobLeaseMs }) : undefined;
      onShutdownSignal(log, config.shutdownTimeoutMs, async () => {
        // Running jobs are given back (another process resumes them at once), batches in flight finish.
        await Promise.allSettled([runner.stop(config.shutdownTimeoutMs), geocoding?.stop()]);
        await closePool();
        await sql.end({ timeout: 2 });
        await embedded?.stop();
      });
      return;
    }
    case 'map': {
      const { values, positionals } = parse(rest, { osm: { type: 'string' }, out: { type: 'string' } });
      if (positionals[0] !== 'build' || !values.osm || !values.out) throw new Error('usage: waymark map build --osm FILE.osm.pbf --out DIR');
      const manifest = await runMapBuild(values.osm as string, values.out as string);
      return output(values.json as boolean, manifest, `map written to ${values.out} (serve it with WAYMARK_MAP=${values.out})`);
    }
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
    default:
      throw new Error(`unknown command '${command}'\n\n${USAGE}`);
  }
}
