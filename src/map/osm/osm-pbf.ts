// Streaming reader for OpenStreetMap PBF extracts (https://wiki.openstreetmap.org/wiki/PBF_Format):
// the file is a sequence of [4-byte big-endian header length][BlobHeader][Blob]; each OSMData blob
// holds one zlib-compressed PrimitiveBlock. Two levels: `readOsmBlobs` + `PrimitiveBlock` let the map
// build read one kind of element per pass, decoded into reused buffers without an object per node or
// way; `readOsmPbf` yields whole blocks as objects, for tests and tools on small extracts.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { inflate, inflateSync } from 'node:zlib';
import { PbfReader } from 'pbf';

/** Which tag keys a reader keeps (a Set, or a rule that also takes keys by prefix). */
export type KeyFilter = Pick<ReadonlySet<string>, 'has'>;
export interface OsmNode {
  id: number;
  lat: number;
  lon: number;
  tags: Record<string, string> | null;
} // null when untagged
export interface OsmWay {
  id: number;
  refs: number[];
  tags: Record<string, string>;
}
export interface OsmMember {
  type: 'node' | 'way' | 'relation';
  ref: number;
  role: string;
}
export interface OsmRelation {
  id: number;
  tags: Record<string, string>;
  members: OsmMember[];
}
export interface OsmBlock {
  nodes: OsmNode[];
  ways: OsmWay[];
  relations: OsmRelation[];
}

/** Element kinds, as bits of a block's `kinds`. */
export const NODES = 1,
  WAYS = 2,
  RELATIONS = 4;
export const ALL_KINDS = NODES | WAYS | RELATIONS;

/** One OSMData blob, inflated; `index` counts data blobs from 0 in file order, the same in every pass. */
export interface DataBlob {
  index: number;
  data: Uint8Array;
}

