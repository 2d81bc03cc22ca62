// The tiles step of `waymark map build`: the extract's base-map features cut into Mapbox Vector Tiles
// for zooms 0 to 14, each tile made on its own from the features whose box touches it (geojson-vt's
// single-tile path clips and simplifies for the tile's zoom; vt-pbf encodes), gzipped, into one archive.
// One tile's features at a time are in GeoJSON form, so memory stays with the compact source.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { geoJSONToTile } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import RBush from 'rbush';
import { ArchiveWriter, tileKey, TILES_FILE } from './archive.js';
import { MAX_ZOOM, type LayerName } from './classify.js';
import { readTileSource, type SourceFeature, type SourceProgress } from './source.js';

export const EXTENT = 4096;
/** Pixels of a 256-px tile drawn beyond its edge (so lines and labels join across tiles). */
const BUFFER = 64;
/** Douglas–Peucker tolerance in tile pixels at the tile's own zoom. */
const TOLERANCE = 3;

export interface TilesManifest {
  file: string;
  minzoom: number;
  maxzoom: number;
  /** [west, south, east, north] of the data. */
  bounds: [number, number, number, number];
  tiles: number;
  bytes: number;
  /** Tiles per zoom. */
  perZoom: number[];
  buildMs: number;
  sha256: string;
}

interface Indexed { minX: number; minY: number; maxX: number; maxY: number; f: SourceFeature }

const lon2x = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
const lat2y = (lat: number, z: number) => {
  const s = Math.sin((Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180);
  return Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * 2 ** z);
};
const x2lon = (x: number, z: number) => (x / 2 ** z) * 360 - 180;
const y2lat = (y: number, z: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;

const pairs = (c: Float64Array): number[][] => {
  const out: number[][] = new Array(c.length / 2);
  for (let i = 0; i < c.length; i += 2) out[i / 2] = [c[i], c[i + 1]];
  return out;
};

function toGeoJson(f: SourceFeature): GeoJSON.Feature {
  const geometry: GeoJSON.Geometry = f.point ? { type: 'Point', coordinates: f.point }
    : f.line ? { type: 'LineString', coordinates: pairs(f.line) }
    : { type: 'MultiPolygon', coordinates: f.polygons!.map((p) => p.map(pairs)) };
  return { type: 'Feature', geometry, properties: f.kind.props };
}

/** The tiles of zoom z that features visible at z touch (their boxes, grown by the buffer). */
function tilesAt(features: SourceFeature[], z: number): number[][] {
  const seen = new Set<number>();
  const out: number[][] = [];
  const n = 2 ** z, pad = BUFFER / 256;
  for (const f of features) {
    if (f.kind.minzoom > z) continue;
    const [w, s, e, nth] = f.bbox;
    const fx0 = ((w + 180) / 360) * n - pad, fx1 = ((e + 180) / 360) * n + pad;
    const x0 = Math.max(0, Math.floor(fx0)), x1 = Math.min(n - 1, Math.floor(fx1));
    const y0 = Math.max(0, lat2y(nth, z) - 1), y1 = Math.min(n - 1, lat2y(s, z) + 1);
    for (let x = x0; x <= x1; x++) {
      for (let y = y0; y <= y1; y++) {
        const key = tileKey(z, x, y);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push([key, x, y]);
      }
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** One tile's bytes (uncompressed MVT), or undefined when nothing of the map is in it. */
export function renderTile(index: RBush<Indexed>, z: number, x: number, y: number): Uint8Array | undefined {
  const padLon = ((BUFFER / 256) * 360) / 2 ** z;
  const north = y2lat(y, z), south = y2lat(y + 1, z);
  const padLat = (north - south) * (BUFFER / 256);
  const hits = index.search({ minX: x2lon(x, z) - padLon, maxX: x2lon(x + 1, z) + padLon, minY: south - padLat, maxY: north + padLat });
  const byLayer = new Map<LayerName, GeoJSON.Feature[]>();
  for (const { f } of hits) {
    if (f.kind.minzoom > z) continue;
    let list = byLayer.get(f.kind.layer);
    if (!list) byLayer.set(f.kind.layer, (list = []));
    list.push(toGeoJson(f));
  }
  const layers: Parameters<typeof fromGeojsonVt>[0] = {};
  for (const [name, features] of byLayer) {
    const tile = geoJSONToTile({ type: 'FeatureCollection', features }, z, x, y, { extent: EXTENT, buffer: BUFFER * (EXTENT / 256), tolerance: TOLERANCE, clip: true, maxZoom: z });
    if (tile && tile.features.length) layers[name] = tile;
  }
  return Object.keys(layers).length ? fromGeojsonVt(layers, { version: 2, extent: EXTENT }) : undefined;
}

/** Builds `tiles.bin` in `outDir` from the extract; reports `tiles: …` stages. */
export async function buildTiles(osmPath: string, outDir: string, onProgress: SourceProgress = () => {}): Promise<TilesManifest> {
  const started = Date.now();
  const features = await readTileSource(osmPath, onProgress);
  const index = new RBush<Indexed>();
  index.load(features.map((f) => ({ minX: f.bbox[0], minY: f.bbox[1], maxX: f.bbox[2], maxY: f.bbox[3], f })));
  const root = index.toJSON();
  const bounds: [number, number, number, number] = [root.minX, root.minY, root.maxX, root.maxY];
  const zooms = Array.from({ length: MAX_ZOOM + 1 }, (_, z) => tilesAt(features, z));
  const total = zooms.reduce((a, t) => a + t.length, 0);
  const path = `${outDir}/${TILES_FILE}`;
  const writer = await ArchiveWriter.create(path);
  const hash = createHash('sha256');
  const perZoom: number[] = [];
  let done = 0;
  try {
    for (let z = 0; z <= MAX_ZOOM; z++) {
      let written = 0;
      for (const [key, x, y] of zooms[z]) {
        const mvt = renderTile(index, z, x, y);
        if (mvt) {
          const gz = gzipSync(mvt, { level: 6 });
          hash.update(gz);
          await writer.add(key, gz);
          written++;
        }
        if (++done % 256 === 0) onProgress('tiles', done, total);
      }
      perZoom.push(written);
    }
  } catch (err) {
    await writer.abort();
    await rm(path, { force: true });
    throw err;
  }
  const { tiles, bytes } = await writer.finish();
  onProgress('tiles', 0, 0);
  return { file: TILES_FILE, minzoom: 0, maxzoom: MAX_ZOOM, bounds, tiles, bytes, perZoom, buildMs: Date.now() - started, sha256: hash.digest('hex') };
}

