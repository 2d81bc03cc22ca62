// Shared by the fault suites: an HTTP/1.1 client on a raw socket (so that every reset, every early
// close and every `Connection: close` is seen as it happens), a closed-loop load on keep-alive
// connections, and databases of their own.
import net from 'node:net';
import postgres from 'postgres';
import { connect, type Sql } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { TEST_DATABASE_URL } from '../support/app.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** How a request on a keep-alive connection ended. */
export type Outcome =
  | { kind: 'response'; response: RawResponse }
  /** The server closed the connection (FIN) without answering the request. */
  | { kind: 'closed' }
  /** A socket error: ECONNRESET, EPIPE, ECONNREFUSED… */
  | { kind: 'error'; code: string };

/** One keep-alive connection that sends a request and reads its response, one at a time. */
export class RawConnection {
  private readonly socket: net.Socket;
  private buffer = Buffer.alloc(0);
  private pending: ((o: Outcome) => void) | undefined;
  private ended: Outcome | undefined;
  readonly connected: Promise<void>;
  /** The server ended the connection while no request was pending (an idle keep-alive close). */
  closedWhileIdle = false;
  /** Errors seen while idle (a reset of an idle connection counts as a reset too). */
  idleErrors: string[] = [];

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setNoDelay(true);
    this.connected = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.connected.catch(() => {});
    this.socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.tryParse();
    });
    this.socket.on('end', () => this.finish({ kind: 'closed' }));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.finish({ kind: 'error', code: err.code ?? err.message }));
    this.socket.on('close', () => this.finish({ kind: 'closed' }));
  }

  get open(): boolean {
    return !this.ended;
  }

  private finish(outcome: Outcome): void {
    if (this.ended) return;
    this.ended = outcome;
    const pending = this.pending;
    this.pending = undefined;
    if (pending) pending(outcome);
    else if (outcome.kind === 'closed') this.closedWhileIdle = true;
    else if (outcome.kind === 'error') this.idleErrors.push(outcome.code);
  }

  private tryParse(): void {
    const head = this.buffer.indexOf('\r\n\r\n');
    if (head < 0 || !this.pending) return;
    const lines = this.buffer.subarray(0, head).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    if (status === 100) {
      this.buffer = this.buffer.subarray(head + 4);
      this.tryParse();
      return;
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < head + 4 + length) return;
    const body = this.buffer.subarray(head + 4, head + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(head + 4 + length);
    const pending = this.pending;
    this.pending = undefined;
    pending({ kind: 'response', response: { status, headers, body } });
  }

  /** Sends a request (raw head and body) and waits for its outcome. */
  request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Outcome> {
    if (this.ended) return Promise.resolve(this.ended);
    const payload = body === undefined ? '' : body;
    const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    if (body !== undefined) head.push(`Content-Length: ${Buffer.byteLength(payload)}`);
    return new Promise((resolve) => {
      this.pending = resolve;
      this.socket.write(`${head.join('\r\n')}\r\n\r\n${payload}`);
    });
  }

  /** Resolves once the connection is closed, by either side. */
  whenClosed(): Promise<void> {
    return new Promise((resolve) => (this.socket.destroyed ? resolve() : this.socket.once('close', () => resolve())));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export interface LoadReport {
  statuses: Map<number, number>;
  /** Requests that got no answer: the connection was closed or reset under them. */
  dropped: Outcome[];
  /** Responses that told the client to close. */
  closes: number;
  /** Ids of the POIs answered 201. */
  created: string[];
  maxLatencyMs: number;
  requests: number;
}

export const countOf = (report: LoadReport, test: (status: number) => boolean) => [...report.statuses].filter(([s]) => test(s)).reduce((n, [, c]) => n + c, 0);

/**
 * A closed loop of requests on `connections` keep-alive connections until `stop()` resolves: each
 * connection sends its next request when the last is answered. A connection the server closes (after
 * `Connection: close`) is opened again while `reconnect` says so; `next` picks each request.
 */
export async function runLoad(opts: {
  port: number;
  connections: number;
  until: Promise<unknown>;
  next: (i: number) => { method: string; path: string; headers?: Record<string, string>; body?: string };
  reconnect?: () => boolean;
  /** Called with the running count after each answer (a test can act once enough load has passed). */
  answered?: (requests: number) => void;
}): Promise<LoadReport> {
  const report: LoadReport = { statuses: new Map(), dropped: [], closes: 0, created: [], maxLatencyMs: 0, requests: 0 };
  let stopped = false;
  void opts.until.then(() => (stopped = true));
  let seq = 0;
  const loop = async () => {
    let conn = new RawConnection(opts.port);
    try {
      await conn.connected;
    } catch {
      return;
    }
    while (!stopped) {
      const req = opts.next(seq++);
      const started = performance.now();
      const outcome = await conn.request(req.method, req.path, req.headers, req.body);
      report.requests++;
      opts.answered?.(report.requests);
      if (outcome.kind !== 'response') {
        report.dropped.push(outcome);
        break;
      }
      report.maxLatencyMs = Math.max(report.maxLatencyMs, performance.now() - started);
      const { status, headers, body } = outcome.response;
      report.statuses.set(status, (report.statuses.get(status) ?? 0) + 1);
      if (status === 201) report.created.push(JSON.parse(body).data.id);
      if (headers.connection === 'close') {
        report.closes++;
        await conn.whenClosed();
        if (!opts.reconnect?.() || stopped) break;
        conn = new RawConnection(opts.port);
        try {
          await conn.connected;
        } catch {
          break;
        }
      }
    }
    conn.destroy();
  };
  await Promise.all(Array.from({ length: opts.connections }, loop));
  return report;
}

/** A fresh database with the schema, named after the suite (each fault suite runs its own processes). */
export async function freshDatabase(suffix: string): Promise<{ url: string; sql: Sql; drop(): Promise<void> }> {
  const url = `${TEST_DATABASE_URL}_${suffix}`;
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const sql = connect(url, 4, { application_name: 'waymark-test' });
  await migrate(sql);
  return {
    url,
    sql,
    drop: async () => {
      await sql.end({ timeout: 1 });
      const again = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await again.end();
    },
  };
}

/** Final (non-1xx) responses complete in `text`: head and Content-Length body. */
export function completeResponses(text: string): number {
  let n = 0;
  let at = 0;
  for (;;) {
    const head = text.indexOf('\r\n\r\n', at);
    if (head < 0) return n;
    const lines = text.slice(at, head);
    const length = Number(/content-length: (\d+)/i.exec(lines)?.[1] ?? 0);
    if (text.length < head + 4 + length) return n;
    if (!/^HTTP\/1\.1 1\d\d /.test(lines)) n++;
    at = head + 4 + length;
  }
}

/** Everything the server sends on one connection for `data`, until it closes, `ms` pass, or `responses` are in. */
export function rawExchange(
  port: number,
  data: string | Buffer | Array<string | Buffer>,
  ms = 1000,
  gapMs = 0,
  responses = Infinity,
): Promise<{ text: string; closed: boolean; error?: string; afterMs: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = performance.now();
    let text = '';
    let closed = false;
    let error: string | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, error, afterMs: performance.now() - started });
    };
    const timer = setTimeout(finish, ms);
    socket.on('data', (c) => {
      text += c.toString('latin1');
      if (completeResponses(text) >= responses) finish();
    });
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code;
      closed = true;
      finish();
    });
    socket.on('connect', async () => {
      for (const part of Array.isArray(data) ? data : [data]) {
        if (socket.destroyed) return;
        socket.write(part);
        if (gapMs) await sleep(gapMs);
      }
    });
  });
}

/** The statuses of the responses in `text`, in order (1xx included). */
export const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
/** rawExchange's arguments after the port. */
export type RawArgs = Parameters<typeof rawExchange> extends [number, ...infer R] ? R : never;

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
