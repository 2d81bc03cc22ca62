// GET /tiles/{z}/{x}/{y}.mvt and GET /tiles/tiles.json: the base map of the loaded map directory.
// Public like the dashboard's assets: the tiles are the extract's own open data, no team's.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { badRequest } from '../http/errors.js';
import { RawBytes, type Reply, type Route } from '../http/router.js';
import { readManifest } from '../map/map-files.js';
import { ArchiveReader, archivePath } from './archive.js';
import type { TilesManifest } from './build.js';

/** Browsers revalidate after this (with If-None-Match): a rebuilt map shows within minutes. */
const CACHE_CONTROL = 'public, max-age=300';

interface Opened { reader: ArchiveReader; manifest: TilesManifest }

export function tileRoutes(mapDir: string | undefined): Route[] {
  let opening: Promise<Opened | undefined> | undefined;
  // Opened on first use; a map without tiles (or none) answers 404 and is looked at again next time.
  const tiles = async (): Promise<Opened | undefined> => {
    if (!mapDir) return undefined;
    const mine = (opening ??= (async () => {
      try {
        const manifest = (await readManifest(mapDir)).tiles;
        return manifest ? { reader: await ArchiveReader.open(archivePath(mapDir)), manifest } : undefined;
      } catch {
        return undefined;
      }
    })());
    const got = await mine;
    if (!got && opening === mine) opening = undefined;
    return got;
  };
  const noTiles = (): Reply => ({ status: 404, body: { message: 'This server has no base map: run it with a map built by this version (waymark map build).' } });

  return [
    {
      method: 'GET', path: '/tiles/tiles.json', public: true, body: 'none',
      handler: async () => {
        const t = await tiles();
        if (!t) return noTiles();
        const { minzoom, maxzoom, bounds } = t.manifest;
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-cache' },
          body: { tilejson: '3.0.0', tiles: ['/tiles/{z}/{x}/{y}.mvt'], minzoom, maxzoom, bounds,
            vector_layers: ['roads', 'water', 'landuse', 'buildings', 'places', 'boundaries'].map((id) => ({ id })) },
        };
      },
    },
    {
      method: 'GET', path: '/tiles/{z}/{x}/{tile}', public: true, body: 'none',
      handler: async (ctx) => {
        const m = /^(\d{1,10})\.mvt$/.exec(ctx.params.tile);
        const z = /^\d{1,2}$/.test(ctx.params.z) ? Number(ctx.params.z) : NaN;
        const x = /^\d{1,10}$/.test(ctx.params.x) ? Number(ctx.params.x) : NaN;
        const y = m ? Number(m[1]) : NaN;
        if (!(z >= 0 && z <= 30)) throw badRequest('z must be a zoom level from 0 to 30.');
        if (!(x < 2 ** z)) throw badRequest(`x must be an integer from 0 to ${2 ** z - 1} at zoom ${z}.`);
        if (!(y < 2 ** z)) throw badRequest(`y must be {integer}.mvt, from 0 to ${2 ** z - 1} at zoom ${z}.`);
        const t = await tiles();
        if (!t) return noTiles();
        const gz = z <= t.manifest.maxzoom ? await t.reader.get(z, x, y) : undefined;
        // Outside the data (or past the last zoom, where the map overzooms its last tiles): no content.
        if (!gz) return { status: 204, headers: { 'Cache-Control': CACHE_CONTROL } };
        const etag = `"${createHash('sha256').update(gz).digest('base64url').slice(0, 22)}"`;
        const headers: Record<string, string> = { 'Content-Type': 'application/vnd.mapbox-vector-tile', ETag: etag, 'Cache-Control': CACHE_CONTROL, Vary: 'Accept-Encoding' };
        if (ctx.headers['if-none-match'] === etag) return { status: 304, headers };
        if (/\bgzip\b/.test(ctx.headers['accept-encoding'] ?? '')) return { status: 200, body: new RawBytes(gz), headers: { ...headers, 'Content-Encoding': 'gzip' } };
        return { status: 200, body: new RawBytes(gunzipSync(gz)), headers };
      },
    },
  ];
}
