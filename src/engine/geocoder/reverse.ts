// Reverse geocoding over a map's geocoder index (see DECISIONS.md, "Address and geolocation"). All
// spatial indexes are built once at load so a lookup is a handful of tree queries.
import type KDBush from 'kdbush';
import { AreaIndex, SCALE } from '../../map/geocoder/areas.js';
import { CountryLocator } from '../../map/geocoder/country-locator.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import { nearestCentre } from '../../map/geocoder/geometry.js';
import {
  geocoderIndexOf,
  parseGeocoderMeta,
  POSTCODE_NEAR_M,
  type GeocoderArrays,
  type GeocoderIndexData,
  type GeocoderMeta,
} from '../../map/geocoder/index-format.js';
import { readGeocoderDir, type GeocoderFiles } from '../../map/map-dir.js';
import { StreetIndex } from '../../map/geocoder/street-index.js';
import { ownTrees, type GeocoderTrees } from './trees.js';

export interface Address {
  /**
   * "<street> <housenumber>" when an address point lies within 30 m (its street alone when it has no
   * number: a POI or building tagged with addr:street only), else the nearest named street within 200 m.
   */
  street: string | null;
  housenumber: string | null;
  city: string | null;
  zipcode: string | null;
  country: string | null;
  /** "<street>, <zipcode> <city>, <country>" with only the parts present (street includes the house number). */
  display_name: string | null;
}

export const HOUSE_NUMBER_RADIUS_M = 30;
export const STREET_RADIUS_M = 200;
export const POSTCODE_RADIUS_M = POSTCODE_NEAR_M;
export const PLACE_RADIUS_M = 10_000;

const EMPTY: Address = Object.freeze({ street: null, housenumber: null, city: null, zipcode: null, country: null, display_name: null });
const METERS_PER_UNIT = METERS_PER_DEGREE / SCALE;

/** Nearest point of a KDBush index, in a local metric frame around the query. */
interface Nearest {
  index: number;
  meters: number;
}

export class Geocoder {
  private readonly meta: GeocoderMeta;
  private readonly a: GeocoderArrays;
  private readonly countries: CountryLocator;
  private readonly municipalities: AreaIndex;
  private readonly postal: AreaIndex;
  private readonly streets: StreetIndex;
  /** Every address point (item i: addr* index i) and every place (placeCoords index i). */
  private readonly points: KDBush;
  private readonly places: KDBush;

  /** `trees`: the index's spatial trees (trees.ts), built here unless given. */
  constructor(data: GeocoderIndexData, trees: GeocoderTrees = ownTrees(data.arrays)) {
    this.meta = data.meta;
    this.a = data.arrays;
    const areas = data.meta.areas;
    this.countries = new CountryLocator(this.a, areas);
    this.municipalities = new AreaIndex(this.a, (i) => areas[i].kind === 'municipality');
    this.postal = new AreaIndex(this.a, (i) => areas[i].kind === 'postal');
    this.streets = new StreetIndex(this.a.streetCoords, this.a.streetStarts, trees.streets);
    this.points = trees.points;
    this.places = trees.places;
  }

  get counts() {
    return this.meta.counts;
  }

