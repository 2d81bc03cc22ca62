import { STATUS_CODES } from 'node:http';
import { PassThrough } from 'node:stream';
import uws from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import type { AuthInfo, KeyStore } from '../auth/authenticate.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import type { UsageMark, UsageRecorder } from '../auth/usage.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { newId } from '../lib/ids.js';
import { JSON_BODY_LIMIT, RequestContext } from './context.js';
import { forbidden, HttpError, payloadTooLarge, unauthenticated } from './errors.js';
import { Query } from './query.js';
import { RawBytes, RawJson, type Reply, type Route, type Router } from './router.js';

// Request ids: a random per-process prefix and a counter, unique across processes without costing
// randomness on every request.
const REQUEST_PREFIX = newId().slice(-10);
let requestCounter = 0;
const nextRequestId = () => `${REQUEST_PREFIX}-${(++requestCounter).toString(36)}`;

type HttpResponse = uws.HttpResponse;

/** Refuses to run on the JS fallback the package silently switches to when its binary does not load. */
export function assertNativeUws(): void {
  if (!/\[native code\]/.test(Function.prototype.toString.call(uws.App))) {
    throw new Error('uWebSockets.js is running its JavaScript fallback, not the native binary; refusing to start.');
  }
}

export interface ServerDeps {
  router: Router;
  keys: KeyStore;
  limiter: RateLimiter;
  usage: UsageRecorder;
  log: Logger;
  /** Told of every reply sent (for /metrics): its route template (undefined when none matched). */
  observe?: (ctx: RequestContext, route: string | undefined, status: number, startedMs: number) => void;
  /** The process's own requests (its warm-up, app.ts): the team they are answered as, or undefined for a
   *  client's request. Answered like any other, with no key looked up, and neither logged, observed nor
   *  counted as usage. */
  own?: (ctx: RequestContext) => AuthInfo | undefined;
  /** Runs around each request's handling (from authentication to the reply): the map a request is
   *  answered from is pinned here (app.ts). */
  scope?: (ctx: RequestContext, run: () => Promise<Reply>) => Promise<Reply>;
}

export interface RunningServer {
  port: number;
  /** Requests read and not yet answered. */
  readonly inFlight: number;
  /**
   * Graceful stop: stops accepting connections, answers every request already read (and those that
   * still arrive on open connections meanwhile) with `Connection: close`, then closes the idle
   * keep-alive connections once no request has been in flight for a moment. Past `graceMs` whatever
   * is left is closed. Safe to call more than once.
   */
  close(graceMs?: number): Promise<void>;
}

export interface ServerOptions {
  /** A request whose body stops arriving for this long is answered 408 and its connection closed. */
  bodyTimeoutMs?: number;
}

