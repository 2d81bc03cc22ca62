// Country polygons from Natural Earth (1:10m, via the world-atlas package): the fallback for countries
// whose OSM boundary an extract cuts off.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { DegreeRings } from './areas.js';

/** [minLat, minLon, maxLat, maxLon] */
export type Bbox = [number, number, number, number];

export interface NaturalEarthCountry {
  /** ISO 3166-1 numeric code as a 3-digit string; empty for disputed areas without one. */
  id: string;
  name: string;
  rings: DegreeRings;
  /** Per ring, its bounding box. */
  ringBoxes: Bbox[];
}

let cache: NaturalEarthCountry[] | undefined;

export function naturalEarthCountries(): NaturalEarthCountry[] {
  if (cache) return cache;
  const path = createRequire(import.meta.url).resolve('world-atlas/countries-10m.json');
  const topology = JSON.parse(readFileSync(path, 'utf8')) as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const collection = feature(topology, topology.objects.countries);
  cache = collection.features.flatMap((f) => {
    const g = f.geometry;
    const polygons = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
    const rings: DegreeRings = polygons.flatMap((p) => p.map((ring) => ring.map(([lon, lat]) => [lat, lon] as [number, number])));
    if (rings.length === 0) return [];
    const ringBoxes = rings.map((ring) => {
      const box: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
      for (const [lat, lon] of ring) {
        box[0] = Math.min(box[0], lat);
        box[1] = Math.min(box[1], lon);
        box[2] = Math.max(box[2], lat);
        box[3] = Math.max(box[3], lon);
      }
      return box;
    });
    return [{ id: String(f.id ?? ''), name: f.properties?.name ?? '', rings, ringBoxes }];
  });
  return cache;
}
