// The tile archive: one file, `tiles.bin`, holding every gzipped Mapbox Vector Tile one after the other,
// then a sorted index (key, offset, length as float64 triples) and a 24-byte footer (magic, index
// offset, tile count). A server opens it once and reads a tile with one positioned read.
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export const TILES_FILE = 'tiles.bin';
const MAGIC = Buffer.from('WMTILES1');
const FOOTER = 24;

/** A tile's key: sequential over the zoom levels (all of zoom 0, then 1, …), so sorted keys are sorted tiles. */
export const tileKey = (z: number, x: number, y: number): number => (4 ** z - 1) / 3 + y * 2 ** z + x;

export const archivePath = (mapDir: string): string => join(mapDir, TILES_FILE);

/** Writes tiles in ascending key order; `finish` appends the index and footer. */
export class ArchiveWriter {
  private readonly index: number[] = [];
  private offset = 0;
  private lastKey = -1;

  private constructor(private readonly file: FileHandle) {}

  static async create(path: string): Promise<ArchiveWriter> {
    return new ArchiveWriter(await open(path, 'w'));
  }

  async add(key: number, gzipped: Uint8Array): Promise<void> {
    if (key <= this.lastKey) throw new Error(`tile ${key} written after ${this.lastKey}: keys must ascend`);
    this.lastKey = key;
    await this.file.write(gzipped, 0, gzipped.byteLength, this.offset);
    this.index.push(key, this.offset, gzipped.byteLength);
    this.offset += gzipped.byteLength;
  }

  /** Writes the index and footer, closes the file and returns its size. */
  async finish(): Promise<{ tiles: number; bytes: number }> {
    const index = Buffer.from(Float64Array.from(this.index).buffer);
    const footer = Buffer.alloc(FOOTER);
    MAGIC.copy(footer, 0);
    footer.writeDoubleLE(this.offset, 8);
    footer.writeDoubleLE(this.index.length / 3, 16);
    await this.file.write(index, 0, index.byteLength, this.offset);
    await this.file.write(footer, 0, FOOTER, this.offset + index.byteLength);
    await this.file.close();
    return { tiles: this.index.length / 3, bytes: this.offset + index.byteLength + FOOTER };
  }

  async abort(): Promise<void> {
    await this.file.close();
  }
}

/** An open archive: the index in memory, tiles read on demand. */
export class ArchiveReader {
  private constructor(private readonly file: FileHandle, private readonly index: Float64Array) {}

  static async open(path: string): Promise<ArchiveReader> {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      const footer = Buffer.alloc(FOOTER);
      if (size < FOOTER) throw new Error(`${path} is not a tile archive`);
      await file.read(footer, 0, FOOTER, size - FOOTER);
      if (!footer.subarray(0, 8).equals(MAGIC)) throw new Error(`${path} is not a tile archive`);
      const indexOffset = footer.readDoubleLE(8), count = footer.readDoubleLE(16);
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
    let lo = 0, hi = this.count;
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
