// The stops a clustering request is about: the request's own `stops` (POI locations resolved), or the team's
// POIs matching `pois`, sorted by id.
import type { Sql } from '../../db/client.js';
import { invalid, type FieldErrors } from '../../http/errors.js';
import { poiPositionsMatching } from '../pois/positions.js';
import { MAX_CLUSTER_STOPS } from '../../engine/kmeans/kmeans.js';
import type { StopInput } from './schema.js';
import { resolveLocations } from '../locations.js';
import { poiSelectionFilter, type PoiSelectionInput } from '../routes/poi-selection.js';

export interface ClusterStop {
  /** Position in the request's `stops`, or in the POI selection sorted by id. */
  index: number;
  id: string | null;
  poiId: string | null;
  latitude: number;
  longitude: number;
}

/** The request's stops; null when a POI id is unknown (reported at `stops.<i>.poi_id`). */
export async function requestStops(sql: Sql, teamId: string, stops: StopInput[], errors: FieldErrors): Promise<ClusterStop[] | null> {
  const resolved = await resolveLocations(sql, teamId, stops, 'stops', errors);
  return resolved?.map((r, index) => ({ index, id: stops[index].id ?? null, ...r })) ?? null;
}

/** The team's POIs matching the selection, by id; null when the filters are invalid (reported in `errors`).
 *  An empty selection or one of more than MAX_CLUSTER_STOPS POIs is a 422 at `pois`. */
export async function selectedStops(sql: Sql, teamId: string, input: PoiSelectionInput, errors: FieldErrors): Promise<ClusterStop[] | null> {
  const filter = await poiSelectionFilter(sql, teamId, input, 'pois', MAX_CLUSTER_STOPS, errors);
  if (Object.keys(errors).length) return null;
  const rows = await poiPositionsMatching(sql, teamId, filter, MAX_CLUSTER_STOPS + 1);
  if (rows.length > MAX_CLUSTER_STOPS) {
    throw invalid('pois', `selects more than ${MAX_CLUSTER_STOPS} POIs; at most ${MAX_CLUSTER_STOPS} can be clustered. Narrow the filters.`);
  }
  if (rows.length === 0) throw invalid('pois', 'selects no POIs; at least one is needed to cluster');
  return rows.map((r, index) => ({ index, id: null, poiId: r.id, latitude: r.latitude, longitude: r.longitude }));
}
