// The place lists' documents: pages of countries, cities and zip codes with UUID cursors; the reverse lookup.
import { z } from 'zod';
import { dataSchema, pageQuery, pageSchema, ulid, uuid, type Operation } from '../../http/openapi.js';
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
const searchResult = z
  .object({
    kind: z
      .enum(['address', 'street', 'place', 'postcode', 'poi'])
      .describe("What the result is: an address point, a street, a city/town/village or municipality, a postcode, or one of the team's POIs."),
    name: z.string().describe('"Städtle 38", "Städtle", "Vaduz", "9490", or the POI\'s name.'),
    latitude: z.number(),
    longitude: z.number(),
    bbox: z
      .array(z.number())
      .length(4)
      .describe("[west, south, east, north] in degrees: a point's own position for an address or POI, the extent of a street, place or postcode."),
    score: z.number().min(0).max(1).describe('How much of the query the result matches, and how well (results come best first).'),
    address: poiAddressSchema.describe("The same object as a POI's `address`: a POI placed here shows these parts (`geocoded_at`: the time of this answer)."),
    poi_id: ulid.optional().describe('The POI, for kind `poi`.'),
  })
  .meta({ id: 'GeoSearchResult' });
const searchResults = (id: string) => z.object({ data: z.array(searchResult) }).meta({ id });
const commonSearchQuery = {
  near: z.string().describe('"latitude,longitude": results near it rank higher (nothing is left out for being far).'),
  countrycodes: z.string().describe('ISO 3166-1 alpha-2 codes separated by commas ("li,ch"): only results in these countries.'),
  layers: z
    .string()
    .describe(
      "Kinds of result separated by commas, of `address`, `street`, `place`, `postcode` (the map) and `poi` (the team's POIs by name or category name). Default: the four of the map.",
    ),
};

export const geoDocs = {
  search: {
    operationId: 'geoSearch',
    tag: 'Geolocation',
    summary: 'Find addresses, streets, places and postcodes',
    description:
      'Extension (not in the service contract). Needs the `read-pois` permission. Free text (`q`: "Städtle 38 Vaduz", "9490 Vaduz", ' +
      '"Landstrasse, Triesen", "Schaan") or structured fields (`street`, `housenumber`, `postcode`, `city`, `country`; not with `q`), ' +
      'searched in the map\'s own index (built with the map by `waymark map build`). Case and diacritics do not matter ("stadtle" finds ' +
      '"Städtle"), nor abbreviations ("Landstr." / "Landstrasse", "Av." / "Avinguda"); a word of five letters or more may have one typo. ' +
      'Every word of the query must match (a missing house number or city gives the street or place at a lower score, only when nothing ' +
      'matches them all). House numbers include those interpolated along `addr:interpolation` ways. 503 when no map is loaded (and a map layer is asked).',
    query: {
      q: z.string().max(255).describe('Free text.'),
      street: z.string().max(255),
      housenumber: z.string().max(255).describe('Needs `street`.'),
      postcode: z.string().max(255),
      city: z.string().max(255),
      country: z.string().max(255).describe('A country name or ISO 3166-1 alpha-2 code.'),
      ...commonSearchQuery,
      limit: z.number().int().min(1).max(50).default(10),
    },
    responses: { 200: { description: 'The results, best first.', schema: searchResults('GeoSearchResults') } },
    errors: [422, 503],
  } satisfies Operation,
  autocomplete: {
    operationId: 'geoAutocomplete',
    tag: 'Geolocation',
    summary: 'Complete an address being typed',
    description:
      'Extension (not in the service contract). Needs the `read-pois` permission. As `GET /v1/geo/search` with `q`, its last word ' +
      'taken as the beginning of a word ("Städ" finds "Städtle", "Landstr 1" the house numbers 1, 10, 11… of the Landstrasse) unless ' +
      'the text ends in a space or comma; no typos. An index lookup, fast enough for every keystroke.',
    query: { q: z.string().max(255), ...commonSearchQuery, limit: z.number().int().min(1).max(50).default(5) },
    responses: { 200: { description: 'The results, best first.', schema: searchResults('GeoAutocompleteResults') } },
    errors: [422, 503],
  } satisfies Operation,
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
