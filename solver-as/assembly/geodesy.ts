// Great-circle distances in bulk: the smallest real kernel, used to prove the build → pool → WASM path
// and by callers that need many distances from one point.
const R: f64 = 6371008.8;
const RAD: f64 = Math.PI / 180.0;

/** Haversine distance in meters. */
export function haversine(lat1: f64, lon1: f64, lat2: f64, lon2: f64): f64 {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) * Math.sin(dLat / 2) +
    Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) * Math.sin(dLon / 2);
  return 2.0 * R * Math.asin(Math.min(1.0, Math.sqrt(a)));
}

/** Reads n (lat, lon) pairs at `coords` and writes n distances from (lat, lon) at `out`. */
export function distancesFrom(lat: f64, lon: f64, coords: usize, n: i32, out: usize): void {
  for (let i = 0; i < n; i++) {
    const p = coords + (<usize>i << 4);
    store<f64>(out + (<usize>i << 3), haversine(lat, lon, load<f64>(p), load<f64>(p + 8)));
  }
}

/** Scratch space for callers: a bump region after the static data, grown on demand. */
export function scratch(bytes: i32): usize {
  const base = (__heap_base + 15) & ~15;
  const needed = base + <usize>bytes;
  const have = <usize>memory.size() << 16;
  if (needed > have) memory.grow(<i32>((needed - have + 0xffff) >> 16));
  return base;
}