/** uWS's LIBUS_LISTEN_EXCLUSIVE_PORT (an enum the typings declare but do not export as a value). */
const EXCLUSIVE_PORT = (uws as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT ?? 1;

/** Header fields (names and values) beyond this answer 431. uWS itself closes, without an answer, a
 *  request whose head spans several reads and passes 4 KB (its copy buffer), or has 49 or more fields. */
export const MAX_HEADER_BYTES = 8 * 1024;

/** While draining, idle keep-alive connections are closed once no request has arrived or been
 *  answered for this long: a client in the middle of a request-response loop has sent its next one. */
const DRAIN_QUIET_MS = 200;

export function startHttpServer(deps: ServerDeps, host: string, port: number, opts: ServerOptions = {}): Promise<RunningServer> {
  assertNativeUws();
  const app = uws.App();
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? 8_000;
  let inFlight = 0;
  let draining = false;
  let lastActivity = 0;
  let closing: Promise<void> | undefined;

  app.any('/*', (res, req) => {
    inFlight++;
    const started = (lastActivity = performance.now());
    const done = () => {
      inFlight--;
      lastActivity = performance.now();
    };
    const ctx = buildContext(req);
    if (ctx.headerBytes > MAX_HEADER_BYTES) {
      // Answered at once: the body (if any) is not read, so the connection cannot be reused.
      send(res, ctx, { status: 431, body: { message: `The request's header fields exceed ${MAX_HEADER_BYTES} bytes.` } }, deps.log, true);
      done();
      return;
    }
    const match = deps.router.match(ctx.method, ctx.path);
    const route = match.kind === 'found' ? match.route : undefined;
    if (match.kind === 'found') Object.assign(ctx.params, match.params);
    (ctx as { route: string }).route = route?.path ?? ctx.path;
    if (route?.peer) ctx.peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const body = readBody(res, ctx, route, bodyTimeoutMs);
    ctx.attachBody(body.buffer, body.stream);
    void (deps.scope ? deps.scope(ctx, () => handle(ctx, match, deps)) : handle(ctx, match, deps))
      .then(async (reply) => {
        body.discard();
        await body.received;
        const own = deps.own?.(ctx) !== undefined;
        send(res, ctx, reply, deps.log, body.closeAfter || draining, own);
        if (!own) deps.observe?.(ctx, route?.path, reply.status, started);
      })
      // Unhandled, a rejection here would end the process (Node's default for unhandled rejections).
      .catch((err) => deps.log.error({ err, reqId: ctx.id, route: ctx.route }, 'could not send the reply'))
      .finally(done);
  });

  return new Promise((resolve, reject) => {
    // uWS sets SO_REUSEPORT unless told otherwise: a second server on a taken port would then start and
    // take half of the first one's connections. Exclusive, it fails, and says so.
    const listen = app.listen as unknown as (h: string, p: number, options: number, cb: (socket: uws.us_listen_socket | false) => void) => void;
    listen.call(app, host, port, EXCLUSIVE_PORT, (socket) => {
      if (!socket) {
        return reject(
          new Error(
            `could not listen on ${host}:${port}: the port is in use (by another waymark serve or another program) or not allowed; stop that process or set PORT to a free port`,
          ),
        );
      }
      const drain = async (graceMs: number) => {
        draining = true;
        uws.us_listen_socket_close(socket);
        const deadline = performance.now() + graceMs;
        while (performance.now() < deadline && (inFlight > 0 || performance.now() - lastActivity < DRAIN_QUIET_MS)) {
          await new Promise((done) => setTimeout(done, 10));
        }
        if (inFlight > 0) deps.log.warn({ inFlight, graceMs }, 'shutdown timeout: closing connections with requests still unanswered');
        // Closes every connection left: idle keep-alive ones get a FIN, unanswered ones their abort.
        (app as unknown as { close(): void }).close();
      };
      resolve({
        port: uws.us_socket_local_port(socket),
        get inFlight() {
          return inFlight;
        },
        close: (graceMs = 10_000) => (closing ??= drain(graceMs)),
      });
    });
  });
}

function buildContext(req: uws.HttpRequest): RequestContext & { headerBytes: number } {
  const headers: Record<string, string> = {};
  let headerBytes = 0;
  req.forEach((k, v) => {
    headers[k] = v;
    headerBytes += k.length + v.length + 4;
  });
  const incomingId = headers['x-request-id'];
  const id = incomingId && /^[\w.-]{1,100}$/.test(incomingId) ? incomingId : nextRequestId();
  const ctx = new RequestContext(id, req.getCaseSensitiveMethod().toUpperCase(), req.getUrl(), '', {}, new Query(req.getQuery() ?? ''), headers);
  return Object.assign(ctx, { headerBytes });
}

/** The request body as the server reads it. */
interface Body {
  buffer?: Promise<Buffer>;
  stream?: PassThrough;
  /** Settles once the whole body is in, the client went away, or reading stopped (a bound of a refused body, 408). */
  received: Promise<void>;
  /** The body was not read to its end: the reply closes the connection. */
  closeAfter: boolean;
  /** Drops what the handler did not consume, so that `received` can settle. */
  discard(): void;
}

/** Never more than this much of a body is read, wanted or not, before the connection is dropped. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/** A body refused with 413 is read and dropped for at most this long before the 413 goes out anyway. */
export const LINGER_MS = 5_000;

const requestTimeout = () => new HttpError(408, 'The request body stopped arriving; send it again, faster.');

/**
 * Starts reading the body right away (uWS delivers it only to a handler attached synchronously). The
 * reply waits for `received`: answering before the whole body is in would leave the keep-alive
 * connection out of step with the client, which then loses its next request.
 *
 * A body over the route's limit (by its Content-Length or as it arrives) fails the handler's read at
 * once, and the rest is read and dropped ("lingering") before the 413 goes out: a server that answers
 * and closes while the body still arrives resets the connection, and Node's fetch, Python's requests
 * and others then report EPIPE or ECONNRESET instead of the 413 (issue 33). nginx answers first and
 * lingers after; this uWS build cannot (after `end` it drops the rest of a body itself, with no bound
 * we could enforce; a chunked answer written early gets a stray header in its body from `end`), so the
 * 413 waits for the body's end, bounded by DRAIN_LIMIT bytes, LINGER_MS and the stall timeout; past a
 * bound it goes out and the connection closes. A body stalled for `timeoutMs` is 408 and closed.
 */
function readBody(res: HttpResponse, ctx: RequestContext, route: Route | undefined, timeoutMs: number): Body {
  const mode = !route ? 'none' : (route.body ?? (ctx.method === 'POST' || ctx.method === 'PUT' ? 'json' : 'none'));
  const limit = route?.bodyLimit ?? JSON_BODY_LIMIT;
  const declared = Number(ctx.headers['content-length'] ?? NaN);
  let settle!: () => void;
  const body: Body = { received: new Promise<void>((resolve) => (settle = resolve)), closeAfter: false, discard: () => {} };
  const expectsBody = declared > 0 || Boolean(ctx.headers['transfer-encoding']);
  // uWS keeps one abort handler per response, and one data handler: every reader registers here.
  const onAbort: Array<() => void> = [];
  const onRefuse: Array<(err: HttpError) => void> = [];
  let finished = !expectsBody;
  let lingering = false;
  let timer: NodeJS.Timeout | undefined;
  let lingerTimer: NodeJS.Timeout | undefined;
  const finish = () => {
    finished = true;
    clearTimeout(timer);
    clearTimeout(lingerTimer);
    settle();
  };
  /** Stops reading where the body stands: the reply goes out now and closes the connection. */
  const cut = () => {
    if (finished) return;
    body.closeAfter = true;
    finish();
  };
  /** What the handler reads fails with `err`; a 413 lingers (above), anything else is cut. */
  const refuse = (err: HttpError) => {
    if (finished || lingering) return;
    for (const f of onRefuse) f(err);
    if (err.status !== 413 || declared > DRAIN_LIMIT) return cut();
    lingering = true;
    lingerTimer = setTimeout(cut, LINGER_MS);
  };
  if (!expectsBody) settle();
  else if (timeoutMs > 0) timer = setTimeout(() => (lingering ? cut() : refuse(requestTimeout())), timeoutMs);
  res.onAborted(() => {
    ctx.aborted = true;
    finish();
    for (const f of onAbort) f();
  });
  let total = 0;
  let consume: (chunk: ArrayBuffer, isLast: boolean) => void = () => {};
  res.onData((chunk, isLast) => {
    if (finished) return;
    total += chunk.byteLength;
    if (timer) timer.refresh();
    if (total > DRAIN_LIMIT) {
      refuse(payloadTooLarge(limit));
      return cut();
    }
    if (!lingering) consume(chunk, isLast);
    if (isLast) finish();
  });

  if (mode === 'none') return body;
  if (declared > limit) queueMicrotask(() => refuse(payloadTooLarge(limit)));
  if (mode === 'stream') {
    const stream = new PassThrough();
    // The handler attaches its listeners only after auth; until then an early 413 must not be an
    // unhandled 'error' event (it stays readable as `stream.errored` and reaches later listeners).
    stream.on('error', () => {});
    // A client that disconnects mid-upload must not leave the handler waiting on the stream forever.
    onAbort.push(() => stream.destroy(new Error('aborted')));
    onRefuse.push((err) => stream.destroy(err));
    // The socket outlives the request (keep-alive): it must never be left paused, and resuming one
    // that is not paused (or that already serves the next request) upsets uWS.
    let paused = false;
    let done = false;
    const resume = () => {
      if (paused && !done && !ctx.aborted) res.resume();
      paused = false;
    };
    onRefuse.push(() => resume());
    consume = (chunk, isLast) => {
      if (isLast) resume();
      if (stream.destroyed) return;
      if (total > limit) return refuse(payloadTooLarge(limit));
      // uWS reuses the chunk's memory after the callback: copy it.
      if (!stream.write(Buffer.from(new Uint8Array(chunk))) && !isLast && !paused) {
        res.pause();
        paused = true;
        stream.once('drain', resume);
      }
      if (isLast) stream.end();
    };
    body.stream = stream;
    body.discard = () => {
      if (!stream.writableEnded) stream.destroy();
      resume();
      done = true;
    };
    return body;
  }
  body.buffer = new Promise<Buffer>((resolve, reject) => {
    onAbort.push(() => reject(new Error('aborted')));
    onRefuse.push(reject);
    const parts: Buffer[] = [];
    consume = (chunk, isLast) => {
      if (total > limit) return refuse(payloadTooLarge(limit));
      parts.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) resolve(Buffer.concat(parts, total));
    };
    if (!expectsBody) resolve(Buffer.alloc(0));
  });
  // Only this copy: the handler awaits `buffer` and meets the failure there.
  body.buffer.catch(() => {});
  return body;
}

