// Builds the reverse-geocoding index of a map from an OSM extract: countries (complete OSM polygons,
// Natural Earth where the extract cuts them), municipalities, postal areas, address points, named
// streets, places, and a coverage grid telling which points are on the map at all.
import type { OsmData } from '../map/osm-data.js';
import type { OsmRelation } from '../map/osm-pbf.js';
import { AreaIndex, flattenAreas, SCALE, type DegreeRings } from './areas.js';
import { CountryLocator } from './country-locator.js';
import { centroid, interiorPoint, ringsContain } from './geometry.js';
import {
  GEOCODER_FORMAT,
  writeGeocoderIndex,
  type AreaInfo,
  type CountryInfo,
  type CoverageGrid,
  type GeocoderCounts,
  type GeocoderIndexData,
} from './index-format.js';
import { naturalEarthCountries, type Bbox, type NaturalEarthCountry } from './natural-earth.js';
import { assembleRings } from './rings.js';

const MUNICIPALITY_LEVELS = ['8', '7', '6'];
const COVERAGE_CELL_DEGREES = 0.05;
const PLACE_TYPES = new Set(['city', 'town', 'village']);
// Highway values that are points or areas of service rather than streets one has an address on.
const NOT_STREETS = new Set(['bus_stop', 'platform', 'elevator', 'emergency_access_point', 'services', 'rest_area', 'proposed', 'razed', 'abandoned', 'turning_circle']);
// Chunked so a segment index at load time stays small; short enough that a chunk's box stays tight.
const MAX_STREET_SEGMENTS = 8;

