// The map directory's format and its writers: manifest.json, one flat little-endian binary file per graph
// array (`<profile>/<array>.u8|i32|u32|f64`), the shapes all profiles share (`shapes/`), the geocoder
// index (`geocoder/`) and the base map's tiles (`tiles.bin`). The manifest, written last, lists every file
// with its size and checksum (XXH128). Everything that reads a map reads it through map-dir.ts.
import { createHash } from 'node:crypto';
import { fileChecksum } from '../lib/checksum.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GRAPH_ARRAYS, SHAPE_ARRAYS, type GridParams, type RoadGraph, type Shapes } from './graphs/road-graph.js';
import type { TilesManifest } from './tiles/build.js';

/**
 * 5: no ALT landmark tables (blocked searches take their potentials from the hierarchy); a main-network
 * flag per node; no reverse CSR; coordinates as 1e-7-degree integers; the ways' points and the segment
 * grid stored once for all profiles; every file's size and SHA-256 in the manifest.
 * 6: same files; the profiles read OSM as OSRM's features specify (barrier nodes, access per direction,
 * physical limits, turn restrictions whose via node ends both ways), so older maps are rebuilt.
 * 7: the base map's vector tiles are built with the map (tiles.bin).
 * 8: two more arrays per profile, the physical limits of the lorry graph's geometries (`limitGeom`,
 * `limitValue`; empty for the other profiles); ferries and car trains (`route=ferry`, `duration`) are
 * routed and `destination` roads are slowed like other restricted access; the geocoder's addresses include
 * house numbers interpolated along `addr:interpolation` ways and associatedStreet houses' streets;
 * restrictions over several via ways add node copies.
 * 9: same files; tiles.bin's tiles come from the hierarchical tiler (simplified per zoom, an 8-px buffer
 * but for places) and are stored in the order they were made, its index still sorted by key.
 * 10: lengths in whole centimeters, u32 (`geomCm`, `upCm`, `dnCm`, were f64 meters): 4 bytes less per
 * geometry and per hierarchy edge, and sums of lengths are exact; no `geomWay` (only the build reads way
 * ids), no `nodeE7` and no `rank` (serving needs neither; nodePositionsE7 gives tools the positions).
 * 11: same files; the lorry graph keeps the ways below the default lorry's size (for smaller lorries),
 * their edges weighed down by CLOSED_PENALTY in its hierarchy: an older server would route the default
 * lorry over them.
 * 12: eight more arrays per profile, the lorry graph's bound hierarchy (`lbUpFirst` … `lbDnCm`: a second
 * contraction over the true weights of every edge, whose distances guide a smaller lorry's search; empty
 * for the other profiles).
 * 13: the segment grid lists consecutive segments of a cell as runs (point | RUN, length): 217 → 65 MB
 * on the 32x32 country.
 * 14: the routable ways' `name` and `ref` per run of shape points (`shapes/label*`: runs, labels, UTF-8
 * texts), for saying which road a point is on.
 * 15: the forward-search index (`geocoder/search.bin`: streets with their address points, places,
 * postcodes and their folded words); countries in `geocoder/index.json` carry their alpha-2 code.
 * 16: each label's road kind (`shapes/labelKind`: class, ramp, roundabout), for turn-by-turn steps.
 * 17: the address model as Nominatim parents it (geocoder format 3): streets' own postcode and city
 * (`streetPostcode`, `streetCity`), address points' addr:city (`addrCity`), address points with a
 * street and no number, municipalities' centres.
 * 18: per profile `geomClass.u8`, each geometry's exclude classes (toll, motorway, ferry, unpaved) for
 * routes that keep off them (a map of format 23 built since steps have travel modes also has, for the
 * bicycle, where the bike is pushed each way: bits no request excludes; one built before lacks them, and its
 * bicycle steps say `cycling` throughout).
 * 19: search finds streets and places by their other names too (`name:xx`, alt_name, official_name,
 * short_name) in `geocoder/search.bin`; same layout, more words.
 * 20: same files; the manifest lists each file's XXH128 (`xxh128`) instead of its SHA-256: `serve` checks
 * every byte of the map before it is ready, and SHA-256 took ~1 s of CPU per GB (4.3 GB at 32x32).
 * 21: per profile `geomGuide.i32`, turn guidance's record of each geometry (graphs/road-guide.ts: its label
 * and each direction's bearing offset, 12 bytes), for the driving profiles; empty for bicycle and foot.
 * 22: each label's destination signs, the profiles that show them, and exit numbers
 * (`shapes/labelDestinations`, `labelDestinationsShown`, `labelExits`), for the steps' `destinations`
 * and `exits`; a way with signs has a label of its own.
 * 23: each label's turn lanes along and against its way (`shapes/labelLanesForward`, `labelLanesBackward`),
 * for the intersections' `lanes`; a way with turn lanes has a label of its own.
 * 24: same files; `geomGuide`'s offsets point towards each road's representative coordinate as OSRM finds it
 * (graphs/road-coordinate.ts), not its first point 10 m away.
 * 25: per profile `maneuvers.i32`, OSM's maneuver relations as runs of the graph's directed geometries
 * (graphs/maneuvers.ts), for the steps; `geomGuide`'s first word carries the way's lanes in its top 4 bits
 * (road-guide.ts `guideLanes`), for the width of a road's two carriageways (engine/guidance/merged-roads.ts).
 */
