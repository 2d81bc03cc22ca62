// Nominatim's search feature files (test/bdd/features/db/query/*.feature in osm-search/Nominatim) as a
// peer test of forward search: each scenario's OSM objects (grid points, places with their tags) are
// built into a geocoder and search index in a temporary directory, its queries run through the same
// search the server uses, and the results compared with Nominatim's expectation by the OSM object they
// are. Only which objects come back (and how many) is compared; a row that also expects Nominatim-only
// output (its types, display names, centroids, address details, languages) is skipped with the reason.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGeocoder, type Geocoder } from '../../engine/geocoder/reverse.js';
import { loadSearchIndex, type SearchHit, type SearchIndex } from '../../engine/geocoder/search.js';
import { buildGeocoderIndex } from '../../map/geocoder/index-build.js';
import { OsmData } from '../../map/osm/osm-data.js';
import type { OsmNode, OsmRelation, OsmWay } from '../../map/osm/osm-pbf.js';
import { checkAddressLines, checkPlacex, type Obj } from './nominatim-import.js';
import { parseFeature, type RowResult, type Step } from './osrm-features.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';

/** Nominatim's default grid step in degrees (`the 0.002 grid` gives another). */
const STEP = 0.00001;
/** Nominatim's grid starts at 0,0 (sea, no country); ours on land with no OSM boundary around, so the objects have a country. */
const DEFAULT_ORIGIN: [number, number] = [9.0, 47.0];
/** Grid origins by country code: a point inland (lon, lat). */
const ORIGINS: Record<string, [number, number]> = {
  DE: [10.45, 51.16],
  NL: [5.29, 52.13],
  AD: [1.55, 42.55],
  SG: [103.82, 1.35],
  US: [-98.0, 39.0],
  FR: [2.5, 46.5],
  CH: [8.2, 46.8],
  AT: [14.5, 47.5],
  JP: [139.0, 36.0],
  BE: [4.5, 50.6],
  GB: [-1.5, 52.5],
  CA: [-100.0, 55.0],
  MX: [-102.0, 23.0],
  DK: [9.3, 56.0],
  SE: [15.0, 60.0],
  FI: [26.0, 63.0],
  LI: [9.55, 47.15],
};

export interface NominatimFileReport {
  file: string;
  agree: number;
  disagree: number;
  skipped: number;
  rows: RowResult[];
}

/** Scenario Outlines written out as one scenario per row of their Examples. */
function expandOutlines(text: string): string {
  const lines = text.split(/\r?\n/);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*Scenario Outline:/.test(lines[i])) {
      out.push(lines[i]);
      continue;
    }
    const body: string[] = [lines[i].replace('Scenario Outline:', 'Scenario:')];
    let j = i + 1;
    for (; j < lines.length && !/^\s*Examples:/.test(lines[j]) && !/^\s*Scenario( Outline)?:/.test(lines[j]); j++) body.push(lines[j]);
    const table: string[][] = [];
    if (j < lines.length && /^\s*Examples:/.test(lines[j])) {
      for (j++; j < lines.length; j++) {
        const t = lines[j].trim();
        if (t === '' || t.startsWith('#')) continue;
        if (!t.startsWith('|')) break;
        table.push(
          t
            .replace(/^\||\|$/g, '')
            .split('|')
            .map((c) => c.trim()),
        );
      }
    }
    const [head, ...rows] = table;
    for (const row of rows) {
      for (const line of body) out.push(line.replace(/<([^>]+)>/g, (m, key: string) => (head.includes(key) ? row[head.indexOf(key)] : m)));
    }
    i = j - 1;
  }
  return out.join('\n');
}

const hashes = (table: string[][]) => table.slice(1).map((r) => Object.fromEntries(table[0].map((h, i) => [h, r[i] ?? ''])));

/** A `the relations` row: members as written (`W1:street`, `N1:house`, `N2`). */
interface RelationSpec {
  id: number;
  tags: Record<string, string>;
  members: Array<{ object: string; role: string }>;
}

class World {
  private grid = new Map<string, [number, number]>();
  readonly objects: Obj[] = [];
  private readonly relations: RelationSpec[] = [];
  index: SearchIndex | null = null;
  geocoder: Geocoder | null = null;
  results: SearchHit[] | null = null;
  skip: string | null = null;

