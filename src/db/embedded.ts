import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from '../lib/secret-files.js';
import { liveOwner, OwnerBusyError, OwnerLock } from './owner-lock.js';

export { OwnerBusyError };

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** The socket's name is libpq's for this port, so a URL with `host=<dir>` (and psql -h) finds it. */
const SOCKET_PORT = 5432;
/** What the kernel takes for a Unix socket's path (sun_path, less its terminating zero). */
const MAX_SOCKET_PATH = 107;

/** Where the embedded database listens: in the data directory, only its user can connect. */
export function socketPath(dataDir: string): string {
  const path = join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new Error(
      `the embedded database's socket ${path} is longer than the ${MAX_SOCKET_PATH} bytes a Unix socket path may have: set WAYMARK_DATA_DIR to a shorter directory`,
    );
  }
  return path;
}

/** The lock file beside the PGlite directory: its owner's pid and the URL it serves the database on. */
export const ownerLockPath = (dataDir: string) => join(dataDir, 'pglite.owner');

/**
 * PGlite under `<dataDir>/pglite`, served on a Unix socket in the data directory (0700, so only its
 * user can reach it: PGlite asks for no password) so the same postgres.js code talks to it as to a real
 * server. Its URL is libpq's form, `postgres://postgres@localhost/postgres?host=<dataDir>` (psql -h
 * <dataDir> works too). For a first start on a machine with no database; production runs
 * on PostgreSQL (DATABASE_URL).
 *
 * One process owns the directory: two PGlite instances on the same files each keep their own state in
 * memory, so what one writes the other never sees (and both write the files). The owner publishes its
 * URL in the lock file; other processes (the CLI) connect there instead of opening the files
 * (`embeddedOwnerUrl`). Throws `OwnerBusyError` when another live process owns it.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = join(dataDir, 'pglite');
  ensureDataDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = await OwnerLock.acquire(ownerLockPath(dataDir));
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    // PGlite zeroes its shared buffers at every start: 16 MB (of PostgreSQL's 128 MB default) is a third
    // less CPU for a restart, and plenty for a single-session demonstration database.
    const db = await PGlite.create({ dataDir: dir, startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] });
    const path = socketPath(dataDir);
    // Left by an owner that was killed (we hold the lock now): listening would fail on it.
    rmSync(path, { force: true });
    const server = new PGLiteSocketServer({ db, path, maxConnections: 16 });
    await server.start();
    chmodSync(path, 0o600);
    const url = `postgres://postgres@localhost:${SOCKET_PORT}/postgres?host=${encodeURIComponent(dataDir)}`;
    lock.setUrl(url);
    return {
      url,
      stop: async () => {
        try {
          await server.stop();
          await db.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/**
 * The URL of the process that owns the embedded database in `dataDir`, waiting up to `waitMs` for one
 * that is still starting to publish it; undefined when no process owns it.
 */
export async function embeddedOwnerUrl(dataDir: string, waitMs = 60_000): Promise<string | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const owner = await liveOwner(ownerLockPath(dataDir));
    if (!owner) return undefined;
    if (owner.url) return owner.url;
    if (Date.now() > deadline) {
      throw new Error(`the embedded database in ${dataDir} is being opened by process ${owner.pid}, which has not finished starting; try again when it has`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}