/** Requests counted as usage, to be settled with their reply's status class. */
const usageMarks = new WeakMap<RequestContext, UsageMark>();

async function handle(ctx: RequestContext, match: ReturnType<Router['match']>, deps: ServerDeps): Promise<Reply> {
  const reply = await respond(ctx, match, deps);
  const mark = usageMarks.get(ctx);
  if (mark !== undefined) deps.usage.settle(mark, reply.status);
  return reply;
}

async function respond(ctx: RequestContext, match: ReturnType<Router['match']>, deps: ServerDeps): Promise<Reply> {
  try {
    if (match.kind === 'not-found') return { status: 404, body: { message: 'Not found.' } };
    if (match.kind === 'method-not-allowed') {
      return { status: 405, body: { message: `Method ${ctx.method} is not allowed here.` }, headers: { Allow: match.allow.join(', ') } };
    }
    const route = match.route;
    if (!route.public) {
      const own = deps.own?.(ctx);
      const auth = own ?? (await deps.keys.lookup(ctx.headers['x-api-key']));
      if (!auth) throw unauthenticated();
      ctx.auth = auth;
      // Every authenticated request counts and carries the rate-limit headers, the no-plan 403 included;
      // a team without a plan gets that 403 on every request, past its rate limit too.
      const rate = await deps.limiter.take(auth.teamId, auth.rateLimit);
      if (!auth.planActive) {
        for (const [k, v] of Object.entries(rate.headers)) if (!k.endsWith('Retry-After')) ctx.responseHeaders[k] = v;
        throw forbidden('Your team does not have an active plan.');
      }
      Object.assign(ctx.responseHeaders, rate.headers);
      if (!rate.allowed) {
        throw new HttpError(429, 'Too many requests. Retry after the time in the Retry-After header.', { retry_after: rate.retryAfter });
      }
      if (!own) usageMarks.set(ctx, deps.usage.record(auth.keyId, auth.teamId, route.method, route.path));
      if (route.permission) ctx.require(route.permission);
    }
    return await route.handler(ctx);
  } catch (err) {
    if (err instanceof HttpError) {
      if (err.cause) deps.log.error({ err: err.cause, reqId: ctx.id, route: ctx.route }, err.message);
      return { status: err.status, body: err.body(), headers: err.headers };
    }
    if (err instanceof Error && err.message === 'aborted') return { status: 499 };
    if (isDatabaseUnavailable(err)) {
      deps.log.warn({ err, reqId: ctx.id, route: ctx.route }, 'database unavailable');
      return { status: 503, body: { message: 'The database is unavailable. Retry shortly.' }, headers: { 'Retry-After': '1' } };
    }
    deps.log.error({ err, reqId: ctx.id, route: ctx.route }, 'request failed');
    return { status: 500, body: { message: 'Internal server error.' } };
  }
}

