// A POI selection sent in a routing body (`avoid` of POST /v1/routes, `pois` of POST /v1/routes/clusters):
// the same filters as the POI list, with `distance` a float and unknown `poi_ids` reported one by one.
import type { z } from 'zod';
import { teamAttributes } from '../attributes/definitions.js';
import type { Sql } from '../../db/client.js';
import type { FieldErrors } from '../../http/errors.js';
import { parsePoiFilter, type PoiFilter } from '../pois/filters.js';
import { knownPoiIds } from '../pois/positions.js';
import type { poiSelectionShape } from '../pois/selection-schema.js';

export type PoiSelectionInput = z.infer<z.ZodObject<typeof poiSelectionShape>>;

/** The selection as a filter; problems go to `errors` under `<field>.`, `poi_ids` the team does not have
 *  at `<field>.poi_ids.<i>`. */
export async function poiSelectionFilter(
  sql: Sql,
  teamId: string,
  input: PoiSelectionInput,
  field: string,
  maxPoiIds: number,
  errors: FieldErrors,
): Promise<PoiFilter> {
  const { distance, ...raw } = input;
  const attrs = raw.attributes && Object.keys(raw.attributes).length ? await teamAttributes(sql, teamId) : [];
  // The spec types the distance as a float, where the list filter takes an integer: its range is checked
  // here, and parsePoiFilter sees a valid stand-in (it still checks that latitude and longitude come with it).
  if (distance !== undefined && !(distance >= 1 && distance <= 100_000)) errors[`${field}.distance`] = ['must be a number between 1 and 100000'];
  const filter = parsePoiFilter({ ...raw, distance: distance === undefined ? undefined : 1 }, attrs, errors, `${field}.`, maxPoiIds);
  if (filter.near && distance !== undefined) filter.near.distance = distance;
  if (filter.poiIds?.length && !errors[`${field}.poi_ids`]) {
    const known = await knownPoiIds(sql, teamId, filter.poiIds);
    raw.poi_ids!.forEach((id, i) => {
      if (!errors[`${field}.poi_ids.${i}`] && !known.has(id.toUpperCase())) (errors[`${field}.poi_ids.${i}`] ??= []).push('is not a POI of this team');
    });
  }
  return filter;
}
