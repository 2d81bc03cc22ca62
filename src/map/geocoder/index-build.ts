// Builds the reverse-geocoding index of a map from an OSM extract: countries (complete OSM polygons,
// Natural Earth where the extract cuts them), municipalities, postal areas, address points, named
// streets, places, and a coverage grid telling which points are on the map at all.
import type { OsmData } from '../osm/osm-data.js';
import type { OsmRelation } from '../osm/osm-pbf.js';
import { Growable } from '../../lib/typed-pools.js';
import { AreaIndex, flattenAreas, SCALE, type DegreeRings } from './areas.js';
import { CountryLocator } from './country-locator.js';
import { addressOf, ASSOCIATED_STREET_MARK, isAdmin, MUNICIPALITY_LEVELS, postalCodeOf, STREET_VARIANTS, type AddressFields } from '../osm/address-tags.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import { centroid, interiorPoint, ringsContain } from './geometry.js';
import { GEOCODER_FORMAT, writeGeocoderIndex, type AreaInfo, type CountryInfo, type GeocoderCounts, type GeocoderIndexData } from './index-format.js';
import type { CoverageGrid } from '../osm/coverage.js';
import { naturalEarthCountries, type Bbox, type NaturalEarthCountry } from './natural-earth.js';
import { assembleRings } from '../../lib/geo/rings.js';
import { StreetIndex } from './street-index.js';
import { interpolatedAddresses } from './interpolation.js';
import { buildSearchArrays, type SearchSource } from './search-build.js';
import { writeSearchIndex } from './search-format.js';
import { shortForm, words } from './search-text.js';

// Chunked so a segment index at load time stays small; short enough that a chunk's box stays tight.
const MAX_STREET_SEGMENTS = 8;
/** How far an address point without addr:street looks for the street it belongs to. */
const PARENT_STREET_RADIUS_M = 200;
/** How far an address point looks for the street its addr:street (or associatedStreet relation) names. */
const NAMED_STREET_RADIUS_M = 1000;
/** How far an addr:street or addr:place without a street of the name looks for a place of the name. */
const NAMED_PLACE_RADIUS_M = 5000;
/** How far the municipality (its centre) or place an addr:city names may be from the object. */
const NAMED_CITY_RADIUS_M = 20_000;

/**
 * A name as addr:street and street names are compared: folded words, abbreviations in their short form,
 * written together ("South St." = "south street", "St. Martins-Ring" = "Sankt Martins-Ring",
 * "Vorarlbergerstrasse" = "Vorarlberger Strasse").
 */
const nameKey = (name: string): string =>
  words(name)
    .map((w) => shortForm(w) ?? w)
    .join('');

/** Builds the index and writes it to `<outDir>/geocoder/`. */
export async function buildGeocoderIndex(osm: OsmData, outDir: string): Promise<GeocoderCounts> {
  const { data, search } = buildGeocoderData(osm);
  await writeGeocoderIndex(outDir, data);
  const bytes = await writeSearchIndex(outDir, buildSearchArrays(search));
  return { ...data.meta.counts, searchBytes: bytes };
}

interface Polygon {
  rings: DegreeRings;
  /** Open chains of joined ways, where the extract cuts the boundary. */
  chains: DegreeRings;
  complete: boolean;
}

class Strings {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string | undefined | null): number {
    if (s == null || s === '') return -1;
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.push(s) - 1;
      this.ids.set(s, id);
    }
    return id;
  }
}

