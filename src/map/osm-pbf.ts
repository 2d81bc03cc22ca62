// Streaming reader for OpenStreetMap PBF extracts (https://wiki.openstreetmap.org/wiki/PBF_Format):
// the file is a sequence of [4-byte big-endian header length][BlobHeader][Blob]; each OSMData blob
// holds one zlib-compressed PrimitiveBlock. Blocks are yielded one at a time so memory stays bounded
// by what the caller keeps.
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import { PbfReader } from 'pbf';

export interface OsmNode { id: number; lat: number; lon: number; tags: Record<string, string> | null } // null when untagged
export interface OsmWay { id: number; refs: number[]; tags: Record<string, string> }
export interface OsmMember { type: 'node' | 'way' | 'relation'; ref: number; role: string }
export interface OsmRelation { id: number; tags: Record<string, string>; members: OsmMember[] }
export interface OsmBlock { nodes: OsmNode[]; ways: OsmWay[]; relations: OsmRelation[] }

const inflateAsync = promisify(inflate);
const utf8 = new TextDecoder();
const MEMBER_TYPES = ['node', 'way', 'relation'] as const;
// Features this reader understands; anything else in the header's required_features is refused.
const SUPPORTED_FEATURES = new Set(['OsmSchema-V0.6', 'DenseNodes', 'HistoricalInformation']);
// The format's own bounds: a corrupt length must fail, not allocate gigabytes.
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_BLOB_BYTES = 32 * 1024 * 1024;

/** Yields the primitive blocks of a .osm.pbf file in file order. */
export async function* readOsmPbf(path: string, onProgress?: (bytesRead: number, totalBytes: number) => void): AsyncGenerator<OsmBlock> {
  const file = await open(path, 'r');
  try {
    const totalBytes = (await file.stat()).size;
    let pos = 0;
    const readExact = async (length: number): Promise<Uint8Array> => {
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await file.read(buf, got, length - got, pos + got);
        if (bytesRead === 0) throw new Error(`${path}: truncated PBF at byte ${pos + got}`);
        got += bytesRead;
      }
      pos += length;
      return buf;
    };
    while (pos < totalBytes) {
      const lenBuf = await readExact(4);
      const headerLen = ((lenBuf[0] << 24) | (lenBuf[1] << 16) | (lenBuf[2] << 8) | lenBuf[3]) >>> 0;
      if (headerLen > MAX_HEADER_BYTES) throw new Error(`${path}: corrupt PBF, blob header of ${headerLen} bytes at byte ${pos - 4}`);
      const header = readBlobHeader(await readExact(headerLen));
      if (header.dataSize > MAX_BLOB_BYTES) throw new Error(`${path}: corrupt PBF, blob of ${header.dataSize} bytes at byte ${pos}`);
      const blob = await readExact(header.dataSize);
      onProgress?.(pos, totalBytes);
      if (header.type === 'OSMHeader') {
        checkHeader(await blobData(blob, path));
      } else if (header.type === 'OSMData') {
        yield readPrimitiveBlock(await blobData(blob, path));
      } // unknown blob types are skippable by the format's rules
    }
  } finally {
    await file.close();
  }
}

function readBlobHeader(buf: Uint8Array): { type: string; dataSize: number } {
  return new PbfReader(buf).readFields((tag, h, pbf) => {
    if (tag === 1) h.type = pbf.readString();
    else if (tag === 3) h.dataSize = pbf.readVarint();
  }, { type: '', dataSize: 0 });
}

async function blobData(buf: Uint8Array, path: string): Promise<Uint8Array> {
  const blob = new PbfReader(buf).readFields((tag, b: { raw?: Uint8Array; zlib?: Uint8Array; other?: number }, pbf) => {
    if (tag === 1) b.raw = pbf.readBytes();
    else if (tag === 3) b.zlib = pbf.readBytes();
    else if (tag === 4 || tag === 5 || tag === 6 || tag === 7) b.other = tag;
  }, {});
  if (blob.raw) return blob.raw;
  if (blob.zlib) return new Uint8Array(await inflateAsync(blob.zlib));
  throw new Error(`${path}: unsupported blob compression (field ${blob.other ?? 'none'}); only raw and zlib are supported`);
}

function checkHeader(buf: Uint8Array): void {
  const required: string[] = [];
  new PbfReader(buf).readFields((tag, _r, pbf) => {
    if (tag === 4) required.push(pbf.readString());
  }, null);
  const missing = required.filter((f) => !SUPPORTED_FEATURES.has(f));
  if (missing.length) throw new Error(`PBF requires unsupported features: ${missing.join(', ')}`);
}

interface BlockContext { strings: string[]; granularity: number; latOffset: number; lonOffset: number }

function readPrimitiveBlock(buf: Uint8Array): OsmBlock {
  const pbf = new PbfReader(buf);
  // Groups may precede the string table and granularity fields on the wire, so remember their spans first.
  const ctx: BlockContext = { strings: [], granularity: 100, latOffset: 0, lonOffset: 0 };
  const groups: Array<[number, number]> = [];
  pbf.readFields((tag, c, p) => {
    if (tag === 1) c.strings = readStringTable(p);
    else if (tag === 2) {
      const end = p.readVarint() + p.pos;
      groups.push([p.pos, end]);
      p.pos = end;
    } else if (tag === 17) c.granularity = p.readVarint();
    else if (tag === 19) c.latOffset = p.readVarint(true);
    else if (tag === 20) c.lonOffset = p.readVarint(true);
  }, ctx);
  const block: OsmBlock = { nodes: [], ways: [], relations: [] };
  for (const [start, end] of groups) {
    pbf.pos = start;
    pbf.readFields((tag, b, p) => {
      if (tag === 1) b.nodes.push(readNode(p, ctx));
      else if (tag === 2) readDenseNodes(p, ctx, b.nodes);
      else if (tag === 3) b.ways.push(readWay(p, ctx));
      else if (tag === 4) b.relations.push(readRelation(p, ctx));
    }, block, end);
  }
  return block;
}

