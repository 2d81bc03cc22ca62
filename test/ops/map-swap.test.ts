// Map hot swap with real processes: a `waymark serve` started with WAYMARK_MAP on a symbolic link to the
// Liechtenstein map answers routes, matrices, reverse lookups and searches from several connections at
// once while `waymark map activate` moves the link to the Andorra map, then to a copy of Liechtenstein's
// map with one file damaged, then (the file mended) SIGHUP asks for that copy again. Nothing answers 5xx;
// every answer names one map (X-Waymark-Map) and its content is that map's (a Liechtenstein route is found
// exactly when the answer says Liechtenstein's map, an Andorran one exactly when it says Andorra's); the
// damaged map is refused with Andorra's still serving; the map replaced is freed. Also: before /ready,
// every compute thread ran each kind of request on the map (the warm-up's counts in /ready).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { projectRoot } from '../../src/lib/paths.js';
import { DEFAULT_EXTRACT, ensureMap } from '../../src/map/build.js';
import { freshDatabase } from '../faults/support.js';
import { runCli, spawnServer, type ServerProcess } from '../support/process.js';

const VADUZ = { latitude: 47.1393, longitude: 9.5215 };
const SCHAAN = { latitude: 47.165, longitude: 9.5093 };
const BALZERS = { latitude: 47.0666, longitude: 9.503 };
// Andorra la Vella and Encamp, on the CG-2.
const ANDORRA_LA_VELLA = { latitude: 42.5078, longitude: 1.5211 };
const ENCAMP = { latitude: 42.5347, longitude: 1.5806 };

let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: ServerProcess;
let work: string;
let link: string;
let key: string;
const maps = { li: '', ad: '', damaged: '' };
const ids = { li: '', ad: '' };
/** The file of the damaged copy whose bytes are changed (its size stays), and its true bytes. */
let damagedFile: string;
let trueBytes: Buffer;

/** The map id as the manifest defines it, computed here: the first 12 hex digits of its SHA-256. */
const idOf = async (dir: string) =>
  createHash('sha256')
    .update(await readFile(join(dir, 'manifest.json')))
    .digest('hex')
    .slice(0, 12);

/** Points the link at `dir` the way `map activate` does not: for the SIGHUP case only. */
async function pointLink(dir: string): Promise<void> {
  await rm(`${link}.test`, { force: true });
  await symlink(dir, `${link}.test`);
  await rename(`${link}.test`, link);
}

beforeAll(async () => {
  const built = join(projectRoot, 'data', 'test-maps');
  maps.li = await ensureMap(built, DEFAULT_EXTRACT);
  maps.ad = await ensureMap(built, join(projectRoot, '..', 'shared', 'data', 'osm', 'andorra.osm.pbf'));
  ids.li = await idOf(maps.li);
  ids.ad = await idOf(maps.ad);
  work = await mkdtemp(join(tmpdir(), 'waymark-map-swap-'));
  // A copy whose manifest is Liechtenstein's (same id) and one graph file's bytes differ from its SHA-256.
  maps.damaged = join(work, 'damaged');
  await cp(maps.li, maps.damaged, { recursive: true });
  damagedFile = join(maps.damaged, 'driving-car', 'head.u32');
  trueBytes = await readFile(damagedFile);
  const bad = Buffer.from(trueBytes);
  for (let i = 0; i < 64; i++) bad[(bad.length >> 1) + i] ^= 0xff;
  await writeFile(damagedFile, bad);
  link = join(work, 'current');
  await symlink(maps.li, link);

  db = await freshDatabase('map_swap');
  const team = await createTeam(db.sql, { name: 'map swap', plan: 'enterprise' });
  key = (await createKey(db.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key;
  server = await spawnServer(
    { DATABASE_URL: db.url, WAYMARK_JOBS: 'off', WAYMARK_MAP: link, WAYMARK_WORKERS: '2', WAYMARK_PROFILES: 'driving-car', LOG_LEVEL: 'info' },
    180_000,
  );
}, 300_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await db?.drop();
  if (work) await rm(work, { recursive: true, force: true });
});

const ready = async () => (await (await fetch(`${server.url}/ready`)).json()) as any;
const metric = async (line: RegExp): Promise<number> => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const m = line.exec(text);
  return m ? Number(m[1]) : NaN;
};

type Kind = 'route-li' | 'route-ad' | 'matrix-li' | 'reverse-li' | 'search-li';
interface Answer {
  kind: Kind;
  status: number;
  map: string | null;
  sentAt: number;
  body: any;
}

const KINDS: Kind[] = ['route-li', 'route-ad', 'matrix-li', 'reverse-li', 'search-li'];