function buildGeocoderData(osm: OsmData): { data: GeocoderIndexData; search: SearchSource } {
  const polygonOf = relationPolygons(osm);
  const coverage = osm.geocoder.coverage;
  const countries = collectCountries(osm, polygonOf, coverage.grid);
  const countryFlat = flattenAreas(countries.areas.map((a) => a.rings));
  const locator = new CountryLocator(
    countryFlat,
    countries.areas.map((a) => a.info),
  );
  const countryOfArea = (rings: DegreeRings) => majorityCountry(rings, (lat, lon) => locator.countryAt(lat, lon));
  const municipalities = collectMunicipalities(osm, polygonOf, countryOfArea);
  const postal = collectPostalAreas(osm, polygonOf, countryOfArea);
  const areas = [...countries.areas, ...municipalities, ...postal];

  // Points take the country the geocoder will give them, municipality included.
  const municipalityFlat = flattenAreas(municipalities.map((m) => m.rings));
  const municipalityIndex = new AreaIndex(municipalityFlat);
  const postalIndex = new AreaIndex(flattenAreas(postal.map((p) => p.rings)));
  const countryAt = (latDeg: number, lonDeg: number) => {
    const lat = latDeg * SCALE,
      lon = lonDeg * SCALE;
    const inside = municipalityIndex.containing(lat, lon);
    return locator.countryAt(lat, lon, inside.length ? municipalities[inside[0]].info.country : -1);
  };
  const strings = new Strings();
  const streets = collectStreets(osm, strings);
  const streetIndex = new StreetIndex(streets.coords.view(), streets.starts.view());
  const places = collectPlaces(osm.geocoder.places, osm, strings, countryAt);
  const minorPlaces = collectPlaces(osm.geocoder.minorPlaces, osm, strings, countryAt);
  const cityNamed = namedCity(strings, municipalities, places);
  const addresses = collectAddresses(osm, strings, countryAt, parentOf(osm, strings, streets, streetIndex, [places, minorPlaces]), cityNamed);
  // A street's own addr:city, where it names a city near (else the street's city is where it lies).
  const streetCity = streets.cityTag.view().map((id, c) => {
    if (id < 0) return -1;
    const v = streets.starts.view()[c];
    const name = cityNamed([streets.coords.view()[2 * v] / SCALE, streets.coords.view()[2 * v + 1] / SCALE], osm.strings[id]);
    return name === null ? -1 : strings.id(name);
  });

  const counts: GeocoderCounts = {
    countries: countries.list.length,
    countryAreas: countries.areas.length,
    municipalities: municipalities.length,
    postalAreas: postal.length,
    addresses: addresses.street.length,
    streets: streets.ways,
    streetSegments: streets.segments,
    places: places.name.length,
  };
  const search: SearchSource = {
    strings: strings.list,
    countries: countries.list.map((c) => ({ name: c.name, alpha2: c.alpha2 })),
    addresses: {
      coords: addresses.coords.view(),
      street: addresses.street.view(),
      number: addresses.number.view(),
      postcode: addresses.postcode.view(),
      country: addresses.country.view(),
      city: addresses.city.view(),
    },
    otherNames: osm.strings,
    streets: {
      coords: streets.coords.view(),
      starts: streets.starts.view(),
      names: streets.names.view(),
      others: streets.others.view(),
      city: streetCity,
      postcode: streets.postcode.view(),
    },
    places: { coords: places.coords.view(), name: places.name.view(), others: places.others, country: places.country.view() },
    minorPlaces: { coords: minorPlaces.coords.view(), name: minorPlaces.name.view(), others: minorPlaces.others, country: minorPlaces.country.view() },
    municipalities: municipalities.map((m) => ({ rings: m.rings, name: m.info.name, country: m.info.country, center: m.info.center! })),
    postalAreas: postal.map((p) => ({ rings: p.rings, code: p.info.name, country: p.info.country })),
    countryAt: (lat, lon) => {
      const inside = municipalityIndex.containing(lat, lon);
      return locator.countryAt(lat, lon, inside.length ? municipalities[inside[0]].info.country : -1);
    },
    municipalitiesAt: (lat, lon) => municipalityIndex.containing(lat, lon),
    postalAt: (lat, lon, country) => {
      const inside = postalIndex.containing(lat, lon).sort((x, y) => x - y);
      const k = inside.find((i) => postal[i].info.country === country) ?? inside[0];
      return k === undefined ? null : postal[k].info.name;
    },
  };
  const data: GeocoderIndexData = {
    meta: { format: GEOCODER_FORMAT, strings: strings.list, countries: countries.list, areas: areas.map((a) => a.info), coverage: coverage.grid, counts },
    arrays: {
      ...flattenAreas(areas.map((a) => a.rings)),
      streetCoords: streets.coords.view(),
      streetStarts: streets.starts.view(),
      streetNames: streets.names.view(),
      streetPostcode: streets.postcode.view(),
      streetCity,
      addrCoords: addresses.coords.view(),
      addrStreet: addresses.street.view(),
      addrNumber: addresses.number.view(),
      addrPostcode: addresses.postcode.view(),
      addrCountry: addresses.country.view(),
      addrCity: addresses.city.view(),
      placeCoords: places.coords.view(),
      placeName: places.name.view(),
      placeCountry: places.country.view(),
      coverage: coverage.cells,
    },
  };
  return { data, search };
}