function readStringTable(pbf: PbfReader): string[] {
  const end = pbf.readVarint() + pbf.pos;
  const strings: string[] = [];
  while (pbf.pos < end) {
    const val = pbf.readVarint();
    if ((val & 7) === 2) {
      const bytes = pbf.readBytes();
      strings.push(utf8.decode(bytes));
    } else pbf.skip(val);
  }
  pbf.pos = end;
  return strings;
}

function tagsOf(keys: number[], vals: number[], strings: string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (let i = 0; i < keys.length; i++) tags[strings[keys[i]]] = strings[vals[i]];
  return tags;
}

const coord = (raw: number, offset: number, granularity: number): number => (offset + granularity * raw) * 1e-9;

function readNode(pbf: PbfReader, ctx: BlockContext): OsmNode {
  const end = pbf.readVarint() + pbf.pos;
  let id = 0, lat = 0, lon = 0;
  const keys: number[] = [], vals: number[] = [];
  pbf.readFields((tag, _r, p) => {
    if (tag === 1) id = p.readSVarint();
    else if (tag === 2) p.readPackedVarint(keys);
    else if (tag === 3) p.readPackedVarint(vals);
    else if (tag === 8) lat = p.readSVarint();
    else if (tag === 9) lon = p.readSVarint();
  }, null, end);
  return {
    id,
    lat: coord(lat, ctx.latOffset, ctx.granularity),
    lon: coord(lon, ctx.lonOffset, ctx.granularity),
    tags: keys.length ? tagsOf(keys, vals, ctx.strings) : null,
  };
}

function readDenseNodes(pbf: PbfReader, ctx: BlockContext, out: OsmNode[]): void {
  const end = pbf.readVarint() + pbf.pos;
  const ids: number[] = [], lats: number[] = [], lons: number[] = [], kv: number[] = [];
  pbf.readFields((tag, _r, p) => {
    if (tag === 1) p.readPackedSVarint(ids);
    else if (tag === 8) p.readPackedSVarint(lats);
    else if (tag === 9) p.readPackedSVarint(lons);
    else if (tag === 10) p.readPackedVarint(kv);
  }, null, end);
  const { strings, granularity, latOffset, lonOffset } = ctx;
  let id = 0, lat = 0, lon = 0, k = 0;
  for (let i = 0; i < ids.length; i++) {
    id += ids[i];
    lat += lats[i];
    lon += lons[i];
    // keys_vals: per node, (key, value) string ids ending with 0; absent entirely when no node has tags.
    let tags: Record<string, string> | null = null;
    if (k < kv.length) {
      while (kv[k] !== 0) {
        tags ??= {};
        tags[strings[kv[k]]] = strings[kv[k + 1]];
        k += 2;
      }
      k++;
    }
    out.push({ id, lat: coord(lat, latOffset, granularity), lon: coord(lon, lonOffset, granularity), tags });
  }
}

function readWay(pbf: PbfReader, ctx: BlockContext): OsmWay {
  const end = pbf.readVarint() + pbf.pos;
  let id = 0;
  const keys: number[] = [], vals: number[] = [], deltas: number[] = [];
  pbf.readFields((tag, _r, p) => {
    if (tag === 1) id = p.readVarint(true);
    else if (tag === 2) p.readPackedVarint(keys);
    else if (tag === 3) p.readPackedVarint(vals);
    else if (tag === 8) p.readPackedSVarint(deltas);
  }, null, end);
  const refs = new Array<number>(deltas.length);
  let ref = 0;
  for (let i = 0; i < deltas.length; i++) refs[i] = ref += deltas[i];
  return { id, refs, tags: tagsOf(keys, vals, ctx.strings) };
}

function readRelation(pbf: PbfReader, ctx: BlockContext): OsmRelation {
  const end = pbf.readVarint() + pbf.pos;
  let id = 0;
  const keys: number[] = [], vals: number[] = [], roles: number[] = [], memids: number[] = [], types: number[] = [];
  pbf.readFields((tag, _r, p) => {
    if (tag === 1) id = p.readVarint(true);
    else if (tag === 2) p.readPackedVarint(keys);
    else if (tag === 3) p.readPackedVarint(vals);
    else if (tag === 8) p.readPackedVarint(roles, true);
    else if (tag === 9) p.readPackedSVarint(memids);
    else if (tag === 10) p.readPackedVarint(types);
  }, null, end);
  const members: OsmMember[] = new Array(memids.length);
  let ref = 0;
  for (let i = 0; i < memids.length; i++) {
    ref += memids[i];
    members[i] = { type: MEMBER_TYPES[types[i] ?? 0], ref, role: ctx.strings[roles[i]] ?? '' };
  }
  return { id, tags: tagsOf(keys, vals, ctx.strings), members };
}
