import net from 'node:net';
import postgres from 'postgres';
import { asConnectionError, isConnectionLost } from './errors.js';
import { backgroundError } from '../lib/background-errors.js';

export type Sql = postgres.Sql<Record<string, never>>;

/** What a pool is doing, for /metrics: its size, its connections open, its statements and
 *  transactions in flight (queued in postgres.js for a connection included). */
export interface PoolStats {
  max: number;
  open: number;
  busy: number;
}

const poolStatsOf = new WeakMap<object, PoolStats>();

/** The live counters of a pool made by `connect`. */
export const poolStats = (sql: Sql): PoolStats | undefined => poolStatsOf.get(sql);

/**
 * One pool per process; bigint (int8) columns come back as JS BigInt, which JSON cannot hold: convert
 * before replying. `settings` are server parameters set on each of its connections.
 *
 * The pool survives lost connections (a restarted or failed-over server, pg_terminate_backend): see
 * `resilient`. A connection that cannot be made is retried after at most half a second, so the service
 * is whole again within a second of the database coming back.
 */
/**
 * libpq's form of a Unix socket address, `postgres://user@localhost/db?host=/dir`: the socket
 * `/dir/.s.PGSQL.<port>` (the embedded database's). postgres.js takes the host from the URL's authority
 * only, and would send `host` to the server as a setting.
 */
function unixSocket(url: string): { url: string; path?: string } {
  const u = new URL(url);
  const host = u.searchParams.get('host');
  if (!host?.startsWith('/')) return { url };
  u.searchParams.delete('host');
  return { url: u.toString(), path: `${host}/.s.PGSQL.${u.port || 5432}` };
}

export function connect(address: string, max = 10, settings: Record<string, string> = {}): Sql {
  const { url, path } = unixSocket(address);
  // A connection lost while the database answers (terminated, failed over) is made again at once;
  // only while the database does not answer do attempts wait, up to half a second.
  const health = { lastAnswer: 0 };
  const stats: PoolStats = { max, open: 0, busy: 0 };
  const backoff = (retries: number) => (performance.now() - health.lastAnswer < 1000 ? 0 : Math.min(0.025 * 2 ** retries, 0.5));
  const raw = postgres(url, {
    max,
    ...(path ? { path } : {}),
    connection: settings,
    idle_timeout: 30,
    // postgres.js waits up to 30 s for a connection by default, and after repeated failures up to 20 s
    // before trying again: requests would hang that long after the database came back.
    connect_timeout: 5,
    backoff,
    onnotice: () => {},
    types: {
      bigint: postgres.BigInt,
    },
    transform: { undefined: null },
    // A documented option the type definitions lack.
    ...({ socket: (o: Parameters<typeof connectNoDelay>[0]) => counted(connectNoDelay(o), stats) } as object),
  }) as unknown as Sql;
  // Notifications come on a connection of their own that is never idle: LISTEN lasts as long as it.
  // Its name says whose listener it is, so a process can count the listeners that should answer it.
  const listenerSettings = { ...settings, application_name: listenerName(settings.application_name ?? 'waymark') };
  const listener: Listener = new Listener(() =>
    postgres(url, {
      max: 1,
      ...(path ? { path } : {}),
      connection: listenerSettings,
      idle_timeout: undefined,
      max_lifetime: null,
      fetch_types: false,
      connect_timeout: 5,
      backoff: (retries: number) => Math.min(0.025 * 2 ** retries, 0.5),
      onnotice: () => {},
      // onnotify is what postgres.js's own listen uses; the type definitions lack it.
      ...({ socket: connectNoDelay, onnotify: (channel: string, payload: string) => listener.notify(channel, payload) } as object),
      onclose: () => listener.lost(),
    }),
  );
  const sql = resilient(raw, listener, health, stats);
  poolStatsOf.set(sql, stats);
  return sql;
}

/** The application_name of the listening connection of a pool whose connections are named `name`. */
export const listenerName = (name: string) => `${name} listener`;

function counted(socket: net.Socket, stats: PoolStats): net.Socket {
  stats.open++;
  socket.once('close', () => stats.open--);
  return socket;
}

