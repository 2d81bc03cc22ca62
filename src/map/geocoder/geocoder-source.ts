// Which OSM elements and tags the geocoder index is built from. The extract loader keeps exactly these
// (and drops everything else while reading), the index builder reads them back: one definition for both.

type Tags = Record<string, string>;

export const MUNICIPALITY_LEVELS = ['8', '7', '6'];
export const PLACE_TYPES = new Set(['city', 'town', 'village']);
/** Smaller named places: found by search, never a city of an address. */
const MINOR_PLACE_TYPES = new Set(['hamlet', 'isolated_dwelling', 'locality', 'suburb', 'quarter', 'neighbourhood', 'borough', 'square', 'island', 'islet']);
// Highway values that are points or areas of service rather than streets one has an address on.
export const NOT_STREETS = new Set([
  'bus_stop',
  'platform',
  'elevator',
  'emergency_access_point',
  'services',
  'rest_area',
  'proposed',
  'razed',
  'abandoned',
  'turning_circle',
]);

/** Node tags the index reads; the loader reports no other node tags. */
export const NODE_KEYS: ReadonlySet<string> = new Set(['addr:street', 'addr:place', 'addr:housenumber', 'addr:postcode', 'place', 'name']);
/** A way without any of these keys is neither a street nor an address for the index. */
export const WAY_KEYS: ReadonlySet<string> = new Set(['highway', 'addr:housenumber', 'addr:postcode']);

export function isAdmin(tags: Tags, levels: string[]): boolean {
  return tags.boundary === 'administrative' && levels.includes(tags.admin_level);
}

export function postalCodeOf(tags: Tags): string | null {
  const code = tags.postal_code;
  if (!code || code.includes(';')) return null;
  return tags.boundary === 'postal_code' || tags.boundary === 'administrative' ? code : null;
}

export const hasAddress = (tags: Tags): boolean => 'addr:housenumber' in tags || 'addr:postcode' in tags;

/** Countries, municipalities and postal areas: the relations whose member ways the index assembles. */
export const isAreaRelation = (tags: Tags): boolean => isAdmin(tags, ['2', ...MUNICIPALITY_LEVELS]) || postalCodeOf(tags) !== null;

/** An area, or a relation with an address (a multipolygon building, say). */
export const isGeocoderRelation = (tags: Tags): boolean => isAreaRelation(tags) || (hasAddress(tags) && !tags.boundary);

/**
 * What an address point records: a number with its street, a postcode, or both; null when neither. The
 * street is `addr:street`, else `addr:place` (a hamlet whose houses are numbered without streets); a
 * number with neither gets the nearest named street when the index is built.
 */
export interface AddressFields {
  street: string | null;
  number: string | null;
  postcode: string | null;
}

export function addressFields(tags: Tags): AddressFields | null {
  const street = tags['addr:street'] || tags['addr:place'];
  const number = tags['addr:housenumber'];
  const postcode = tags['addr:postcode'];
  if (!number && !postcode) return null;
  return { street: street && number ? street : null, number: number || null, postcode: postcode || null };
}

/** The address an element carries for the index (ways and relations: boundaries aside). */
export function addressOf(tags: Tags, kind: 'node' | 'way' | 'relation'): AddressFields | null {
  if (!hasAddress(tags) || (kind !== 'node' && tags.boundary)) return null;
  return addressFields(tags);
}

/** The name under which a way is a street, or null. */
export function streetName(tags: Tags): string | null {
  const highway = tags.highway;
  const name = tags.name;
  return !highway || !name || NOT_STREETS.has(highway) ? null : name;
}

/** The name under which a node is a city, town or village, or null. */
export function placeName(tags: Tags): string | null {
  return PLACE_TYPES.has(tags.place) && tags.name ? tags.name : null;
}

/** The name under which a node is a smaller place (a hamlet, a locality, a suburb…), or null. */
export function minorPlaceName(tags: Tags): string | null {
  return MINOR_PLACE_TYPES.has(tags.place) && tags.name ? tags.name : null;
}