  reverseGeocode(latitude: number, longitude: number): Address {
    if (!this.onMap(latitude, longitude)) return EMPTY;
    const lat = latitude * SCALE;
    const lon = longitude * SCALE;
    const kx = Math.cos((latitude * Math.PI) / 180) * METERS_PER_UNIT;
    const strings = this.meta.strings;
    const a = this.a;

    const municipalities = this.municipalities.containing(lat, lon);
    const areas = this.meta.areas;
    // No country means sea, or land the map does not cover: nothing else there is meaningful.
    const country = this.countries.countryAt(lat, lon, municipalities.length ? areas[municipalities[0]].country : -1);
    if (country < 0) return EMPTY;
    const sameCountry = (c: number) => c === country;

    // The street: the address point's near (its own), else the nearest named street. The city: the nearest
    // tagged object's addr:city (within 30 m: the POI's own object), else the address point's street's,
    // else the municipality around (of two, the one centred nearer), else the nearest town. The postcode:
    // the nearest tagged object's, else the address point's street's, else the smallest postal area's
    // (a postal boundary, or the lowest administrative one with a postcode), else the nearest postcode
    // tagged around: Nominatim's order (own, street's, area's, estimated).
    const own = this.nearest(this.points, a.addrCoords, lat, lon, kx, HOUSE_NUMBER_RADIUS_M, () => true);
    let street: string | null = null;
    let housenumber: string | null = null;
    let zipcode: string | null = own && a.addrPostcode[own.index] >= 0 ? strings[a.addrPostcode[own.index]] : null;
    let city: string | null = own && a.addrCity[own.index] >= 0 ? strings[a.addrCity[own.index]] : null;
    let streetChunk = -1;
    const house = this.nearest(this.points, a.addrCoords, lat, lon, kx, HOUSE_NUMBER_RADIUS_M, (i) => a.addrStreet[i] >= 0);
    if (house) {
      const i = house.index;
      housenumber = a.addrNumber[i] >= 0 ? strings[a.addrNumber[i]] : null;
      street = housenumber === null ? strings[a.addrStreet[i]] : `${strings[a.addrStreet[i]]} ${housenumber}`;
      if (zipcode === null && a.addrPostcode[i] >= 0) zipcode = strings[a.addrPostcode[i]];
      if (city === null && a.addrCity[i] >= 0) city = strings[a.addrCity[i]];
      const name = a.addrStreet[i];
      streetChunk = this.streets.nearest(a.addrCoords[2 * i], a.addrCoords[2 * i + 1], STREET_RADIUS_M, (s) => a.streetNames[s] === name);
    } else {
      streetChunk = this.streets.nearest(lat, lon, STREET_RADIUS_M);
      if (streetChunk >= 0) street = strings[a.streetNames[streetChunk]];
    }
    if (streetChunk >= 0) {
      if (zipcode === null && a.streetPostcode[streetChunk] >= 0) zipcode = strings[a.streetPostcode[streetChunk]];
      if (city === null && a.streetCity[streetChunk] >= 0) city = strings[a.streetCity[streetChunk]];
    }
    if (city === null) {
      const m = nearestCentre(municipalities, (i) => areas[i], country, latitude, longitude);
      if (m >= 0) city = areas[m].name;
    }
    if (city === null) {
      const place = this.nearest(this.places, a.placeCoords, lat, lon, kx, PLACE_RADIUS_M, (i) => sameCountry(a.placeCountry[i]));
      if (place) city = strings[a.placeName[place.index]];
    }
    zipcode ??= this.smallestAreaName(this.postal.containing(lat, lon), country);
    if (zipcode === null) {
      const p = this.nearest(this.points, a.addrCoords, lat, lon, kx, POSTCODE_RADIUS_M, (i) => a.addrPostcode[i] >= 0 && sameCountry(a.addrCountry[i]));
      if (p) zipcode = strings[a.addrPostcode[p.index]];
    }

    const countryName = this.meta.countries[country].name;
    const locality = [zipcode, city].filter((s) => s !== null).join(' ');
    const display = [street, locality || null, countryName].filter((s) => s !== null).join(', ');
    return { street, housenumber, city, zipcode, country: countryName, display_name: display };
  }

  private onMap(lat: number, lon: number): boolean {
    const g = this.meta.coverage;
    const row = Math.floor((lat - g.minLat) / g.cellDegrees);
    const col = Math.floor((lon - g.minLon) / g.cellDegrees);
    return row >= 0 && row < g.rows && col >= 0 && col < g.cols && this.a.coverage[row * g.cols + col] === 1;
  }

  /** Name of the containing area listed first (the build lists postal areas smallest first), preferring the point's own country. */
  private smallestAreaName(found: number[], country: number): string | null {
    return this.areaName(
      found.sort((x, y) => x - y),
      country,
    );
  }

  /** Name of one of the containing areas, preferring one of the point's own country. */
  private areaName(found: number[], country: number): string | null {
    if (found.length === 0) return null;
    const areas = this.meta.areas;
    return areas[found.find((i) => areas[i].country === country) ?? found[0]].name;
  }

  /** The point of `tree` nearest to (lat, lon) within `radiusM` of those `accept` takes; of equally near
   *  ones the lowest index, whatever order the tree gives them in. */
  private nearest(tree: KDBush, coords: Int32Array, lat: number, lon: number, kx: number, radiusM: number, accept: (i: number) => boolean): Nearest | null {
    const dLat = radiusM / METERS_PER_UNIT;
    const dLon = radiusM / kx;
    let best: Nearest | null = null;
    for (const i of tree.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      const dx = (coords[2 * i + 1] - lon) * kx;
      const dy = (coords[2 * i] - lat) * METERS_PER_UNIT;
      const m = Math.sqrt(dx * dx + dy * dy);
      if (m <= radiusM && (!best || m < best.meters || (m === best.meters && i < best.index)) && accept(i)) best = { index: i, meters: m };
    }
    return best;
  }
}

/** The index over its files (map-dir.ts), in place. */
export const geocoderData = (files: GeocoderFiles): GeocoderIndexData => geocoderIndexOf(parseGeocoderMeta(files['index.json'], 'index.json'), files);

/** The geocoder over an index's files, with trees of its own. */
export const geocoderFromFiles = (files: GeocoderFiles): Geocoder => new Geocoder(geocoderData(files));

/** The geocoder of a directory holding only a geocoder index (written by buildGeocoderIndex: tests, tools). */
export const loadGeocoder = async (dir: string): Promise<Geocoder> => geocoderFromFiles(await readGeocoderDir(dir));