const SAMPLE_GRID = 12;

/** Points of a regular grid over the area's bounding box that lie inside it. */
function sampleInside(rings: DegreeRings): [number, number][] {
  const shape = new AreaIndex(flattenAreas([rings]));
  let minLat = Infinity,
    minLon = Infinity,
    maxLat = -Infinity,
    maxLon = -Infinity;
  for (const ring of rings) {
    for (const [lat, lon] of ring) {
      minLat = Math.min(minLat, lat);
      maxLat = Math.max(maxLat, lat);
      minLon = Math.min(minLon, lon);
      maxLon = Math.max(maxLon, lon);
    }
  }
  const inside: [number, number][] = [];
  for (let i = 0; i < SAMPLE_GRID; i++) {
    for (let j = 0; j < SAMPLE_GRID; j++) {
      const lat = minLat + ((i + 0.5) / SAMPLE_GRID) * (maxLat - minLat);
      const lon = minLon + ((j + 0.5) / SAMPLE_GRID) * (maxLon - minLon);
      if (shape.containing(Math.round(lat * SCALE), Math.round(lon * SCALE)).length) inside.push([lat, lon]);
    }
  }
  return inside;
}

/**
 * The country holding most of an area (the interior point's when the area is too thin for the sample
 * grid), so a coarse country outline crossing part of a municipality does not decide.
 */
function majorityCountry(rings: DegreeRings, countryAt: (lat: number, lon: number) => number): number {
  const samples = sampleInside(rings);
  const point = samples.length ? null : interiorPoint(rings);
  if (point) samples.push(point);
  const votes = new Map<number, number>();
  for (const [lat, lon] of samples) {
    const c = countryAt(Math.round(lat * SCALE), Math.round(lon * SCALE));
    if (c >= 0) votes.set(c, (votes.get(c) ?? 0) + 1);
  }
  let best = -1;
  for (const [c, n] of votes) if (best < 0 || n > votes.get(best)!) best = c;
  return best;
}

/** Assembles the boundary relations the geocoder uses, from their member ways the loader kept. */
function relationPolygons(osm: OsmData): (rel: OsmRelation) => Polygon {
  const { relationWays } = osm.geocoder;
  const refsOf = (wayId: number): number[] | null => {
    const w = relationWays.get(wayId);
    return w === undefined ? null : osm.wayRefIds(w);
  };
  const cache = new Map<number, Polygon>();
  return (rel) => {
    let polygon = cache.get(rel.id);
    if (!polygon) {
      const assembled = assembleRings(rel.members.filter((m) => m.type === 'way').map((m) => ({ role: m.role, refs: refsOf(m.ref) })));
      let complete = assembled.complete;
      const toCoords = (ids: number[]) =>
        ids.flatMap((id) => {
          const c = osm.coord(id);
          if (!c) complete = false;
          return c ? [c] : [];
        });
      const rings = assembled.rings.map(toCoords);
      polygon = { rings, chains: assembled.chains.map(toCoords), complete };
      cache.set(rel.id, polygon);
    }
    return polygon;
  };
}

interface AreaOut {
  rings: DegreeRings;
  info: AreaInfo;
}

function overlaps(bbox: Bbox, grid: CoverageGrid): boolean {
  const maxLat = grid.minLat + grid.rows * grid.cellDegrees;
  const maxLon = grid.minLon + grid.cols * grid.cellDegrees;
  return bbox[0] <= maxLat && bbox[2] >= grid.minLat && bbox[1] <= maxLon && bbox[3] >= grid.minLon;
}

function within(bbox: Bbox, grid: CoverageGrid): boolean {
  const maxLat = grid.minLat + grid.rows * grid.cellDegrees;
  const maxLon = grid.minLon + grid.cols * grid.cellDegrees;
  return bbox[0] >= grid.minLat && bbox[2] <= maxLat && bbox[1] >= grid.minLon && bbox[3] <= maxLon;
}

/**
 * A country small enough to lie wholly on the map whose relation is still cut, typically because its
 * maritime boundary runs off the extract (Monaco): when the ways present join into one chain, closing
 * it with a straight line gives its land territory. Natural Earth draws such countries enlarged and
 * shifted (its Monaco covers a third of the real one), so a quarter of the area inside it is agreement enough.
 */
