import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';

/** Who holds a data directory: written by the owner, read by every other process that wants it. */
export interface OwnerRecord {
  pid: number;
  /** Tells this owner from a later one that got the same pid. */
  token: string;
  startedAt: string;
  /** Where the owner serves the database to other processes; absent while it is starting. */
  url?: string;
}

/** The directory is held by another live process. */
export class OwnerBusyError extends Error {
  constructor(
    readonly owner: OwnerRecord,
    readonly lockPath: string,
  ) {
    super(`held by process ${owner.pid}${owner.url ? ` (serving ${owner.url})` : ''} since ${owner.startedAt}`);
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Whether a pid names a running process (one of another user answers EPERM, and is running too). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process stays signalable until its parent reaps it; on Linux its state says it is dead.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    // No /proc (not Linux): the signal said it lives.
    return true;
  }
}

function readRecord(path: string): OwnerRecord | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const record = JSON.parse(text) as OwnerRecord;
    return typeof record.pid === 'number' && typeof record.token === 'string' ? record : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** A record counts only while its process runs. Our own pid is a previous life of this process's pid
 *  (a container restarted with the same pid 1), never a live owner: this process has not written it. */
const isLive = (r: OwnerRecord) => r.pid !== process.pid && processAlive(r.pid);

const ageMs = (path: string): number => {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    // Gone meanwhile: nothing old to break.
    return 0;
  }
};

/**
 * The live owner of `path`, if there is one. A record being written (unreadable for a moment) is read
 * again; one that stays unreadable is a crash between creating and writing it, i.e. no owner.
 */
export async function liveOwner(path: string): Promise<OwnerRecord | undefined> {
  for (let i = 0; ; i++) {
    const record = readRecord(path);
    if (record === undefined) return undefined;
    if (record !== 'unreadable') return isLive(record) ? record : undefined;
    if (i >= 20 || ageMs(path) > 5000) return undefined;
    await sleep(50);
  }
}

/**
 * An exclusive claim on a directory by a lock file holding the owner's pid. The file is created with
 * O_EXCL, so of two processes starting together one wins; a file whose process is gone (killed, host
 * rebooted) is removed under a second O_EXCL file, so that two processes breaking the same stale lock
 * cannot each remove the lock the other just took.
 */
export class OwnerLock {
  private constructor(
    readonly path: string,
    private record: OwnerRecord,
  ) {}

  static async acquire(path: string): Promise<OwnerLock> {
    const record: OwnerRecord = { pid: process.pid, token: randomBytes(8).toString('hex'), startedAt: new Date().toISOString() };
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        try {
          writeSync(fd, JSON.stringify(record));
        } finally {
          closeSync(fd);
        }
        return new OwnerLock(path, record);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = await liveOwner(path);
      if (owner) throw new OwnerBusyError(owner, path);
      await breakStale(path);
    }
    throw new Error(`could not take ${path}: other processes keep taking and dropping it`);
  }

  /** Publishes where other processes reach the database (atomically: readers see the old or the new record). */
  setUrl(url: string): void {
    this.record = { ...this.record, url };
    const tmp = `${this.path}.${this.record.token}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.record), { mode: 0o600 });
    renameSync(tmp, this.path);
  }

  /** Removes the file if it is still ours. */
  release(): void {
    const current = readRecord(this.path);
    if (current && current !== 'unreadable' && current.token === this.record.token) {
      try {
        unlinkSync(this.path);
      } catch {
        // already gone
      }
    }
  }
}

async function breakStale(path: string): Promise<void> {
  const mutex = `${path}.breaking`;
  try {
    closeSync(openSync(mutex, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Someone else is breaking it; a mutex left by a process that died doing so is old.
    if (ageMs(mutex) > 10_000) {
      try {
        unlinkSync(mutex);
      } catch {
        // gone meanwhile
      }
    }
    await sleep(20 + Math.random() * 30);
    return;
  }
  try {
    // Read again under the mutex: a live owner may have taken the path since.
    const record = readRecord(path);
    if (record === undefined) return;
    // An unreadable file may be a live owner's, created an instant ago and not written yet.
    if (record === 'unreadable' ? ageMs(path) > 5000 : !isLive(record)) unlinkSync(path);
  } finally {
    unlinkSync(mutex);
  }
}
