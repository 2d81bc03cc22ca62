import { METERS_PER_DEGREE } from './sphere.js';

export interface Box {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** Lon/lat boxes that contain every point within `meters` of (lat, lon): one box, or two when the
 *  circle crosses the antimeridian. Used as the index prefilter before the exact distance test. */
export function boxesAround(lat: number, lon: number, meters: number): Box[] {
  const dLat = (meters / METERS_PER_DEGREE) * 1.001;
  const south = Math.max(-90, lat - dLat);
  const north = Math.min(90, lat + dLat);
  const widest = Math.max(Math.abs(south), Math.abs(north));
  if (widest >= 89.9) return [{ west: -180, south, east: 180, north }];
  const dLon = dLat / Math.cos((widest * Math.PI) / 180);
  if (dLon >= 180) return [{ west: -180, south, east: 180, north }];
  const west = lon - dLon;
  const east = lon + dLon;
  if (west < -180)
    return [
      { west: west + 360, south, east: 180, north },
      { west: -180, south, east, north },
    ];
  if (east > 180)
    return [
      { west, south, east: 180, north },
      { west: -180, south, east: east - 360, north },
    ];
  return [{ west, south, east, north }];
}
