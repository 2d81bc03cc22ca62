// The geocoder over the real Liechtenstein extract: addresses taken from the extract's own addr:* tags,
// and points across the borders where only cut OSM boundaries and Natural Earth describe the countries.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool, newGeneration, retire, runOn, runTask } from '../../src/compute/pool.js';
import { readGeocoderDir } from '../../src/map/map-dir.js';
import { centroid } from '../../src/map/geocoder/geometry.js';
import { buildGeocoderIndex } from '../../src/map/geocoder/index-build.js';
import { geocoderData, loadGeocoder, type Address, type Geocoder } from '../../src/engine/geocoder/reverse.js';
import { geocoderWorkerData } from '../../src/engine/geocoder/task.js';
import { ownTrees } from '../../src/engine/geocoder/trees.js';
import { loadOsm, type OsmData } from '../../src/map/osm/osm-data.js';
import { projectRoot } from '../../src/lib/paths.js';

const EXTRACT = join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf');
const MUNICIPALITIES = ['Balzers', 'Eschen', 'Gamprin', 'Mauren', 'Planken', 'Ruggell', 'Schaan', 'Schellenberg', 'Triesen', 'Triesenberg', 'Vaduz'];

let osm: OsmData;
let dir: string;
let geocoder: Geocoder;

beforeAll(async () => {
  osm = await loadOsm(EXTRACT);
  dir = await mkdtemp(join(tmpdir(), 'waymark-geo-li-'));
  const counts = await buildGeocoderIndex(osm, dir);
  expect(counts.municipalities).toBe(MUNICIPALITIES.length);
  expect(counts.addresses).toBeGreaterThan(3000);
  geocoder = await loadGeocoder(dir);
});

afterAll(async () => {
  await closePool();
  await rm(dir, { recursive: true, force: true });
});

/** A point a few meters off an OSM feature with an address, and the address its tags give. */
function addressOf(kind: 'node' | 'way', id: number): { point: [number, number]; tags: Record<string, string> } {
  if (kind === 'node') {
    const n = osm.taggedNodes.find((x) => x.id === id)!;
    return { point: [n.lat + 0.00003, n.lon - 0.00002], tags: n.tags! };
  }
  const w = osm.ways.find((x) => x.id === id)!;
  const c = centroid(w.refs.map((ref) => osm.coord(ref)!))!;
  return { point: [c[0] + 0.00003, c[1] - 0.00002], tags: w.tags };
}

