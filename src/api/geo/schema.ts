// The place lists' documents: pages of countries, cities and zip codes with UUID cursors; the reverse lookup.
import { z } from 'zod';
import { dataSchema, pageQuery, pageSchema, uuid, type Operation } from '../../http/openapi.js';
import { poiAddressSchema } from '../pois/schema.js';

const place = (id: string, field: 'name' | 'code') => pageSchema(id, z.object({ id: uuid, [field]: z.string() }));
const nameQuery = (what: string) => z.string().max(255).describe(`Only ${what} containing this text.`);
const doc = (operationId: string, summary: string, query: Operation['query'], schema: z.ZodType): Operation => ({
  operationId,
  tag: 'Geolocation',
  summary,
  query: { ...pageQuery('UUID'), ...query },
  description: "Needs the `read-pois` permission. Only places at least one of the team's POIs is in, sorted by id.",
  responses: { 200: { description: 'A page of places.', schema } },
  errors: [422],
});
export const geoDocs = {
  countries: doc('listCountries', 'List countries', { name: nameQuery('countries whose name is') }, place('CountryPage', 'name')),
  cities: doc('listCities', 'List cities', { country_id: uuid, name: nameQuery('cities whose name is') }, place('CityPage', 'name')),
  zipcodes: doc('listZipcodes', 'List zip codes', { country_id: uuid, city_id: uuid, name: nameQuery('zip codes') }, place('ZipcodePage', 'code')),
  reverse: {
    operationId: 'reverseGeocode',
    tag: 'Geolocation',
    summary: 'The address of a point',
    description:
      'Extension (not in the service contract). Needs the `read-pois` permission. The address the background geocoder would give ' +
      "a POI at this point, answered at once: the same object as a POI's `address`, its places the shared rows a POI there points to " +
      '(`geocoded_at` is the time of this answer). A point far from any address, street or place gets null parts as such a POI would ' +
      '(only the country, or nothing at sea or off the map). 503 when no map is loaded.',
    query: {
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
    },
    responses: {
      200: {
        description: 'The address.',
        schema: dataSchema('ReverseGeocodeData', poiAddressSchema),
      },
    },
    errors: [422, 503],
  } satisfies Operation,
};
