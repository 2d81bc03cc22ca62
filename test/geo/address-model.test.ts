// The address model as Nominatim parents it (issue 32, point 7; its db/import feature files are run by
// src/cli/peer/nominatim-import.ts), on the real extracts of Liechtenstein, Andorra and Monaco. Every
// expected answer is an OSM object's own tag: its addr:street, addr:city, addr:postcode, house number,
// or the name of the street way it names.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGeocoder, type Geocoder } from '../../src/engine/geocoder/reverse.js';
import { loadSearchIndex, type SearchIndex } from '../../src/engine/geocoder/search.js';
import { greatCircleMeters } from '../../src/lib/geo/sphere.js';
import { projectRoot } from '../../src/lib/paths.js';
import { centroid } from '../../src/map/geocoder/geometry.js';
import { buildGeocoderIndex } from '../../src/map/geocoder/index-build.js';
import { loadOsm, type OsmData } from '../../src/map/osm/osm-data.js';

const NAMES = ['liechtenstein', 'andorra', 'monaco'] as const;
type Name = (typeof NAMES)[number];

interface Extract {
  osm: OsmData;
  geocoder: Geocoder;
  search: SearchIndex;
  /** Every node and non-highway way with tags, at its position (a way at its centroid, as the map build places it). */
  objects: Array<{ id: string; point: [number, number]; tags: Record<string, string> }>;
  /** Named highways: name and vertices. */
  streets: Array<{ name: string; points: Array<[number, number]> }>;
  /** The objects by cell of 1e-5° ("i,j"). */
  cells: Map<string, Extract['objects']>;
}

const cellOf = (p: [number, number]) => [Math.round(p[0] * 1e5), Math.round(p[1] * 1e5)];

const extracts = {} as Record<Name, Extract>;
const dirs: string[] = [];

beforeAll(async () => {
  for (const name of NAMES) {
    const osm = await loadOsm(join(projectRoot, '..', 'shared', 'data', 'osm', `${name}.osm.pbf`));
    const dir = await mkdtemp(join(tmpdir(), `waymark-address-model-${name}-`));
    dirs.push(dir);
    await buildGeocoderIndex(osm, dir);
    const objects: Extract['objects'] = [];
    for (const n of osm.taggedNodes) objects.push({ id: `n${n.id}`, point: [n.lat, n.lon], tags: n.tags! });
    const streets: Extract['streets'] = [];
    for (const w of osm.ways) {
      const points = w.refs.map((r) => osm.coord(r)).filter((p): p is [number, number] => p !== undefined);
      if (!points.length) continue;
      if (w.tags.highway) {
        if (w.tags.name) streets.push({ name: w.tags.name, points });
      } else objects.push({ id: `w${w.id}`, point: centroid(points)!, tags: w.tags });
    }
    const cells = new Map<string, Extract['objects']>();
    for (const o of objects) {
      const key = cellOf(o.point).join(',');
      cells.set(key, [...(cells.get(key) ?? []), o]);
    }
    extracts[name] = { osm, geocoder: await loadGeocoder(dir), search: await loadSearchIndex(dir), objects, streets, cells };
  }
});

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const meters = (a: [number, number], b: [number, number]) => greatCircleMeters(a[0], a[1], b[0], b[1]);
/**
 * Whether another object `has` lies within half a metre of `o`: two tagged objects on one spot, where a
 * POI can only have one address. Looked up in the cells of 1e-5° (about a metre) around.
 */
function sharesSpot(e: Extract, o: Extract['objects'][number], has: (tags: Record<string, string>) => boolean): boolean {
  const [i, j] = cellOf(o.point);
  for (let di = -1; di <= 1; di++) {
    for (let dj = -1; dj <= 1; dj++) {
      for (const x of e.cells.get(`${i + di},${j + dj}`) ?? []) if (x !== o && has(x.tags) && meters(x.point, o.point) < 0.5) return true;
    }
  }
  return false;
}
/** The street ways of that exact name with a vertex within `radius` of the point. */
const streetsNamed = (e: Extract, name: string, point: [number, number], radius = 1000) =>
  e.streets.filter((s) => s.name === name && s.points.some((p) => meters(p, point) <= radius));
/** Members with role house of associatedStreet relations: their street is the relation's, not their own addr:street. */
const associatedHouses = (e: Extract) =>
  new Set(
    e.osm.relations
      .filter((r) => r.tags.type === 'associatedStreet')
      .flatMap((r) => r.members.filter((m) => m.role === 'house').map((m) => `${m.type[0]}${m.ref}`)),
  );

