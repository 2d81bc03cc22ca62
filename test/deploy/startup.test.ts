import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../support/app.js';

describe('start-up', () => {
  it('fails with the reason when the port is taken, and can start again afterwards', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startTestApp({ PORT: String(port), WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' })).rejects.toThrow(`could not listen on 127.0.0.1:${port}`);
    } finally {
      await new Promise((done) => blocker.close(done));
    }
    const app = await startTestApp({ PORT: String(port), WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' });
    expect(app.port).toBe(port);
    await app.close();
  });
});
