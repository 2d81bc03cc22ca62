// The tile archive: one file, `tiles.bin`, holding every gzipped Mapbox Vector Tile one after the other
// in the order they were made, then an index sorted by key (key, offset, length as float64 triples) and
// a 24-byte footer (magic, index offset, tile count). A server opens it once and reads a tile with one positioned read.
import { closeSync, openSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { IHasher } from 'hash-wasm';
import { fileChecksummer } from '../../lib/checksum.js';

export const TILES_FILE = 'tiles.bin';
const MAGIC = Buffer.from('WMTILES1');
const FOOTER = 24;

/** A tile's key: sequential over the zoom levels (all of zoom 0, then 1, …), so sorted keys are sorted tiles. */
export const tileKey = (z: number, x: number, y: number): number => (4 ** z - 1) / 3 + y * 2 ** z + x;

/**
 * Writes tiles in any key order (the tiler walks the tree depth first); `finish` sorts the index and
 * appends it and the footer. Writes are synchronous: the tiler makes tiles in a synchronous loop. The
 * file is written front to back, so its checksum is taken on the way (the map manifest's, map-files.ts).
 */
export class ArchiveWriter {
  private index: number[] = [];
  private offset = 0;
  private readonly keys = new Set<number>();
  private constructor(
    private readonly fd: number,
    private readonly hash: IHasher,
  ) {}

  static async create(path: string): Promise<ArchiveWriter> {
    return new ArchiveWriter(openSync(path, 'w'), await fileChecksummer());
  }

  add(key: number, gzipped: Uint8Array): void {
    if (this.keys.has(key)) throw new Error(`tile ${key} written twice`);
    this.keys.add(key);
    writeSync(this.fd, gzipped, 0, gzipped.byteLength, this.offset);
    this.hash.update(gzipped);
    this.index.push(key, this.offset, gzipped.byteLength);
    this.offset += gzipped.byteLength;
  }

  /** Writes the sorted index and footer, closes the file and returns its size and checksum. */
  async finish(): Promise<{ tiles: number; bytes: number; xxh128: string }> {
    const count = this.index.length / 3;
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => this.index[a * 3] - this.index[b * 3]);
    const sorted = new Float64Array(count * 3);
    order.forEach((from, to) => sorted.set(this.index.slice(from * 3, from * 3 + 3), to * 3));
    this.index = [];
    const index = Buffer.from(sorted.buffer);
    const footer = Buffer.alloc(FOOTER);
    MAGIC.copy(footer, 0);
    footer.writeDoubleLE(this.offset, 8);
    footer.writeDoubleLE(count, 16);
    writeSync(this.fd, index, 0, index.byteLength, this.offset);
    writeSync(this.fd, footer, 0, FOOTER, this.offset + index.byteLength);
    closeSync(this.fd);
    this.hash.update(index);
    this.hash.update(footer);
    return { tiles: count, bytes: this.offset + index.byteLength + FOOTER, xxh128: this.hash.digest('hex') };
  }

  async abort(): Promise<void> {
    closeSync(this.fd);
  }
}

/** An open archive: the index in memory, tiles read on demand. */
export class ArchiveReader {
  private constructor(
    private readonly file: FileHandle,
    private readonly index: Float64Array,
  ) {}

  static async open(path: string): Promise<ArchiveReader> {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      const footer = Buffer.alloc(FOOTER);
      if (size < FOOTER) throw new Error(`${path} is not a tile archive`);
      await file.read(footer, 0, FOOTER, size - FOOTER);
      if (!footer.subarray(0, 8).equals(MAGIC)) throw new Error(`${path} is not a tile archive`);
      const indexOffset = footer.readDoubleLE(8),
        count = footer.readDoubleLE(16);
      const index = new Float64Array(count * 3);
      await file.read(new Uint8Array(index.buffer), 0, index.byteLength, indexOffset);
      return new ArchiveReader(file, index);
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  get count(): number {
    return this.index.length / 3;
  }

  /** The gzipped tile, or undefined where the map has no data. */
  async get(z: number, x: number, y: number): Promise<Buffer | undefined> {
    const key = tileKey(z, x, y);
    let lo = 0,
      hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.index[mid * 3] < key) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= this.count || this.index[lo * 3] !== key) return undefined;
    const buf = Buffer.alloc(this.index[lo * 3 + 2]);
    await this.file.read(buf, 0, buf.byteLength, this.index[lo * 3 + 1]);
    return buf;
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}
