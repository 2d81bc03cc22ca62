// The forward-search index, `<mapDir>/geocoder/search.bin`: one file of typed arrays behind a table of
// their offsets, so a compute thread maps it with one read and a view per array (no JSON, no objects per
// entry: a country's index is tens of MB that every thread holds).
//
// Layout: u32 magic, u32 version, u32 section count, u32 0, then per section u32 byte offset and u32
// byte length, in SEARCH_SECTIONS' order; each section 8-byte aligned. Coordinates are degrees × 1e7.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { geocoderDir } from './index-format.js';

const MAGIC = 0x58534d57; // "WMSX"
export const SEARCH_FORMAT = 1;

/** Object kinds, in the order their ids follow one another in the object id space. */
export const KIND_STREET = 0,
  KIND_PLACE = 1,
  KIND_POSTCODE = 2;

export const SEARCH_SECTIONS = {
  /** Display texts (names, house numbers, postcodes) as UTF-8, and each text's first byte; one extra entry. */
  strBytes: Uint8Array,
  strOffsets: Uint32Array,
  /** Per country: its name and its ISO 3166-1 alpha-2 code, lower case (text ids, -1 = unknown). */
  countryName: Int32Array,
  countryCode: Int32Array,
  /** Streets: one per name and city (its ways and the address points carrying its name). */
  stName: Int32Array,
  stCity: Int32Array,
  /** The postcode most of its address points carry. */
  stPostcode: Int32Array,
  /** Index into the countries, -1 when none. */
  stCountry: Int16Array,
  /** A point on the street near its middle: lat, lon. */
  stCenter: Int32Array,
  /** minLat, minLon, maxLat, maxLon. */
  stBox: Int32Array,
  /** Per street, its first address point; one extra entry. */
  stAddrFirst: Uint32Array,
  /** Address points grouped by street: lat, lon; house number and postcode (text ids). */
  adCoords: Int32Array,
  adNumber: Int32Array,
  adPostcode: Int32Array,
  /** Cities, towns, villages and municipalities. */
  plName: Int32Array,
  plCountry: Int16Array,
  plCenter: Int32Array,
  plBox: Int32Array,
  /** Address points in the place: how much the place weighs against namesakes. */
  plWeight: Uint32Array,
  /** Postcodes: one per code and country. */
  pcCode: Int32Array,
  pcCity: Int32Array,
  pcCountry: Int16Array,
  pcCenter: Int32Array,
  pcBox: Int32Array,
  /** Folded words sorted by their UTF-8 bytes, each word's first byte; one extra entry. */
  tokBytes: Uint8Array,
  tokOffsets: Uint32Array,
  /** Per word, its first posting; one extra entry. A posting is an object id: those with the word in their name, then those with it in their context, each the heavier first. */
  postFirst: Uint32Array,
  /** Per word, its first context posting. */
  postContext: Uint32Array,
  postings: Uint32Array,
  /** Per object, its first word entry; one extra entry. An entry is word id << 1 | 1 when the word is context (city, village, postcode), not the name. */
  fwdFirst: Uint32Array,
  fwd: Uint32Array,
} as const;

export type SearchArrays = { [K in keyof typeof SEARCH_SECTIONS]: InstanceType<(typeof SEARCH_SECTIONS)[K]> };

const NAMES = Object.keys(SEARCH_SECTIONS) as (keyof SearchArrays)[];
const align8 = (n: number) => (n + 7) & ~7;

/** The file's name in the geocoder's directory. */
export const SEARCH_FILE = 'search.bin';

/** The index as one buffer, in the file's layout. */
export function encodeSearchIndex(arrays: SearchArrays): Uint8Array {
  const headerBytes = align8(16 + 8 * NAMES.length);
  let size = headerBytes;
  const offsets = NAMES.map((name) => {
    const at = size;
    size = align8(size + arrays[name].byteLength);
    return at;
  });
  const out = new Uint8Array(size);
  const header = new Uint32Array(out.buffer, 0, 4 + 2 * NAMES.length);
  header.set([MAGIC, SEARCH_FORMAT, NAMES.length, 0]);
  NAMES.forEach((name, i) => {
    const a = arrays[name];
    header[4 + 2 * i] = offsets[i];
    header[5 + 2 * i] = a.byteLength;
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offsets[i]);
  });
  return out;
}

export async function writeSearchIndex(mapDir: string, arrays: SearchArrays): Promise<number> {
  const bytes = encodeSearchIndex(arrays);
  await writeFile(join(geocoderDir(mapDir), SEARCH_FILE), bytes);
  return bytes.byteLength;
}

/** Views over a buffer in the file's layout (no copy); throws on another format. */
export function searchArraysOf(buffer: ArrayBufferLike, what: string): SearchArrays {
  const head = new Uint32Array(buffer, 0, 4);
  if (head[0] !== MAGIC || head[1] !== SEARCH_FORMAT || head[2] !== NAMES.length) {
    throw new Error(`${what}: not a search index of format ${SEARCH_FORMAT}; rebuild the map`);
  }
  const table = new Uint32Array(buffer, 16, 2 * NAMES.length);
  const out = {} as Record<string, ArrayBufferView>;
  NAMES.forEach((name, i) => {
    const Type = SEARCH_SECTIONS[name];
    out[name] = new Type(buffer as ArrayBuffer, table[2 * i], table[2 * i + 1] / Type.BYTES_PER_ELEMENT);
  });
  return out as SearchArrays;
}
