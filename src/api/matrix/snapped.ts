// A location as the reachability answers give it back: where it was snapped, how far that was, the road.
import { z } from 'zod';
import type { LatLon } from '../../lib/lat-lon.js';
import type { ResolvedLocation } from '../locations.js';
import { micro } from '../../engine/line-json.js';

export const snappedPointSchema = z
  .object({
    poi_id: z.string().nullable(),
    location: z.object({ latitude: z.number(), longitude: z.number() }).describe('Where the location was snapped to the road.'),
    snapped_distance: z.number().describe('Meters from the location as sent to the road.'),
    name: z.string().nullable().describe("The road's name, or its ref (null when it has neither)."),
  })
  .meta({ id: 'SnappedLocation' });

export function snappedPoint(l: ResolvedLocation, at: LatLon, offset: number, name: string | null | undefined) {
  return {
    poi_id: l.poiId,
    location: { latitude: micro(at.lat), longitude: micro(at.lon) },
    snapped_distance: Math.round(offset * 10) / 10,
    name: name ?? null,
  };
}