export const MAP_FORMAT_VERSION = 25;

export interface GraphManifest {
  nodes: number;
  edges: number;
  geometries: number;
  restrictedViaNodes?: number;
  /** Edges of the contraction hierarchy (upward + downward, shortcuts included) and the time to build it. */
  hierarchyEdges: number;
  hierarchyMs?: number;
  /** Bytes of the profile's files. */
  bytes: number;
}

/** A file of the map, relative to its directory, with what it must hold. */
export interface FileEntry {
  bytes: number;
  /** The file's XXH128, 32 hex digits (lib/checksum.ts). */
  xxh128: string;
}

export interface MapManifest {
  formatVersion: number;
  source: { file: string; sha256: string; bytes: number };
  builtAt: string;
  buildMs: number;
  profiles: Record<string, GraphManifest>;
  /** The shared shapes: points (pairs) and the grid's parameters. */
  shapes: { points: number; grid: GridParams; bytes: number };
  geocoder: boolean;
  /** The base map's vector tiles (format 6 on). */
  tiles: TilesManifest;
  files: Record<string, FileEntry>;
}

export class MapFormatError extends Error {
  /** `file`: the map file at fault, relative to the map directory (`<profile>/<array>.<type>`), if one is. */
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'MapFormatError';
  }
}

export const manifestPath = (dir: string): string => join(dir, 'manifest.json');

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const bytesOf = (arr: ArrayBufferView): Uint8Array => new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);

/** Writes a profile's arrays (those of `g` among GRAPH_ARRAYS); returns their file entries (keyed by path relative to `dir`). */
export async function writeGraphFiles(dir: string, profile: string, g: Partial<RoadGraph>): Promise<Record<string, FileEntry>> {
  await mkdir(join(dir, profile), { recursive: true });
  const files: Record<string, FileEntry> = {};
  for (const [key, type] of GRAPH_ARRAYS) {
    if (!g[key]) continue;
    const rel = `${profile}/${key}.${type}`;
    const bytes = bytesOf(g[key]!);
    await writeFile(join(dir, rel), bytes);
    files[rel] = { bytes: bytes.byteLength, xxh128: await fileChecksum(bytes) };
  }
  return files;
}

export function graphManifest(g: Pick<RoadGraph, 'nodeCount' | 'edgeCount' | 'geomCount' | 'chA'>, bytes: number): GraphManifest {
  return { nodes: g.nodeCount, edges: g.edgeCount, geometries: g.geomCount, hierarchyEdges: g.chA.length, bytes };
}

/** Writes the shared shapes to `shapes/`; returns their file entries. */
export async function writeShapeFiles(dir: string, shapes: Shapes): Promise<Record<string, FileEntry>> {
  await mkdir(join(dir, 'shapes'), { recursive: true });
  const files: Record<string, FileEntry> = {};
  for (const [key, type] of SHAPE_ARRAYS) {
    const rel = `shapes/${key}.${type}`;
    const bytes = bytesOf(shapes[key]);
    await writeFile(join(dir, rel), bytes);
    files[rel] = { bytes: bytes.byteLength, xxh128: await fileChecksum(bytes) };
  }
  return files;
}