function closeCutCountry(polygon: Polygon, ne: NaturalEarthCountry, grid: CoverageGrid): DegreeRings | null {
  if (polygon.rings.length > 0 || polygon.chains.length !== 1 || !ne.ringBoxes.every((box) => within(box, grid))) return null;
  const chain = polygon.chains[0];
  if (chain.length < 3) return null;
  const rings: DegreeRings = [[...chain, chain[0]]];
  const agreement = sampleInside(rings).map(([lat, lon]) => ringsContain(ne.rings, lat, lon));
  return agreement.length > 0 && agreement.filter(Boolean).length >= agreement.length / 4 ? rings : null;
}

/**
 * One country record per country, named from OSM (English name first) when the extract has its
 * relation, complete or not, so OSM and Natural Earth never yield two names for one country.
 */
function collectCountries(osm: OsmData, polygonOf: (rel: OsmRelation) => Polygon, grid: CoverageGrid): { list: CountryInfo[]; areas: AreaOut[] } {
  // Only the parts (islands, exclaves) of Natural Earth countries that reach the map are kept.
  const ne = naturalEarthCountries().flatMap((c) => {
    const keep = c.rings.map((_, i) => overlaps(c.ringBoxes[i], grid));
    const rings = c.rings.filter((_, i) => keep[i]);
    return rings.length ? [{ ...c, rings, ringBoxes: c.ringBoxes.filter((_, i) => keep[i]) }] : [];
  });
  const list: CountryInfo[] = [];
  const byNe = new Map<NaturalEarthCountry, number>();
  const osmAreas: AreaOut[] = [];
  for (const rel of osm.geocoder.relations) {
    if (!isAdmin(rel.tags, ['2'])) continue;
    const name = rel.tags['name:en'] || rel.tags.name;
    if (!name) continue;
    const polygon = polygonOf(rel);
    const iso = rel.tags['ISO3166-1:numeric']?.padStart(3, '0') ?? null;
    const match =
      ne.find((c) => iso !== null && c.id === iso) ??
      ne.find((c) => c.name === name) ??
      (polygon.complete ? naturalEarthContaining(ne, interiorPoint(polygon.rings)) : undefined);
    if (!polygon.complete && !match) continue;
    let country = match ? byNe.get(match) : undefined;
    if (country === undefined) {
      country = list.push({ name, iso: iso ?? (match?.id || null), alpha2: alpha2Of(rel.tags), osmComplete: false }) - 1;
      if (match) byNe.set(match, country);
    }
    const rings = polygon.complete ? polygon.rings : match && closeCutCountry(polygon, match, grid);
    if (rings) {
      list[country].osmComplete = true;
      osmAreas.push({ rings, info: { kind: 'country', name: list[country].name, country, source: 'osm' } });
    }
  }
  const neAreas: AreaOut[] = [];
  for (const c of ne) {
    let country = byNe.get(c);
    if (country === undefined) country = list.push({ name: c.name, iso: c.id || null, alpha2: null, osmComplete: false }) - 1;
    const source = list[country].osmComplete ? 'superseded' : 'natural-earth';
    neAreas.push({ rings: c.rings, info: { kind: 'country', name: list[country].name, country, source } });
  }
  return { list, areas: [...osmAreas, ...neAreas] };
}

/** The ISO 3166-1 alpha-2 code a country relation carries, or null. */
function alpha2Of(tags: Record<string, string>): string | null {
  const code = tags['ISO3166-1:alpha2'] ?? tags['ISO3166-1'];
  return code && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null;
}

function naturalEarthContaining(ne: NaturalEarthCountry[], p: [number, number] | null): NaturalEarthCountry | undefined {
  return p ? ne.find((c) => ringsContain(c.rings, p[0], p[1])) : undefined;
}

/** Drops a leading "Stadt", "Marktgemeinde", ... that some countries put in the name and also tag as name:prefix. */
function municipalityName(tags: Record<string, string>): string {
  const name = tags.name;
  for (const [k, v] of Object.entries(tags)) {
    if ((k === 'name:prefix' || k.startsWith('name:prefix:')) && name.startsWith(`${v} `)) return name.slice(v.length + 1);
  }
  return name;
}

/** The centroid of an area's largest ring, rounded to 1e-7°. */
function areaCenter(rings: DegreeRings): [number, number] {
  const largest = rings.reduce((a, r) => (r.length > a.length ? r : a), rings[0]);
  const c = centroid(largest) ?? largest[0];
  return [Math.round(c[0] * SCALE) / SCALE, Math.round(c[1] * SCALE) / SCALE];
}

