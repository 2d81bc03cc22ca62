// Which country a point lies in. Complete OSM country polygons win; Natural Earth covers the countries
// the extract cuts off. The index never holds a Natural Earth polygon for a country whose complete OSM
// polygon exists, so Natural Earth's coarse outline of that country cannot claim points outside it.
// Between the two, a complete OSM municipality containing the point gives its country (decided over
// its whole area at build time): Natural Earth's 1:10m borders are off by up to a kilometre or so,
// which matters next to a country as small as Monaco. A point just outside every Natural Earth
// outline (a coarse coastline) takes the nearest Natural Earth country within COARSE_TOLERANCE_M; a
// point that only Natural Earth's (enlarged) outline of a small OSM-mapped country covers takes the
// nearest other country within OVERREACH_TOLERANCE_M.
import { AreaIndex, SCALE, type FlatAreas } from './areas.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import type { AreaInfo } from './index-format.js';

export const COARSE_TOLERANCE_M = 2_000;
export const OVERREACH_TOLERANCE_M = 10_000;
const METERS_PER_UNIT = METERS_PER_DEGREE / SCALE;

export class CountryLocator {
  private readonly index: AreaIndex;
  private readonly coarse: AreaIndex;

  constructor(
    areas: FlatAreas,
    private readonly info: readonly AreaInfo[],
  ) {
    this.index = new AreaIndex(areas, (a) => info[a].kind === 'country');
    this.coarse = new AreaIndex(areas, (a) => info[a].kind === 'country' && info[a].source === 'natural-earth');
  }

  /** Index of the country of the (scaled) point, or -1; municipalityCountry: that of the municipality containing it, if any. */
  countryAt(lat: number, lon: number, municipalityCountry = -1): number {
    let fallback = -1;
    let superseded = false;
    for (const a of this.index.containing(lat, lon)) {
      const { source, country } = this.info[a];
      if (source === 'osm') return country;
      if (source === 'superseded') superseded = true;
      else fallback = country;
    }
    if (municipalityCountry >= 0) return municipalityCountry;
    if (fallback >= 0) return fallback;
    const kx = Math.cos((lat / SCALE) * (Math.PI / 180)) * METERS_PER_UNIT;
    const near = this.coarse.nearestEdge(lat, lon, kx, METERS_PER_UNIT, superseded ? OVERREACH_TOLERANCE_M : COARSE_TOLERANCE_M);
    return near >= 0 ? this.info[near].country : -1;
  }
}
