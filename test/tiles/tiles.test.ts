import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { backgroundErrorCounts } from '../../src/lib/background-errors.js';
import { readManifest } from '../../src/map/map-dir.js';
import { TILES_FILE } from '../../src/map/tiles/archive.js';
import { testMapDir } from '../geo-api/support.js';
import { checkedFetch, startTestApp } from '../support/app.js';
import { checkResponse } from '../support/contract.js';

/** The base map's tiles, built from the bundled Liechtenstein extract with the map, over HTTP. */
let app: App & { url: string };
/** The broken archive's test stops it first. */
let appClosed = false;
let mapDir: string;
beforeAll(async () => {
  mapDir = await testMapDir();
  app = await startTestApp({ WAYMARK_MAP: mapDir, WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'driving-car' });
}, 300_000);
afterAll(() => (appClosed ? undefined : app?.close()));

const tileOf = (lat: number, lon: number, z: number) => {
  const n = 2 ** z,
    s = Math.sin((lat * Math.PI) / 180);
  return { z, x: Math.floor(((lon + 180) / 360) * n), y: Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n) };
};
/** The raw reply (no decompression), to see what is on the wire. */
const raw = (path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(`${app.url}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const body = Buffer.concat(parts);
        try {
          // Checked against the OpenAPI document like every answer the suite gets (test/support/contract.ts).
          const h = new Headers(Object.entries(res.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as [string, string]])));
          checkResponse('GET', path, res.statusCode!, h, body.toString('latin1'));
        } catch (err) {
          reject(err);
          return;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
const decode = (mvt: Buffer) => new VectorTile(new PbfReader(mvt));
const features = (tile: VectorTile, layer: string) => {
  const l = tile.layers[layer];
  return l ? Array.from({ length: l.length }, (_, i) => l.feature(i)) : [];
};

const VADUZ = { lat: 47.141, lon: 9.5215 };

describe('vector tiles', () => {
  it('the map build wrote the tiles and lists them in the manifest', async () => {
    const m = await readManifest(mapDir);
    expect(m.tiles.maxzoom).toBe(14);
    expect(m.tiles.tiles).toBeGreaterThan(100);
    expect(m.tiles.perZoom).toHaveLength(15);
    expect(m.files[m.tiles.file]).toEqual({ bytes: m.tiles.bytes, xxh128: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const tj = (await (await checkedFetch(`${app.url}/tiles/tiles.json`)).json()) as any;
    expect(tj).toMatchObject({ tiles: ['/tiles/{z}/{x}/{y}.mvt'], minzoom: 0, maxzoom: 14 });
    const [w, s, e, n] = tj.bounds;
    expect(w < VADUZ.lon && VADUZ.lon < e && s < VADUZ.lat && VADUZ.lat < n).toBe(true);
  });

  it('a tile over Vaduz decodes with named roads, places, buildings and land use', async () => {
    const { z, x, y } = tileOf(VADUZ.lat, VADUZ.lon, 14);
    const res = await raw(`/tiles/${z}/${x}/${y}.mvt`, { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    expect([...res.body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const tile = decode(gunzipSync(res.body));
    const roads = features(tile, 'roads');
    expect(roads.length).toBeGreaterThan(20);
    const names = new Set(roads.map((f) => f.properties.name).filter(Boolean));
    expect(names.has('Städtle')).toBe(true);
    expect(roads.every((f) => f.type === 2 && typeof f.properties.class === 'string')).toBe(true);
    const places = features(tile, 'places');
    const vaduz = places.find((f) => f.properties.name === 'Vaduz');
    expect(vaduz?.properties).toMatchObject({ class: 'town', rank: 4 });
    expect(features(tile, 'buildings').length).toBeGreaterThan(50);
    expect(features(tile, 'landuse').length).toBeGreaterThan(0);
    expect(tile.layers.roads.extent).toBe(4096);
  });

  it('low zooms keep only the main roads, simplified', async () => {
    const { z, x, y } = tileOf(VADUZ.lat, VADUZ.lon, 9);
    const res = await checkedFetch(`${app.url}/tiles/${z}/${x}/${y}.mvt`);
    expect(res.status).toBe(200);
    const tile = decode(Buffer.from(await res.arrayBuffer()));
    const classes = new Set(features(tile, 'roads').map((f) => f.properties.class));
    expect(classes.has('primary')).toBe(true);
    expect(classes.has('minor')).toBe(false);
    expect(tile.layers.buildings).toBeUndefined();
    expect(features(tile, 'places').some((f) => f.properties.name === 'Vaduz')).toBe(true);
    expect(features(tile, 'boundaries').length).toBeGreaterThan(0);
  });

  it('answers If-None-Match with 304, plain MVT to a client without gzip, 204 outside the data, 400 for a bad address', async () => {
    const { z, x, y } = tileOf(VADUZ.lat, VADUZ.lon, 13);
    const path = `/tiles/${z}/${x}/${y}.mvt`;
    const first = await raw(path, { 'accept-encoding': 'gzip' });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await raw(path, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    const plain = await raw(path, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(gunzipSync(first.body))).toBe(true);
    expect((await raw(path, { 'if-none-match': '"something-else"' })).status).toBe(200);

    expect((await raw('/tiles/14/0/0.mvt')).status).toBe(204);
    expect((await raw('/tiles/15/17200/11500.mvt')).status).toBe(204);
    for (const [bad, field] of [
      ['/tiles/31/0/0.mvt', 'z'],
      ['/tiles/3/8/0.mvt', 'x'],
      ['/tiles/3/0/8.mvt', 'y'],
      ['/tiles/3/0/zero.mvt', 'y'],
      ['/tiles/3/0/1.png', 'y'],
    ]) {
      const res = await checkedFetch(`${app.url}${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as any).message.startsWith(`${field} `), bad).toBe(true);
    }
  });
});

