import net from 'node:net';
import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;

/** One pool per process; bigint (int8) columns come back as JS BigInt, which JSON cannot hold: convert
 *  before replying. `settings` are server parameters set on each of its connections. */
export function connect(url: string, max = Number(process.env.WAYMARK_DB_POOL ?? 10), settings: Record<string, string> = {}): Sql {
  return postgres(url, {
    max,
    connection: settings,
    idle_timeout: 30,
    onnotice: () => {},
    types: {
      bigint: postgres.BigInt,
    },
    transform: { undefined: null },
    // A documented option the type definitions lack.
    ...({ socket: connectNoDelay } as object),
  }) as unknown as Sql;
}

/**
 * postgres.js leaves Nagle's algorithm on, so a query written while an earlier one is unacknowledged
 * waits for the server's delayed ACK (40 ms on Linux): the long tail of every busy endpoint. It
 * accepts a connected socket from us instead.
 */
function connectNoDelay(options: { host: string[]; port: number[]; path?: string | false }): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = options.path ? net.connect(options.path) : net.connect(options.port[0], options.host[0]);
    socket.setNoDelay(true);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}