  setGrid(table: string[][], origin: [number, number], step = STEP): void {
    let lat = origin[1];
    // Nominatim's rows run north from the origin.
    for (const row of table) {
      let lon = origin[0];
      for (const cell of row) {
        if (cell) this.grid.set(cell, [lat, lon]);
        lon += step;
      }
      lat += step;
    }
  }

  addRelations(table: string[][]): void {
    for (const row of hashes(table)) {
      const tags: Record<string, string> = {};
      for (const [col, value] of Object.entries(row)) if (col.startsWith('tags+') && value !== '') tags[col.slice(5)] = value;
      const members = row.members
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
        .map((m) => {
          const [object, role = ''] = m.split(':');
          return { object, role };
        });
      this.relations.push({ id: Number(row.id), tags, members });
    }
  }

  object(id: string): Obj | undefined {
    return this.objects.find((o) => o.id === id);
  }

  private point(value: string): [number, number] | null {
    const v = value.trim();
    if (v.includes(' ')) {
      const [lon, lat] = v.split(/\s+/).map(Number);
      return [lat, lon];
    }
    return this.grid.get(v) ?? null;
  }

  addPlaces(table: string[][], named: boolean): void {
    for (const row of hashes(table)) {
      const tags: Record<string, string> = {};
      for (const [col, value] of Object.entries(row)) {
        if (value === '' || col === 'osm' || col === 'geometry') continue;
        if (col === 'class') continue;
        if (col === 'type') tags[row.class] = value;
        else if (col === 'name' || col === 'name+name') tags.name = value;
        else if (col.startsWith('name+')) tags[col.slice(5)] = value;
        else if (col === 'housenr') tags['addr:housenumber'] = value;
        else if (col === 'street') tags['addr:street'] = value;
        else if (col === 'addr_place') tags['addr:place'] = value;
        else if (col === 'postcode') tags['addr:postcode'] = value;
        else if (col === 'admin') tags.admin_level = value;
        else if (col.startsWith('addr+')) tags[`addr:${col.slice(5)}`] = value;
        else if (col.startsWith('extra+')) tags[col.slice(6)] = value;
        else tags[col] = value;
      }
      if (named && !tags.name) tags.name = `Name ${row.osm}`;
      const kind = row.osm[0] as Obj['kind'];
      const geometry = row.geometry ?? '';
      let points: Array<[number, number]>;
      if (geometry.startsWith('country:')) {
        this.skip = 'an object placed by country (Nominatim-only test data)';
        continue;
      }
      const own = kind === 'N' && geometry === '' ? this.grid.get(row.osm.slice(1)) : undefined;
      if (own) points = [own];
      else if (geometry === '') {
        // No geometry and no grid point of its number: Nominatim places it at a random point; one near the grid keeps it on the map.
        points = [[DEFAULT_ORIGIN[1] + 0.001 * (this.objects.length + 1), DEFAULT_ORIGIN[0]]];
      } else {
        const ring = /^\((.*)\)$/.exec(geometry.trim());
        const parts = (ring ? ring[1] : geometry).split(',').map((p) => this.point(p));
        if (parts.some((p) => p === null)) {
          this.skip = `geometry "${geometry}" names no grid point`;
          continue;
        }
        points = parts as Array<[number, number]>;
      }
      this.objects.push({ id: row.osm, tags, points, kind });
    }
  }

