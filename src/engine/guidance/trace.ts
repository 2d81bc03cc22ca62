// What a leg's drawing leaves behind for turn guidance: the pieces of road it took in order (the partial
// piece from the start, each directed original edge, the partial piece to the end), each with the node
// it ends at, the point of the route's line it ends at, its meters and tenths of a second. Typed arrays
// grown by doubling: one entry per piece, nothing per point.

export class LegTrace {
  /** The directed original edge each piece runs along (2g along geometry g's points, 2g+1 against them). */
  dir = new Int32Array(64);
  /** The search node each piece ends at (-1 for the last piece of a leg: the destination). */
  node = new Int32Array(64);
  /** The index of the point of the route's line each piece ends at. */
  end = new Int32Array(64);
  meters = new Float64Array(64);
  tenths = new Float64Array(64);
  count = 0;
  /** The index of the leg's first point in the route's line. */
  first = 0;

  piece(dir: number, node: number, end: number, meters: number, tenths: number): void {
    if (this.count === this.dir.length) this.grow();
    const i = this.count++;
    this.dir[i] = dir;
    this.node[i] = node;
    this.end[i] = end;
    this.meters[i] = meters;
    this.tenths[i] = tenths;
  }

  private grow(): void {
    const n = 2 * this.dir.length;
    const more = <T extends Int32Array | Float64Array>(a: T, ctor: new (n: number) => T): T => {
      const b = new ctor(n);
      b.set(a);
      return b;
    };
    this.dir = more(this.dir, Int32Array);
    this.node = more(this.node, Int32Array);
    this.end = more(this.end, Int32Array);
    this.meters = more(this.meters, Float64Array);
    this.tenths = more(this.tenths, Float64Array);
  }
}

/** This thread's traces, reused from route to route (a far leg's trace grows to thousands of pieces; the
 *  steps are made from it before the next route is drawn, and keep none of its arrays). */
const traces: LegTrace[] = [];

/** `n` empty traces, one per leg of the route being drawn. */
export function legTraces(n: number): LegTrace[] {
  while (traces.length < n) traces.push(new LegTrace());
  const out = traces.slice(0, n);
  for (const t of out) t.count = t.first = 0;
  return out;
}