/** Per country the finest municipality level present: 8, else 7, else 6. */
function collectMunicipalities(osm: OsmData, polygonOf: (rel: OsmRelation) => Polygon, countryOfArea: (rings: DegreeRings) => number): AreaOut[] {
  const candidates: (AreaOut & { level: string })[] = [];
  for (const rel of osm.geocoder.relations) {
    if (!isAdmin(rel.tags, MUNICIPALITY_LEVELS) || !rel.tags.name) continue;
    const polygon = polygonOf(rel);
    if (!polygon.complete) continue;
    const info: AreaInfo = {
      kind: 'municipality',
      name: municipalityName(rel.tags),
      country: countryOfArea(polygon.rings),
      source: 'osm',
      center: areaCenter(polygon.rings),
    };
    candidates.push({ rings: polygon.rings, info, level: rel.tags.admin_level });
  }
  const finest = new Map<number, string>();
  for (const c of candidates) {
    const best = finest.get(c.info.country);
    if (best === undefined || Number(c.level) > Number(best)) finest.set(c.info.country, c.level);
  }
  return candidates.filter((c) => finest.get(c.info.country) === c.level).map(({ rings, info }) => ({ rings, info }));
}

function collectPostalAreas(osm: OsmData, polygonOf: (rel: OsmRelation) => Polygon, countryOfArea: (rings: DegreeRings) => number): AreaOut[] {
  const out: AreaOut[] = [];
  for (const rel of osm.geocoder.relations) {
    const code = postalCodeOf(rel.tags);
    if (code === null) continue;
    const polygon = polygonOf(rel);
    if (polygon.complete) out.push({ rings: polygon.rings, info: { kind: 'postal', name: code, country: countryOfArea(polygon.rings), source: 'osm' } });
  }
  // Smallest first: of nested postal areas (a district's postcode inside its county's) the reverse geocoder takes the first.
  const size = (rings: DegreeRings) =>
    rings.reduce(
      (sum, ring) => sum + Math.abs(ring.reduce((a, p, i) => a + p[1] * ring[(i + 1) % ring.length][0] - ring[(i + 1) % ring.length][1] * p[0], 0)),
      0,
    );
  return out
    .map((a) => [size(a.rings), a] as const)
    .sort((x, y) => x[0] - y[0])
    .map(([, a]) => a);
}

/**
 * The city an addr:city names: the municipality (by its centre) or city, town or village of that name
 * nearest the object within NAMED_CITY_RADIUS_M, by its own spelling; null when none is near (a tag
 * naming no place near says nothing the map can show as a city).
 */
function namedCity(strings: Strings, municipalities: AreaOut[], places: Places) {
  const byKey = new Map<string, Array<{ name: string; lat: number; lon: number }>>();
  const put = (name: string, lat: number, lon: number) => {
    const key = nameKey(name);
    byKey.set(key, [...(byKey.get(key) ?? []), { name, lat, lon }]);
  };
  for (const m of municipalities) put(m.info.name, m.info.center![0], m.info.center![1]);
  const coords = places.coords.view(),
    name = places.name.view();
  for (let i = 0; i < name.length; i++) put(strings.list[name[i]], coords[2 * i] / SCALE, coords[2 * i + 1] / SCALE);
  return (point: [number, number], tag: string): string | null => {
    let best: string | null = null,
      bestM: number = NAMED_CITY_RADIUS_M;
    const k = Math.cos((point[0] * Math.PI) / 180);
    for (const c of byKey.get(nameKey(tag)) ?? []) {
      const m = Math.hypot(c.lat - point[0], (c.lon - point[1]) * k) * METERS_PER_DEGREE;
      if (m <= bestM) (bestM = m), (best = c.name);
    }
    return best;
  };
}

type Streets = ReturnType<typeof collectStreets>;
type Places = ReturnType<typeof collectPlaces>;

/**
 * The street an address is on, as Nominatim parents it: the street its addr:street names nearby, that
 * name written with abbreviations or in another language (`Süd` for an addr:street `south` whose
 * addr:street:de is Süd, `South St` for South Street) taking the street's own name; a house of an
 * associatedStreet relation the nearest of the relation's streets; a house number without a street
 * the nearest named street. An addr:street naming no street near keeps its own name with a number
 * (the address as tagged) and is dropped without (it would send a POI to a street that is not there),
 * unless a place of that name is near (addr:street used as addr:place). Null: no street.
 */
