import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/nginx-proxy.mjs';

const run = promisify(execFile);

export interface Cluster {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  remove(): Promise<void>;
}

/**
 * A PostgreSQL of its own (initdb in a temporary directory, a free port), so that stopping it touches
 * nothing else on the machine; undefined when the machine has no PostgreSQL binaries. initdb refuses
 * to run as root: as root it runs as the postgres user.
 */
export async function throwawayCluster(): Promise<Cluster | undefined> {
  const bin = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'].find((d) => existsSync(join(d, 'pg_ctl')));
  if (!bin) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'waymark-pg-'));
  const asRoot = process.getuid?.() === 0;
  const pg = async (tool: string, args: string[]) => {
    if (!asRoot) return run(join(bin, tool), args, { timeout: 30_000 });
    return run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { timeout: 30_000 });
  };
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }));
    if (!stdout.trim()) return undefined;
    chownSync(dir, Number(stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  }
  const port = await freePort();
  await pg('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => void (await pg('pg_ctl', ['-D', join(dir, 'data'), '-o', opts, '-l', join(dir, 'log'), '-w', 'start']));
  const stop = async () => void (await pg('pg_ctl', ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']));
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove: async () => {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
