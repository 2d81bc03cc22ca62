// A body over the limit is answered 413 while it is still arriving. Closing at once then resets a
// connection the client is still writing to, and Node's fetch (undici), Python's requests and others
// report EPIPE/ECONNRESET instead of the answer (issue 33). The server keeps reading and discarding the
// rest up to a bound (LINGER_BYTES, LINGER_MS) before it closes, as nginx's lingering close does. Real
// clients against a real `waymark serve` process.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { LINGER_MS } from '../../src/http/server.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { freshDatabase } from './support.js';

const run = promisify(execFile);
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: ServerProcess;
let key: string;
let dir: string;

/** A CSV of POIs of about `bytes` bytes. */
function csv(bytes: number): string {
  const lines = ['name,latitude,longitude'];
  let size = lines[0].length + 1;
  for (let i = 0; size < bytes; i++) {
    const line = `Point number ${i} with a longer name to fill the file,47.1${i % 1000},9.5${i % 997}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function multipart(content: string): { body: Buffer<ArrayBuffer>; type: string } {
  const boundary = 'waymark-boundary-413';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="pois.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const bigJson = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes), latitude: 1, longitude: 1 });

beforeAll(async () => {
  db = await freshDatabase('linger');
  const team = await createTeam(db.sql, { name: 'linger', plan: 'enterprise' });
  key = (await createKey(db.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key;
  server = await spawnServer({ DATABASE_URL: db.url, WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off' });
  dir = await mkdtemp(join(tmpdir(), 'waymark-413-'));
});
afterAll(async () => {
  await server?.stop();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a body over the limit: every common client sees the 413', () => {
  it("Node's fetch: a 5 MB JSON body to a JSON endpoint, ten times in a row", async () => {
    const body = bigJson(5_000_000);
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${server.url}/v1/pois`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
      expect(res.status).toBe(413);
      // Read to its end, the body leaves the connection in step: it stays open for the next request.
      expect(res.headers.get('connection')).not.toBe('close');
      expect((await res.json()).message).toContain('exceeds the limit');
    }
  });

  it("Node's fetch: an 11.5 MB CSV upload to POST /v1/imports", async () => {
    const { body, type } = multipart(csv(11_500_000));
    expect(body.length).toBeGreaterThan(11_400_000);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/imports`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': type }, body });
      expect(res.status).toBe(413);
    }
  });

  it("Node's fetch with a streamed (chunked) body that has no declared length", async () => {
    let sent = 0;
    const piece = new Uint8Array(256 * 1024).fill(0x61);
    const stream = new ReadableStream({
      pull(controller) {
        if (sent >= 6_000_000) return controller.close();
        sent += piece.length;
        controller.enqueue(piece);
      },
    });
    const res = await fetch(`${server.url}/v1/pois`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('curl and Python requests: the same upload and JSON body', async () => {
    const upload = multipart(csv(11_500_000));
    await writeFile(join(dir, 'upload.bin'), upload.body);
    await writeFile(join(dir, 'body.json'), bigJson(5_000_000));
    const curl = async (file: string, type: string, path: string) =>
      (
        await run('curl', [
          '-sS',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '-H',
          `x-api-key: ${key}`,
          '-H',
          `content-type: ${type}`,
          '--data-binary',
          `@${file}`,
          server.url + path,
        ])
      ).stdout;
    expect(await curl(join(dir, 'upload.bin'), upload.type, '/v1/imports')).toBe('413');
    expect(await curl(join(dir, 'body.json'), 'application/json', '/v1/pois')).toBe('413');
    const python = `
import requests, sys
url, key, upload, utype, body = sys.argv[1:6]
a = requests.post(url + '/v1/imports', data=open(upload, 'rb').read(), headers={'x-api-key': key, 'content-type': utype})
b = requests.post(url + '/v1/pois', data=open(body, 'rb').read(), headers={'x-api-key': key, 'content-type': 'application/json'})
print(a.status_code, b.status_code)
`;
    const out = await run('python3', ['-c', python, server.url, key, join(dir, 'upload.bin'), upload.type, join(dir, 'body.json')]);
    expect(out.stdout.trim()).toBe('413 413');
  });

  it('a body declared past the drain limit is answered at once, and closed', async () => {
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = performance.now();
    let text = '';
    socket.on('data', (c) => (text += c.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(
      `POST /v1/pois HTTP/1.1\r\nHost: a\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n{"name":`,
    );
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a client that never stops sending is closed after the bound, and the server serves on', async () => {
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let text = '';
    socket.on('data', (c) => (text += c.toString('latin1')));
    const closed = new Promise<number>((resolve) => {
      const started = performance.now();
      socket.on('close', () => resolve(performance.now() - started));
      socket.on('error', () => {});
    });
    socket.write(`POST /v1/pois HTTP/1.1\r\nHost: a\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = `10000\r\n${'a'.repeat(0x10000)}\r\n`;
    // Slow enough not to reach the byte bound: the time bound ends it.
    const writer = setInterval(() => !socket.destroyed && socket.write(chunk), 20);
    const afterMs = await closed;
    clearInterval(writer);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(afterMs).toBeGreaterThan(LINGER_MS - 500);
    expect(afterMs).toBeLessThan(LINGER_MS + 3000);
    const ok = await fetch(`${server.url}/v1/categories`, { headers: { 'x-api-key': key } });
    expect(ok.status).toBe(200);
  });
});
