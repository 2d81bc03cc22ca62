// Nominatim's import feature files (test/bdd/features/db/import: parenting, addressing, postcodes) as a
// peer test of the address model. Nominatim states what it stores per object (`placex`: the parent
// street or place, the house number, the postcode; `place_addressline`: the areas of its address);
// Waymark stores no objects, it answers the address of a point. So each object is asked for the
// address a POI at its position gets (GET /v1/geo/reverse, the background geocoder): at an address
// point that is the point's own address, anywhere else the street and areas around it; a named street
// for the address search gives it (GET /v1/geo/search, the street's city and postcode). Compared:
// - parent_place_id: the answer's street is the parent's name (a street, or the place of addr:place);
// - housenumber and postcode: the answer's (`None`: none);
// - place_addressline: the answer's city is the area's name when `isaddress` is true (or not given),
//   is not when false; `exactly` also asks that the city be none of the areas not listed.
// Skipped with the reason: what Waymark's address has no field for (states, counties, districts and
// hamlets of an address line, ranks), and the address of an area or street itself (Waymark answers
// points; a street is reached only as the street of an address).
import type { Geocoder } from '../../engine/geocoder/reverse.js';
import type { SearchIndex } from '../../engine/geocoder/search.js';
import { centroid } from '../../map/geocoder/geometry.js';
import type { RowResult, Step } from './osrm-features.js';

/** An OSM object of a scenario (nominatim-features.ts builds them). */
export interface Obj {
  id: string;
  tags: Record<string, string>;
  /** lat, lon of a node, or the points of a way. */
  points: Array<[number, number]>;
  kind: 'N' | 'W' | 'R';
}

/** What a scenario built: its objects, the map's reverse geocoder and search index, or why it is skipped. */
interface World {
  skip: string | null;
  geocoder: Geocoder | null;
  index: SearchIndex | null;
  object(id: string): Obj | undefined;
}

/** admin_level of the boundaries that can be an address's city in Waymark (MUNICIPALITY_LEVELS). */
const CITY_LEVELS = new Set(['6', '7', '8']);
const CITY_PLACES = new Set(['city', 'town', 'village']);

const isArea = (o: Obj) => o.kind === 'R' || (o.points.length >= 4 && o.tags.highway === undefined && o.tags.building === undefined);
const isStreet = (o: Obj) => o.kind !== 'N' && o.tags.highway !== undefined;

/** Why Waymark cannot answer for `subject` (a row then is skipped), or null. */
function unanswerable(subject: Obj): string | null {
  if (isArea(subject)) return "an area's own address (Waymark answers the address of a point)";
  if (isStreet(subject) && !subject.tags.name) return 'an unnamed road (Waymark keeps only named streets)';
  return null;
}

/** The point a POI standing for the object is placed at: a node's position, an area's centroid, a line's middle. */
function positionOf(o: Obj): [number, number] {
  const p = o.points;
  if (p.length === 1) return p[0];
  const closed = p.length >= 4 && p[0][0] === p[p.length - 1][0] && p[0][1] === p[p.length - 1][1];
  if (closed) return centroid(p) ?? p[0];
  const i = (p.length - 1) >> 1;
  return [(p[i][0] + p[i + 1][0]) / 2, (p[i][1] + p[i + 1][1]) / 2];
}

interface Answer {
  street: string | null;
  housenumber: string | null;
  postcode: string | null;
  city: string | null;
}

function answerFor(world: World, o: Obj): Answer | null {
  if (!world.geocoder || !world.index) return null;
  const [lat, lon] = positionOf(o);
  if (isStreet(o) && o.tags.name) {
    // A street's own address is the one search gives the street (its city and postcode), not that of a POI beside it.
    const hit = world.index
      .search({ text: o.tags.name, limit: 50 })
      .find(
        (h) =>
          h.kind === 'street' && h.name === o.tags.name && lat >= h.box[0] - 1e-6 && lat <= h.box[2] + 1e-6 && lon >= h.box[1] - 1e-6 && lon <= h.box[3] + 1e-6,
      );
    return hit
      ? { street: hit.name, housenumber: null, postcode: hit.address.zipcode, city: hit.address.city }
      : { street: null, housenumber: null, postcode: null, city: null };
  }
  const a = world.geocoder.reverseGeocode(lat, lon);
  // The street field carries the number ("Städtle 38"); the parent is the street alone.
  const street =
    a.street !== null && a.housenumber !== null && a.street.endsWith(` ${a.housenumber}`) ? a.street.slice(0, -a.housenumber.length - 1) : a.street;
  return { street, housenumber: a.housenumber, postcode: a.zipcode, city: a.city };
}

const none = (v: string) => (v === 'None' || v === '' ? null : v);
const show = (a: Answer) => `street ${a.street ?? '-'}, number ${a.housenumber ?? '-'}, postcode ${a.postcode ?? '-'}, city ${a.city ?? '-'}`;

