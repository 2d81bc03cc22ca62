// Map hot swap. WAYMARK_MAP may name a symbolic link to a map directory; `waymark map activate DIR`
// points the link at another map (atomically), and every `serve` and `worker` using the link loads that
// map beside the one serving, warms its compute threads up on it, then sends new requests to it; requests
// already answering finish on the old map, whose threads and memory go once the last has (engine.ts,
// loadMap; compute/pool.ts). The link is looked at every few seconds, and at once on SIGHUP. A map that
// does not load (a file whose SHA-256 is not the manifest's, a missing profile, a warm-up that fails) is
// refused: logged, counted, and the map serving stays, until the link changes again.
import { lstat, realpath, rename, rm, symlink } from 'node:fs/promises';
import type { Logger } from 'pino';
import { activeMap, loadMap, type LoadedMap } from '../engine/engine.js';
import type { ProfileName } from '../map/graphs/profiles.js';
import { MapDir } from '../map/map-dir.js';
import { backgroundError } from '../lib/background-errors.js';

/** How often the link is looked at (one realpath call): a map activated is serving within this plus its
 *  load and warm-up. */
export const MAP_WATCH_MS = 2000;

export interface MapRefusal {
  dir: string;
  reason: string;
  at: string;
}

export class MapSwaps {
  /** Maps made current after the first, and maps refused. */
  activated = 0;
  refused = 0;
  /** The map being loaded now, if one is. */
  loading: string | undefined;
  lastRefused: MapRefusal | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly opts: {
      /** WAYMARK_MAP as configured: a link (or a directory, which then never changes). */
      link: string;
      profiles: readonly ProfileName[];
      log: Logger;
    },
  ) {}

  /** Looks at the link every MAP_WATCH_MS from now on. */
  watch(): this {
    this.timer = setInterval(() => void this.check(), MAP_WATCH_MS);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * Loads the map the link points at if it is not the one serving. `retry` (SIGHUP) also tries again a
   * map refused before. One check at a time; a check asked for during one runs after it.
   */
  check(retry = false): Promise<void> {
    if (this.running) {
      this.again ||= retry;
      return this.running;
    }
    this.running = this.look(retry).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.check(true);
      }
    });
    return this.running;
  }

  private async look(retry: boolean): Promise<void> {
    let target: string;
    try {
      target = await realpath(this.opts.link);
    } catch (err) {
      backgroundError('map-watch', err, { link: this.opts.link });
      return;
    }
    const serving = activeMap();
    if (target === serving?.dir) return;
    if (!retry && target === this.lastRefused?.dir) return;
    const { log } = this.opts;
    log.info({ dir: target, serving: serving?.id }, 'loading a new map beside the one serving');
    this.loading = target;
    const started = Date.now();
    let map: LoadedMap;
    try {
      map = await loadMap(target, this.opts.profiles);
    } catch (err) {
      this.refused++;
      const reason = err instanceof Error ? err.message : String(err);
      this.lastRefused = { dir: target, reason, at: new Date().toISOString() };
      log.error({ dir: target, reason, serving: serving?.id }, 'map refused: the map serving stays');
      return;
    } finally {
      this.loading = undefined;
    }
    this.activated++;
    log.info(
      { id: map.id, dir: map.dir, previous: serving?.id, ms: Date.now() - started, warmUpMs: map.warmUp.ms, bytes: map.bytes },
      'map activated: new requests answer from it',
    );
  }
}

/**
 * `waymark map activate DIR`: points `link` at DIR (a new link beside it, renamed over it: a process
 * reading the link sees the old map or the new one, never neither). DIR must read as a map of this
 * format; its files are checked by each process that loads it. Returns the map's id and directory.
 */
export async function activateMap(dir: string, link: string): Promise<{ id: string; dir: string }> {
  const { dir: target, id } = await MapDir.open(dir);
  const existing = await lstat(link).catch(() => undefined);
  if (existing && !existing.isSymbolicLink()) {
    throw new Error(`${link} is a directory, not a symbolic link: serve the maps through a link (ln -sfn ${target} LINK; WAYMARK_MAP=LINK) to swap them`);
  }
  const next = `${link}.next-${process.pid}`;
  await rm(next, { force: true });
  await symlink(target, next);
  await rename(next, link);
  return { id, dir: target };
}