export interface BlobReadOptions {
  /** Data blobs for which this is false are skipped unread and uninflated. */
  want?: (index: number) => boolean;
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

const inflateAsync = promisify(inflate);
const utf8 = new TextDecoder();
const MEMBER_TYPES = ['node', 'way', 'relation'] as const;
// Features this reader understands; anything else in the header's required_features is refused.
const SUPPORTED_FEATURES = new Set(['OsmSchema-V0.6', 'DenseNodes', 'HistoricalInformation']);
// The format's own bounds: a corrupt length must fail, not allocate gigabytes.
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_BLOB_BYTES = 32 * 1024 * 1024;

interface BlobHeader {
  type: string;
  dataSize: number;
}

function parseHeaderLength(lenBuf: Uint8Array, path: string, at: number): number {
  const headerLen = ((lenBuf[0] << 24) | (lenBuf[1] << 16) | (lenBuf[2] << 8) | lenBuf[3]) >>> 0;
  if (headerLen > MAX_HEADER_BYTES) throw new Error(`${path}: corrupt PBF, blob header of ${headerLen} bytes at byte ${at}`);
  return headerLen;
}

function checkBlobSize(header: BlobHeader, path: string, at: number): void {
  if (header.dataSize > MAX_BLOB_BYTES) throw new Error(`${path}: corrupt PBF, blob of ${header.dataSize} bytes at byte ${at}`);
}

// Blobs inflating at once ahead of the caller: zlib runs on libuv's thread pool, so the second core
// inflates while the main thread decodes.
const PREFETCH = 4;

/**
 * Yields the data blobs of a .osm.pbf file in file order. Reads stay sequential; the next few wanted
 * blobs are read and inflated while the caller decodes the current one.
 */
export async function* readOsmBlobs(path: string, options: BlobReadOptions = {}): AsyncGenerator<DataBlob> {
  const { want, onProgress } = options;
  const file = await open(path, 'r');
  const queue: Array<Promise<DataBlob | null>> = [];
  try {
    const totalBytes = (await file.stat()).size;
    let pos = 0;
    let index = -1;
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
    /** The next wanted data blob, still compressed; null at the end of the file. */
    const readRaw = async (): Promise<{ index: number; blob: Uint8Array } | null> => {
      while (pos < totalBytes) {
        const headerLen = parseHeaderLength(await readExact(4), path, pos - 4);
        const header = readBlobHeader(await readExact(headerLen));
        checkBlobSize(header, path, pos);
        if (header.type === 'OSMData') {
          index++;
          if (want && !want(index)) {
            if (pos + header.dataSize > totalBytes) throw new Error(`${path}: truncated PBF at byte ${totalBytes}`);
            pos += header.dataSize;
            onProgress?.(pos, totalBytes);
            continue;
          }
        }
        const blob = await readExact(header.dataSize);
        onProgress?.(pos, totalBytes);
        if (header.type === 'OSMHeader') checkHeader(blobDataSync(blob, path));
        else if (header.type === 'OSMData') return { index, blob };
        // unknown blob types are skippable by the format's rules
      }
      return null;
    };
    let reads: Promise<unknown> = Promise.resolve();
    const enqueue = (): void => {
      const raw = reads.then(readRaw);
      reads = raw;
      const result = raw.then(async (r) => (r ? { index: r.index, data: await blobData(r.blob, path) } : null));
      result.catch(() => {}); // rethrown where awaited; a failure while the caller is busy must not count as unhandled
      queue.push(result);
    };
    for (let i = 0; i < PREFETCH; i++) enqueue();
    for (;;) {
      const blob = await queue.shift()!;
      if (!blob) break;
      enqueue();
      yield blob;
    }
  } finally {
    // Reads still in flight (the caller stopped early, or one failed) must settle before the handle closes.
    await Promise.allSettled(queue);
    await file.close();
  }
}

/** `readOsmBlobs` with blocking reads, for callers that cannot await. */
export function* readOsmBlobsSync(path: string, want?: (index: number) => boolean): Generator<DataBlob> {
  const fd = openSync(path, 'r');
  try {
    const totalBytes = fstatSync(fd).size;
    let pos = 0;
    let index = -1;
    const readExact = (length: number): Uint8Array => {
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const bytesRead = readSync(fd, buf, got, length - got, pos + got);
        if (bytesRead === 0) throw new Error(`${path}: truncated PBF at byte ${pos + got}`);
        got += bytesRead;
      }
      pos += length;
      return buf;
    };
    while (pos < totalBytes) {
      const headerLen = parseHeaderLength(readExact(4), path, pos - 4);
      const header = readBlobHeader(readExact(headerLen));
      checkBlobSize(header, path, pos);
      if (header.type === 'OSMData') {
        index++;
        if (want && !want(index)) {
          pos += header.dataSize;
          continue;
        }
      }
      const blob = readExact(header.dataSize);
      if (header.type === 'OSMHeader') checkHeader(blobDataSync(blob, path));
      else if (header.type === 'OSMData') yield { index, data: blobDataSync(blob, path) };
    }
  } finally {
    closeSync(fd);
  }
}

/** Yields the primitive blocks of a .osm.pbf file in file order, as objects (only `kinds` decoded). @internal (tests) */
export async function* readOsmPbf(path: string, onProgress?: (bytesRead: number, totalBytes: number) => void, kinds = ALL_KINDS): AsyncGenerator<OsmBlock> {
  for await (const { data } of readOsmBlobs(path, { onProgress })) yield new PrimitiveBlock(data).objects(kinds);
}

/** `readOsmPbf` with blocking reads. */
export function* readOsmPbfSync(path: string, kinds = ALL_KINDS): Generator<OsmBlock> {
  for (const { data } of readOsmBlobsSync(path)) yield new PrimitiveBlock(data).objects(kinds);
}

function readBlobHeader(buf: Uint8Array): BlobHeader {
  return new PbfReader(buf).readFields(
    (tag, h, pbf) => {
      if (tag === 1) h.type = pbf.readString();
      else if (tag === 3) h.dataSize = pbf.readVarint();
    },
    { type: '', dataSize: 0 },
  );
}

interface BlobFields {
  raw?: Uint8Array;
  rawSize?: number;
  zlib?: Uint8Array;
  other?: number;
}