function parentOf(osm: OsmData, strings: Strings, streets: Streets, index: StreetIndex, placeLists: Places[]) {
  const names = streets.names.view(),
    others = streets.others.view();
  const keyCache = new Map<number, string[]>();
  const keysOf = (s: number): string[] => {
    let keys = keyCache.get(s);
    if (!keys) {
      const all = [strings.list[names[s]], ...(others[s] >= 0 ? osm.strings[others[s]].split(';') : [])];
      keyCache.set(s, (keys = all.map(nameKey)));
    }
    return keys;
  };
  const placesByKey = new Map<string, number[]>();
  for (const list of placeLists) {
    const coords = list.coords.view(),
      name = list.name.view();
    for (let i = 0; i < name.length; i++) {
      const key = nameKey(strings.list[name[i]]);
      placesByKey.set(key, [...(placesByKey.get(key) ?? []), coords[2 * i], coords[2 * i + 1]]);
    }
  }
  const placeNear = (key: string, lat: number, lon: number): boolean => {
    const at = placesByKey.get(key) ?? [];
    const k = Math.cos((lat / SCALE) * (Math.PI / 180));
    const r = (NAMED_PLACE_RADIUS_M / METERS_PER_DEGREE) * SCALE;
    for (let i = 0; i < at.length; i += 2) if (Math.hypot(at[i] - lat, (at[i + 1] - lon) * k) <= r) return true;
    return false;
  };
  return (point: [number, number], street: string | null, number: string | null): string | null => {
    const lat = Math.round(point[0] * SCALE),
      lon = Math.round(point[1] * SCALE);
    if (street === null) {
      const s = number === null ? -1 : index.nearest(lat, lon, PARENT_STREET_RADIUS_M);
      return s < 0 ? null : strings.list[names[s]];
    }
    let wanted: string[];
    if (street.startsWith(ASSOCIATED_STREET_MARK)) {
      wanted = (osm.geocoder.associatedStreets[Number(street.slice(1))] ?? '').split(';').filter(Boolean);
      if (!wanted.length) return null;
    } else wanted = street.split(STREET_VARIANTS);
    // Near first, then farther: a box of NAMED_STREET_RADIUS_M holds thousands of chunks in a city, and
    // nearly every address is within PARENT_STREET_RADIUS_M of its street.
    const near = (accept: (c: number) => boolean) => {
      const c = index.nearest(lat, lon, PARENT_STREET_RADIUS_M, accept);
      return c >= 0 ? c : index.nearest(lat, lon, NAMED_STREET_RADIUS_M, accept);
    };
    // The name as written first (of "Noflerstrasse" and "Nofler Strasse" both near, the one tagged), then written otherwise.
    const exact = near((c) => wanted.includes(strings.list[names[c]]));
    if (exact >= 0) return strings.list[names[exact]];
    const keys = wanted.map(nameKey);
    const s = near((c) => keysOf(c).some((k) => keys.includes(k)));
    if (s >= 0) return strings.list[names[s]];
    if (number !== null || keys.some((k) => placeNear(k, lat, lon))) return wanted[0];
    return null;
  };
}