/**
 * postgres.js leaves Nagle's algorithm on, so a query written while an earlier one is unacknowledged
 * waits for the server's delayed ACK (40 ms on Linux): the long tail of every busy endpoint. It
 * accepts a socket from us instead. The socket is handed over while it connects (writes wait for the
 * connection): a promise that rejected on ECONNREFUSED left postgres.js's connection stuck in its
 * "connecting" state for good, and once every connection of the pool was, no query ever ran again.
 * Handed over at once, a refused connection reaches postgres.js as the socket's 'error' and 'close',
 * which it handles as for its own sockets.
 */
function connectNoDelay(options: { host: string[]; port: number[]; path?: string | false }): net.Socket {
  const socket = options.path ? net.connect(options.path) : net.connect(options.port[0], options.host[0]);
  socket.setNoDelay(true);
  return socket;
}

interface Subscriber {
  fn: (payload: string) => void;
  onlisten?: () => void;
}

/**
 * LISTEN on a connection of its own. postgres.js listens again once after that connection closes and
 * gives up for good when the attempt fails (the database still down); here the channels are listened
 * again until the database answers, and every subscriber is then called once with an empty payload:
 * the notifications sent meanwhile are lost, so whatever it keeps may be stale.
 */
class Listener {
  private pool: postgres.Sql | undefined;
  private readonly channels = new Map<string, Set<Subscriber>>();
  private relistening: Promise<void> | undefined;
  private ended = false;

  constructor(private readonly makePool: () => postgres.Sql) {}

  private get sql(): postgres.Sql {
    return (this.pool ??= this.makePool());
  }

  private static quote = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  listen = async (channel: string, fn: (payload: string) => void, onlisten?: () => void) => {
    const sub: Subscriber = { fn, onlisten };
    let subs = this.channels.get(channel);
    if (!subs) {
      this.channels.set(channel, (subs = new Set()));
      try {
        await this.sql.unsafe(`LISTEN ${Listener.quote(channel)}`);
      } catch (err) {
        if (!subs.size) this.channels.delete(channel);
        throw err;
      }
    }
    subs.add(sub);
    onlisten?.();
    return {
      state: undefined,
      unlisten: async () => {
        subs!.delete(sub);
        if (subs!.size || this.channels.get(channel) !== subs) return;
        this.channels.delete(channel);
        await this.sql.unsafe(`UNLISTEN ${Listener.quote(channel)}`).catch((err) => backgroundError('db-unlisten', err, { channel }));
      },
    };
  };

  notify(channel: string, payload: string): void {
    for (const sub of this.channels.get(channel) ?? []) sub.fn(payload);
  }

  /** The listening connection closed: listen again until it works, then tell every subscriber. */
  lost(): void {
    if (this.ended || this.relistening || !this.channels.size) return;
    this.relistening = (async () => {
      while (!this.ended) {
        try {
          for (const channel of this.channels.keys()) await this.sql.unsafe(`LISTEN ${Listener.quote(channel)}`);
          break;
        } catch (err) {
          backgroundError('db-relisten', err, { channels: [...this.channels.keys()] });
          await new Promise((done) => setTimeout(done, 250).unref());
        }
      }
      this.relistening = undefined;
      if (this.ended) return;
      for (const subs of this.channels.values()) {
        for (const sub of subs) {
          sub.fn('');
          sub.onlisten?.();
        }
      }
    })();
  }

  async end(opts?: { timeout?: number }): Promise<void> {
    this.ended = true;
    await this.pool?.end(opts);
  }
}

const RETRYABLE = Symbol('retryable');

/**
 * Marks a statement, where it is written, as safe to run again on a new connection when the one it went
 * out on is lost before it answers: a read, or a write whose second run changes nothing the first did not
 * (a notification its listeners take as "look again"). Without the mark such a statement fails with the
 * connection's error (a 503), since a write may have committed just before the connection broke; nothing
 * reads the SQL text to guess, so a new function with side effects is never run twice by mistake.
 * Statements in a transaction need no mark: the whole transaction is run again (see `resilient`).
 */
