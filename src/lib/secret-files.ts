import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The data directory (embedded database, demo key and password) readable by its owner only. A directory
 *  this process may not change (a mount owned by someone else) is left as it is. */
export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
}

/**
 * Writes a file that holds a secret: mode 0600 in the 0700 data directory. `mode` applies only when a file
 * is created, so a rewrite of a file made world-readable by an older version would keep its mode: the
 * content goes to a new file that replaces the old one.
 */
export function writeSecretFile(dataDir: string, name: string, content: string): void {
  ensureDataDir(dataDir);
  const file = join(dataDir, name);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}