function blobFields(buf: Uint8Array, path: string): BlobFields {
  const blob = new PbfReader(buf).readFields((tag, b: BlobFields, pbf) => {
    if (tag === 1) b.raw = pbf.readBytes();
    else if (tag === 2) b.rawSize = pbf.readVarint();
    else if (tag === 3) b.zlib = pbf.readBytes();
    else if (tag === 4 || tag === 5 || tag === 6 || tag === 7) b.other = tag;
  }, {});
  if (!blob.raw && !blob.zlib) throw new Error(`${path}: unsupported blob compression (field ${blob.other ?? 'none'}); only raw and zlib are supported`);
  return blob;
}

// Output chunks of the announced size: one callback and no concatenation per blob instead of one per 16 KB.
const inflateOptions = (blob: BlobFields) => ({ chunkSize: Math.min(MAX_BLOB_BYTES, Math.max(64 * 1024, blob.rawSize ?? 0)) });

async function blobData(buf: Uint8Array, path: string): Promise<Uint8Array> {
  const blob = blobFields(buf, path);
  return blob.raw ?? new Uint8Array(await inflateAsync(blob.zlib!, inflateOptions(blob)));
}

function blobDataSync(buf: Uint8Array, path: string): Uint8Array {
  const blob = blobFields(buf, path);
  return blob.raw ?? new Uint8Array(inflateSync(blob.zlib!, inflateOptions(blob)));
}

function checkHeader(buf: Uint8Array): void {
  const required: string[] = [];
  new PbfReader(buf).readFields((tag, _r, pbf) => {
    if (tag === 4) required.push(pbf.readString());
  }, null);
  const missing = required.filter((f) => !SUPPORTED_FEATURES.has(f));
  if (missing.length) throw new Error(`PBF requires unsupported features: ${missing.join(', ')}`);
}

/**
 * Decodes the varints of buf[pos, end) into `out` (zigzag-decoded when `signed`), returning how many.
 * Position and buffer stay in locals: several times faster than a reader method call per value. Values
 * of 2^28 and more (large ids) continue in floating point, exact up to 2^53.
 */
function readVarints(buf: Uint8Array, pos: number, end: number, out: Float64Array, at: number, signed: boolean): number {
  let n = at;
  while (pos < end) {
    let b = buf[pos++];
    let v = b & 0x7f;
    if (b & 0x80) {
      b = buf[pos++];
      v |= (b & 0x7f) << 7;
      if (b & 0x80) {
        b = buf[pos++];
        v |= (b & 0x7f) << 14;
        if (b & 0x80) {
          b = buf[pos++];
          v |= (b & 0x7f) << 21;
          if (b & 0x80) {
            let mul = 268435456;
            do {
              b = buf[pos++];
              v += (b & 0x7f) * mul;
              mul *= 128;
            } while (b & 0x80);
          }
        }
      }
    }
    out[n++] = signed ? (v % 2 === 1 ? (v + 1) / -2 : v / 2) : v;
  }
  return n - at;
}

/** Scratch columns for dense nodes, reused from block to block. */
const columns = { ids: new Float64Array(8192), lats: new Float64Array(8192), lons: new Float64Array(8192), kv: new Float64Array(8192) };

/** Room for `bytes` varints (a varint is at least a byte) in a column. */
function column(name: keyof typeof columns, bytes: number): Float64Array {
  if (columns[name].length < bytes) columns[name] = new Float64Array(Math.ceil(bytes * 1.5));
  return columns[name];
}

/** Field numbers of PrimitiveGroup members, as element-kind bits. */
const GROUP_FIELD_KIND = [0, NODES, NODES, WAYS, RELATIONS];

/** Called per node; `tags` holds the wanted keys the node has, null when it has none of them. */
export type NodeVisitor = (id: number, lat: number, lon: number, tags: Record<string, string> | null) => void;

/**
 * One way of a block, decoded into buffers reused for the next way: read it inside the visit callback
 * only. `refs[0..refCount)` are the node ids.
 */