export function retryable<Q extends PromiseLike<unknown>>(statement: Q): Q {
  (statement as unknown as Record<symbol, boolean>)[RETRYABLE] = true;
  return statement;
}

interface RawQuery {
  strings: ReadonlyArray<string> | string;
  args: unknown[];
  then: Promise<unknown>['then'];
  [RETRYABLE]?: boolean;
}

const isQuery = (x: unknown): x is RawQuery => x instanceof Promise && 'strings' in x && typeof (x as { describe?: unknown }).describe === 'function';

/**
 * The wait before repeating what a lost connection took down. A server that drops one connection
 * usually drops all of them at once (a restart, a failover, pg_terminate_backend of a whole pool);
 * repeated at once, the statement would go out on another of the dead connections, whose closing this
 * process has not read yet. A few milliseconds let it read them, so the repeat gets a new connection.
 */
const afterLoss = () => new Promise<void>((done) => setTimeout(done, 15));

/**
 * How often what a lost connection took down is repeated, each time on a new connection. Once is
 * enough for one loss; a server that keeps dropping connections (a failover under way, sessions
 * terminated in a loop) can take the repeat down too, so a few times, but none starts later than
 * REPEAT_WINDOW_MS after the first attempt: past that the request is answered 503 rather than kept
 * waiting. (postgres.js 3.4.9 also handed the first statement on a new connection the error that had
 * killed the old one; patches/postgres+3.4.9.patch ends that.)
 */
const MAX_REPEATS = 5;
const REPEAT_WINDOW_MS = 1_000;

/** No connection could be made: the database is down or unreachable, not one connection lost. Nothing
 *  is repeated then: the request is answered 503 at once rather than after every repeat's backoff. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'CONNECT_TIMEOUT', '08001', '08004', '57P03']);
const repeatable = (err: unknown) => isConnectionLost(err) && !UNREACHABLE.has((err as { code?: string })?.code ?? '');

/**
 * postgres.js counts the rows of a result per connection and resets the count only when a statement
 * completes: after a statement that failed half-way through its rows (a statement timeout, a lost
 * connection, an error on its fourth row) the next statement on that connection came back with holes
 * at its start, `[ <3 empty items>, row, row ]` (porsager/postgres#1119, #1181), and callers failed
 * with TypeErrors on `undefined`. The holes are always at the start; closing them gives the result.
 */
function closeHoles<T>(result: T): T {
  if (Array.isArray(result) && result.length > 0 && !(0 in result)) {
    const rows = result.filter(() => true);
    result.length = 0;
    result.push(...rows);
  }
  return result;
}

/**
 * The pool, made to survive lost connections:
 * - a statement that fails because its connection broke is run again on a new connection when its
 *   author marked it `retryable` (a read; never a write outside a transaction, which may have committed
 *   just before the connection broke);
 * - a transaction whose connection broke before it asked to commit is run once more from the start
 *   (PostgreSQL rolled it back), never one that broke while committing;
 * - a listener whose connection broke is listened again until the database answers, and is called
 *   once then: notifications sent meanwhile are lost, so "something may have changed";
 * - results never have holes (`closeHoles`);
 * - connections made after the first one skip postgres.js's type lookup: the pool already has the
 *   types, and a connection lost during that lookup rejected a promise nobody held, which ends the process.
 */
