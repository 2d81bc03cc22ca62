// GET /tiles/{z}/{x}/{y}.mvt and GET /tiles/tiles.json: the base map of the loaded map directory.
// Public like the dashboard's assets: the tiles are the extract's own open data, no team's.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { badRequest, serviceUnavailable } from '../../http/errors.js';
import { errorSchema, type Operation, type ResponseDoc } from '../../http/openapi.js';
import { RawBytes, type Reply, type Route } from '../../http/router.js';
import type { MapDir } from '../../map/map-dir.js';
import type { ArchiveReader } from '../../map/tiles/archive.js';
import type { TilesManifest } from '../../map/tiles/build.js';
import { backgroundError } from '../../lib/background-errors.js';

/** Browsers revalidate after this (with If-None-Match): a rebuilt map shows within minutes. */
const CACHE_CONTROL = 'public, max-age=300';

interface Opened {
  reader: ArchiveReader;
  manifest: TilesManifest;
}

const LAYERS = ['roads', 'water', 'landuse', 'buildings', 'places', 'boundaries'] as const;

const tileJsonSchema = z
  .object({
    tilejson: z.literal('3.0.0'),
    tiles: z.array(z.string()).describe('The tile URL template, relative to this server.'),
    minzoom: z.int(),
    maxzoom: z.int().describe('The last zoom with tiles; map clients overzoom it.'),
    bounds: z.tuple([z.number(), z.number(), z.number(), z.number()]).describe('[west, south, east, north] of the data.'),
    vector_layers: z.array(z.object({ id: z.enum(LAYERS) })),
  })
  .meta({
    id: 'TileJson',
    description: 'TileJSON 3.0.0 of the base map.',
    examples: [
      {
        tilejson: '3.0.0',
        tiles: ['/tiles/{z}/{x}/{y}.mvt'],
        minzoom: 0,
        maxzoom: 14,
        bounds: [9.47, 47.04, 9.64, 47.28],
        vector_layers: LAYERS.map((id) => ({ id })),
      },
    ],
  });

const NO_TILES = 'This server has no base map: run it with a map built by this version (waymark map build).';
const noTilesDoc: ResponseDoc = {
  description: 'The server runs without a map (WAYMARK_MAP=off) or its map has no tiles.',
  schema: errorSchema,
  example: { message: NO_TILES },
};
const UNREADABLE = "This server's base map cannot be read (its tile archive is damaged or missing); the server's log says why. Retry later.";
const unreadableDoc: ResponseDoc = {
  description: 'The map has tiles, but their archive cannot be read (damaged, missing or replaced): logged and counted on the server.',
  schema: errorSchema,
  example: { message: UNREADABLE },
};
const header = (description: string, required = true) => ({ description, schema: { type: 'string' }, required });
const cacheControl = header(`\`${CACHE_CONTROL}\`: revalidate with If-None-Match after that.`);

const tileJsonDoc: Operation = {
  operationId: 'getTileJson',
  tag: 'Base map',
  summary: 'TileJSON of the base map',
  description: 'The base map of the loaded map directory, built with it from the same OpenStreetMap extract: for MapLibre GL or any vector tile client.',
  responses: {
    200: { description: 'The TileJSON.', schema: tileJsonSchema, headers: { 'Cache-Control': header('`no-cache`.') } },
    404: noTilesDoc,
    503: unreadableDoc,
  },
};

const tileDoc: Operation = {
  operationId: 'getTile',
  tag: 'Base map',
  summary: 'A vector tile',
  description:
    "A Mapbox Vector Tile (layers roads, water, landuse, buildings, places, boundaries; extent 4096), gzip-compressed when the request accepts gzip. Tiles outside the data, and beyond the last zoom, are 204 (the client overzooms the last zoom's tiles).",
  pathParams: { z: 'Zoom level, 0 to 30.', x: 'Column, 0 to 2^z − 1.', tile: '`{y}.mvt`: the row, 0 to 2^z − 1, with the `.mvt` extension.' },
  responses: {
    200: {
      description: 'The tile.',
      contentTypes: ['application/vnd.mapbox-vector-tile'],
      contentSchema: { type: 'string', description: "The tile's protobuf bytes." },
      headers: {
        ETag: header("The tile's version, for If-None-Match."),
        'Cache-Control': cacheControl,
        Vary: header('`Accept-Encoding`.'),
        'Content-Encoding': header('`gzip` when the request accepted it; absent otherwise.', false),
      },
    },
    204: { description: "No data there (outside the map's area, or past its last zoom).", headers: { 'Cache-Control': cacheControl } },
    304: {
      description: 'The tile has not changed (If-None-Match matched its ETag).',
      headers: { ETag: header("The tile's version."), 'Cache-Control': cacheControl },
    },
    400: {
      description: 'Not a tile address: z beyond 0–30, x or y beyond 0 to 2^z − 1, or the last segment not `{y}.mvt`. The message names the coordinate.',
      schema: errorSchema,
      example: { message: 'z must be a zoom level from 0 to 30.' },
    },
    404: noTilesDoc,
    503: unreadableDoc,
  },
};

