// One owner of a port: uWS binds with SO_REUSEPORT unless told otherwise, and then a second `waymark serve`
// on a taken port started and took a share of the first one's connections. (The embedded database's one
// owner is tested in test/deploy/embedded.test.ts, beside the embedded server it needs.)
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/lib/paths.js';
import { TEST_DATABASE_URL } from '../support/app.js';
import { spawnServer, type ServerProcess } from '../support/process.js';

const run = promisify(execFile);
const ENV = { DATABASE_URL: TEST_DATABASE_URL, WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off' };
let first: ServerProcess;

beforeAll(async () => {
  first = await spawnServer(ENV);
});
afterAll(() => first?.stop());

describe('a taken port', () => {
  it('a second serve exits non-zero naming the port, and the first keeps every connection', async () => {
    const port = new URL(first.url).port;
    const err = await run(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'serve'], {
      env: { ...process.env, ...ENV, PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      timeout: 30_000,
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain(`could not listen on 127.0.0.1:${port}: the port is in use`);
    // Request ids start with a per-process prefix: every answer comes from the first server.
    const prefixes = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${first.url}/health`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
      prefixes.add(res.headers.get('x-request-id')!.split('-')[0]);
    }
    expect(prefixes.size).toBe(1);
  });
});