function collectAddresses(
  osm: OsmData,
  strings: Strings,
  countryAt: (lat: number, lon: number) => number,
  parentOf: (point: [number, number], street: string | null, number: string | null) => string | null,
  cityNamed: (point: [number, number], name: string) => string | null,
) {
  const out = {
    coords: new Growable(Int32Array),
    street: new Growable(Int32Array),
    number: new Growable(Int32Array),
    postcode: new Growable(Int32Array),
    country: new Growable(Int32Array),
    city: new Growable(Int32Array),
  };
  const add = (point: [number, number] | null, fields: AddressFields) => {
    if (!point) return;
    const street = parentOf(point, fields.street, fields.number);
    const city = fields.city === null ? null : cityNamed(point, fields.city);
    // No street: a number alone says nothing; a postcode or a city still does.
    const a: AddressFields = { street, number: street === null ? null : fields.number, postcode: fields.postcode, city };
    if (a.street === null && a.postcode === null && a.city === null) return;
    out.coords.push(Math.round(point[0] * SCALE));
    out.coords.push(Math.round(point[1] * SCALE));
    out.street.push(strings.id(a.street));
    out.number.push(strings.id(a.number));
    out.postcode.push(strings.id(a.postcode));
    out.country.push(countryAt(point[0], point[1]));
    out.city.push(strings.id(a.city));
  };
  const { addressNodes, addressWays, relationWays } = osm.geocoder;
  const fieldsAt = (fields: Int32Array, i: number): AddressFields => ({
    street: osm.strings[fields[4 * i]] ?? null,
    number: osm.strings[fields[4 * i + 1]] ?? null,
    postcode: osm.strings[fields[4 * i + 2]] ?? null,
    city: osm.strings[fields[4 * i + 3]] ?? null,
  });
  for (let i = 0; i < addressNodes.count; i++) add([addressNodes.coords[2 * i], addressNodes.coords[2 * i + 1]], fieldsAt(addressNodes.fields, i));
  for (const { point, fields } of interpolatedAddresses(osm)) add(point, fields);
  for (let i = 0; i < addressWays.count; i++) add(centroid(osm.wayPoints(addressWays.way[i])), fieldsAt(addressWays.fields, i));
  for (const r of osm.geocoder.relations) {
    const fields = addressOf(r.tags, 'relation');
    if (!fields) continue;
    const points = r.members.flatMap((m) => {
      const w = m.type === 'way' && m.role !== 'inner' ? relationWays.get(m.ref) : undefined;
      return w === undefined ? [] : osm.wayPoints(w);
    });
    add(centroid(points), fields);
  }
  return out;
}

/** Named highways as polylines, split where the extract lacks a node, in chunks of a few segments. */
function collectStreets(osm: OsmData, strings: Strings) {
  const out = {
    coords: new Growable(Int32Array),
    starts: new Growable(Uint32Array),
    names: new Growable(Int32Array),
    /** Per chunk, its street's other names in `osm.strings` (build time only: what an addr:street may call it, what search finds it by). */
    others: new Growable(Int32Array),
    /** Per chunk, its street's own postcode (in `strings`) and addr:city (in `osm.strings`, resolved by namedCity). */
    postcode: new Growable(Int32Array),
    cityTag: new Growable(Int32Array),
    ways: 0,
    segments: 0,
  };
  let vertices = 0;
  const { streets } = osm.geocoder;
  const { wayFirst, wayNodes, nodeCoords } = osm;
  let nameId = -1,
    othersId = -1,
    postcodeId = -1,
    cityTagId = -1;
  /** Emits wayNodes[from, to), all present in the extract. */
  const flush = (from: number, to: number) => {
    for (let i = from; i + 1 < to; i += MAX_STREET_SEGMENTS) {
      const end = Math.min(i + MAX_STREET_SEGMENTS + 1, to);
      out.starts.push(vertices);
      out.names.push(nameId);
      out.others.push(othersId);
      out.postcode.push(postcodeId);
      out.cityTag.push(cityTagId);
      for (let k = i; k < end; k++) {
        const n = wayNodes[k];
        out.coords.push(Math.round(nodeCoords[2 * n] * SCALE));
        out.coords.push(Math.round(nodeCoords[2 * n + 1] * SCALE));
      }
      vertices += end - i;
      out.segments += end - i - 1;
    }
  };
  for (let s = 0; s < streets.count; s++) {
    const w = streets.way[s];
    out.ways++;
    nameId = strings.id(osm.strings[streets.name[s]]);
    othersId = streets.otherNames[s];
    postcodeId = strings.id(osm.strings[streets.postcode[s]]);
    cityTagId = streets.city[s];
    let from = wayFirst[w];
    for (let k = from; k < wayFirst[w + 1]; k++) {
      if (wayNodes[k] >= 0) continue;
      flush(from, k);
      from = k + 1;
    }
    flush(from, wayFirst[w + 1]);
  }
  out.starts.push(vertices);
  return out;
}

function collectPlaces(places: OsmData['geocoder']['places'], osm: OsmData, strings: Strings, countryAt: (lat: number, lon: number) => number) {
  const out = { coords: new Growable(Int32Array), name: new Growable(Int32Array), country: new Growable(Int32Array) };
  for (let i = 0; i < places.count; i++) {
    const lat = places.coords[2 * i],
      lon = places.coords[2 * i + 1];
    out.coords.push(Math.round(lat * SCALE));
    out.coords.push(Math.round(lon * SCALE));
    out.name.push(strings.id(osm.strings[places.name[i]]));
    out.country.push(countryAt(lat, lon));
  }
  // Search only (into osm.strings): the reverse geocoder answers with the name.
  return { ...out, others: places.otherNames };
}