describe('reverse geocoding in Liechtenstein', () => {
  it.each([
    ['way', 246468131, 'Vaduz'], // Kirchstrasse 41
    ['way', 399332591, 'Vaduz'], // Landstrasse 39
    ['way', 319010282, 'Schaan'], // Duxweg 1
    ['node', 995356578, 'Schaan'], // Post Schaan, Postplatz 2
    ['way', 218439606, 'Triesenberg'], // Sückastrasse 19
  ] as const)('finds the address of %s %i in %s', (kind, id, municipality) => {
    const { point, tags } = addressOf(kind, id);
    expect(tags['addr:city']).toBe(municipality);
    const street = `${tags['addr:street']} ${tags['addr:housenumber']}`;
    expect(geocoder.reverseGeocode(...point)).toEqual({
      street,
      housenumber: tags['addr:housenumber'],
      city: municipality,
      zipcode: tags['addr:postcode'],
      country: 'Liechtenstein',
      display_name: `${street}, ${tags['addr:postcode']} ${municipality}, Liechtenstein`,
    });
  });

  it('agrees with the tags of nearly every building address of the municipalities', () => {
    let checked = 0;
    let agreed = 0;
    for (const w of osm.ways) {
      const t = w.tags;
      if (!t.building || !t['addr:street'] || !t['addr:housenumber'] || !t['addr:postcode'] || !MUNICIPALITIES.includes(t['addr:city'])) continue;
      const c = centroid(w.refs.map((ref) => osm.coord(ref)!))!;
      const a = geocoder.reverseGeocode(c[0], c[1]);
      checked++;
      if (
        a.street === `${t['addr:street']} ${t['addr:housenumber']}` &&
        a.zipcode === t['addr:postcode'] &&
        a.city === t['addr:city'] &&
        a.country === 'Liechtenstein'
      )
        agreed++;
    }
    expect(checked).toBeGreaterThan(2000);
    // addr:city sometimes names the postal town rather than the municipality the building is in.
    expect(agreed / checked).toBeGreaterThan(0.97);
  });

  it.each([
    // Buildings with addr:housenumber and neither addr:street nor addr:place; the street is the nearest
    // named one, read off the map by hand (the next named street is at least 30 m farther).
    [162492299, 'Under Ställ 9'], // Planken; Oberplanknerstrasse is 33 m away
    [165294411, 'Lowal 26'], // Balzers; Heiligwies 53 m
    [165294404, 'Ramschwagweg 30'], // Balzers; Lowal 48 m
    [30810211, 'Feldkircher Strasse 67'], // Schaanwald; Kohlmahd 44 m
  ] as const)('gives building %i, a house number without addr:street, the nearest named street: %s', (id, street) => {
    const { point, tags } = addressOf('way', id);
    expect(tags['addr:street']).toBeUndefined();
    expect(geocoder.reverseGeocode(...point)).toMatchObject({ street, housenumber: tags['addr:housenumber'], country: 'Liechtenstein' });
  });

  it('interpolates the odd numbers along the extract’s addr:interpolation way, on the nearest named street', () => {
    // Way 1: odd numbers from node 1 (1001, 47.11855, 9.5697463) to node 2 (1051, 47.1185372, 9.5719698),
    // 168 m, neither end with a street. 1025 lies 12/25 of the way along; Grosssteg passes 11 m away
    // (Valorschstrasse, the next named street, 105 m).
    const way = osm.ways.find((w) => w.tags['addr:interpolation'])!;
    expect(way.tags).toEqual({ 'addr:interpolation': 'odd' });
    expect(geocoder.reverseGeocode(47.1185439 + 0.000027, 9.5708136)).toMatchObject({
      street: 'Grosssteg 1025',
      housenumber: '1025',
      country: 'Liechtenstein',
    });
    // At a quarter of the way: 1001 + 2 × round(25 / 4) = 1013.
    expect(geocoder.reverseGeocode(47.1185468, 9.5697463 + (6 / 25) * 0.0022235)).toMatchObject({ housenumber: '1013' });
  });

  it('puts a house of an associatedStreet relation on the relation’s street over its own addr:street, as Nominatim does', () => {
    // Way 329669422 is a house of an associatedStreet relation but tagged with another addr:street
    // (Nominatim's parenting.feature, "Associated street relation overrides addr:street").
    const { point, tags } = addressOf('way', 329669422);
    const relation = osm.relations.find(
      (r) => r.tags.type === 'associatedStreet' && r.members.some((m) => m.type === 'way' && m.ref === 329669422 && m.role === 'house'),
    )!;
    const streets = new Set(
      relation.members.filter((m) => m.role === 'street' && m.type === 'way').map((m) => osm.ways.find((w) => w.id === m.ref)?.tags.name),
    );
    expect(streets.size).toBe(1);
    const [street] = streets;
    expect(tags['addr:street']).not.toBe(street);
    expect(geocoder.reverseGeocode(...point)).toMatchObject({ street: `${street} ${tags['addr:housenumber']}`, housenumber: tags['addr:housenumber'] });
  });

  it('names the nearest street when no address is within 30 m', () => {
    // On Sankt Luzistrasse in Vaduz, between its first nodes.
    expect(geocoder.reverseGeocode(47.1480857, 9.5164232)).toMatchObject({ street: 'Sankt Luzistrasse', housenumber: null, city: 'Vaduz', zipcode: '9490' });
  });

  it('puts points across the Rhine and in Vorarlberg in Switzerland and Austria', () => {
    expect(geocoder.reverseGeocode(47.168, 9.478).country).toBe('Switzerland'); // Buchs SG
    expect(geocoder.reverseGeocode(47.122, 9.487).country).toBe('Switzerland'); // Sevelen
    expect(geocoder.reverseGeocode(47.238, 9.598).country).toBe('Austria'); // Feldkirch
    // Trübbach: inside Natural Earth's coarse Liechtenstein, outside the complete OSM boundary.
    expect(geocoder.reverseGeocode(47.075, 9.484).country).toBe('Switzerland');
    // Mäls (Balzers): inside OSM Liechtenstein although Natural Earth puts it in Switzerland.
    expect(geocoder.reverseGeocode(47.0622, 9.4955)).toMatchObject({ country: 'Liechtenstein', city: 'Balzers' });
  });

  it('gives an Austrian address its Austrian postcode', () => {
    // "Am Schellenberg 17, 6800 Feldkirch": the Feldkirch boundaries are cut, the address point is not.
    const a = geocoder.reverseGeocode(47.22711, 9.55505);
    expect(a).toMatchObject({ street: 'Am Schellenberg 17', zipcode: '6800', country: 'Austria' });
  });

  it('returns all nulls outside the map', () => {
    const empty: Address = { street: null, housenumber: null, city: null, zipcode: null, country: null, display_name: null };
    expect(geocoder.reverseGeocode(0, 0)).toEqual(empty);
    expect(geocoder.reverseGeocode(43.5, 7.6)).toEqual(empty); // Ligurian Sea
    expect(geocoder.reverseGeocode(48.78, 9.18)).toEqual(empty); // Stuttgart: land, but not on this map
  });

  it('runs as the geocode task in the worker pool', async () => {
    const points = [
      { lat: 47.1675812, lon: 9.5084171 },
      { lat: 47.168, lon: 9.478 },
      { lat: 0, lon: 0 },
    ];
    // The index's files handed to a generation of compute threads, as a loaded map's are (engine.ts, loadMap).
    const files = await readGeocoderDir(dir);
    const shared = geocoderWorkerData(files);
    const gen = newGeneration(shared);
    // Two at once: the generation's threads build the spatial trees once between them, in its shared room.
    const answers = await runOn(gen, () => Promise.all([0, 1].map(() => runTask<Address[]>('geocode', { mapDir: dir, points })))).finally(() => retire(gen));
    for (const addresses of answers) expect(addresses).toEqual(points.map((p) => geocoder.reverseGeocode(p.lat, p.lon)));
    expect(answers[0][0].street).toBe('Postplatz 2');
    // What the threads built is what a geocoder of its own builds, byte for byte.
    const own = ownTrees(geocoderData(files).arrays);
    const room = shared.geocoderTrees!;
    expect([...room.state]).toEqual([2, 2, 2]);
    for (const name of ['streets', 'points', 'places'] as const) expect(new Uint8Array(room.bytes[name]!)).toEqual(new Uint8Array(own[name]!.data));
  });
});
