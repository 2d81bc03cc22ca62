// HTTP at its edges through the shipped proxy: Debian's nginx with deploy/nginx.conf (test/support/nginx.ts)
// in front of a real `waymark serve`, sent the cases of http-edges.test.ts (and more) over raw sockets.
// Each gets an HTTP answer, from nginx (text/html) or from us (application/json); every exchange is
// bounded by its socket timeout, so nothing can hang the file. The table of HTTP edges in docs/operations.md has the
// column "through the shipped proxy" from what this file pins.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { SIGN_IN_MAX_CLIENT_FAILURES } from '../../src/dashboard/sessions.js';
import { JSON_BODY_LIMIT } from '../../src/http/context.js';
import { projectRoot } from '../../src/lib/paths.js';
import { hasNginx, type NginxProxy, SHIPPED_CONFIG, startProxy } from '../support/nginx.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { freshDatabase, rawExchange, statuses } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: ServerProcess;
let proxy: NginxProxy;
let key: string;

// A reported skip where the machine has no nginx (.ci/run installs Debian's package).
describe.skipIf(!hasNginx)('through the shipped proxy', () => {
  beforeAll(async () => {
    db = await freshDatabase('proxy_edges');
    server = await spawnServer({ DATABASE_URL: db.url, WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off', WAYMARK_TRUSTED_PROXIES: '127.0.0.1' });
    proxy = await startProxy([new URL(server.url).host]);
    const team = await createTeam(db.sql, { name: 'proxy', plan: 'enterprise' });
    key = (await createKey(db.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key;
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.stop();
    await db?.drop();
  });

  /** One exchange with the proxy: its answers' statuses and who gave each (ours carry X-Request-Id). */
  async function through(data: string | Buffer | Array<string | Buffer>, opts: { gapMs?: number; responses?: number; timeoutMs?: number } = {}) {
    const r = await rawExchange(proxy.port, data, opts.timeoutMs ?? 15_000, opts.gapMs ?? 0, opts.responses ?? 1);
    const from = [...r.text.matchAll(/HTTP\/1\.[01] (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n/g)].map((m) => {
      // Every answer of ours carries its request id; nginx's own do not.
      return `${m[1]} ${/^x-request-id:/im.test(m[2]) ? 'waymark' : 'nginx'}`;
    });
    return { ...r, statuses: statuses(r.text), from };
  }
  const auth = () => `X-API-KEY: ${key}\r\n`;
  const json = (body: string) => `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  async function stillServing(): Promise<void> {
    expect((await through(`GET /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}\r\n`)).from).toEqual(['200 waymark']);
  }

  it('HTTP/1.0 is answered (nginx speaks HTTP/1.1 to serve), and closed after the answer', async () => {
    const r = await through(`GET /v1/categories HTTP/1.0\r\nHost: a\r\n${auth()}\r\n`, { responses: 2 });
    expect(r.from).toEqual(['200 waymark']);
    expect(r.closed).toBe(true);
    expect((await through('GET /health HTTP/1.0\r\n\r\n', { responses: 2 })).statuses).toEqual([200]);
  });

  it('a method uWS does not know is 501 from nginx, and never reaches serve; known unrouted methods are our 405', async () => {
    for (const method of ['BREW', 'PROPFIND', 'MKCOL']) {
      expect((await through(`${method} /v1/pois HTTP/1.1\r\nHost: a\r\n\r\n`)).from, method).toEqual(['501 nginx']);
    }
    for (const method of ['PATCH', 'OPTIONS']) {
      const r = await through(`${method} /v1/pois HTTP/1.1\r\nHost: a\r\n${auth()}Content-Length: 0\r\n\r\n`);
      expect(r.from, method).toEqual(['405 waymark']);
      expect(r.text).toContain('Allow: GET, POST, HEAD\r\n');
    }
    // nginx refuses TRACE itself.
    expect((await through('TRACE /v1/pois HTTP/1.1\r\nHost: a\r\n\r\n')).from).toEqual(['405 nginx']);
    await stillServing();
  });

  it('malformed heads are 400 from nginx', async () => {
    for (const head of [
      'GET /health HTTP/1.1\r\nHost a\r\n\r\n', // a field without a colon
      'HELLO\r\n\r\n', // not a request line
      'GET /health HTTP/1.1\r\n\r\n', // HTTP/1.1 without Host
      'GET /health HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx', // two lengths
      'GET /he\x00alth HTTP/1.1\r\nHost: a\r\n\r\n',
    ]) {
      expect((await through(head)).from, JSON.stringify(head)).toEqual(['400 nginx']);
    }
    expect((await through('GET /health HTTP/2.7\r\nHost: a\r\n\r\n')).from).toEqual(['505 nginx']);
    await stillServing();
  });

  it('oversized heads: a field over 8 KB is 400 from nginx, a long request line 414; many small fields reach serve as the few it reads', async () => {
    expect((await through(`GET /health HTTP/1.1\r\nHost: a\r\nX-Padding: ${'p'.repeat(9000)}\r\n\r\n`)).from).toEqual(['400 nginx']);
    expect((await through(`GET /health?${'q'.repeat(9000)} HTTP/1.1\r\nHost: a\r\n\r\n`)).from).toEqual(['414 nginx']);
    // 100 fields and 24 KB: uWS alone never answers 49 or more fields, and answers 431 past 8 KB; nginx
    // passes on only the fields the service reads.
    const fields = Array.from({ length: 100 }, (_, i) => `X-F${i}: ${'v'.repeat(240)}`).join('\r\n');
    expect((await through(`GET /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}${fields}\r\n\r\n`)).from).toEqual(['200 waymark']);
    // Past nginx's 32 KB of header buffers: 400 from nginx.
    const more = Array.from({ length: 200 }, (_, i) => `X-F${i}: ${'v'.repeat(240)}`).join('\r\n');
    expect((await through(`GET /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}${more}\r\n\r\n`)).from).toEqual(['400 nginx']);
    // Fields serve reads, each under nginx's 8 KB and past our 8 KB in all: our 431.
    const read = `Cookie: c=${'x'.repeat(6000)}\r\nX-CSRF-Token: ${'t'.repeat(3000)}\r\n`;
    expect((await through(`GET /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}${read}\r\n`)).from).toEqual(['431 waymark']);
    await stillServing();
  });

  it('pipelined requests, those that wait for the database too, are all answered in order', async () => {
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: a\r\n${auth()}\r\n`;
    const post = `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}${json('{"name":"piped"}')}`;
    const r = await through(get('/v1/categories') + post + get('/v1/pois') + get('/nowhere') + get('/v1/categories'), { responses: 5 });
    expect(r.from).toEqual(['200 waymark', '201 waymark', '200 waymark', '404 waymark', '200 waymark']);
  });

  it('a slow body is read by nginx and reaches serve whole; chunked and Expect: 100-continue too', async () => {
    const body = `{"name":"trickled"${' '.repeat(2000)}}`;
    const head = `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // 20 pieces a quarter of a second apart: slower than the 16 KB/s under which uWS alone closes.
    const pieces = Array.from({ length: 20 }, (_, i) => body.slice((i * body.length) / 20, ((i + 1) * body.length) / 20));
    const slow = await through([head, ...pieces], { gapMs: 250 });
    expect(slow.from).toEqual(['201 waymark']);
    expect(slow.text).toContain('"name":"trickled"');

    const chunked = `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    expect((await through([chunked, '5\r\n{"nam\r\n', 'd\r\ne":"chunked"}\r\n', '0\r\n\r\n'], { gapMs: 20 })).from).toEqual(['201 waymark']);

    const continued = '{"name":"continued"}';
    const expect100 = `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${continued.length}\r\nExpect: 100-continue\r\n\r\n`;
    expect((await through([expect100, continued], { gapMs: 100 })).statuses).toEqual([100, 201]);
  });

  it('a body that stops arriving: nginx closes the connection after client_body_timeout without a byte (its 408 goes to its log only), serve never sees it', async () => {
    const r = await through(`POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`, {
      timeoutMs: 30_000,
    });
    expect(r.text).toBe('');
    expect(r.closed).toBe(true);
    await stillServing();
  });

  it('a body over our limit is 413 from nginx, the body never sent to serve; at the limit it reaches serve', async () => {
    const over = await through(
      `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${JSON_BODY_LIMIT + 1}\r\n\r\n{`,
    );
    expect(over.from).toEqual(['413 nginx']);
    const at = `{"name":"${'n'.repeat(JSON_BODY_LIMIT - 11)}"}`;
    expect(at.length).toBe(JSON_BODY_LIMIT);
    // Ours to judge (too long a name), not nginx's.
    expect((await through(`POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}${json(at)}`)).from).toEqual(['422 waymark']);

    // Node's fetch sees the 413 of a 5 MB JSON body (nginx reads and drops the rest before closing).
    const big = await fetch(`http://127.0.0.1:${proxy.port}/v1/pois`, {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(5_000_000) }),
    });
    expect(big.status).toBe(413);
    await big.text();
    // And an 11.5 MB CSV upload, over the imports route's 10 MiB + 64 KiB.
    const form = new FormData();
    form.append('file', new Blob([`name,latitude,longitude\n${'a,47.1,9.5\n'.repeat(1_150_000)}`], { type: 'text/csv' }), 'pois.csv');
    const upload = await fetch(`http://127.0.0.1:${proxy.port}/v1/imports`, { method: 'POST', headers: { 'X-API-KEY': key }, body: form });
    expect(upload.status).toBe(413);
    await upload.text();
  });

  it('the routes that take more than 1 MiB get their own limits, and nginx refuses above them', async () => {
    const post = (path: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const limits = { '/v1/imports': 10 * 1024 * 1024 + 64 * 1024, '/v1/optimizations': 8 * 1024 * 1024 };
    for (const [path, limit] of Object.entries(limits)) {
      for (const p of [path, `/dashboard/api${path}`]) expect((await through(post(p, limit + 1))).from, p).toEqual(['413 nginx']);
      // Over 1 MiB and within the route's limit: nginx takes the body (serve answers the declared length that never comes).
      const r = await through([post(path, 2 * JSON_BODY_LIMIT), Buffer.alloc(2 * JSON_BODY_LIMIT, 32)]);
      expect(r.from[0]?.endsWith('waymark'), `${path}: ${r.from}`).toBe(true);
    }
  });

  it('X-Forwarded-Host is set by nginx and believed: a dashboard sign-in from the proxy’s own origin passes the Origin check, a forged one does not', async () => {
    const signIn = (extra: string) =>
      through(`POST /dashboard/api/session HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\n${extra}${json('{"email":"nobody@example.com","password":"x"}')}`);
    // nginx sends Host without the port: only X-Forwarded-Host carries what the browser's Origin names.
    expect((await signIn(`Origin: http://127.0.0.1:${proxy.port}\r\n`)).from).toEqual(['401 waymark']);
    expect((await signIn('Origin: http://evil.example\r\nX-Forwarded-Host: evil.example\r\n')).from).toEqual(['403 waymark']);
  });

  it('X-Forwarded-For is extended by nginx and read from the right: a client that forges it is still counted as itself', async () => {
    // From 127.0.0.2, not the proxy's (trusted) 127.0.0.1: what the client writes in X-Forwarded-For comes
    // before its own address in what nginx sends, and serve takes the nearest address it does not trust.
    const signIn = (i: number) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ email: `sprayed${i}@example.com`, password: 'Winter2026!' });
        const req = request(
          {
            host: '127.0.0.1',
            port: proxy.port,
            localAddress: '127.0.0.2',
            method: 'POST',
            path: '/dashboard/api/session',
            headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-Forwarded-For': `198.51.100.${i}` },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_IN_MAX_CLIENT_FAILURES; i++) statuses.push(await signIn(i));
    // One password over many accounts, each try with another forged address: one client, held back.
    expect(statuses.slice(0, SIGN_IN_MAX_CLIENT_FAILURES).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('/metrics is not served through the proxy (serve would take nginx for a client on its host)', async () => {
    expect((await through('GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n')).from).toEqual(['404 nginx']);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
  });

  it('passes on every request header field the service reads', () => {
    const config = readFileSync(SHIPPED_CONFIG, 'utf8').toLowerCase();
    const read = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts'))
          for (const m of readFileSync(path, 'utf8').matchAll(/headers(?:\['([a-z0-9-]+)'\]|\.([a-z]+)\b)/g)) read.add(m[1] ?? m[2]);
      }
    };
    walk(join(projectRoot, 'src'));
    // nginx writes these itself: the body's framing from the body it read, Connection for keep-alive.
    for (const own of ['content-length', 'transfer-encoding', 'connection']) read.delete(own);
    expect(read.size).toBeGreaterThan(8);
    for (const field of read) expect(config, field).toMatch(new RegExp(`proxy_set_header ${field} `));
  });

  it('serve answered every exchange above and still does', async () => {
    await stillServing();
    expect(proxy.errors()).not.toMatch(/\[emerg\]/);
  });
});
