import pino from 'pino';
import { openDatabase, openMap, startApp } from '../app.js';
import { loadConfig } from '../config.js';
import { startGeocoding } from '../geo/geocoding-worker.js';
import { startJobRunner } from '../jobs/start.js';
import { runMapBuild } from '../map/build.js';
import { keyCommand, teamCommand } from './admin-commands.js';
import { output, parse } from './args.js';
import { ensureDemoKey } from './demo.js';
import { importCommand } from './import-command.js';

const USAGE = `waymark <command>

  start                      first start: migrate, ensure a demo team and key, serve, print the URLs
  serve                      serve the API (PORT, DATABASE_URL, WAYMARK_MAP)
  team create --name N --plan basic|pro|enterprise [--poi-limit N] [--rate-limit N] [--inactive]
  team update ID [--name N] [--plan P] [--active|--inactive] [--poi-limit N|default] [--rate-limit N|default]
  key create --team ID --name N --permissions all|p1,p2 [--expires ISO]
  key list --team ID
  key activate|deactivate|delete ID
  map build --osm FILE.osm.pbf --out DIR
  import FILE --team ID [--create-missing-attributes]
                             import a CSV file (processed here, progress on stderr)
  worker                     run only the background work (imports, geocoding with a map); WAYMARK_JOBS=off
                             keeps it out of serve

Add --json for machine-readable output.`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
    case 'start': {
      const app = await startApp(config);
      const base = `http://localhost:${app.port}`;
      // Always printed, whatever the log level: scripts and process supervisors wait for this line.
      console.log(`waymark listening on ${base}`);
      if (command === 'start') {
        const demo = await ensureDemoKey(app.sql, config.dataDir);
        console.log(`\nWaymark is running.\n  API:     ${base}/v1\n  Health:  ${base}/health\n  API key: ${demo.key}  (team ${demo.teamId}, enterprise demo)\n\n  curl -H 'X-API-KEY: ${demo.key}' ${base}/v1/info\n`);
      }
      const stop = async () => {
        app.log.info('shutting down');
        await app.close();
        process.exit(0);
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      return;
    }
    case 'team':
    case 'key': {
      const { sql, embedded } = await openDatabase(config, pino({ level: 'warn' }));
      try {
        await (command === 'team' ? teamCommand : keyCommand)(sql, rest);
      } finally {
        await sql.end({ timeout: 5 });
        await embedded?.stop();
      }
      return;
    }
    case 'import': {
      const log = pino({ level: 'warn' });
      const { sql, embedded } = await openDatabase(config, log);
      try {
        await importCommand(sql, log, rest, config.jobLeaseMs);
      } finally {
        await sql.end({ timeout: 5 });
        await embedded?.stop();
      }
      return;
    }
    case 'worker': {
      const log = pino({ level: config.logLevel });
      const { sql, embedded } = await openDatabase(config, log);
      const runner = await startJobRunner(sql, log, { leaseMs: config.jobLeaseMs });
      log.info({ worker: runner.workerId }, 'job runner started');
      const mapDir = await openMap(config, log);
      const geocoding = mapDir ? await startGeocoding(sql, { mapDir, log: log.child({ component: 'geocoding' }), leaseMs: config.jobLeaseMs }) : undefined;
      const stop = async () => {
        log.info('shutting down');
        await Promise.allSettled([runner.stop(), geocoding?.stop()]);
        await sql.end({ timeout: 5 });
        await embedded?.stop();
        process.exit(0);
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
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
