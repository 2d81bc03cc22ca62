// Map faults with real processes and real map files: a build killed half-way or failing leaves the map it
// was replacing whole (and the next build clears what the killed one left); `serve` refuses a map with a
// missing or damaged profile file, or of another format, naming what is wrong; WAYMARK_PROFILES serves a
// subset of the profiles.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { connect, type Sql } from '../../src/db/client.js';
import { DEFAULT_EXTRACT, ensureMap } from '../../src/map/build.js';
import type { MapManifest } from '../../src/map/map-files.js';
import { PROFILES } from '../../src/map/graphs/profiles.js';
import { projectRoot } from '../../src/lib/paths.js';
import { api, TEST_DATABASE_URL } from '../support/app.js';
import { spawnServer, type ServerProcess } from '../support/process.js';

const CLI = join(projectRoot, 'bin', 'waymark.js');
/** Vaduz → Schaan, both a few meters from roads every profile may use. */
const WAYPOINTS = [
  { latitude: 47.1365893, longitude: 9.5177419 },
  { latitude: 47.1676112, longitude: 9.5083971 },
];
/** How long a `serve` that must refuse its map may take to exit. */
const REFUSAL_MS = 20_000;

let sql: Sql;
let key: string;
let testMap: string;
let root: string;
const servers: ServerProcess[] = [];

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the CLI to its end (killed after `timeoutMs`, which the test then sees as a null code). */
function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: TEST_DATABASE_URL,
      WAYMARK_JOBS: 'off',
      WAYMARK_PROFILES: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '',
    stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, ms: Date.now() - started });
    }),
  );
}

const serve = async (env: Record<string, string>): Promise<ServerProcess> => {
  const server = await spawnServer({ DATABASE_URL: TEST_DATABASE_URL, WAYMARK_JOBS: 'off', WAYMARK_PROFILES: '', ...env });
  servers.push(server);
  return server;
};

const routeOn = (server: ServerProcess, profile: string) => api(server, 'POST', '/v1/routes', { key, body: { profile, waypoints: WAYPOINTS } });

const readManifestJson = (dir: string): MapManifest => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as MapManifest;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** Each file's XXH128 by Debian's xxhsum (package xxhash), not the service's own code. */
function xxhsums(dir: string, rels: string[]): Map<string, string> {
  const out = execFileSync('xxhsum', ['-H2', ...rels], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 24 });
  return new Map(
    out
      .trim()
      .split('\n')
      .map((line) => {
        const [hex, rel] = line.split(/\s+/);
        return [rel, hex];
      }),
  );
}

/** The map's files are exactly the manifest's (plus itself), each of the size and checksum it lists. */
function expectWholeMap(dir: string): MapManifest {
  const m = readManifestJson(dir);
  expect(filesUnder(dir)).toEqual([...Object.keys(m.files), 'manifest.json'].sort());
  const sums = xxhsums(dir, Object.keys(m.files));
  const damaged = Object.entries(m.files).filter(([rel, entry]) => statSync(join(dir, rel)).size !== entry.bytes || sums.get(rel) !== entry.xxh128);
  expect(damaged.map(([rel]) => rel)).toEqual([]);
  for (const p of PROFILES) expect(m.profiles[p], p).toBeDefined();
  return m;
}

/** Beside `dir`: the build leftovers (`<name>.tmp-…`, `<name>.old-…`). */
const leftovers = (dir: string, name = 'map'): string[] => readdirSync(dir).filter((n) => n.startsWith(`${name}.tmp-`) || n.startsWith(`${name}.old-`));