/** Builds the index and writes it to `<outDir>/geocoder/`. */
export async function buildGeocoderIndex(osm: OsmData, outDir: string): Promise<GeocoderCounts> {
  const data = buildGeocoderData(osm);
  await writeGeocoderIndex(outDir, data);
  return data.meta.counts;
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

function buildGeocoderData(osm: OsmData): GeocoderIndexData {
  const polygonOf = relationPolygons(osm);
  const coverage = coverageGrid(osm);
  const countries = collectCountries(osm, polygonOf, coverage.grid);
  const countryFlat = flattenAreas(countries.areas.map((a) => a.rings));
  const locator = new CountryLocator(countryFlat, countries.areas.map((a) => a.info));
  const countryOfArea = (rings: DegreeRings) => majorityCountry(rings, (lat, lon) => locator.countryAt(lat, lon));
  const municipalities = collectMunicipalities(osm, polygonOf, countryOfArea);
  const postal = collectPostalAreas(osm, polygonOf, countryOfArea);
  const areas = [...countries.areas, ...municipalities, ...postal];

  // Points take the country the geocoder will give them, municipality included.
  const municipalityFlat = flattenAreas(municipalities.map((m) => m.rings));
  const municipalityIndex = new AreaIndex(municipalityFlat);
  const countryAt = (latDeg: number, lonDeg: number) => {
    const lat = latDeg * SCALE, lon = lonDeg * SCALE;
    const inside = municipalityIndex.containing(lat, lon);
    return locator.countryAt(lat, lon, inside.length ? municipalities[inside[0]].info.country : -1);
  };
  const strings = new Strings();
  const addresses = collectAddresses(osm, strings, countryAt);
  const streets = collectStreets(osm, strings);
  const places = collectPlaces(osm, strings, countryAt);

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
  return {
    meta: { format: GEOCODER_FORMAT, strings: strings.list, countries: countries.list, areas: areas.map((a) => a.info), coverage: coverage.grid, counts },
    arrays: {
      ...flattenAreas(areas.map((a) => a.rings)),
      streetCoords: Int32Array.from(streets.coords),
      streetStarts: Uint32Array.from(streets.starts),
      streetNames: Int32Array.from(streets.names),
      addrCoords: Int32Array.from(addresses.coords),
      addrStreet: Int32Array.from(addresses.street),
      addrNumber: Int32Array.from(addresses.number),
      addrPostcode: Int32Array.from(addresses.postcode),
      addrCountry: Int32Array.from(addresses.country),
      placeCoords: Int32Array.from(places.coords),
      placeName: Int32Array.from(places.name),
      placeCountry: Int32Array.from(places.country),
      coverage: coverage.cells,
    },
  };
}

const SAMPLE_GRID = 12;

/** Points of a regular grid over the area's bounding box that lie inside it. */
function sampleInside(rings: DegreeRings): [number, number][] {
  const shape = new AreaIndex(flattenAreas([rings]));
  let minLat = Infinity, minLon = Infinity, maxLat = -Infinity, maxLon = -Infinity;
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

function isAdmin(rel: OsmRelation, levels: string[]): boolean {
  return rel.tags.boundary === 'administrative' && levels.includes(rel.tags.admin_level);
}

function postalCodeOf(rel: OsmRelation): string | null {
  const code = rel.tags.postal_code;
  if (!code || code.includes(';')) return null;
  return rel.tags.boundary === 'postal_code' || rel.tags.boundary === 'administrative' ? code : null;
}

/** Assembles the boundary relations the geocoder uses; ways are looked up only for those relations. */
function relationPolygons(osm: OsmData): (rel: OsmRelation) => Polygon {
  const wanted = osm.relations.filter((r) => isAdmin(r, ['2', ...MUNICIPALITY_LEVELS]) || postalCodeOf(r) !== null);
  const wayIds = new Set<number>();
  for (const r of wanted) for (const m of r.members) if (m.type === 'way') wayIds.add(m.ref);
  const refsOf = new Map<number, number[]>();
  for (const w of osm.ways) if (wayIds.has(w.id)) refsOf.set(w.id, w.refs);
  const cache = new Map<number, Polygon>();
  return (rel) => {
    let polygon = cache.get(rel.id);
    if (!polygon) {
      const assembled = assembleRings(rel.members.filter((m) => m.type === 'way').map((m) => ({ role: m.role, refs: refsOf.get(m.ref) ?? null })));
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
  for (const rel of osm.relations) {
    if (!isAdmin(rel, ['2'])) continue;
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
      country = list.push({ name, iso: iso ?? (match?.id || null), osmComplete: false }) - 1;
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
    if (country === undefined) country = list.push({ name: c.name, iso: c.id || null, osmComplete: false }) - 1;
    const source = list[country].osmComplete ? 'superseded' : 'natural-earth';
    neAreas.push({ rings: c.rings, info: { kind: 'country', name: list[country].name, country, source } });
  }
  return { list, areas: [...osmAreas, ...neAreas] };
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

/** Per country the finest municipality level present: 8, else 7, else 6. */
function collectMunicipalities(osm: OsmData, polygonOf: (rel: OsmRelation) => Polygon, countryOfArea: (rings: DegreeRings) => number): AreaOut[] {
  const candidates: (AreaOut & { level: string })[] = [];
  for (const rel of osm.relations) {
    if (!isAdmin(rel, MUNICIPALITY_LEVELS) || !rel.tags.name) continue;
    const polygon = polygonOf(rel);
    if (!polygon.complete) continue;
    const info: AreaInfo = { kind: 'municipality', name: municipalityName(rel.tags), country: countryOfArea(polygon.rings), source: 'osm' };
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
  for (const rel of osm.relations) {
    const code = postalCodeOf(rel);
    if (code === null) continue;
    const polygon = polygonOf(rel);
    if (polygon.complete) out.push({ rings: polygon.rings, info: { kind: 'postal', name: code, country: countryOfArea(polygon.rings), source: 'osm' } });
  }
  return out;
}

function wayPoints(osm: OsmData, refs: readonly number[]): [number, number][] {
  const points: [number, number][] = [];
  for (const id of refs) {
    const c = osm.coord(id);
    if (c) points.push(c);
  }
  return points;
}

function collectAddresses(osm: OsmData, strings: Strings, countryAt: (lat: number, lon: number) => number) {
  const out = { coords: [] as number[], street: [] as number[], number: [] as number[], postcode: [] as number[], country: [] as number[] };
  const add = (point: [number, number] | null, tags: Record<string, string>) => {
    if (!point) return;
    const street = tags['addr:street'] || tags['addr:place'];
    const number = tags['addr:housenumber'];
    const postcode = tags['addr:postcode'];
    if (!(street && number) && !postcode) return;
    out.coords.push(Math.round(point[0] * SCALE), Math.round(point[1] * SCALE));
    out.street.push(street && number ? strings.id(street) : -1);
    out.number.push(street && number ? strings.id(number) : -1);
    out.postcode.push(strings.id(postcode));
    out.country.push(countryAt(point[0], point[1]));
  };
  const hasAddress = (tags: Record<string, string>) => 'addr:housenumber' in tags || 'addr:postcode' in tags;
  for (const n of osm.taggedNodes) if (n.tags && hasAddress(n.tags)) add([n.lat, n.lon], n.tags);
  for (const w of osm.ways) if (hasAddress(w.tags) && !w.tags.boundary) add(centroid(wayPoints(osm, w.refs)), w.tags);
  const wayRefs = new Map<number, number[]>();
  const addressRelations = osm.relations.filter((r) => hasAddress(r.tags) && !r.tags.boundary);
  const memberIds = new Set(addressRelations.flatMap((r) => r.members.filter((m) => m.type === 'way' && m.role !== 'inner').map((m) => m.ref)));
  for (const w of osm.ways) if (memberIds.has(w.id)) wayRefs.set(w.id, w.refs);
  for (const r of addressRelations) {
    const points = r.members.flatMap((m) => (m.type === 'way' && m.role !== 'inner' ? wayPoints(osm, wayRefs.get(m.ref) ?? []) : []));
    add(centroid(points), r.tags);
  }
  return out;
}

/** Named highways as polylines, split where the extract lacks a node, in chunks of a few segments. */
function collectStreets(osm: OsmData, strings: Strings) {
  const out = { coords: [] as number[], starts: [] as number[], names: [] as number[], ways: 0, segments: 0 };
  let vertices = 0;
  for (const w of osm.ways) {
    const highway = w.tags.highway;
    const name = w.tags.name;
    if (!highway || !name || NOT_STREETS.has(highway)) continue;
    out.ways++;
    const nameId = strings.id(name);
    let run: [number, number][] = [];
    const flush = () => {
      for (let i = 0; i + 1 < run.length; i += MAX_STREET_SEGMENTS) {
        const part = run.slice(i, i + MAX_STREET_SEGMENTS + 1);
        out.starts.push(vertices);
        out.names.push(nameId);
        for (const [lat, lon] of part) out.coords.push(Math.round(lat * SCALE), Math.round(lon * SCALE));
        vertices += part.length;
        out.segments += part.length - 1;
      }
      run = [];
    };
    for (const id of w.refs) {
      const c = osm.coord(id);
      if (c) run.push(c);
      else flush();
    }
    flush();
  }
  out.starts.push(vertices);
  return out;
}

function collectPlaces(osm: OsmData, strings: Strings, countryAt: (lat: number, lon: number) => number) {
  const out = { coords: [] as number[], name: [] as number[], country: [] as number[] };
  for (const n of osm.taggedNodes) {
    if (!n.tags || !PLACE_TYPES.has(n.tags.place) || !n.tags.name) continue;
    out.coords.push(Math.round(n.lat * SCALE), Math.round(n.lon * SCALE));
    out.name.push(strings.id(n.tags.name));
    out.country.push(countryAt(n.lat, n.lon));
  }
  return out;
}

/** Marks the grid cells holding nodes, plus their neighbours, so a point just past the last node still counts as on the map. */
function coverageGrid(osm: OsmData): { grid: CoverageGrid; cells: Uint8Array } {
  const c = osm.nodeCoords;
  let minLat = Infinity, minLon = Infinity, maxLat = -Infinity, maxLon = -Infinity;
  for (let i = 0; i < c.length; i += 2) {
    if (c[i] < minLat) minLat = c[i];
    if (c[i] > maxLat) maxLat = c[i];
    if (c[i + 1] < minLon) minLon = c[i + 1];
    if (c[i + 1] > maxLon) maxLon = c[i + 1];
  }
  const d = COVERAGE_CELL_DEGREES;
  if (c.length === 0) return { grid: { minLat: 0, minLon: 0, cellDegrees: d, rows: 0, cols: 0 }, cells: new Uint8Array(0) };
  const grid: CoverageGrid = {
    minLat: Math.floor(minLat / d) * d - d,
    minLon: Math.floor(minLon / d) * d - d,
    cellDegrees: d,
    rows: 0,
    cols: 0,
  };
  grid.rows = Math.floor((maxLat - grid.minLat) / d) + 2;
  grid.cols = Math.floor((maxLon - grid.minLon) / d) + 2;
  const hit = new Uint8Array(grid.rows * grid.cols);
  for (let i = 0; i < c.length; i += 2) {
    hit[Math.floor((c[i] - grid.minLat) / d) * grid.cols + Math.floor((c[i + 1] - grid.minLon) / d)] = 1;
  }
  const cells = new Uint8Array(hit.length);
  for (let r = 0; r < grid.rows; r++) {
    for (let col = 0; col < grid.cols; col++) {
      if (!hit[r * grid.cols + col]) continue;
      for (let dr = -1; dr <= 1; dr++) {
        for (let dc = -1; dc <= 1; dc++) {
          const rr = r + dr, cc = col + dc;
          if (rr >= 0 && rr < grid.rows && cc >= 0 && cc < grid.cols) cells[rr * grid.cols + cc] = 1;
        }
      }
    }
  }
  return { grid, cells };
}