export class WayCursor {
  id = 0;
  refs = new Float64Array(1024);
  refCount = 0;
  readonly keys: number[] = [];
  readonly vals: number[] = [];
  block: PrimitiveBlock | null = null;

  /** Whether the way has at least one of `keys`. */
  hasAnyKey(keys: ReadonlySet<string>): boolean {
    for (const k of this.keys) if (keys.has(this.block!.string(k))) return true;
    return false;
  }

  /**
   * The way's tags as a new object. `lookup` makes it prototype-less: profile rules probe many keys of
   * objects with ever different key sets, and such objects answer those probes faster.
   */
  tags(lookup = false): Record<string, string> {
    const tags: Record<string, string> = lookup ? Object.create(null) : {};
    for (let i = 0; i < this.keys.length; i++) tags[this.block!.string(this.keys[i])] = this.block!.string(this.vals[i]);
    return tags;
  }

  /** Room for `more` refs past refCount. */
  reserveRefs(more: number): void {
    if (this.refCount + more <= this.refs.length) return;
    const grown = new Float64Array(Math.max(2 * this.refs.length, this.refCount + more));
    grown.set(this.refs.subarray(0, this.refCount));
    this.refs = grown;
  }
}

/**
 * A decompressed PrimitiveBlock: its string table (decoded lazily, a node block's tag strings are
 * mostly never needed), coordinate parameters, and its groups with the element kinds each holds.
 */
export class PrimitiveBlock {
  /** Bits of the element kinds present. */
  readonly kinds: number = 0;
  private readonly pbf: PbfReader;
  private readonly groups: Array<{ start: number; end: number; kinds: number }> = [];
  private stringStarts: number[] = [];
  private stringEnds: number[] = [];
  private readonly decoded: Array<string | undefined> = [];
  private granularity = 100;
  private latOffset = 0;
  private lonOffset = 0;

  constructor(data: Uint8Array) {
    const pbf = (this.pbf = new PbfReader(data));
    // Groups may precede the string table and granularity fields on the wire, so remember their spans first.
    pbf.readFields((tag, b, p) => {
      if (tag === 1) b.readStringTable(p);
      else if (tag === 2) {
        const end = p.readVarint() + p.pos;
        b.groups.push({ start: p.pos, end, kinds: groupKinds(p, end) });
        p.pos = end;
      } else if (tag === 17) b.granularity = p.readVarint();
      else if (tag === 19) b.latOffset = p.readVarint(true);
      else if (tag === 20) b.lonOffset = p.readVarint(true);
    }, this);
    let kinds = 0;
    for (const g of this.groups) kinds |= g.kinds;
    this.kinds = kinds;
  }

  private readStringTable(pbf: PbfReader): void {
    const end = pbf.readVarint() + pbf.pos;
    const starts: number[] = [],
      ends: number[] = [];
    while (pbf.pos < end) {
      const val = pbf.readVarint();
      if ((val & 7) === 2) {
        const len = pbf.readVarint();
        starts.push(pbf.pos);
        ends.push(pbf.pos + len);
        pbf.pos += len;
      } else pbf.skip(val);
    }
    pbf.pos = end;
    this.stringStarts = starts;
    this.stringEnds = ends;
  }

  /** Entry `i` of the string table (undefined past its end, as a corrupt index would give). */
  string(i: number): string {
    let s = this.decoded[i];
    if (s === undefined && i < this.stringStarts.length) {
      s = this.decoded[i] = utf8.decode(this.pbf.buf.subarray(this.stringStarts[i], this.stringEnds[i]));
    }
    return s as string;
  }

  private coord(raw: number, offset: number): number {
    return (offset + this.granularity * raw) * 1e-9;
  }

  /** Visits every node in block order. `tagKeys` limits the tags reported; null reports all. */
  forEachNode(tagKeys: KeyFilter | null, visit: NodeVisitor): void {
    const pbf = this.pbf;
    for (const g of this.groups) {
      if (!(g.kinds & NODES)) continue;
      pbf.pos = g.start;
      pbf.readFields(
        (tag, b, p) => {
          if (tag === 1) b.readNode(p, tagKeys, visit);
          else if (tag === 2) b.readDenseNodes(p, tagKeys, visit);
        },
        this,
        g.end,
      );
    }
  }