/** How many maps' archives stay open: the one serving and the one before it, whose requests may still be
 *  finishing after a swap. */
const OPEN_ARCHIVES = 2;

/** `mapFiles`: the files of the map answering now (a swap changes it), undefined without a map. */
export function tileRoutes(mapFiles: () => MapDir | undefined): Route[] {
  const open = new Map<string, Promise<Opened | 'none' | 'unreadable'>>();
  // Opened on first use; a map without tiles (or none) answers 404, one whose archive cannot be read 503,
  // and either is looked at again next time.
  const tiles = async (): Promise<Opened | undefined> => {
    const map = mapFiles();
    if (!map) return undefined;
    const dir = map.dir;
    let mine = open.get(dir);
    if (!mine) {
      mine = openArchive(map);
      open.set(dir, mine);
      for (const [old, opened] of [...open].slice(0, -OPEN_ARCHIVES)) {
        open.delete(old);
        void opened
          .then((o) => (typeof o === 'string' ? undefined : o.reader.close()))
          .catch((err: unknown) => backgroundError('tile-archive-close', err, { mapDir: old }));
      }
    }
    const got = await mine;
    if (typeof got === 'string' && open.get(dir) === mine) open.delete(dir);
    if (got === 'unreadable') throw serviceUnavailable(UNREADABLE);
    return got === 'none' ? undefined : got;
  };
  const openArchive = async (map: MapDir): Promise<Opened | 'none' | 'unreadable'> => {
    try {
      const manifest = map.manifest.tiles;
      return manifest ? { reader: await map.openTiles(), manifest } : 'none';
    } catch (err) {
      // Logged (at most once per 10 s while it lasts) and counted; the client is told it is the server's fault.
      backgroundError('tile-archive-open', err, { mapDir: map.dir });
      return 'unreadable';
    }
  };
  const read = async (t: Opened, z: number, x: number, y: number) => {
    try {
      return await t.reader.get(z, x, y);
    } catch (err) {
      // A read error of the open archive (EIO): the server's fault, not a tile that does not exist.
      backgroundError('tile-archive-read', err, { mapDir: mapFiles()?.dir, z, x, y });
      throw serviceUnavailable(UNREADABLE);
    }
  };
  const noTiles = (): Reply => ({ status: 404, body: { message: NO_TILES } });

  return [
    {
      method: 'GET',
      path: '/tiles/tiles.json',
      public: true,
      body: 'none',
      openapi: tileJsonDoc,
      handler: async () => {
        const t = await tiles();
        if (!t) return noTiles();
        const { minzoom, maxzoom, bounds } = t.manifest;
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-cache' },
          body: { tilejson: '3.0.0', tiles: ['/tiles/{z}/{x}/{y}.mvt'], minzoom, maxzoom, bounds, vector_layers: LAYERS.map((id) => ({ id })) },
        };
      },
    },
    {
      method: 'GET',
      path: '/tiles/{z}/{x}/{tile}',
      public: true,
      body: 'none',
      openapi: tileDoc,
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
        const gz = z <= t.manifest.maxzoom ? await read(t, z, x, y) : undefined;
        // Outside the data (or past the last zoom, where the map overzooms its last tiles): no content.
        if (!gz) return { status: 204, headers: { 'Cache-Control': CACHE_CONTROL } };
        const etag = `"${createHash('sha256').update(gz).digest('base64url').slice(0, 22)}"`;
        const headers: Record<string, string> = {
          'Content-Type': 'application/vnd.mapbox-vector-tile',
          ETag: etag,
          'Cache-Control': CACHE_CONTROL,
          Vary: 'Accept-Encoding',
        };
        if (ctx.headers['if-none-match'] === etag) return { status: 304, headers };
        if (/\bgzip\b/.test(ctx.headers['accept-encoding'] ?? ''))
          return { status: 200, body: new RawBytes(gz), headers: { ...headers, 'Content-Encoding': 'gzip' } };
        return { status: 200, body: new RawBytes(gunzipSync(gz)), headers };
      },
    },
  ];
}
