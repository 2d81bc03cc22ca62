// HTTP at its edges, over raw sockets against the real service. What the uWebSockets.js build we ship
// (20.30, uWebSockets ~20.3x) cannot do is pinned here too, so that an upgrade that changes it shows;
// docs/operations.md's "HTTP edges" says the same in words.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { MAX_HEADER_BYTES } from '../../src/http/server.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { type RawArgs, rawExchange as rawExchangeWith, sleep, statuses } from './support.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off', WAYMARK_BODY_TIMEOUT_MS: '500' });
  team = await makeTeam(app);
  // Long names make the POI list large enough (~60 KB) to be cut off mid-response.
  for (let i = 0; i < 100; i++) {
    expect((await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: `${i} ${'x'.repeat(250)}`, latitude: 1, longitude: 1 } })).status).toBe(201);
  }
});
afterAll(() => app?.close());

const rawExchange = (...args: RawArgs) => rawExchangeWith(app.port, ...args);
const auth = () => `X-API-KEY: ${team.key}\r\n`;

async function stillServing(): Promise<void> {
  expect((await api(app, 'GET', '/v1/categories', { key: team.key })).status).toBe(200);
}

describe('what holds', () => {
  it('pipelined requests answered without waiting for I/O come back in order', async () => {
    const r = await rawExchange(
      'GET /health HTTP/1.1\r\nHost: a\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: a\r\n\r\nGET /health HTTP/1.1\r\nHost: a\r\n\r\n',
      1000,
      0,
      3,
    );
    expect(statuses(r.text)).toEqual([200, 404, 200]);
  });

  it('known methods the API does not route are 405 with Allow on its paths, 404 elsewhere', async () => {
    for (const method of ['PATCH', 'OPTIONS', 'TRACE', 'CONNECT']) {
      const r = await rawExchange(`${method} /v1/pois HTTP/1.1\r\nHost: a\r\n${auth()}Content-Length: 0\r\n\r\n`, 1000, 0, 1);
      expect(statuses(r.text), method).toEqual([405]);
      expect(r.text).toContain('Allow: GET, POST, HEAD\r\n');
      expect(statuses((await rawExchange(`${method} /v2/nothing HTTP/1.1\r\nHost: a\r\n\r\n`, 1000, 0, 1)).text), method).toEqual([404]);
    }
  });

  it(`header fields over ${MAX_HEADER_BYTES} bytes are 431, and the connection is closed`, async () => {
    const r = await rawExchange(`GET /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}X-Padding: ${'p'.repeat(MAX_HEADER_BYTES)}\r\n\r\n`);
    expect(statuses(r.text)).toEqual([431]);
    expect(r.text).toContain('Connection: close');
    expect(r.closed).toBe(true);
    const ok = await rawExchange(`GET /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}X-Padding: ${'p'.repeat(MAX_HEADER_BYTES - 1000)}\r\n\r\n`, 1000, 0, 1);
    expect(statuses(ok.text)).toEqual([200]);
  });

  it('a body declared over the limit that stops arriving is 413 within the body timeout, and the connection closes', async () => {
    const r = await rawExchange(
      `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{"name":`,
      5000,
    );
    expect(statuses(r.text)).toEqual([413]);
    expect(r.text).toContain('Connection: close');
    expect(r.closed).toBe(true);
    expect(r.afterMs).toBeLessThan(1000);
    await stillServing();
  });

  it('a chunked body past the limit that never ends is 413, and the connection closes', async () => {
    const chunk = `10000\r\n${'a'.repeat(0x10000)}\r\n`;
    const head = `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    // 17 × 64 KiB passes 1 MiB; the body never ends (the rest is read and dropped until it stalls: lingering-413.test.ts).
    const r = await rawExchange([head, ...Array.from({ length: 17 }, () => chunk)], 5000, 5);
    expect(statuses(r.text)).toEqual([413]);
    expect(r.closed).toBe(true);
  });

  it('a chunked JSON body is read whole', async () => {
    const head = `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const r = await rawExchange([head, '5\r\n{"nam\r\n', 'd\r\ne":"chunked"}\r\n', '0\r\n\r\n'], 1000, 20, 1);
    expect(statuses(r.text)).toEqual([201]);
    expect(r.text).toContain('"name":"chunked"');
  });

  it('Expect: 100-continue gets 100 Continue, then the answer to the body', async () => {
    const body = '{"name":"continued"}';
    const raw = await rawExchange(
      [
        `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
        body,
      ],
      1000,
      100,
      1,
    );
    expect(statuses(raw.text)).toEqual([100, 201]);
  });

  it('a client that stops sending its body is answered 408 within the body timeout, and closed', async () => {
    const r = await rawExchange(
      `POST /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
      5000,
    );
    expect(statuses(r.text)).toEqual([408]);
    expect(r.closed).toBe(true);
    expect(r.afterMs).toBeGreaterThan(400);
    expect(r.afterMs).toBeLessThan(1500);
    await stillServing();
  });

  it('clients that go away mid-response cost nothing: no request is left in flight, and the server serves on', async () => {
    const big = `GET /v1/pois?limit=100 HTTP/1.1\r\nHost: a\r\n${auth()}\r\n`;
    // Gone before the answer, after its first bytes, and without ever reading (the answer waits in uWS's buffer).
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const socket = net.connect(app.port, '127.0.0.1');
        if (i % 3 === 2) socket.pause();
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(big);
        if (i % 3 === 0) socket.destroy();
        else if (i % 3 === 1) await new Promise((resolve) => socket.once('data', resolve)).then(() => socket.destroy());
        else await sleep(50).then(() => socket.destroy());
      }),
    );
    await sleep(100);
    expect(app.inFlight).toBe(0);
    const whole = await api(app, 'GET', '/v1/pois?limit=100', { key: team.key });
    expect(whole.body.data).toHaveLength(100);
  });
});

describe('what this uWebSockets.js build cannot do (see docs/operations.md)', () => {
  it('an HTTP/1.0 request is not answered (uWS parses HTTP/1.1 only); the server is unaffected', async () => {
    const r = await rawExchange('GET /health HTTP/1.0\r\nHost: a\r\n\r\n', 500);
    expect(r.text).toBe('');
    await stillServing();
  });

  it('a request pipelined behind one that waits for the database closes the connection: nothing is answered out of order', async () => {
    const r = await rawExchange(`GET /v1/categories HTTP/1.1\r\nHost: a\r\n${auth()}\r\nGET /v1/pois HTTP/1.1\r\nHost: a\r\n${auth()}\r\n`);
    expect(r.closed).toBe(true);
    expect(statuses(r.text)).toEqual(statuses(r.text).length ? [200] : []);
    await stillServing();
  });

  it('a method uWS does not know is answered by a closed connection, not 501', async () => {
    const r = await rawExchange('BREW /v1/pois HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(r.text).toBe('');
    expect(r.closed).toBe(true);
  });

  it('49 or more header fields get no answer until uWS times the connection out; 48 are answered', async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `X-F${i}: v`).join('\r\n');
    const r = await rawExchange(`GET /health HTTP/1.1\r\nHost: a\r\n${fields(48)}\r\n\r\n`, 500);
    expect(r.text).toBe('');
    const ok = await rawExchange(`GET /health HTTP/1.1\r\nHost: a\r\n${fields(47)}\r\n\r\n`, 1000, 0, 1);
    expect(statuses(ok.text)).toEqual([200]);
    await stillServing();
  });
});
