// POIs: the request bodies the handlers validate, the resource as answered, and the operations of the
// OpenAPI document (service-spec.md "POIs").
import { z } from 'zod';
import { PROFILES } from '../../map/graphs/profiles.js';
import { dataSchema, pageQuery, pageSchema, timestamp, ulid, uuid, type Operation } from '../../http/openapi.js';
import { charLength, typeError } from '../../http/validate.js';
import { categorySchema } from '../categories/schema.js';

const name = z
  .string({ error: typeError('must be a string') })
  .min(1, 'is required')
  .refine((s) => charLength(s) <= 255, 'may not be longer than 255 characters')
  .refine((s) => s.trim().length > 0, 'may not be blank')
  .meta({ maxLength: 255, description: 'Up to 255 characters, not blank.' });
const latitude = z
  .number({ error: typeError('must be a number between -90 and 90') })
  .min(-90, 'must be between -90 and 90')
  .max(90, 'must be between -90 and 90');
const longitude = z
  .number({ error: typeError('must be a number between -180 and 180') })
  .min(-180, 'must be between -180 and 180')
  .max(180, 'must be between -180 and 180');
const attributeValue = { type: ['string', 'number', 'boolean'] };
// Not z.record: it rebuilds the object and so loses an own `__proto__` key (a valid attribute name).
const attributes = (nullable: boolean) =>
  z
    .custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), {
      error: 'must be an object of attribute values',
    })
    .meta({
      type: 'object',
      description: `Values keyed by attribute name or id, each of the attribute's type${nullable ? '; null removes a value' : ''}.`,
      additionalProperties: nullable ? { type: [...attributeValue.type, 'null'] } : attributeValue,
    });

export const createPoiSchema = z
  .strictObject({
    name,
    latitude,
    longitude,
    category_id: z.string({ error: 'must be a category id' }).nullable().optional().describe("One of the team's categories."),
    attributes: attributes(false).optional(),
  })
  .meta({ id: 'PoiCreate', examples: [{ name: 'Vaduz Castle', latitude: 47.1398, longitude: 9.5232, attributes: { opening_hours: '9-17' } }] });

export const updatePoiSchema = z
  .strictObject({
    name: name.optional(),
    latitude: latitude.optional(),
    longitude: longitude.optional(),
    category_id: z.string({ error: 'must be a category id' }).nullable().optional().describe('null removes the category.'),
    attributes: attributes(true).optional(),
  })
  .meta({ id: 'PoiUpdate', description: 'Only what changes; moving the POI geocodes it again.' });

const place = (field: 'name' | 'code') => z.object({ id: uuid, [field]: z.string() }).nullable();

/** A POI's address; GET /v1/geo/reverse answers the same object for a point. */
export const poiAddressSchema = z.object({
  display_name: z.string().nullable().describe('"<street> <house number>, <zip code> <city>, <country>" with only the parts known.'),
  street: z.string().nullable().describe('The street and house number of an address point within 30 m, else the nearest named street within 200 m.'),
  city: place('name'),
  country: place('name'),
  zipcode: place('code'),
  geocoded_at: timestamp.nullable(),
});

export const poiSchema = z
  .object({
    id: ulid,
    name: z.string(),
    latitude: z.number(),
    longitude: z.number(),
    distance: z.number().optional().describe('Meters from the search point; only on lists filtered by distance.'),
    travel_time: z.number().optional().describe('Extension: seconds by road from the search point; only on lists by travel time.'),
    travel_distance: z.number().optional().describe('Extension: meters of that route; only on lists by travel time.'),
    category: categorySchema.nullable(),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    address: poiAddressSchema.describe('Filled in by background reverse geocoding, usually seconds after creation or a move; null until then.'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Poi' });

const poiData = dataSchema('PoiData', poiSchema);
const poiPage = pageSchema('PoiPage', poiSchema);

const PERMISSION = (p: string) => `Needs the \`${p}\` permission.`;

export const poiDocs = {
  list: {
    operationId: 'listPois',
    tag: 'POIs',
    summary: 'List POIs',
    description: `${PERMISSION('read-pois')} All filters combine; a POI must match every one sent.`,
    query: {
      ...pageQuery(),
      attributes: z
        .record(z.string(), z.string())
        .describe('`attributes[<name or id>]=<value>`: numbers compare numerically, booleans accept true, false, 1, 0, yes, no.'),
      category_id: ulid.describe('Cannot be combined with category_name.'),
      category_name: z.string().max(255).describe('Exact category name.'),
      latitude: z.number().min(-90).max(90).describe('Search point; required with longitude or distance.'),
      longitude: z.number().min(-180).max(180).describe('Search point; required with latitude or distance.'),
      distance: z.int().min(1).max(100_000).default(1000).describe('Radius in meters; results then carry `distance`.'),
      profile: z
        .enum(PROFILES)
        .describe(
          'Extension: list by travel time with this routing profile (default driving-car when max_travel_time or max_travel_distance is sent). The POIs reachable from latitude/longitude within the limits, fastest first (ties by id), each with `travel_time` and `travel_distance`; `distance` then applies only when sent; the cursor continues in that order.',
        ),
      max_travel_time: z.number().min(1).max(3600).describe('Extension: seconds, 1–3600 (see profile).'),
      max_travel_distance: z.number().min(1).max(100_000).describe("Extension: meters of the fastest route's road, 1–100000 (see profile)."),
      q: z
        .string()
        .max(255)
        .describe(
          'Extension: names containing this text, ignoring case and the diacritics of Latin letters ("stadtle" finds "Städtle", "strasse" finds "Straße"); `%` and `_` are literal. Combines with every other filter, travel time included.',
        ),
      country_id: uuid.describe('POIs not yet geocoded do not match.'),
      city_id: uuid,
      zipcode_id: uuid,
    },
    responses: { 200: { description: 'A page of POIs sorted by id.', schema: poiPage } },
    errors: [422],
  },
  create: {
    operationId: 'createPoi',
    tag: 'POIs',
    summary: 'Create a POI',
    description: `${PERMISSION('create-pois')} The address is empty until geocoded; 403 when the team reached its POI limit.`,
    body: createPoiSchema,
    responses: { 201: { description: 'The POI, its address still empty.', schema: poiData } },
    errors: [403, 422],
  },
  get: {
    operationId: 'getPoi',
    tag: 'POIs',
    summary: 'Get a POI',
    description: PERMISSION('read-pois'),
    responses: { 200: { description: 'The POI.', schema: poiData } },
    errors: [404],
  },
  update: {
    operationId: 'updatePoi',
    tag: 'POIs',
    summary: 'Update a POI',
    description: `${PERMISSION('update-pois')} Attributes are merged; a null value removes one.`,
    body: updatePoiSchema,
    responses: { 200: { description: 'The updated POI.', schema: poiData } },
    errors: [404, 422],
  },
  delete: {
    operationId: 'deletePoi',
    tag: 'POIs',
    summary: 'Delete a POI',
    description: `${PERMISSION('delete-pois')} Its attribute values go with it.`,
    responses: { 204: { description: 'Deleted.' } },
    errors: [404],
  },
} satisfies Record<string, Operation>;
