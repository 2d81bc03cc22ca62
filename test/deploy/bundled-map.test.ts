// `npm ci && npm start` from a plain clone, with no ../shared beside it (issue 33): the bundled extract is
// in the repository (osm/), and `start` builds its map from there. The clone is a real `git clone` of this
// repository's committed HEAD into a directory of its own; it borrows this checkout's node_modules and
// dist/ (what `npm ci` and the build would make) and a map already built from the same extract (found by
// the extract's hash, so `start` still reads and hashes the clone's own file).
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXTRACT } from '../../src/map/build.js';
import { projectRoot } from '../../src/lib/paths.js';
import { testMapDir } from '../geo-api/support.js';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'waymark-clone-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the bundled extract', () => {
  it('is in the repository, with its license beside it and in the README', async () => {
    expect(relative(projectRoot, DEFAULT_EXTRACT)).toBe(join('osm', 'liechtenstein.osm.pbf'));
    const tracked = (await run('git', ['ls-files', '--error-unmatch', 'osm/liechtenstein.osm.pbf', 'osm/README.md'], { cwd: projectRoot })).stdout;
    expect(tracked.trim().split('\n')).toEqual(['osm/README.md', 'osm/liechtenstein.osm.pbf']);
    const note = readFileSync(join(projectRoot, 'osm', 'README.md'), 'utf8');
    const sha = createHash('sha256').update(readFileSync(DEFAULT_EXTRACT)).digest('hex');
    expect(note).toContain(sha);
    expect(note).toContain('© OpenStreetMap contributors');
    expect(note).toContain('Open Database License (ODbL) 1.0');
    expect(readFileSync(join(projectRoot, 'README.md'), 'utf8')).toMatch(/© OpenStreetMap contributors, under the Open Database License/);
  });

  it('a clone with nothing beside it starts: `waymark start` builds or finds the map of its own osm/ file', async () => {
    const clone = join(root, 'waymark');
    await run('git', ['clone', '--quiet', '--no-hardlinks', projectRoot, clone]);
    expect(existsSync(join(root, 'shared'))).toBe(false);
    expect(existsSync(join(clone, 'osm', 'liechtenstein.osm.pbf'))).toBe(true);
    symlinkSync(join(projectRoot, 'node_modules'), join(clone, 'node_modules'));
    cpSync(join(projectRoot, 'dist'), join(clone, 'dist'), { recursive: true });
    const data = join(root, 'data');
    const built = await testMapDir();
    mkdirSync(join(data, 'maps'), { recursive: true, mode: 0o700 });
    symlinkSync(built, join(data, 'maps', built.split('/').pop()!));

    const { DATABASE_URL: _none, WAYMARK_MAP: _noMap, ...env } = process.env;
    const child = spawn(process.execPath, [join(clone, 'bin', 'waymark.js'), 'start'], {
      cwd: clone,
      env: { ...env, WAYMARK_DATA_DIR: data, WAYMARK_JOBS: 'off', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start within 90 s:\n${output}`)), 90_000);
        child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
        child.stdout.on('data', () => {
          const m = /waymark listening on http:\/\/localhost:(\d+)/.exec(output);
          if (m && /API key: wm_\S+/.test(output)) {
            clearTimeout(timer);
            resolve(`http://127.0.0.1:${m[1]}`);
          }
        });
      });
      const key = /API key: (wm_\S+)/.exec(output)?.[1];
      expect(key, output).toBeDefined();
      const res = await fetch(`${url}/v1/routes`, {
        method: 'POST',
        headers: { 'x-api-key': key!, 'content-type': 'application/json' },
        body: JSON.stringify({
          waypoints: [
            { latitude: 47.1393, longitude: 9.5215 },
            { latitude: 47.165, longitude: 9.5093 },
          ],
        }),
      });
      expect(res.status, output).toBe(200);
      // The map answering is the one of the clone's extract.
      expect(output).not.toContain('../shared');
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => (child.exitCode !== null ? done(null) : child.once('exit', done)));
    }
  }, 150_000);
});
