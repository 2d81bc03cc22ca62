// The GeoJSON of isochrones, as POST /v1/isochrones and `waymark isochrone` answer it: one feature per
// location and range value, and the collection's box around them all.
import area from '@turf/area';
import type { MultiPolygon, Polygon } from 'geojson';
import type { IsochroneResult } from '../../engine/engine.js';
import { micro } from '../../engine/line-json.js';

type Box = [number, number, number, number];

function bboxOf(polygons: number[][][][]): Box {
  let w = Infinity,
    s = Infinity,
    e = -Infinity,
    n = -Infinity;
  for (const poly of polygons)
    for (const [lon, lat] of poly[0]) {
      if (lon < w) w = lon;
      if (lon > e) e = lon;
      if (lat < s) s = lat;
      if (lat > n) n = lat;
    }
  return [w, s, e, n];
}

/** The features of one location's search: `values` are the range values asked, in the order of `found.shapes`. */
export function isochroneFeatures(
  found: IsochroneResult,
  values: number[],
  groupIndex: number,
  location: { poiId: string | null; latitude: number; longitude: number },
  rangeType: 'time' | 'distance',
) {
  return found.shapes.map((polygons, k) => {
    const geometry: Polygon | MultiPolygon =
      polygons.length === 1 ? { type: 'Polygon', coordinates: polygons[0] } : { type: 'MultiPolygon', coordinates: polygons };
    return {
      type: 'Feature' as const,
      bbox: bboxOf(polygons),
      properties: {
        group_index: groupIndex,
        poi_id: location.poiId,
        value: values[k],
        range_type: rangeType,
        location: { latitude: location.latitude, longitude: location.longitude },
        center: { latitude: micro(found.snapped.lat), longitude: micro(found.snapped.lon) },
        area: Math.round(area(geometry) * 10) / 10,
      },
      geometry,
    };
  });
}

/** The FeatureCollection of features, with the box of them all. */
export function featureCollection<F extends { bbox: Box }>(features: F[]) {
  const boxes = features.map((f) => f.bbox);
  const bbox: Box = [
    Math.min(...boxes.map((b) => b[0])),
    Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])),
    Math.max(...boxes.map((b) => b[3])),
  ];
  return { type: 'FeatureCollection' as const, bbox, features };
}