function send(res: HttpResponse, ctx: RequestContext, reply: Reply, log: Logger, closeConnection = false, quiet = false): void {
  const raw = reply.body instanceof RawJson ? reply.body : undefined;
  if (ctx.aborted) {
    raw?.onSent();
    return;
  }
  let payload: string | Uint8Array | undefined;
  try {
    payload =
      reply.body === undefined || reply.status === 204
        ? undefined
        : reply.body instanceof RawJson
          ? rawPayload(reply.body)
          : reply.body instanceof RawBytes
            ? reply.body.bytes
            : JSON.stringify(reply.body);
  } catch (err) {
    // A body JSON cannot hold (a BigInt, a cycle) is a bug of the handler, answered like any other.
    log.error({ err, reqId: ctx.id, route: ctx.route }, 'reply body is not serialisable');
    reply = { status: 500 };
    payload = JSON.stringify({ message: 'Internal server error.' });
  }
  try {
    sendPayload(res, ctx, reply, payload, closeConnection);
  } finally {
    // uWS has sent or copied the payload by now: the parts it may be a view of can go.
    raw?.onSent();
  }
  if (!quiet && log.isLevelEnabled('info')) log.info({ reqId: ctx.id, method: ctx.method, path: ctx.path, status: reply.status }, 'request');
}