  async build(): Promise<void> {
    const nodes: OsmNode[] = [];
    const ways: OsmWay[] = [];
    const relations: OsmRelation[] = [];
    const coords: Array<[number, number, number]> = [];
    let nextId = 1_000_000;
    const nodeAt = new Map<string, number>();
    const plainNode = (p: [number, number]) => {
      const key = `${p[0]},${p[1]}`;
      let id = nodeAt.get(key);
      if (id === undefined) {
        id = nextId++;
        nodeAt.set(key, id);
        coords.push([id, p[0], p[1]]);
      }
      return id;
    };
    for (const o of this.objects) {
      const num = Number(o.id.slice(1));
      if (o.kind === 'N') {
        nodes.push({ id: num, lat: o.points[0][0], lon: o.points[0][1], tags: o.tags });
        coords.push([num, o.points[0][0], o.points[0][1]]);
      } else if (o.kind === 'W') ways.push({ id: num, refs: o.points.map(plainNode), tags: o.tags });
      else {
        const way = nextId++;
        ways.push({ id: way, refs: o.points.map(plainNode), tags: {} });
        const type = o.tags.boundary ? 'boundary' : 'multipolygon';
        relations.push({ id: num, tags: { type, ...o.tags }, members: [{ type: 'way', ref: way, role: 'outer' }] });
      }
    }
    // Relations of `the relations` get ids of their own: their numbers may be an R object's too.
    for (const r of this.relations) {
      const members = r.members.map((m) => ({
        type: (m.object[0] === 'N' ? 'node' : m.object[0] === 'W' ? 'way' : 'relation') as 'node' | 'way' | 'relation',
        ref: Number(m.object.slice(1)),
        role: m.role,
      }));
      relations.push({ id: 500_000_000 + r.id, tags: r.tags, members });
    }
    coords.sort((a, b) => a[0] - b[0]);
    const ids = Float64Array.from(coords.map((c) => c[0]));
    const latLon = Float64Array.from(coords.flatMap((c) => [c[1], c[2]]));
    const osm = new OsmData(ids, latLon, nodes, ways, relations);
    const dir = await mkdtemp(join(tmpdir(), 'waymark-nominatim-'));
    try {
      await buildGeocoderIndex(osm, dir);
      this.index = await loadSearchIndex(dir);
      this.geocoder = await loadGeocoder(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The scenario's objects a result is: the address point, street, place or postcode it stands for. */
  objectsOf(hit: SearchHit): string[] {
    const near = (p: [number, number], m: number) =>
      Math.hypot((p[0] - hit.lat) * METERS_PER_DEGREE, (p[1] - hit.lon) * METERS_PER_DEGREE * Math.cos((hit.lat * Math.PI) / 180)) <= m;
    const inBox = (p: [number, number]) => p[0] >= hit.box[0] - 1e-6 && p[0] <= hit.box[2] + 1e-6 && p[1] >= hit.box[1] - 1e-6 && p[1] <= hit.box[3] + 1e-6;
    const centre = (o: Obj): [number, number] => [
      o.points.reduce((s, p) => s + p[0], 0) / o.points.length,
      o.points.reduce((s, p) => s + p[1], 0) / o.points.length,
    ];
    // An object named only in name:xx is found under that name (streetName/placeName take it).
    const named = (t: Record<string, string>) => t.name === hit.name || Object.entries(t).some(([k, v]) => k.startsWith('name:') && v === hit.name);
    return this.objects
      .filter((o) => {
        const t = o.tags;
        if (hit.kind === 'address') return t['addr:housenumber'] !== undefined && near(centre(o), 3);
        if (hit.kind === 'street') return t.highway !== undefined && named(t) && o.points.some(inBox);
        if (hit.kind === 'place') return named(t) && (t.place !== undefined || t.boundary !== undefined);
        return t['addr:postcode'] === hit.name || t.postal_code === hit.name;
      })
      .map((o) => o.id);
  }
}

const rowText = (row: string[]) => row.join(' | ');

function checkStep(world: World, scenario: string, step: Step): RowResult[] {
  const results = world.results;
  const text = step.text;
  let m: RegExpExecArray | null;
  const rows = step.table ? step.table.slice(1) : [];
  const skipAll = (reason: string): RowResult[] =>
    (rows.length ? rows : [[text]]).map((r) => ({ scenario, row: `${text}: ${rowText(r)}`, status: 'skipped', detail: reason }));
  if (world.skip) return skipAll(world.skip);
  if (!results) return skipAll('no query before the expectation');
  if ((m = /^exactly (\d+) results? (?:is|are) returned$/.exec(text))) {
    const ok = results.length === Number(m[1]);
    return [
      {
        scenario,
        row: text,
        status: ok ? 'agree' : 'disagree',
        detail: ok ? undefined : `${results.length} results: ${results.map((r) => r.name).join('; ')}`,
      },
    ];
  }
  if (/^less than \d+ results? (?:is|are) returned$/.test(text)) {
    const n = Number(/\d+/.exec(text)![0]);
    return [{ scenario, row: text, status: results.length < n ? 'agree' : 'disagree', detail: `${results.length} results` }];
  }
  const which = /^result (\d+) contains$/.exec(text) ?? /^the result set contains$/.exec(text) ?? /^all results contain$/.exec(text);
  if (!which || !step.table) return skipAll(`the step "${text.replace(/"[^"]*"/g, '"…"')}" compares what Waymark does not answer`);
  const head = step.table[0];
  const other = head.filter((h) => h !== 'object');
  return rows.map((row) => {
    const label = `${text}: ${rowText(head)} = ${rowText(row)}`;
    if (other.length || !head.includes('object'))
      return { scenario, row: label, status: 'skipped', detail: `compares ${other.join(', ') || 'no object'} (Nominatim's output)` };
    const want = row[head.indexOf('object')];
    const found = results.map((r) => world.objectsOf(r));
    const got = `got ${results.map((r, i) => `${r.kind} ${r.name} [${found[i].join(',')}]`).join('; ') || 'nothing'}`;
    let ok: boolean;
    if (text.startsWith('result ')) ok = found[Number(which[1])]?.includes(want) ?? false;
    else if (text.startsWith('all ')) ok = found.length > 0 && found.every((f) => f.includes(want));
    else ok = found.some((f) => f.includes(want));
    return { scenario, row: label, status: ok ? 'agree' : 'disagree', detail: ok ? undefined : got };
  });
}

export async function runNominatimFile(path: string, name = path): Promise<NominatimFileReport> {
  const feature = parseFeature(expandOutlines(await readFile(path, 'utf8')));
  const rows: RowResult[] = [];
  for (const sc of feature.scenarios) {
    const world = new World();
    const steps = [...feature.background, ...sc.steps];
    for (const step of steps) {
      let m: RegExpExecArray | null;
      try {
        if ((m = /^the (?:([\d.]+) )?grid(?: with origin (\w+))?$/.exec(step.text)) && step.table) {
          const origin = m[2] ? ORIGINS[m[2]] : DEFAULT_ORIGIN;
          if (!origin) world.skip = `grid origin ${m[2]} unknown to the runner`;
          else world.setGrid(step.table, origin, m[1] ? Number(m[1]) : STEP);
        } else if ((m = /^the (named )?places$/.exec(step.text)) && step.table) world.addPlaces(step.table, !!m[1]);
        else if (step.text === 'the relations' && step.table) world.addRelations(step.table);
        // The ways' nodes are the grid points of their geometry already; sharing a node decides nothing in Waymark.
        else if (step.text === 'the ways') continue;
        else if (step.text === 'the postcodes') world.skip ??= "Nominatim's postcode table given as test data (Waymark has none)";
        else if ((m = /^placex contains$/.exec(step.text)) && step.table) rows.push(...checkPlacex(world, sc.name, step));
        else if ((m = /^place_addressline contains( exactly)?$/.exec(step.text)) && step.table) rows.push(...checkAddressLines(world, sc.name, step, !!m[1]));
        else if (step.text === 'importing') {
          if (!world.skip) await world.build();
        } else if ((m = /^geocoding "(.*)"$/.exec(step.text))) {
          world.results = world.index ? world.index.search({ text: m[1], limit: 10 }) : null;
        } else if (step.keyword === 'Then' || (step.keyword === 'And' && world.results !== null && !/^(geocoding|importing)/.test(step.text))) {
          rows.push(...checkStep(world, sc.name, step));
        } else if (step.keyword === 'Given' || step.keyword === 'When' || step.keyword === 'And') {
          if (!/^(the .*grid|the (named )?places|importing|geocoding)/.test(step.text)) world.skip ??= `the step "${step.text}" is not modelled`;
        }
      } catch (err) {
        world.skip = `the runner failed: ${(err as Error).message}`;
      }
    }
  }
  const count = (s: RowResult['status']) => rows.filter((r) => r.status === s).length;
  return { file: name, agree: count('agree'), disagree: count('disagree'), skipped: count('skipped'), rows };
}