export function checkPlacex(world: World, scenario: string, step: Step): RowResult[] {
  const [head, ...rows] = step.table!;
  const out: RowResult[] = [];
  for (const row of rows) {
    const cell = (h: string) => row[head.indexOf(h)];
    const subject = world.object(cell('object'));
    for (const col of head) {
      if (col === 'object') continue;
      const label = `placex: ${cell('object')} ${col} = ${cell(col)}`;
      const skip = (detail: string) => out.push({ scenario, row: label, status: 'skipped', detail });
      if (world.skip) {
        skip(world.skip);
        continue;
      }
      if (!['parent_place_id', 'housenumber', 'postcode'].includes(col)) {
        skip(`compares ${col} (Nominatim's internal ranks)`);
        continue;
      }
      const unfit = subject ? unanswerable(subject) : 'an object the scenario does not place';
      if (!subject || unfit) {
        skip(unfit ?? '');
        continue;
      }
      if (col === 'parent_place_id' && isStreet(subject)) {
        skip("a street's parent (Waymark's streets are no address's children)");
        continue;
      }
      const answer = answerFor(world, subject);
      if (!answer) {
        skip('the scenario built no map');
        continue;
      }
      let ok: boolean;
      if (col === 'parent_place_id') {
        const parent = world.object(cell(col));
        if (!parent) {
          skip(`the parent ${cell(col)} is no object of the scenario`);
          continue;
        }
        // A parent named only in name:xx is found under that name (Waymark's street name, streetName()).
        const names = Object.entries(parent.tags)
          .filter(([k]) => k === 'name' || k.startsWith('name:'))
          .map(([, v]) => v);
        ok = answer.street !== null && names.includes(answer.street);
      } else if (col === 'housenumber') ok = answer.housenumber === none(cell(col));
      else ok = answer.postcode === none(cell(col));
      out.push({ scenario, row: label, status: ok ? 'agree' : 'disagree', detail: ok ? undefined : show(answer) });
    }
  }
  return out;
}

/** Whether Waymark's address can name the area as its city, or why not. */
function cityField(a: Obj): string | null {
  if (a.tags.boundary === 'administrative') {
    if (a.kind !== 'R') return 'a boundary drawn as a way (Waymark reads boundary relations)';
    return CITY_LEVELS.has(a.tags.admin_level)
      ? null
      : `an admin_level ${a.tags.admin_level} area (Waymark's address names the municipality, levels 6–8, and the country)`;
  }
  if (CITY_PLACES.has(a.tags.place)) return a.kind === 'N' ? null : 'a place drawn as an area (Waymark reads place nodes and boundaries)';
  return `a place=${a.tags.place ?? a.tags.landuse ?? '?'} (never an address's city in Waymark)`;
}

export function checkAddressLines(world: World, scenario: string, step: Step, exactly: boolean): RowResult[] {
  const [head, ...rows] = step.table!;
  const out: RowResult[] = [];
  const cell = (row: string[], h: string) => (head.includes(h) ? row[head.indexOf(h)] : '');
  const subjects = new Map<string, string[]>();
  for (const row of rows) {
    const label = `place_addressline: ${head.map((h, i) => `${h}=${row[i]}`).join(' ')}`;
    const skip = (detail: string) => out.push({ scenario, row: label, status: 'skipped', detail });
    const subject = world.object(cell(row, 'object'));
    const area = world.object(cell(row, 'address'));
    if (world.skip) {
      skip(world.skip);
      continue;
    }
    const unfit = subject && area ? unanswerable(subject) : 'an object the scenario does not place';
    if (!subject || !area || unfit) {
      skip(unfit ?? '');
      continue;
    }
    const why = cityField(area);
    const isAddress = cell(row, 'isaddress') !== 'False';
    if (isAddress) subjects.set(subject.id, [...(subjects.get(subject.id) ?? []), area.tags.name ?? '']);
    else subjects.set(subject.id, subjects.get(subject.id) ?? []);
    if (why) {
      skip(why);
      continue;
    }
    const answer = answerFor(world, subject);
    if (!answer) {
      skip('the scenario built no map');
      continue;
    }
    const ok = isAddress ? answer.city === area.tags.name : answer.city !== area.tags.name;
    out.push({ scenario, row: label, status: ok ? 'agree' : 'disagree', detail: ok ? undefined : show(answer) });
  }
  if (exactly && !world.skip) {
    // Nothing beyond the listed areas: the city, if any, is one of them.
    for (const [id, names] of subjects) {
      const o = world.object(id)!;
      if (isStreet(o) && !o.tags.name) continue;
      const answer = answerFor(world, o);
      if (!answer) continue;
      const ok = answer.city === null || names.includes(answer.city);
      out.push({
        scenario,
        row: `place_addressline exactly: ${id} has no other city`,
        status: ok ? 'agree' : 'disagree',
        detail: ok ? undefined : show(answer),
      });
    }
    if (rows.length === 0)
      out.push({ scenario, row: 'place_addressline contains exactly nothing', status: 'skipped', detail: 'an empty table names no object to ask' });
  }
  return out;
}
