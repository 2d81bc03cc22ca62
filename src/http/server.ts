import { STATUS_CODES } from 'node:http';
import { PassThrough } from 'node:stream';
import uws from '@trufflesuite/uws-js-unofficial';
import type { Logger } from 'pino';
import type { KeyStore } from '../auth/authenticate.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import type { UsageRecorder } from '../auth/usage.js';
import { newId } from '../ids.js';
import { JSON_BODY_LIMIT, RequestContext } from './context.js';
import { forbidden, HttpError, payloadTooLarge, unauthenticated } from './errors.js';
import { Query } from './query.js';
import { RawJson, type Reply, type Route, type Router } from './router.js';

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
}

export interface RunningServer {
  port: number;
  /** Stops accepting connections, waits for in-flight requests (up to `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

/** Never more than this much of an over-limit body is read before the connection is dropped. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

export function startHttpServer(deps: ServerDeps, host: string, port: number): Promise<RunningServer> {
  assertNativeUws();
  const app = uws.App();
  let inFlight = 0;
  let drained: (() => void) | undefined;

  app.any('/*', (res, req) => {
    inFlight++;
    const ctx = buildContext(req);
    const match = deps.router.match(ctx.method, ctx.path);
    const route = match.kind === 'found' ? match.route : undefined;
    if (match.kind === 'found') Object.assign(ctx.params, match.params);
    (ctx as { route: string }).route = route?.path ?? ctx.path;
    const body = readBody(res, ctx, route);
    ctx.attachBody(body.buffer, body.stream);
    void handle(ctx, match, deps)
      .then(async (reply) => {
        body.discard();
        await body.received;
        send(res, ctx, reply, deps.log, body.abandoned);
      })
      // Unhandled, a rejection here would end the process (Node's default for unhandled rejections).
      .catch((err) => deps.log.error({ err, reqId: ctx.id, route: ctx.route }, 'could not send the reply'))
      .finally(() => {
        if (--inFlight === 0) drained?.();
      });
  });

  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) return reject(new Error(`could not listen on ${host}:${port}`));
      resolve({
        port: uws.us_socket_local_port(socket),
        close: async (graceMs = 10_000) => {
          uws.us_listen_socket_close(socket);
          if (inFlight > 0) {
            await new Promise<void>((done) => {
              drained = done;
              setTimeout(done, graceMs).unref();
            });
          }
        },
      });
    });
  });
}

function buildContext(req: uws.HttpRequest): RequestContext {
  const headers: Record<string, string> = {};
  req.forEach((k, v) => {
    headers[k] = v;
  });
  const incomingId = headers['x-request-id'];
  const id = incomingId && /^[\w.-]{1,100}$/.test(incomingId) ? incomingId : nextRequestId();
  return new RequestContext(id, req.getCaseSensitiveMethod().toUpperCase(), req.getUrl(), '', {}, new Query(req.getQuery() ?? ''), headers);
}

/** The request body as the server reads it. */
interface Body {
  buffer?: Promise<Buffer>;
  stream?: PassThrough;
  /** Settles once the whole body is in, the client went away, or more than DRAIN_LIMIT was sent. */
  received: Promise<void>;
  /** Set past DRAIN_LIMIT: the server stopped reading, so the connection must close after the reply. */
  abandoned: boolean;
  /** Drops what the handler did not consume, so that `received` can settle. */
  discard(): void;
}

/** Starts reading the body right away (uWS delivers it only to a handler attached synchronously). The
 *  reply waits for `received`: answering before the whole body is in would leave the keep-alive
 *  connection out of step with the client, which then loses its next request. */
function readBody(res: HttpResponse, ctx: RequestContext, route: Route | undefined): Body {
  const mode = !route ? 'none' : route.body ?? (ctx.method === 'POST' || ctx.method === 'PUT' ? 'json' : 'none');
  const limit = route?.bodyLimit ?? JSON_BODY_LIMIT;
  const declared = Number(ctx.headers['content-length'] ?? NaN);
  let settle!: () => void;
  const body: Body = { received: new Promise<void>((resolve) => (settle = resolve)), abandoned: false, discard: () => {} };
  if (!(declared > 0) && !ctx.headers['transfer-encoding']) settle();
  // uWS keeps one abort handler per response: every reader registers here.
  const onAbort: Array<() => void> = [settle];
  res.onAborted(() => {
    ctx.aborted = true;
    for (const f of onAbort) f();
  });
  let total = 0;
  const onChunk = (consume: (chunk: ArrayBuffer, isLast: boolean) => void, abandon: () => void = () => {}) =>
    res.onData((chunk, isLast) => {
      if (body.abandoned) return;
      total += chunk.byteLength;
      if (total > DRAIN_LIMIT) {
        body.abandoned = true;
        abandon();
        settle();
        return;
      }
      consume(chunk, isLast);
      if (isLast) settle();
    });

  if (mode === 'none') {
    onChunk(() => {});
    return body;
  }
  if (mode === 'stream') {
    const stream = new PassThrough();
    // The handler attaches its listeners only after auth; until then an early 413 must not be an
    // unhandled 'error' event (it stays readable as `stream.errored` and reaches later listeners).
    stream.on('error', () => {});
    // A client that disconnects mid-upload must not leave the handler waiting on the stream forever.
    onAbort.push(() => stream.destroy(new Error('aborted')));
    if (declared > limit) stream.destroy(payloadTooLarge(limit));
    // The socket outlives the request (keep-alive): it must never be left paused, and resuming one
    // that is not paused (or that already serves the next request) upsets uWS.
    let paused = false;
    let done = false;
    const resume = () => {
      if (paused && !done && !ctx.aborted) res.resume();
      paused = false;
    };
    onChunk((chunk, isLast) => {
      if (isLast) resume();
      if (stream.destroyed) return;
      if (total > limit) {
        stream.destroy(payloadTooLarge(limit));
        return;
      }
      // uWS reuses the chunk's memory after the callback: copy it.
      if (!stream.write(Buffer.from(new Uint8Array(chunk))) && !isLast && !paused) {
        res.pause();
        paused = true;
        stream.once('drain', resume);
      }
      if (isLast) stream.end();
    }, () => stream.destroy(payloadTooLarge(limit)));
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
    const parts: Buffer[] = [];
    let over = declared > limit;
    onChunk((chunk, isLast) => {
      if (total > limit) over = true;
      if (!over) parts.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) {
        if (over) reject(payloadTooLarge(limit));
        else resolve(Buffer.concat(parts, total));
      }
    }, () => reject(payloadTooLarge(limit)));
  });
  body.buffer.catch(() => {});
  return body;
}