  /** Visits every way in block order through `cursor`, which is overwritten for each. */
  forEachWay(cursor: WayCursor, visit: (way: WayCursor) => void): void {
    const pbf = this.pbf;
    cursor.block = this;
    for (const g of this.groups) {
      if (!(g.kinds & WAYS)) continue;
      pbf.pos = g.start;
      pbf.readFields(
        (tag, b, p) => {
          if (tag === 3) {
            b.readWay(p, cursor);
            visit(cursor);
          }
        },
        this,
        g.end,
      );
    }
  }

  relations(): OsmRelation[] {
    const out: OsmRelation[] = [];
    const pbf = this.pbf;
    for (const g of this.groups) {
      if (!(g.kinds & RELATIONS)) continue;
      pbf.pos = g.start;
      pbf.readFields(
        (tag, b, p) => {
          if (tag === 4) out.push(b.readRelation(p));
        },
        this,
        g.end,
      );
    }
    return out;
  }

  /** The block's elements of `kinds` as objects, every node included (untagged ones with null tags). */
  objects(kinds = ALL_KINDS): OsmBlock {
    const block: OsmBlock = { nodes: [], ways: [], relations: [] };
    if (kinds & NODES) this.forEachNode(null, (id, lat, lon, tags) => block.nodes.push({ id, lat, lon, tags }));
    if (kinds & WAYS) this.forEachWay(new WayCursor(), (w) => block.ways.push({ id: w.id, refs: Array.from(w.refs.subarray(0, w.refCount)), tags: w.tags() }));
    if (kinds & RELATIONS) block.relations = this.relations();
    return block;
  }

  private tagsOf(keys: number[], vals: number[], tagKeys: KeyFilter | null): Record<string, string> | null {
    let tags: Record<string, string> | null = null;
    for (let i = 0; i < keys.length; i++) {
      const key = this.string(keys[i]);
      if (tagKeys === null || tagKeys.has(key)) (tags ??= {})[key] = this.string(vals[i]);
    }
    return tags;
  }

  private readNode(pbf: PbfReader, tagKeys: KeyFilter | null, visit: NodeVisitor): void {
    const end = pbf.readVarint() + pbf.pos;
    let id = 0,
      lat = 0,
      lon = 0;
    const keys: number[] = [],
      vals: number[] = [];
    pbf.readFields(
      (tag, _r, p) => {
        if (tag === 1) id = p.readSVarint();
        else if (tag === 2) p.readPackedVarint(keys);
        else if (tag === 3) p.readPackedVarint(vals);
        else if (tag === 8) lat = p.readSVarint();
        else if (tag === 9) lon = p.readSVarint();
      },
      null,
      end,
    );
    visit(id, this.coord(lat, this.latOffset), this.coord(lon, this.lonOffset), this.tagsOf(keys, vals, tagKeys));
  }