async function ask(kind: Kind): Promise<Answer> {
  const headers = { 'X-API-KEY': key, 'Content-Type': 'application/json' };
  const sentAt = performance.now();
  const res =
    kind === 'route-li'
      ? await fetch(`${server.url}/v1/routes`, { method: 'POST', headers, body: JSON.stringify({ waypoints: [VADUZ, SCHAAN] }) })
      : kind === 'route-ad'
        ? await fetch(`${server.url}/v1/routes`, { method: 'POST', headers, body: JSON.stringify({ waypoints: [ANDORRA_LA_VELLA, ENCAMP] }) })
        : kind === 'matrix-li'
          ? await fetch(`${server.url}/v1/matrix`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ profile: 'driving-car', sources: [VADUZ, SCHAAN], destinations: [BALZERS, VADUZ] }),
            })
          : kind === 'reverse-li'
            ? await fetch(`${server.url}/v1/geo/reverse?latitude=${VADUZ.latitude}&longitude=${VADUZ.longitude}`, { headers })
            : await fetch(`${server.url}/v1/geo/search?q=Vaduz`, { headers });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { kind, status: res.status, map: res.headers.get('x-waymark-map'), sentAt, body };
}

/** Requests from `connections` loops until `stop` resolves; every answer kept. */
function load(connections: number, stop: Promise<void>): { answers: Answer[]; done: Promise<void> } {
  const answers: Answer[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  const loops = Array.from({ length: connections }, async (_, c) => {
    for (let i = c; !stopped; i += connections) answers.push(await ask(KINDS[i % KINDS.length]));
  });
  return { answers, done: Promise.all(loops).then(() => {}) };
}

const answeredSince = (answers: Answer[], t: number, n: number) =>
  vi.waitFor(() => expect(answers.filter((a) => a.sentAt > t).length).toBeGreaterThanOrEqual(n), { timeout: 120_000, interval: 100 });

describe('map activate refuses what cannot be a swap', () => {
  it('a directory without a map, a link that is a directory, no link: exit 1, 1, 2, and the link unmoved', async () => {
    const notMap = await runCli(['map', 'activate', work], { WAYMARK_MAP: link });
    expect(notMap.code).toBe(1);
    expect(notMap.stderr).toMatch(/not a map directory/);
    const realDir = await runCli(['map', 'activate', maps.ad, '--link', maps.li]);
    expect(realDir.code).toBe(1);
    expect(realDir.stderr).toMatch(/not a symbolic link/);
    const noLink = await runCli(['map', 'activate', maps.ad], { WAYMARK_MAP: '' });
    expect(noLink.code).toBe(2);
    expect(noLink.stderr).toMatch(/needs --link or WAYMARK_MAP/);
    expect(await realpath(link)).toBe(maps.li);
  });
});

describe('warm before ready', () => {
  it('every compute thread ran each kind of request on the map before /ready answered', async () => {
    const r = await ready();
    expect(r.status).toBe('ready');
    expect(r.map.id).toBe(ids.li);
    const threads = r.map.warm_up.threads as Array<{ thread: number; requests: Record<string, number>; paged_in_bytes: number }>;
    expect(threads).toHaveLength(2);
    expect(new Set(threads.map((t) => t.thread)).size).toBe(2);
    for (const t of threads) {
      for (const kind of ['route', 'avoid', 'matrix', 'isochrone', 'geocode', 'search']) expect(t.requests[kind], kind).toBeGreaterThanOrEqual(1);
    }
    // Each thread's driving-car scratch made resident: the same region size in both (one per thread).
    expect(threads[0].paged_in_bytes).toBeGreaterThan(0);
    expect(threads[1].paged_in_bytes).toBe(threads[0].paged_in_bytes);
  });
});

describe('map hot swap under load', () => {
  let answers: Answer[];
  let stopLoad: () => void;
  let loadDone: Promise<void>;
  /** When /ready first said Andorra's map, and when the link was moved back. */
  let adServing = 0;
  let leftAd = 0;

  beforeAll(() => {
    const stop = new Promise<void>((resolve) => (stopLoad = resolve));
    ({ answers, done: loadDone } = load(6, stop));
  });
  afterAll(async () => {
    stopLoad?.();
    await loadDone;
  });

  it('map activate: the Andorra map answers new requests; the old one finishes its own and is freed', async () => {
    await answeredSince(answers, 0, 30);
    const run = await runCli(['map', 'activate', maps.ad], { WAYMARK_MAP: link });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(ids.ad);
    await vi.waitFor(async () => expect((await ready()).map.id).toBe(ids.ad), { timeout: 120_000, interval: 100 });
    adServing = performance.now();
    await answeredSince(answers, adServing, 40);
    // The new threads warmed up too, and they are not the old ones.
    const threads = (await ready()).map.warm_up.threads as Array<{ thread: number; requests: Record<string, number> }>;
    expect(threads).toHaveLength(2);
    for (const t of threads) expect(t.requests.avoid).toBeGreaterThanOrEqual(1);
    await vi.waitFor(async () => expect(await metric(/^waymark_maps_loaded (\d+)/m)).toBe(1), { timeout: 60_000, interval: 200 });
    expect(await metric(/^waymark_map_swaps_total\{result="activated"\} (\d+)/m)).toBe(1);
    expect(await metric(new RegExp(`^waymark_map_info\\{id="${ids.ad}".*\\} (1)$`, 'm'))).toBe(1);
  });

  it('a damaged map is refused, logged and counted; the map serving stays', async () => {
    const run = await runCli(['map', 'activate', maps.damaged], { WAYMARK_MAP: link });
    expect(run.code, run.stderr).toBe(0);
    await vi.waitFor(async () => expect(await metric(/^waymark_map_swaps_total\{result="refused"\} (\d+)/m)).toBe(1), { timeout: 120_000, interval: 200 });
    const r = await ready();
    expect(r.status).toBe('ready');
    expect(r.map.id).toBe(ids.ad);
    expect(r.map.last_refused.dir).toBe(maps.damaged);
    expect(r.map.last_refused.reason).toMatch(/driving-car/);
    expect(server.output()).toMatch(/map refused: the map serving stays/);
    const refusedAt = performance.now();
    await answeredSince(answers, refusedAt, 30);
    // Not tried again on its own: the link still points at it, and it would fail the same way.
    expect(await metric(/^waymark_map_swaps_total\{result="refused"\} (\d+)/m)).toBe(1);
    expect(await metric(/^waymark_maps_loaded (\d+)/m)).toBe(1);
  });

  it('SIGHUP loads the map behind the link again: mended, it serves', async () => {
    await writeFile(damagedFile, trueBytes);
    leftAd = performance.now();
    server.child.kill('SIGHUP');
    await vi.waitFor(async () => expect((await ready()).map.dir).toBe(maps.damaged), { timeout: 120_000, interval: 100 });
    const back = performance.now();
    expect((await ready()).map.id).toBe(ids.li);
    await answeredSince(answers, back, 30);
    stopLoad();
    await loadDone;
    // And a link moved by hand is followed too (the periodic look, no signal).
    await pointLink(maps.ad);
    await vi.waitFor(async () => expect((await ready()).map.id).toBe(ids.ad), { timeout: 120_000, interval: 100 });
  });

  it('through it all: no 5xx, every answer from exactly one map, and that map’s content', () => {
    expect(answers.length).toBeGreaterThan(150);
    const bad = answers.filter((a) => a.status >= 500);
    expect(bad.map((a) => `${a.kind} ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`)).toEqual([]);
    for (const a of answers) {
      expect([ids.li, ids.ad], `${a.kind} ${a.status}`).toContain(a.map);
      const li = a.map === ids.li;
      if (a.kind === 'route-li') expect(a.status, JSON.stringify(a.body).slice(0, 200)).toBe(li ? 200 : 422);
      if (a.kind === 'route-ad') expect(a.status, JSON.stringify(a.body).slice(0, 200)).toBe(li ? 422 : 200);
      if (a.kind === 'matrix-li') expect(a.status).toBe(li ? 200 : 422);
      if (a.kind === 'search-li') {
        expect(a.status).toBe(200);
        // Vaduz is a place of Liechtenstein's extract, not of Andorra's.
        expect(
          a.body.data.some((h: any) => /Vaduz/.test(JSON.stringify(h))),
          JSON.stringify(a.body).slice(0, 300),
        ).toBe(li);
      }
      if (a.kind === 'reverse-li' && a.status === 200) expect(JSON.stringify(a.body).includes('Liechtenstein')).toBe(li);
    }
    // Sent while /ready said Andorra's map (and before the link was moved back): answered by it.
    const whileAd = answers.filter((a) => a.sentAt > adServing && a.sentAt < leftAd);
    expect(whileAd.length).toBeGreaterThan(50);
    expect(whileAd.filter((a) => a.map !== ids.ad)).toEqual([]);
    // Both maps answered, and each kind was asked of each.
    for (const id of [ids.li, ids.ad])
      for (const kind of KINDS)
        expect(
          answers.some((a) => a.map === id && a.kind === kind),
          `${kind} on ${id}`,
        ).toBe(true);
  });
});

describe('waymark worker', () => {
  it('follows the link too: its jobs and geocoding batches move to the new map', async () => {
    await pointLink(maps.li);
    const child = spawn(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'worker'], {
      env: { ...process.env, DATABASE_URL: db.url, WAYMARK_MAP: link, WAYMARK_WORKERS: '1', WAYMARK_PROFILES: 'driving-car', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (out += c));
    try {
      await vi.waitFor(() => expect(out).toContain('job runner started'), { timeout: 120_000, interval: 100 });
      expect(out).toContain(`"id":"${ids.li}"`);
      const run = await runCli(['map', 'activate', maps.ad], { WAYMARK_MAP: link });
      expect(run.code, run.stderr).toBe(0);
      await vi.waitFor(() => expect(out).toMatch(new RegExp(`"id":"${ids.ad}".*map activated`)), { timeout: 120_000, interval: 100 });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
