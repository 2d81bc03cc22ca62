// Distances on the mean Earth sphere (radius 6,371,008.8 m), the one model of the Earth every distance in
// the service uses: the SQL function `great_circle_m` (migration 014) is the same formula.
export const EARTH_DIAMETER_M = 12_742_017.6; // 2 × mean radius 6,371,008.8 m

/** Meters per degree of latitude (and of longitude at the equator) on that sphere: radius × π / 180. */
export const METERS_PER_DEGREE = 111_195.08;

const RAD = Math.PI / 180;

/** Haversine distance in meters: the same formula as the SQL function `great_circle_m`, so a
 *  selection made in SQL and a check made here agree. */
export function greatCircleMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = Math.sin(((lat2 - lat1) * RAD) / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(((lon2 - lon1) * RAD) / 2) ** 2;
  return EARTH_DIAMETER_M * Math.asin(Math.min(1, Math.sqrt(a)));
}