function sendPayload(res: HttpResponse, ctx: RequestContext, reply: Reply, payload: string | Uint8Array | undefined, closeConnection: boolean): void {
  res.cork(() => {
    res.writeStatus(`${reply.status} ${STATUS_CODES[reply.status] ?? ''}`);
    res.writeHeader('X-Request-Id', ctx.id);
    for (const [k, v] of Object.entries(ctx.responseHeaders)) res.writeHeader(k, v);
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    // A 204 carries no Content-Length (RFC 9110 §8.6); uWS writes one for any argument passed to
    // endWithoutBody, and a bogus 2^63 for `undefined`. Other empty replies say `Content-Length: 0`.
    // Replies without a body that must close say so themselves (`end(…, true)` would add a length):
    // the client closes, and a server draining for shutdown closes what is left.
    if (ctx.method === 'HEAD') {
      // The GET's headers without its body. Passing the length to endWithoutBody leaves this uWS build
      // unable to take the connection's next request, so the header is written here.
      if (payload !== undefined && !reply.headers?.['Content-Type']) res.writeHeader('Content-Type', 'application/json');
      res.writeHeader('Content-Length', String(payload === undefined ? 0 : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length));
      if (closeConnection) res.writeHeader('Connection', 'close');
      res.endWithoutBody();
    } else if (payload === undefined) {
      if (reply.status !== 204) res.end(undefined, closeConnection);
      else {
        if (closeConnection) res.writeHeader('Connection', 'close');
        res.endWithoutBody();
      }
    } else {
      // Dashboard pages and assets name their own type.
      if (!reply.headers?.['Content-Type']) res.writeHeader('Content-Type', 'application/json');
      res.end(payload, closeConnection);
    }
  });
}

/** A RawJson as the bytes to send: in place when its parts' owner can frame them (RawJson.frame), else joined. */
export function rawPayload(raw: RawJson): string | Uint8Array {
  if (raw.frame) {
    const at = raw.parts.findIndex((p) => typeof p !== 'string');
    if (at >= 0 && raw.parts.findLastIndex((p) => typeof p !== 'string') === at) {
      const whole = raw.frame(raw.parts.slice(0, at).join(''), raw.parts.slice(at + 1).join(''));
      if (whole) return whole;
    }
  }
  return joined(raw.parts);
}

/** Replies above this size get a buffer of their own rather than growing the shared one. */
const MAX_SCRATCH_BYTES = 8 << 20;
let scratch = Buffer.allocUnsafeSlow(1 << 16);

/**
 * A RawJson's parts as one payload. Parts with bytes (a route's geometry) are copied into a buffer
 * reused by every reply: uWS copies what it sends before `end` returns, and a new buffer of a few
 * hundred kB per reply, or a string of it, costs more than the copy.
 */
export function joined(parts: ReadonlyArray<string | Uint8Array>): string | Uint8Array {
  if (parts.length === 1 && typeof parts[0] === 'string') return parts[0];
  let bytes = 0;
  for (const part of parts) bytes += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  if (bytes > scratch.length && bytes <= MAX_SCRATCH_BYTES) scratch = Buffer.allocUnsafeSlow(Math.max(bytes, 2 * scratch.length));
  const out = bytes <= scratch.length ? scratch : Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (const part of parts) at += typeof part === 'string' ? out.write(part, at) : (out.set(part, at), part.length);
  return out.subarray(0, at);
}