/** A copy of the test map under a fresh name in the temporary root. */
function copyMap(name: string): string {
  const dir = join(root, name);
  cpSync(testMap, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  testMap = await ensureMap(join(projectRoot, 'data', 'test-maps'), DEFAULT_EXTRACT);
  root = mkdtempSync(join(tmpdir(), 'waymark-map-faults-'));
  sql = connect(TEST_DATABASE_URL, 1);
  const team = await createTeam(sql, { name: 'map faults', plan: 'enterprise' });
  key = (await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key;
});

afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.stop('SIGKILL')));
  await sql?.end();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('map builds that do not finish', () => {
  it('a build killed half-way leaves the old map whole and served; the next build replaces it and clears the leftover', async () => {
    const base = join(root, 'killed');
    cpSync(testMap, join(base, 'map'), { recursive: true });
    const dir = join(base, 'map');
    const before = expectWholeMap(dir);

    const child = spawn(process.execPath, [CLI, 'map', 'build', '--osm', DEFAULT_EXTRACT, '--out', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
    // Killed once its temporary directory holds some profile files (and no manifest: not finished).
    const deadline = Date.now() + 30_000;
    let tmp: string | undefined;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the build ended before it could be killed (exit ${child.exitCode}):\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`no profile files in the build's temporary directory:\n${stderr}`);
      tmp = readdirSync(base).find((n) => n === `map.tmp-${child.pid}` || n.startsWith(`map.tmp-${child.pid}-`));
      const profileFiles = tmp ? PROFILES.filter((p) => existsSync(join(base, tmp!, p)) && readdirSync(join(base, tmp!, p)).length > 0) : [];
      if (profileFiles.length > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Killed outright: its half-written map stays beside the old one, which nothing touched.
    expect(existsSync(join(base, tmp!, 'manifest.json')), `the killed build had finished:\n${stderr}`).toBe(false);
    expect(leftovers(base)).toEqual([tmp]);
    expect(expectWholeMap(dir).builtAt).toBe(before.builtAt);

    const server = await serve({ WAYMARK_MAP: dir });
    const res = await routeOn(server, 'driving-car');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.distance).toBeGreaterThan(1000);

    // A new build over the map being served: succeeds, removes the dead build's leftover, leaves nothing else.
    // The build's last step cuts the base map's tiles: room for it on a loaded machine.
    const rebuild = await runCli(['map', 'build', '--osm', DEFAULT_EXTRACT, '--out', dir], {}, 240_000);
    expect(rebuild.code, rebuild.stderr).toBe(0);
    expect(readdirSync(base)).toEqual(['map']);
    const after = expectWholeMap(dir);
    expect(after.builtAt).not.toBe(before.builtAt);
    expect(after.source.sha256).toBe(before.source.sha256);
    // The server read its map at start: the swap under it changes nothing it answers.
    const again = await routeOn(server, 'driving-car');
    expect(again.status).toBe(200);
    expect(again.body.data.distance).toBe(res.body.data.distance);
    expect(await server.stop()).toBe(0);
  }, 330_000);

  it('a build that fails exits non-zero, leaves no temporary directory and the old map untouched', async () => {
    const base = join(root, 'failed');
    cpSync(testMap, join(base, 'map'), { recursive: true });
    const dir = join(base, 'map');
    const before = expectWholeMap(dir);
    const text = join(root, 'not-a-pbf.osm.pbf');
    writeFileSync(text, 'this is not a PBF file\n'.repeat(100));
    const truncated = join(root, 'truncated.osm.pbf');
    writeFileSync(truncated, readFileSync(DEFAULT_EXTRACT).subarray(0, Math.floor(statSync(DEFAULT_EXTRACT).size / 2)));

    for (const [osm, reason] of [
      [text, 'corrupt PBF'],
      [truncated, 'truncated PBF'],
    ] as const) {
      const run = await runCli(['map', 'build', '--osm', osm, '--out', dir]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(reason);
      expect(readdirSync(base)).toEqual(['map']);
      expect(expectWholeMap(dir).builtAt).toBe(before.builtAt);
    }
    // A first build (nothing at the target yet) that fails leaves nothing at all.
    const fresh = join(root, 'fresh');
    const run = await runCli(['map', 'build', '--osm', text, '--out', join(fresh, 'map')]);
    expect(run.code, run.stderr).toBe(1);
    expect(existsSync(fresh) ? readdirSync(fresh) : []).toEqual([]);
  });
});

describe('serve refuses a damaged map', () => {
  it('names the profile and the file when a profile file is missing, truncated or altered, and says to rebuild a map of another format', async () => {
    const missing = copyMap('missing');
    rmSync(join(missing, 'driving-hgv', 'head.u32'));

    // One byte flipped in the middle of a file: same size, another checksum.
    const flipped = copyMap('flipped');
    const flippedFile = join(flipped, 'driving-hgv', 'geomCm.u32');
    const bytes = readFileSync(flippedFile);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(flippedFile, bytes);
    expect(statSync(flippedFile).size).toBe(statSync(join(testMap, 'driving-hgv', 'geomCm.u32')).size);

    // Four bytes short: still whole u32 values, so only the manifest can tell.
    const short = copyMap('short');
    const shortFile = join(short, 'cycling-regular', 'weight.u32');
    truncateSync(shortFile, statSync(shortFile).size - 4);

    const oldFormat = copyMap('old-format');
    const manifest = readManifestJson(oldFormat);
    writeFileSync(join(oldFormat, 'manifest.json'), JSON.stringify({ ...manifest, formatVersion: manifest.formatVersion - 1 }, null, 2));

    // A map whose foot-walking files are gone, served with all profiles.
    const noFoot = copyMap('no-foot');
    rmSync(join(noFoot, 'foot-walking'), { recursive: true });

    const [m, f, s, o, n] = await Promise.all(
      [missing, flipped, short, oldFormat, noFoot].map((dir) => runCli(['serve'], { WAYMARK_MAP: dir }, REFUSAL_MS + 10_000)),
    );
    for (const run of [m, f, s, o, n]) {
      expect(run.code, `${run.signal ?? ''}\n${run.stdout}\n${run.stderr}`).toBe(1);
      expect(run.ms).toBeLessThan(REFUSAL_MS);
      expect(run.stdout).not.toContain('waymark listening');
    }
    expect(m.stderr).toContain('cannot load routing profile driving-hgv');
    expect(m.stderr).toContain(join('driving-hgv', 'head.u32'));

    expect(f.stderr).toContain('cannot load routing profile driving-hgv');
    expect(f.stderr).toContain('driving-hgv/geomCm.u32');
    expect(f.stderr).toContain('checksum');

    expect(s.stderr).toContain('cannot load routing profile cycling-regular');
    expect(s.stderr).toContain('cycling-regular/weight.u32');
    expect(s.stderr).toContain(`the manifest says ${manifest.files['cycling-regular/weight.u32'].bytes}`);

    expect(o.stderr).toContain(`map format ${manifest.formatVersion - 1}`);
    expect(o.stderr).toMatch(/rebuild/);

    expect(n.stderr).toContain('cannot load routing profile foot-walking');
  }, 60_000);
});

describe('serve refuses a map whose geocoder or tiles are damaged', () => {
  it('names the file whose checksum does not match: the geocoder index, the search index, tiles.bin', async () => {
    const flip = (name: string, rel: string): string => {
      const dir = copyMap(name);
      const file = join(dir, rel);
      const bytes = readFileSync(file);
      bytes[bytes.length >> 1] ^= 0xff;
      writeFileSync(file, bytes);
      return dir;
    };
    const damaged = ['geocoder/addrCoords.bin', 'geocoder/search.bin', 'tiles.bin'];
    const runs = await Promise.all(
      damaged.map((rel, i) => runCli(['serve'], { WAYMARK_MAP: flip(`damaged-${i}`, rel), WAYMARK_PROFILES: 'driving-car' }, REFUSAL_MS + 10_000)),
    );
    runs.forEach((run, i) => {
      expect(run.code, `${run.signal ?? ''}\n${run.stdout}\n${run.stderr}`).toBe(1);
      expect(run.stdout).not.toContain('waymark listening');
      expect(run.stderr).toContain(`map file ${damaged[i]} does not match its checksum`);
    });
    expect(runs[0].stderr).toContain("cannot load the map's geocoder");
    expect(runs[2].stderr).toContain("cannot load the map's tiles.bin");
  }, 60_000);
});

describe('WAYMARK_PROFILES', () => {
  it('serves only the profiles it lists, on a map missing the others', async () => {
    const dir = copyMap('car-only');
    rmSync(join(dir, 'foot-walking'), { recursive: true });
    const server = await serve({ WAYMARK_MAP: dir, WAYMARK_PROFILES: 'driving-car' });

    const health = await api(server, 'GET', '/health', {});
    expect(health.status, JSON.stringify(health.body)).toBe(200);
    expect(health.body.routing.profiles).toEqual(['driving-car']);

    const car = await routeOn(server, 'driving-car');
    expect(car.status, JSON.stringify(car.body)).toBe(200);
    expect(car.body.data.profile).toBe('driving-car');

    for (const profile of ['foot-walking', 'driving-hgv']) {
      const other = await routeOn(server, profile);
      expect(other.status, JSON.stringify(other.body)).toBe(422);
      expect(Object.keys(other.body.errors)).toEqual(['profile']);
    }
    expect(await server.stop()).toBe(0);
  });

  it('stops the start on a profile name it does not know, naming the variable', async () => {
    const run = await runCli(['serve'], { WAYMARK_MAP: testMap, WAYMARK_PROFILES: 'nonsense' }, REFUSAL_MS + 10_000);
    expect(run.code, run.stderr).toBe(1);
    expect(run.ms).toBeLessThan(REFUSAL_MS);
    expect(run.stderr).toContain('WAYMARK_PROFILES');
    expect(run.stderr).toContain('nonsense');
  });
});