function resilient(raw: Sql, listener: Listener, health: { lastAnswer: number }, stats: PoolStats): Sql {
  const options = (raw as unknown as { options: { fetch_types: boolean } }).options;
  const answered = () => {
    options.fetch_types = false;
    health.lastAnswer = performance.now();
  };

  const guard = (q: RawQuery, again: () => RawQuery): RawQuery => {
    const protoThen = Object.getPrototypeOf(q).then as Promise<unknown>['then'];
    let outcome: Promise<unknown> | undefined;
    const succeeded = (result: unknown) => (stats.busy--, answered(), closeHoles(result));
    let started = 0;
    const repeat = async (err: unknown, attempt: number): Promise<unknown> => {
      if (attempt > MAX_REPEATS || performance.now() - started > REPEAT_WINDOW_MS || !repeatable(err) || !q[RETRYABLE]) {
        stats.busy--;
        throw asConnectionError(err);
      }
      await afterLoss();
      // `again()` is unguarded: this loop, not a nested one, decides how often.
      const next = again();
      return protoThen.call(next, succeeded, (e) => repeat(e, attempt + 1));
    };
    const run = () => {
      started = performance.now();
      stats.busy++;
      return protoThen.call(q, succeeded, (err) => repeat(err, 1));
    };
    Object.defineProperty(q, 'then', {
      configurable: true,
      writable: true,
      value(onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) {
        outcome ??= run();
        return outcome.then(onFulfilled, onRejected);
      },
    });
    return q;
  };

  /** Whether the transaction `xid` committed, read on another connection; undefined when that fails too. */
  const committed = async (xid: string): Promise<boolean | undefined> => {
    for (let i = 0; i < 20; i++) {
      await afterLoss();
      try {
        const [row] = await (raw as unknown as (
          s: TemplateStringsArray,
          ...a: unknown[]
        ) => Promise<Array<{ status: string | null }>>)`SELECT pg_xact_status(${xid}::xid8) AS status`;
        if (row.status === 'committed') return true;
        if (row.status === 'aborted') return false;
        // 'in progress': the dying backend has not finished its commit yet.
      } catch (err) {
        // Its connection may be lost too (the server drops them all at once): asked again on another.
        if (!isConnectionLost(err)) return undefined;
      }
    }
    return undefined;
  };

  const begin = async (...args: unknown[]) => {
    stats.busy++;
    try {
      return await transaction(...args);
    } finally {
      stats.busy--;
    }
  };

  const transaction = async (...args: unknown[]) => {
    const fn = args[args.length - 1] as (tx: unknown) => unknown;
    const opts = args.slice(0, -1);
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      let committing = false;
      let xid: string | null = null;
      let value: unknown;
      try {
        const result = await (raw.begin as (...a: unknown[]) => Promise<unknown>)(...opts, async (tx: Sql) => {
          value = await fn(tx);
          // The transaction's id, if it wrote anything: should the connection break during COMMIT, it
          // tells whether the commit happened. (A transaction that wrote nothing has none and may simply run again.)
          [{ xid }] = await tx<Array<{ xid: string | null }>>`SELECT pg_current_xact_id_if_assigned()::text AS xid`;
          committing = true;
          return value;
        });
        answered();
        return result;
      } catch (err) {
        if (!isConnectionLost(err)) throw asConnectionError(err);
        if (committing && xid !== null) {
          const outcome = await committed(xid);
          if (outcome === true) return value;
          if (outcome === undefined) throw asConnectionError(err);
        }
        if (attempt > MAX_REPEATS || performance.now() - started > REPEAT_WINDOW_MS || !repeatable(err)) throw asConnectionError(err);
        await afterLoss();
      }
    }
  };

  return new Proxy(raw, {
    apply(target, thisArg, args) {
      const q = Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args);
      return isQuery(q) ? guard(q, () => Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args) as RawQuery) : q;
    },
    get(target, prop, receiver) {
      if (prop === 'begin') return begin;
      if (prop === 'listen') return listener.listen;
      if (prop === 'end')
        return async (opts?: { timeout?: number }) => {
          await Promise.allSettled([listener.end(opts), raw.end(opts)]);
        };
      if (prop === 'unsafe') {
        return (...args: unknown[]) => {
          const unsafe = (target as unknown as { unsafe: (...a: unknown[]) => RawQuery }).unsafe;
          return guard(unsafe(...args), () => unsafe(...args));
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  }) as Sql;
}

/** Opens every connection of `sql`'s pool now: a fresh process's first requests would each wait for one
 *  (TCP, start-up and authentication: 3–8 ms on loopback). Idle ones close again after 30 s. */
export async function openConnections(sql: Sql): Promise<void> {
  await Promise.all(Array.from({ length: sql.options.max }, () => retryable(sql`select 1`)));
}
