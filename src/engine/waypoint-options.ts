// A route's per-waypoint options (issue 36): how far it may snap (`radius`), the direction of travel there
// (`bearing`, as OSRM's `bearings`: value ± range, degrees clockwise from north) and the side of the road
// to arrive and leave on (`curb`, OSRM's `approaches=curb`: the waypoint on the profile's driving side).
import type { RoadGraph } from '../map/graphs/road-graph.js';
import { ALONG, AGAINST, type Phantom } from './phantom.js';

export interface WaypointOption {
  /** Meters the waypoint may lie from its road; Infinity: no limit (default SNAP_LIMIT_M). */
  radius?: number;
  bearing?: { value: number; range: number };
  /** Arrive and leave with the waypoint on the driving side (`side`). */
  curb?: boolean;
  side?: 'right' | 'left';
}

const RAD = Math.PI / 180;

/** Degrees clockwise from north of the segment from shape point p to p + 1 (local plane). */
export function segmentBearing(pointsE7: Int32Array, p: number): number {
  const lat0 = pointsE7[2 * p] * 1e-7,
    lon0 = pointsE7[2 * p + 1] * 1e-7;
  const dy = pointsE7[2 * p + 2] * 1e-7 - lat0,
    dx = (pointsE7[2 * p + 3] * 1e-7 - lon0) * Math.cos(lat0 * RAD);
  return (((Math.atan2(dx, dy) / RAD) % 360) + 360) % 360;
}

/** Whether bearing `b` lies within `range` degrees of `value` (either way round). */
export function bearingWithin(b: number, value: number, range: number): boolean {
  const d = Math.abs(((((b - value) % 360) + 540) % 360) - 180);
  return d <= range;
}

/** The open directions of segment `point` of geometry `geom` that the bearing allows (ALONG | AGAINST bits). */
function bearingDirs(g: RoadGraph, geom: number, point: number, bearing: WaypointOption['bearing']): number {
  let dirs = 0;
  const b = segmentBearing(g.shapes.pointsE7, point);
  if (g.origWeight[2 * geom] > 0 && (!bearing || bearingWithin(b, bearing.value, bearing.range))) dirs |= ALONG;
  if (g.origWeight[2 * geom + 1] > 0 && (!bearing || bearingWithin((b + 180) % 360, bearing.value, bearing.range))) dirs |= AGAINST;
  return dirs;
}

/** Snapping's filter for a waypoint with a bearing: segments with an open direction within its range. */
export function bearingFilter(g: RoadGraph, option: WaypointOption | null | undefined): ((geom: number, point: number) => boolean) | undefined {
  const bearing = option?.bearing;
  return bearing && ((geom, point) => bearingDirs(g, geom, point, bearing) !== 0);
}

/** Meters from the road within which a waypoint is on it: no side to arrive on. */
const ON_ROAD_M = 0.5;

/**
 * The directions a path may arrive at and leave the snapped waypoint in, or undefined for any: those the
 * bearing allows, and with `curb` on a road open both ways, the one that has the requested position
 * (`lat`, `lon`) on the driving side.
 */
export function waypointDirs(g: RoadGraph, ph: Phantom, lat: number, lon: number, option: WaypointOption | null | undefined): number | undefined {
  if (!option?.bearing && !option?.curb) return undefined;
  let dirs = bearingDirs(g, ph.geom, ph.point, option.bearing);
  if (option.curb && ph.offset > ON_ROAD_M && bearingDirs(g, ph.geom, ph.point, undefined) === (ALONG | AGAINST)) {
    // The side of the requested position seen along the segment: the cross product's sign on a local plane.
    const p = g.shapes.pointsE7;
    const k = Math.cos(ph.lat * RAD);
    const ax = p[2 * ph.point + 1] * 1e-7,
      ay = p[2 * ph.point] * 1e-7;
    const cross = (p[2 * ph.point + 3] * 1e-7 - ax) * k * (lat - ay) - (p[2 * ph.point + 2] * 1e-7 - ay) * (lon - ax) * k;
    const onRight = cross < 0;
    dirs &= onRight === ((option.side ?? 'right') === 'right') ? ALONG : AGAINST;
  }
  return dirs;
}