describe('addr:street parents an object to the street of that name nearby', () => {
  it.each([
    ['liechtenstein', 'St. Martins-Ring', 'Sankt Martins-Ring'],
    ['liechtenstein', 'St. Luziweg', 'Sankt Luziweg'],
    ['liechtenstein', 'Vorarlbergerstrasse', 'Vorarlberger Strasse'],
    ['monaco', 'Place de la mairie', 'Place de la Mairie'],
    ['monaco', 'Avenue saint laurent', 'Avenue Saint-Laurent'],
  ] as const)('%s: an addr:street "%s" (abbreviated, cased or joined otherwise) is on "%s", by the street’s own name', (name, tagged, street) => {
    const e = extracts[name];
    const tagged_ = e.objects.filter((o) => o.tags['addr:street'] === tagged);
    expect(tagged_.length).toBeGreaterThan(0);
    for (const o of tagged_) {
      // The street the tag means is in the extract, near the object, and no street carries the tag's spelling.
      expect(streetsNamed(e, street, o.point).length).toBeGreaterThan(0);
      expect(e.streets.some((s) => s.name === tagged)).toBe(false);
      const number = o.tags['addr:housenumber'] ?? null;
      expect(e.geocoder.reverseGeocode(...o.point)).toMatchObject({ street: number === null ? street : `${street} ${number}`, housenumber: number });
    }
  });

  it('gives a POI or building tagged with addr:street and no number its own street, never a neighbour’s number', () => {
    let checked = 0,
      besideHouses = 0;
    for (const name of ['liechtenstein', 'monaco'] as const) {
      const e = extracts[name];
      const houses = associatedHouses(e);
      const numbered = e.objects.filter((o) => o.tags['addr:housenumber']);
      for (const o of e.objects) {
        const street = o.tags['addr:street'];
        if (!street || o.tags['addr:housenumber'] || houses.has(o.id) || streetsNamed(e, street, o.point).length === 0) continue;
        // Two tagged objects on one spot: a POI there can only have one of their addresses.
        if (sharesSpot(e, o, (t) => !!(t['addr:street'] || t['addr:housenumber']))) continue;
        if (numbered.some((h) => meters(h.point, o.point) <= 30)) besideHouses++;
        expect(e.geocoder.reverseGeocode(...o.point), `${name} ${o.id} ${o.tags.name ?? ''}`).toMatchObject({ street, housenumber: null });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
    // The case that matters: a numbered house within 30 m, whose number the POI does not take.
    expect(besideHouses).toBeGreaterThan(5);
  });
});

describe('city and postcode', () => {
  it('honours addr:city where it names a municipality or a town of the extract (Liechtenstein)', () => {
    const e = extracts.liechtenstein;
    const cities = new Set([
      ...e.osm.relations.filter((r) => r.tags.boundary === 'administrative' && r.tags.admin_level === '8').map((r) => r.tags.name),
      ...e.osm.taggedNodes.filter((n) => ['city', 'town', 'village'].includes(n.tags!.place)).map((n) => n.tags!.name),
    ]);
    const houses = e.objects.filter((o) => o.tags['addr:housenumber'] && cities.has(o.tags['addr:city']));
    expect(houses.length).toBeGreaterThan(2000);
    // Villages inside a municipality (Nendeln in Eschen, Malbun in Triesenberg) included: the tag, not the boundary, decides.
    expect(houses.some((o) => !e.osm.relations.some((r) => r.tags.admin_level === '8' && r.tags.name === o.tags['addr:city']))).toBe(true);
    const wrong = houses.filter((o) => e.geocoder.reverseGeocode(...o.point).city !== o.tags['addr:city']);
    expect(wrong.map((o) => `${o.id} ${o.tags['addr:city']}`)).toEqual([]);
  });

  it('gives a house in search the city reverse geocoding gives it: the village its addr:city names (Liechtenstein)', () => {
    const e = extracts.liechtenstein;
    const villages = new Set(e.osm.taggedNodes.filter((n) => n.tags!.place === 'village').map((n) => n.tags!.name));
    const municipalities = new Set(e.osm.relations.filter((r) => r.tags.admin_level === '8').map((r) => r.tags.name));
    const houses = e.objects.filter(
      (o) =>
        o.tags['addr:housenumber'] &&
        villages.has(o.tags['addr:city']) &&
        !municipalities.has(o.tags['addr:city']) &&
        streetsNamed(e, o.tags['addr:street'] ?? '', o.point).length > 0 &&
        // The same address tagged twice with different cities (a restaurant with addr:city, its building without) is two answers.
        !e.objects.some(
          (x) =>
            x !== o &&
            x.tags['addr:street'] === o.tags['addr:street'] &&
            x.tags['addr:housenumber'] === o.tags['addr:housenumber'] &&
            x.tags['addr:city'] !== o.tags['addr:city'],
        ),
    );
    expect(houses.length).toBeGreaterThan(5);
    for (const o of houses) {
      const name = `${o.tags['addr:street']} ${o.tags['addr:housenumber']}`;
      // The hit that is this house (another of the same number may be tagged otherwise: "Vorarlbergerstrasse 210").
      const hit = e.search
        .search({ text: `${name}, ${o.tags['addr:city']}`, limit: 5 })
        .filter((h) => h.kind === 'address' && h.name === name)
        .sort((a, b) => meters([a.lat, a.lon], o.point) - meters([b.lat, b.lon], o.point))[0];
      expect(hit?.address.city, name).toBe(o.tags['addr:city']);
      expect(e.geocoder.reverseGeocode(...o.point).city).toBe(o.tags['addr:city']);
    }
  });

  it.each(NAMES)('%s: an address with its own addr:postcode keeps it, whatever the postal areas around say', (name) => {
    const e = extracts[name];
    const coded = e.objects.filter((o) => o.tags['addr:housenumber'] && o.tags['addr:postcode'] && !o.tags['addr:postcode'].includes(';'));
    // Two tagged objects on one spot aside (the nearer decides), as above.
    const alone = coded.filter((o) => !sharesSpot(e, o, (t) => !!t['addr:postcode']));
    expect(alone.length).toBeGreaterThan(name === 'andorra' ? 0 : 10);
    const wrong = alone.filter((o) => e.geocoder.reverseGeocode(...o.point).zipcode !== o.tags['addr:postcode']);
    expect(wrong.map((o) => `${o.id} ${o.tags['addr:postcode']}`)).toEqual([]);
  });
});