async function handle(ctx: RequestContext, match: ReturnType<Router['match']>, deps: ServerDeps): Promise<Reply> {
  try {
    if (match.kind === 'not-found') return { status: 404, body: { message: 'Not found.' } };
    if (match.kind === 'method-not-allowed') {
      return { status: 405, body: { message: `Method ${ctx.method} is not allowed here.` }, headers: { Allow: match.allow.join(', ') } };
    }
    const route = match.route;
    if (!route.public) {
      const auth = await deps.keys.lookup(ctx.headers['x-api-key']);
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
      deps.usage.record(auth.keyId, route.method, route.path);
      if (route.permission) ctx.require(route.permission);
    }
    return await route.handler(ctx);
  } catch (err) {
    if (err instanceof HttpError) {
      if (err.cause) deps.log.error({ err: err.cause, reqId: ctx.id, route: ctx.route }, err.message);
      return { status: err.status, body: err.body(), headers: err.headers };
    }
    if (err instanceof Error && err.message === 'aborted') return { status: 499 };
    deps.log.error({ err, reqId: ctx.id, route: ctx.route }, 'request failed');
    return { status: 500, body: { message: 'Internal server error.' } };
  }
}

function send(res: HttpResponse, ctx: RequestContext, reply: Reply, log: Logger, closeConnection = false): void {
  if (ctx.aborted) return;
  let payload: string | undefined;
  try {
    payload = reply.body === undefined || reply.status === 204 ? undefined
      : reply.body instanceof RawJson ? reply.body.text : JSON.stringify(reply.body);
  } catch (err) {
    // A body JSON cannot hold (a BigInt, a cycle) is a bug of the handler, answered like any other.
    log.error({ err, reqId: ctx.id, route: ctx.route }, 'reply body is not serialisable');
    reply = { status: 500 };
    payload = JSON.stringify({ message: 'Internal server error.' });
  }
  res.cork(() => {
    res.writeStatus(`${reply.status} ${STATUS_CODES[reply.status] ?? ''}`);
    res.writeHeader('X-Request-Id', ctx.id);
    for (const [k, v] of Object.entries(ctx.responseHeaders)) res.writeHeader(k, v);
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    // A 204 carries no Content-Length (RFC 9110 §8.6); uWS writes one for any argument passed to
    // endWithoutBody, and a bogus 2^63 for `undefined`. Other empty replies say `Content-Length: 0`.
    if (ctx.method === 'HEAD' && !closeConnection) {
      // The GET's headers without its body. Passing the length to endWithoutBody leaves this uWS build
      // unable to take the connection's next request, so the header is written here.
      if (payload !== undefined) res.writeHeader('Content-Type', 'application/json');
      res.writeHeader('Content-Length', String(payload === undefined ? 0 : Buffer.byteLength(payload)));
      res.endWithoutBody();
    } else if (payload === undefined || ctx.method === 'HEAD') {
      if (reply.status === 204 && !closeConnection) res.endWithoutBody();
      else res.end(undefined, closeConnection);
    } else {
      res.writeHeader('Content-Type', 'application/json');
      res.end(payload, closeConnection);
    }
  });
  if (log.isLevelEnabled('info')) log.info({ reqId: ctx.id, method: ctx.method, path: ctx.path, status: reply.status }, 'request');
}
