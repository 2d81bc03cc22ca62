// OSM's address, name and place tagging: which elements and tags the geocoder index is built from. The
// extract loader keeps exactly these (and drops everything else while reading), the index builder reads
// them back: one definition for both, in the first stage of the build (the stages only look forward).

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
export const NODE_KEYS: ReadonlySet<string> = new Set([
  'addr:street',
  'addr:place',
  'addr:housenumber',
  'addr:postcode',
  'addr:city',
  'place',
  'name',
  'alt_name',
  'official_name',
  'short_name',
]);
/** Node keys read by prefix: addr:street and name in other languages (addr:street:de, name:de). */
export const NODE_KEY_PREFIXES = ['addr:street:', 'name:'];
/** A way without any of these keys is neither a street nor an address for the index. */
export const WAY_KEYS: ReadonlySet<string> = new Set(['highway', 'addr:housenumber', 'addr:postcode', 'addr:street', 'addr:place', 'addr:city']);

export function isAdmin(tags: Tags, levels: string[]): boolean {
  return tags.boundary === 'administrative' && levels.includes(tags.admin_level);
}

/** The postcode an area gives the points in it: a postal boundary's, or an administrative one's (`postal_code`, else `addr:postcode`, as Nominatim reads them). */
export function postalCodeOf(tags: Tags): string | null {
  const code = tags.boundary === 'postal_code' ? tags.postal_code : tags.boundary === 'administrative' ? tags.postal_code || tags['addr:postcode'] : undefined;
  return !code || code.includes(';') ? null : code;
}

export const hasAddress = (tags: Tags): boolean =>
  'addr:housenumber' in tags || 'addr:postcode' in tags || 'addr:street' in tags || 'addr:place' in tags || 'addr:city' in tags;

/** Countries, municipalities and postal areas: the relations whose member ways the index assembles. */
export const isAreaRelation = (tags: Tags): boolean => isAdmin(tags, ['2', ...MUNICIPALITY_LEVELS]) || postalCodeOf(tags) !== null;

/** An area, or a relation with an address (a multipolygon building, say; an associatedStreet relation's name is no address of its own). */
export const isGeocoderRelation = (tags: Tags): boolean =>
  isAreaRelation(tags) || (hasAddress(tags) && !tags.boundary && tags.type !== 'associatedStreet' && tags.type !== 'street');

/**
 * What an address point records: a number with its street, a street alone (a POI or building that
 * names its street but has no number), a postcode; null when none. The street is `addr:street`, else
 * `addr:place` (a hamlet whose houses are numbered without streets); the index build puts it on the
 * street of that name nearby (see index-build.ts); a number with neither gets the nearest named street.
 */
export interface AddressFields {
  /** addr:street with its names in other languages (addr:street:xx) after STREET_VARIANTS, or addr:place. */
  street: string | null;
  number: string | null;
  postcode: string | null;
  /** addr:city: the index build takes it for the city when an area or place of that name is near. */
  city: string | null;
}

/** Separates the names of an addr:street in `AddressFields.street` (the first is addr:street itself). */
export const STREET_VARIANTS = '\u001f';

export function addressFields(tags: Tags): AddressFields | null {
  let street = tags['addr:street'];
  if (street) for (const [k, v] of Object.entries(tags)) if (k.startsWith('addr:street:') && v && v !== street) street += STREET_VARIANTS + v;
  street ||= tags['addr:place'];
  const number = tags['addr:housenumber'];
  const postcode = tags['addr:postcode'];
  const city = tags['addr:city'];
  if (!number && !postcode && !street && !city) return null;
  return { street: street || null, number: number || null, postcode: postcode || null, city: city || null };
}

/**
 * The address an element carries for the index (ways and relations: boundaries aside). A street is no
 * address point: its addr:street or house number would give POIs on it a street they are not on (as
 * Nominatim, which never makes a road a house); its postcode and addr:city are the street's own
 * (`streetAddress`).
 */
export function addressOf(tags: Tags, kind: 'node' | 'way' | 'relation'): AddressFields | null {
  if (!hasAddress(tags) || (kind !== 'node' && tags.boundary)) return null;
  if (kind !== 'node' && streetName(tags) !== null) return null;
  return addressFields(tags);
}

/** Starts the street of a house of an associatedStreet relation until the index build resolves it (see OsmData's associatedStreets). */
export const ASSOCIATED_STREET_MARK = '\u0001';

/** A street's own postcode and addr:city, which the POIs on it take (see reverse.ts). */
export function streetAddress(tags: Tags): { postcode: string | null; city: string | null } {
  return { postcode: tags['addr:postcode'] || null, city: tags['addr:city'] || null };
}

const isNameKey = (k: string) => /^name:[a-z]{2,3}(-[A-Za-z]+)?$/.test(k);

/** `name`, else the first `name:xx` (an object named only in some language is still named), else null. */
function nameOf(tags: Tags): string | null {
  if (tags.name) return tags.name;
  const other = Object.keys(tags).find(isNameKey);
  return other === undefined ? null : tags[other];
}

/** The name under which a way is a street, or null. */
export function streetName(tags: Tags): string | null {
  const highway = tags.highway;
  return !highway || NOT_STREETS.has(highway) ? null : nameOf(tags);
}

/** The other names of a street or a place (`name:xx`, alt_name, official_name, short_name), `;`-separated, or null:
 *  what an addr:street may call a street, and what search finds either by. */
export function otherNames(tags: Tags, name: string): string | null {
  const other = new Set<string>();
  for (const [k, v] of Object.entries(tags)) if ((isNameKey(k) || k === 'alt_name' || k === 'official_name' || k === 'short_name') && v !== name) other.add(v);
  return other.size ? [...other].join(';') : null;
}

/** The name under which a node is a city, town or village, or null. */
export function placeName(tags: Tags): string | null {
  return PLACE_TYPES.has(tags.place) ? nameOf(tags) : null;
}

/** The name under which a node is a smaller place (a hamlet, a locality, a suburb…), or null. */
export function minorPlaceName(tags: Tags): string | null {
  return MINOR_PLACE_TYPES.has(tags.place) ? nameOf(tags) : null;
}