  private readDenseNodes(pbf: PbfReader, tagKeys: KeyFilter | null, visit: NodeVisitor): void {
    const end = pbf.readVarint() + pbf.pos;
    const span = { ids: [0, 0], lats: [0, 0], lons: [0, 0], kv: [0, 0] };
    const packedSpan = (p: PbfReader, into: number[]): void => {
      const e = p.readPackedEnd();
      into[0] = p.pos;
      into[1] = e;
      p.pos = e;
    };
    pbf.readFields(
      (tag, s, p) => {
        if (tag === 1) packedSpan(p, s.ids);
        else if (tag === 8) packedSpan(p, s.lats);
        else if (tag === 9) packedSpan(p, s.lons);
        else if (tag === 10) packedSpan(p, s.kv);
      },
      span,
      end,
    );
    const buf = pbf.buf;
    const decode = (name: keyof typeof columns, [s, e]: number[], signed: boolean): Float64Array => {
      const out = column(name, e - s);
      readVarints(buf, s, e, out, 0, signed);
      return out;
    };
    const count = readVarints(buf, span.ids[0], span.ids[1], column('ids', span.ids[1] - span.ids[0]), 0, true);
    const ids = columns.ids,
      lats = decode('lats', span.lats, true),
      lons = decode('lons', span.lons, true);
    const kvCount = readVarints(buf, span.kv[0], span.kv[1], column('kv', span.kv[1] - span.kv[0]), 0, false);
    const kv = columns.kv;
    const { granularity, latOffset, lonOffset } = this;
    let id = 0,
      lat = 0,
      lon = 0,
      k = 0;
    for (let i = 0; i < count; i++) {
      id += ids[i];
      lat += lats[i];
      lon += lons[i];
      // keys_vals: per node, (key, value) string ids ending with 0; absent entirely when no node has tags.
      let tags: Record<string, string> | null = null;
      if (k < kvCount) {
        while (k + 1 < kvCount && kv[k] !== 0) {
          const key = this.string(kv[k]);
          if (tagKeys === null || tagKeys.has(key)) (tags ??= {})[key] = this.string(kv[k + 1]);
          k += 2;
        }
        k++;
      }
      visit(id, (latOffset + granularity * lat) * 1e-9, (lonOffset + granularity * lon) * 1e-9, tags);
    }
  }

  private readWay(pbf: PbfReader, cursor: WayCursor): void {
    const end = pbf.readVarint() + pbf.pos;
    cursor.id = 0;
    cursor.refCount = 0;
    cursor.keys.length = 0;
    cursor.vals.length = 0;
    pbf.readFields(
      (tag, c, p) => {
        if (tag === 1) c.id = p.readVarint(true);
        else if (tag === 2) p.readPackedVarint(c.keys);
        else if (tag === 3) p.readPackedVarint(c.vals);
        else if (tag === 8) {
          // Deltas to ids; refs normally come as one packed field, anything after it continues the sum.
          const from = c.refCount;
          let ref = from > 0 ? c.refs[from - 1] : 0;
          if (p.type !== 2) {
            c.reserveRefs(1);
            c.refs[c.refCount++] = ref + p.readSVarint();
            return;
          }
          const e = p.readVarint() + p.pos;
          c.reserveRefs(e - p.pos);
          c.refCount += readVarints(p.buf, p.pos, e, c.refs, from, true);
          p.pos = e;
          for (let i = from; i < c.refCount; i++) c.refs[i] = ref += c.refs[i];
        }
      },
      cursor,
      end,
    );
  }

  private readRelation(pbf: PbfReader): OsmRelation {
    const end = pbf.readVarint() + pbf.pos;
    let id = 0;
    const keys: number[] = [],
      vals: number[] = [],
      roles: number[] = [],
      memids: number[] = [],
      types: number[] = [];
    pbf.readFields(
      (tag, _r, p) => {
        if (tag === 1) id = p.readVarint(true);
        else if (tag === 2) p.readPackedVarint(keys);
        else if (tag === 3) p.readPackedVarint(vals);
        else if (tag === 8) p.readPackedVarint(roles, true);
        else if (tag === 9) p.readPackedSVarint(memids);
        else if (tag === 10) p.readPackedVarint(types);
      },
      null,
      end,
    );
    const members: OsmMember[] = new Array(memids.length);
    let ref = 0;
    for (let i = 0; i < memids.length; i++) {
      ref += memids[i];
      members[i] = { type: MEMBER_TYPES[types[i] ?? 0], ref, role: this.string(roles[i]) ?? '' };
    }
    return { id, tags: this.tagsOf(keys, vals, null) ?? {}, members };
  }
}

/** The element kinds a PrimitiveGroup holds (one by the spec; every field is looked at all the same). */
function groupKinds(pbf: PbfReader, end: number): number {
  const start = pbf.pos;
  let kinds = 0;
  while (pbf.pos < end) {
    const val = pbf.readVarint();
    kinds |= GROUP_FIELD_KIND[val >>> 3] ?? 0;
    pbf.skip(val);
  }
  pbf.pos = start;
  return kinds;
}
