import { z } from 'zod';

const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The POI filters as a JSON object (route avoidance, cluster selection): types only; ranges, formats
 *  and the category_id/category_name exclusion are checked by parsePoiFilter, as for the POI list. */
export const poiSelectionShape = {
  attributes: z
    .custom<Record<string, unknown>>(isObject, { error: 'must be an object of attribute values' })
    .meta({
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
      description: 'Attribute filters as in POI filtering, keyed by name or id.',
    })
    .optional(),
  category_id: z.string({ error: 'must be a category id (ULID)' }).optional(),
  category_name: z.string({ error: 'must be a string of at most 255 characters' }).optional(),
  latitude: z.number({ error: 'must be a number between -90 and 90' }).optional(),
  longitude: z.number({ error: 'must be a number between -180 and 180' }).optional(),
  distance: z.number({ error: 'must be a number between 1 and 100000' }).optional(),
  country_id: z.string({ error: 'must be a UUID' }).optional(),
  city_id: z.string({ error: 'must be a UUID' }).optional(),
  zipcode_id: z.string({ error: 'must be a UUID' }).optional(),
  poi_ids: z.array(z.string({ error: 'must be a POI id (ULID)' }), { error: 'must be an array of POI ids' }).optional(),
};

export const POI_SELECTION_ERROR = 'must be an object of POI filters';
