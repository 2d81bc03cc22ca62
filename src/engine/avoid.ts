// Avoidance circles → blocked geometries: every geometry with a segment closer to a circle's center than
// its radius is blocked. Found through the segment grid, confirmed with the exact segment/point distance.
import type { RoadGraph } from '../map/graphs/road-graph.js';
import { geometryOfPoint, metersPerLonDegree, segmentDistance, segmentDistanceDeg, segmentsNearCircle, type GridView } from '../map/graphs/segment-grid.js';

export interface Circle {
  lat: number;
  lon: number;
  radius: number;
}

/** Blocks every geometry entering a circle; returns geometry → indexes of the circles it enters. */
export function blockCircles(g: RoadGraph, grid: GridView, circles: readonly Circle[], block: (geom: number) => void): Map<number, number[]> {
  const hits = new Map<number, number[]>();
  circles.forEach((circle, ci) => {
    const kx = metersPerLonDegree(circle.lat);
    segmentsNearCircle(grid, circle.lat, circle.lon, circle.radius, (point) => {
      // The distance first: most segments near the circle's box are outside the circle.
      if (segmentDistance(g.shapes.pointsE7, point, circle.lat, circle.lon, kx) >= circle.radius) return;
      const geom = geometryOfPoint(grid, point);
      if (geom < 0) return; // a segment of the other profiles only
      const list = hits.get(geom);
      if (list?.includes(ci)) return;
      if (list) list.push(ci);
      else {
        hits.set(geom, [ci]);
        block(geom);
      }
    });
  });
  return hits;
}

/** Whether a polyline of [lon, lat] points comes closer than the radius to any of the given circles. */
export function lineEntersCircles(line: ReadonlyArray<[number, number]>, circles: readonly Circle[]): boolean {
  for (const circle of circles) {
    for (let i = 0; i + 1 < line.length; i++) {
      if (segmentDistanceDeg(line[i][1], line[i][0], line[i + 1][1], line[i + 1][0], circle.lat, circle.lon) < circle.radius) return true;
    }
    if (line.length === 1 && segmentDistanceDeg(line[0][1], line[0][0], line[0][1], line[0][0], circle.lat, circle.lon) < circle.radius) return true;
  }
  return false;
}
