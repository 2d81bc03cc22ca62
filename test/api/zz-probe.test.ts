import { it } from 'vitest';
import pino from 'pino';
import { Router } from '../../src/http/router.js';
import { startHttpServer } from '../../src/http/server.js';

it('probe', async () => {
  const router = new Router();
  router.add({ method: 'POST', path: '/up', public: true, body: 'stream', bodyLimit: 20_000_000, handler: async (ctx) => {
    console.log('HEADERS', ctx.headers['content-length'], ctx.headers['transfer-encoding']);
    let n = 0;
    for await (const c of ctx.stream()) n += (c as Buffer).length;
    console.log('HANDLER read', n);
    return { status: 202, body: { n } };
  } });
  const server = await startHttpServer({ router, keys: null as any, limiter: null as any, usage: null as any, log: pino({ level: 'silent' }) }, '127.0.0.1', 0);
  const url = `http://127.0.0.1:${server.port}`;
  for (let i = 0; i < 3; i++) {
    const form = new FormData();
    form.append('file', new Blob(['name,latitude,longitude\nx,1,2\n'], { type: 'text/csv' }), 'p.csv');
    const t0 = Date.now();
    try {
      const res = await fetch(url + '/up', { method: 'POST', body: form });
      console.log('FETCH', res.status, await res.text(), Date.now() - t0);
    } catch (e) { console.log('FETCH ERR', (e as any).cause?.code, Date.now() - t0); }
  }
  await server.close(100);
}, 60000);
