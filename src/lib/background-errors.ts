// Failures of work no request waits for (usage writes, quota give-backs, cache refreshes, listeners)
// have nobody to answer to: each is logged with its context and counted here, and /metrics shows the
// counts as waymark_background_errors_total{task}. The counts are the process's, like its other
// process metrics, whatever app in it failed.

/** The part of a pino logger this needs (lib/ knows no logger of its own). */
export interface ErrorLog {
  warn(obj: object, msg: string): void;
}

const counts = new Map<string, number>();
/** Per task: when it was last logged, and how many failures went unlogged since. */
const logged = new Map<string, { at: number; quiet: number }>();
let log: ErrorLog = { warn: (obj, msg) => console.error(msg, obj) };

/** A task failing over and over (a listener retrying every 250 ms while the database is down) logs at
 *  most once per this long; the count still sees every failure. */
const LOG_EVERY_MS = 10_000;

/** Where background failures are logged (the app's logger, set at start). */
export function setBackgroundLog(to: ErrorLog): void {
  log = to;
}

/** Logs and counts the failure of background `task`, with what it was doing in `context`. */
export function backgroundError(task: string, err: unknown, context: Record<string, unknown> = {}): void {
  counts.set(task, (counts.get(task) ?? 0) + 1);
  const now = Date.now();
  const last = logged.get(task);
  if (last && now - last.at < LOG_EVERY_MS) {
    last.quiet++;
    return;
  }
  logged.set(task, { at: now, quiet: 0 });
  log.warn({ err, task, ...context, ...(last?.quiet ? { unloggedSinceLast: last.quiet } : {}) }, `background task failed: ${task}`);
}

/** Counts a failure the caller has logged in its own words. */
export function countBackgroundError(task: string): void {
  counts.set(task, (counts.get(task) ?? 0) + 1);
}

/** Failures counted so far, by task. */
export function backgroundErrorCounts(): ReadonlyMap<string, number> {
  return counts;
}
