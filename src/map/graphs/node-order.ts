// Graph node numbering along a Hilbert curve. A search touches a node's neighbours next, and every per-node
// array (labels, CSR offsets, the hierarchy) is indexed by node: numbered in file order (OSM ids, which
// follow editing history), neighbours land megabytes apart on a country map and nearly every step misses
// the cache. Numbered along the curve, nodes near each other on the ground sit near each other in memory.

const BITS = 13; // 8,192² cells: tens of metres on a country; the key and a node index fit one float64
const SIDE = 1 << BITS;
const INDEX_SPAN = 2 ** 26; // node indexes below this share a float64 with a 26-bit key exactly

/** The cell (x, y) of a SIDE × SIDE grid → its distance along the Hilbert curve. */
export function hilbertIndex(x: number, y: number): number {
  let d = 0;
  for (let s = SIDE >> 1; s > 0; s >>= 1) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = SIDE - 1 - x;
        y = SIDE - 1 - y;
      }
      const t = x;
      x = y;
      y = t;
    }
  }
  return d;
}

/**
 * The new number of each of `count` nodes (lat, lon pairs in `coords`) so that numbers follow the
 * Hilbert curve over their bounding box; nodes in one cell keep their relative order, so the result
 * depends on nothing but the input.
 */
export function hilbertNumbering(coords: Float64Array, count: number): Uint32Array {
  if (count >= INDEX_SPAN) throw new Error(`at most ${INDEX_SPAN - 1} graph nodes, not ${count}`);
  let south = Infinity,
    north = -Infinity,
    west = Infinity,
    east = -Infinity;
  for (let v = 0; v < count; v++) {
    const lat = coords[2 * v],
      lon = coords[2 * v + 1];
    if (lat < south) south = lat;
    if (lat > north) north = lat;
    if (lon < west) west = lon;
    if (lon > east) east = lon;
  }
  const kx = (SIDE - 1) / Math.max(east - west, 1e-9);
  const ky = (SIDE - 1) / Math.max(north - south, 1e-9);
  const keys = new Float64Array(count);
  for (let v = 0; v < count; v++) {
    const x = Math.round((coords[2 * v + 1] - west) * kx);
    const y = Math.round((coords[2 * v] - south) * ky);
    keys[v] = hilbertIndex(x, y) * INDEX_SPAN + v;
  }
  keys.sort();
  const numberOf = new Uint32Array(count);
  for (let rank = 0; rank < count; rank++) numberOf[keys[rank] % INDEX_SPAN] = rank;
  return numberOf;
}
