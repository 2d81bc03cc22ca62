/** Spherical helpers for tests: independent of the service's own distance code. */
export interface At {
  latitude: number;
  longitude: number;
}

const R = 6371008.8;
const RAD = Math.PI / 180;

export function haversine(a: At, b: At): number {
  const h =
    Math.sin(((b.latitude - a.latitude) * RAD) / 2) ** 2 +
    Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(((b.longitude - a.longitude) * RAD) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A point `meters` away from `p` at `bearing` degrees (0 = north), on a sphere. */
export function offset(p: At, meters: number, bearing: number): At {
  const d = meters / R,
    th = bearing * RAD,
    la = p.latitude * RAD,
    lo = p.longitude * RAD;
  const la2 = Math.asin(Math.sin(la) * Math.cos(d) + Math.cos(la) * Math.sin(d) * Math.cos(th));
  const lo2 = lo + Math.atan2(Math.sin(th) * Math.sin(d) * Math.cos(la), Math.cos(d) - Math.sin(la) * Math.sin(la2));
  return { latitude: la2 / RAD, longitude: lo2 / RAD };
}
