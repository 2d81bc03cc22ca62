import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/lib/paths.js';
import { TEST_DATABASE_URL } from '../support/app.js';

const run = promisify(execFile);

describe('uWebSockets.js native binary', () => {
  it('refuses to serve on the package JS fallback', async () => {
    // The package switches to its slow JS implementation when UWS_USE_FALLBACK is set (or the binary
    // fails to load); the service must then stop rather than run degraded.
    const started = run(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'serve'], {
      env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, UWS_USE_FALLBACK: 'true', PORT: '0', WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' },
      timeout: 60_000,
    });
    const err = await started.then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).not.toBeNull();
    expect(err!.code).not.toBe(0);
    expect(err!.stderr).toContain('JavaScript fallback');
  });
});