describe('vector tiles without a map', () => {
  it('answer 404 with the reason', async () => {
    const bare = await startTestApp({ WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' });
    try {
      const res = await checkedFetch(`${bare.url}/tiles/14/8626/5761.mvt`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).message).toMatch(/no base map/);
    } finally {
      await bare.close();
    }
  });
});

describe('vector tiles whose archive cannot be read', () => {
  it('answer 503 naming the cause, log it and count it; the rest of the service is unaffected', async () => {
    // The test map (linked file by file) whose tile archive is replaced, once it serves, by bytes that are
    // not one: a damaged archive at start stops the start (test/scale/map-faults), one damaged later is
    // found when it is first opened.
    const dir = mkdtempSync(join(tmpdir(), 'waymark-broken-tiles-'));
    for (const name of readdirSync(mapDir)) symlinkSync(join(mapDir, name), join(dir, name));
    // The engine's map is the process's: the file's first app, still up, would see another map serving
    // and load its own again within its watch interval (seen in CI), answering from the intact archive.
    await app.close();
    appClosed = true;
    const broken = await startTestApp({ WAYMARK_MAP: dir, WAYMARK_JOBS: 'off', WAYMARK_PROFILES: 'driving-car' });
    rmSync(join(dir, TILES_FILE));
    writeFileSync(join(dir, TILES_FILE), 'not a tile archive');
    const count = () => backgroundErrorCounts().get('tile-archive-open') ?? 0;
    const before = count();
    try {
      for (const path of ['/tiles/tiles.json', '/tiles/14/8626/5761.mvt']) {
        const res = await checkedFetch(`${broken.url}${path}`);
        expect(res.status, path).toBe(503);
        expect(((await res.json()) as any).message).toMatch(/base map cannot be read/);
      }
      // Each request tried the archive again, and each failure counted.
      expect(count()).toBe(before + 2);
      expect((await checkedFetch(`${broken.url}/health`)).status).toBe(200);
    } finally {
      await broken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
