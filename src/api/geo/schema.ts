// The place lists' documents: pages of countries, cities and zip codes with UUID cursors.
import { z } from 'zod';
import { pageQuery, pageSchema, uuid, type Operation } from '../../http/openapi.js';

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
};
