// On-disk layout of the geocoder index, `<mapDir>/geocoder/`: `index.json` (strings, countries, area
// descriptions, coverage grid geometry, counts) plus one raw little-endian file per typed array
// (`<name>.bin`). Coordinates are degrees × 1e7 in Int32; "no value" in a string reference is -1.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FlatAreas } from './areas.js';
import type { CoverageGrid } from '../osm/coverage.js';

/**
 * 2: countries carry their alpha-2 code; the forward-search index (search.bin, search-format.ts) beside it.
 * 3: streets' own postcode and city, address points' city (addr:city), municipalities' centres;
 * address points with a street but no number.
 */
export const GEOCODER_FORMAT = 3;

/** How far from a point the postcode tagged on an object around is still its postcode (the last resort, "estimated"). */
export const POSTCODE_NEAR_M = 500;

export type AreaKind = 'country' | 'municipality' | 'postal';

export interface AreaInfo {
  kind: AreaKind;
  /** Country or municipality name, or the postal code. */
  name: string;
  /** Index into `countries`, or -1 when unknown. */
  country: number;
  /** 'superseded': a Natural Earth outline of a country the OSM polygon replaces, kept to recognise its coarse overreach. */
  source: 'osm' | 'natural-earth' | 'superseded';
  /** A municipality's centre (lat, lon): of two containing a point, the one centred nearer is its city. */
  center?: [number, number];
}

export interface CountryInfo {
  name: string;
  /** ISO 3166-1 numeric code when known. */
  iso: string | null;
  /** ISO 3166-1 alpha-2 code, from the OSM relation; null for a country only Natural Earth draws. */
  alpha2: string | null;
  /** True when the extract holds the full OSM boundary, which then overrides Natural Earth. */
  osmComplete: boolean;
}

export interface GeocoderCounts {
  countries: number;
  countryAreas: number;
  municipalities: number;
  postalAreas: number;
  addresses: number;
  /** Named highway ways. */
  streets: number;
  streetSegments: number;
  places: number;
  /** Bytes of the forward-search index (search.bin). */
  searchBytes?: number;
}

export interface GeocoderMeta {
  format: number;
  strings: string[];
  countries: CountryInfo[];
  areas: AreaInfo[];
  coverage: CoverageGrid;
  counts: GeocoderCounts;
}

export interface GeocoderArrays extends FlatAreas {
  /** Named streets as polylines of at most a few segments each (long ways are cut): lat, lon per vertex. */
  streetCoords: Int32Array;
  /** Per polyline, its first vertex; one extra entry at the end. */
  streetStarts: Uint32Array;
  /** Per polyline, the street name (string index). */
  streetNames: Int32Array;
  /** Per polyline, its street's own postcode and addr:city (a city near of that name), string index or -1. */
  streetPostcode: Int32Array;
  streetCity: Int32Array;
  /** Address points: lat, lon. */
  addrCoords: Int32Array;
  /** Per address point: street (addr:street or addr:place), house number, postcode (string indices or -1). */
  addrStreet: Int32Array;
  addrNumber: Int32Array;
  addrPostcode: Int32Array;
  /** Per address point, the country it lies in (-1 when none). */
  addrCountry: Int32Array;
  /** Per address point, the city its addr:city names (a city near of that name), string index or -1. */
  addrCity: Int32Array;
  /** city/town/village place nodes: lat, lon, name, country. */
  placeCoords: Int32Array;
  placeName: Int32Array;
  placeCountry: Int32Array;
  /** rows × cols, 1 where the map has data. */
  coverage: Uint8Array;
}

export interface GeocoderIndexData {
  meta: GeocoderMeta;
  arrays: GeocoderArrays;
}

const ARRAY_TYPES = {
  coords: Int32Array,
  ringStarts: Uint32Array,
  areaRings: Uint32Array,
  streetCoords: Int32Array,
  streetStarts: Uint32Array,
  streetNames: Int32Array,
  streetPostcode: Int32Array,
  streetCity: Int32Array,
  addrCoords: Int32Array,
  addrStreet: Int32Array,
  addrNumber: Int32Array,
  addrPostcode: Int32Array,
  addrCountry: Int32Array,
  addrCity: Int32Array,
  placeCoords: Int32Array,
  placeName: Int32Array,
  placeCountry: Int32Array,
  coverage: Uint8Array,
} satisfies Record<keyof GeocoderArrays, unknown>;

export const geocoderDir = (mapDir: string): string => join(mapDir, 'geocoder');

export async function writeGeocoderIndex(mapDir: string, data: GeocoderIndexData): Promise<void> {
  const dir = geocoderDir(mapDir);
  await mkdir(dir, { recursive: true });
  for (const name of Object.keys(ARRAY_TYPES) as (keyof GeocoderArrays)[]) {
    const a = data.arrays[name];
    await writeFile(join(dir, `${name}.bin`), new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }
  // index.json last: its presence marks a complete index.
  await writeFile(join(dir, 'index.json'), JSON.stringify(data.meta));
}

/** The index's `index.json` (its bytes), checked to be of this format; `what` names it in the error. */
export function parseGeocoderMeta(bytes: Uint8Array, what: string): GeocoderMeta {
  const meta = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as GeocoderMeta;
  if (meta.format !== GEOCODER_FORMAT) {
    throw new Error(`${what}: geocoder index format ${meta.format}, expected ${GEOCODER_FORMAT}; rebuild the map`);
  }
  return meta;
}

/** The index's files, relative to the geocoder's directory: `index.json`, then one per array. */
export const GEOCODER_FILES: readonly string[] = ['index.json', ...Object.keys(ARRAY_TYPES).map((name) => `${name}.bin`)];

/** Typed views over the index's files (each read into a buffer of its own, aligned: no copy). */
export function geocoderIndexOf(meta: GeocoderMeta, files: Readonly<Record<string, Uint8Array>>): GeocoderIndexData {
  const arrays = {} as Record<keyof GeocoderArrays, unknown>;
  for (const [name, Type] of Object.entries(ARRAY_TYPES) as [keyof GeocoderArrays, typeof Int32Array][]) {
    const bytes = files[`${name}.bin`];
    arrays[name] = new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
  }
  return { meta, arrays: arrays as GeocoderArrays };
}
