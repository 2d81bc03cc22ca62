// OSRM's cucumber feature files as a peer test of the routing profiles: each scenario's OSM data (a
// routability table's one way per row, or a node map with its ways, nodes and relations) is built into a
// small map in this process, routed over with the same engine the server uses, and compared with OSRM's
// expectation. Only what Waymark answers is compared: whether a way can be travelled in each direction,
// the sequence of ways a route takes, and its steps (STEP_COLUMNS); rows that also expect OSRM-only output
// (times, modes) are skipped with the reason, never counted as passed.
import { readFileSync } from 'node:fs';
import { assembleGraph } from '../../map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../map/graphs/graph-build.js';
import { OsmData } from '../../map/osm/osm-data.js';
import type { OsmNode, OsmRelation, OsmWay } from '../../map/osm/osm-pbf.js';
import type { ProfileName } from '../../map/graphs/profiles.js';
import { buildShapePool, pendingShapes, shapesOf } from '../../map/graphs/shapes.js';
import { placeGraphs } from '../../engine/graph-memory.js';
import { RouteCore } from '../../engine/route-core.js';
import { legStepsJson } from '../../engine/guidance/step-json.js';
import type { WaypointOption } from '../../engine/waypoint-options.js';
import type { LatLon } from '../../lib/lat-lon.js';

/** OSRM's profile names and Waymark's. */
const PROFILE_OF: Record<string, ProfileName> = { car: 'driving-car', bicycle: 'cycling-regular', foot: 'foot-walking' };

// OSRM's test world: node maps are laid out on a grid from an origin, routability rows one after the
// other along a line, WAY_SPACING cells apart, each a way of five nodes routed from its 2nd to its 4th.
const ORIGIN = { lat: 47.0, lon: 9.0 };
const WAY_SPACING = 100;
const DEFAULT_GRID_M = 100;
/** OSRM's data.js: the grid's "zoom" is its size in meters times this (degrees). */
const OSRM_ZOOM_PER_M = 0.899067936270461e-5;
/**
 * Meters per degree of the grid: not lib/geo's METERS_PER_DEGREE (the service's sphere) but the figure the
 * layout was matched to OSRM's with. On lib/geo's (0.1 % finer) the guidance file's "Slightly offset
 * traffic circle" scenario no longer agrees with OSRM (test/routing/osrm-guidance.test.ts).
 */
const M_PER_DEG_LAT = 111_320;
/** How much larger OSRM's grid is than this layout (0.085 %): a route's distance on OSRM's grid is its
 *  distance here times this. What is left between the two is the spheres' (OSRM's radius 6,372,797.6 m,
 *  Waymark's 6,371,008.8 m). */
const LAYOUT_SCALE = M_PER_DEG_LAT * OSRM_ZOOM_PER_M;

export interface Step {
  keyword: string;
  text: string;
  table?: string[][];
  doc?: string;
}
export interface Scenario {
  name: string;
  tags: string[];
  steps: Step[];
  line: number;
}
export interface Feature {
  name: string;
  tags: string[];
  background: Step[];
  scenarios: Scenario[];
}

/** One expectation row's outcome. */
export interface RowResult {
  scenario: string;
  /** Row as written (cells joined by |). */
  row: string;
  status: 'agree' | 'disagree' | 'skipped';
  /** For a disagreement: what Waymark gave; for a skipped row: why. */
  detail?: string;
}

/** Cells of a gherkin table line; `\|` is a literal bar. */
function cells(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && body[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (body[i] === '|') {
      out.push(cur.trim());
      cur = '';
    } else cur += body[i];
  }
  out.push(cur.trim());
  return out;
}

/** Parses the subset of gherkin OSRM's features use: tags, Background, Scenario, steps with tables and doc strings. */
export function parseFeature(text: string): Feature {
  const lines = text.split(/\r?\n/);
  const feature: Feature = { name: '', tags: [], background: [], scenarios: [] };
  let pendingTags: string[] = [];
  let steps: Step[] | null = null;
  let lastStep: Step | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || (line.startsWith('#') && !line.startsWith('#|'))) continue;
    if (line.startsWith('#|')) continue; // a commented-out table row
    if (line.startsWith('@')) {
      pendingTags.push(...line.split(/\s+/).filter((t) => t.startsWith('@')));
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^Feature:\s*(.*)$/.exec(line))) {
      feature.name = m[1];
      feature.tags = pendingTags;
      pendingTags = [];
      continue;
    }
    if (/^Background:/.test(line)) {
      steps = feature.background;
      pendingTags = [];
      continue;
    }
    if ((m = /^Scenario(?: Outline)?:\s*(.*)$/.exec(line))) {
      const sc: Scenario = { name: m[1], tags: pendingTags, steps: [], line: i + 1 };
      pendingTags = [];
      feature.scenarios.push(sc);
      steps = sc.steps;
      continue;
    }
    if (line.startsWith('"""')) {
      const doc: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith('"""'); i++) doc.push(lines[i]);
      if (lastStep) lastStep.doc = doc.join('\n');
      continue;
    }
    if (line.startsWith('|')) {
      if (lastStep) (lastStep.table ??= []).push(cells(line));
      continue;
    }
    if ((m = /^(Given|When|Then|And|But)\s+(.*)$/.exec(line)) && steps) {
      lastStep = { keyword: m[1], text: m[2] };
      steps.push(lastStep);
    }
  }
  return feature;
}

/** Rows of a table as objects keyed by the header. */
function hashes(table: string[][]): Array<Record<string, string>> {
  const [head, ...rows] = table;
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i] ?? ''])));
}

/** The OSM elements of one scenario, with names for nodes, locations and ways. */
class World {
  gridM = DEFAULT_GRID_M;
  profile: ProfileName | null = null;
  /** Set when the scenario changes OSRM's Lua profile: its expectations are not about the stock profile. */
  customProfile = false;
  private nextId = 1;
  readonly nodes = new Map<number, OsmNode>();
  readonly nodeByName = new Map<string, OsmNode>();
  readonly locations = new Map<string, LatLon>();
  readonly ways: OsmWay[] = [];
  readonly wayByName = new Map<string, OsmWay>();
  readonly relations: OsmRelation[] = [];

  id(): number {
    return this.nextId++;
  }

  /** Grid cell (x right, y down) to a position; cells are gridM apart. */
  at(x: number, y: number): LatLon {
    const lat = ORIGIN.lat - (y * this.gridM) / M_PER_DEG_LAT;
    const lon = ORIGIN.lon + (x * this.gridM) / (M_PER_DEG_LAT * Math.cos((ORIGIN.lat * Math.PI) / 180));
    return { lat, lon };
  }

  addNode(pos: LatLon, tags: Record<string, string> | null, name?: string): OsmNode {
    const n: OsmNode = { id: this.id(), lat: pos.lat, lon: pos.lon, tags };
    this.nodes.set(n.id, n);
    if (name) this.nodeByName.set(name, n);
    return n;
  }

  nodeMap(doc: string): void {
    doc.split('\n').forEach((line, y) => {
      for (let x = 0; x < line.length; x++) {
        const c = line[x];
        // As OSRM's data.js: a character is half a cell wide ("a - b" puts b two cells from a).
        if (/[a-z]/.test(c)) this.addNode(this.at(x / 2, y), null, c);
        else if (/[0-9]/.test(c)) this.locations.set(c, this.at(x / 2, y));
      }
    });
  }

  point(name: string): LatLon {
    const n = this.nodeByName.get(name);
    if (n) return { lat: n.lat, lon: n.lon };
    const l = this.locations.get(name);
    if (l) return l;
    throw new Error(`unknown node ${name}`);
  }

  findWay(name: string): OsmWay | undefined {
    return this.wayByName.get(name) ?? this.wayByName.get([...name].reverse().join(''));
  }

  tagsOf(row: Record<string, string>, skip: (key: string) => boolean, defaults: Record<string, string>): Record<string, string> {
    const tags = { ...defaults };
    for (const [k, v] of Object.entries(row)) {
      if (skip(k) || k.startsWith('#') || v === '') continue;
      if (v === '(nil)') delete tags[k];
      else tags[k] = v;
    }
    return tags;
  }

  waysTable(table: string[][]): void {
    for (const row of hashes(table)) {
      const names = row.nodes;
      const refs = [...names].map((c) => {
        const n = this.nodeByName.get(c);
        if (!n) throw new Error(`way ${names}: unknown node ${c}`);
        return n.id;
      });
      const tags = this.tagsOf(row, (k) => k === 'nodes', { highway: 'primary' });
      // OSRM writes an empty cell as an empty tag: an empty highway is no road class (a ferry's row), not primary.
      if (row.highway === '') delete tags.highway;
      // As OSRM's data.js: no name column names the way by its nodes; an empty cell leaves it without
      // a name, `""` gives it an empty one.
      if (row.name === undefined) tags.name = names;
      else if (row.name === '""' || row.name === "''") tags.name = '';
      else if (row.name === '' || row.name === '(nil)') delete tags.name;
      const way: OsmWay = { id: this.id(), refs, tags };
      this.ways.push(way);
      this.wayByName.set(names, way);
    }
  }

  nodesTable(table: string[][]): void {
    for (const row of hashes(table)) {
      const n = this.nodeByName.get(row.node);
      if (!n) throw new Error(`unknown node ${row.node}`);
      n.tags = { ...(n.tags ?? {}), ...this.tagsOf(row, (k) => k === 'node', {}) };
    }
  }

  relationsTable(table: string[][]): void {
    // Column by column, as OSRM's runner reads them: a key may head several (`way:via` twice, in order).
    const [head, ...rows] = table;
    for (const row of rows) {
      const members: OsmRelation['members'] = [];
      const tags: Record<string, string> = {};
      for (const [i, k] of head.entries()) {
        const v = row[i] ?? '';
        const m = /^(node|way|relation):(.*)$/.exec(k);
        if (!m) {
          if (v !== '' && !k.startsWith('#')) tags[k] = v;
          continue;
        }
        for (const name of v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)) {
          const ref = m[1] === 'node' ? this.nodeByName.get(name)?.id : this.findWay(name)?.id;
          if (ref === undefined) throw new Error(`relation member ${m[1]} ${name} not found`);
          members.push({ type: m[1] as 'node' | 'way', ref, role: m[2] });
        }
      }
      this.relations.push({ id: this.id(), tags, members });
    }
  }

  /** A routability row's way: five nodes along the line, the row's node tags on the middle one. */
  routabilityWay(row: Record<string, string>, ri: number): { from: LatLon; to: LatLon } {
    const isExpectation = (k: string): boolean => /^(forw|backw|bothw)\b/.test(k);
    const nodeTags: Record<string, string> = {};
    for (const [k, v] of Object.entries(row)) {
      const m = /^node\/(.*)$/.exec(k);
      if (m && v !== '' && v !== '(nil)') nodeTags[m[1]] = v;
    }
    const refs: number[] = [];
    for (let i = 0; i < 5; i++) refs.push(this.addNode(this.at(i + WAY_SPACING * ri, 0), i === 2 && Object.keys(nodeTags).length ? nodeTags : null).id);
    const tags = this.tagsOf(row, (k) => isExpectation(k) || k.startsWith('node/'), { highway: 'primary' });
    tags.name = `w${ri}`;
    this.ways.push({ id: this.id(), refs, tags });
    return { from: this.at(1 + WAY_SPACING * ri, 0), to: this.at(3 + WAY_SPACING * ri, 0) };
  }

  /** Builds the map of the scenario's elements for its profile and returns a router over it. */
  router(): Router {
    const profile = this.profile ?? 'driving-car';
    const nodes = [...this.nodes.values()].sort((a, b) => a.id - b.id);
    const osm = new OsmData(
      Float64Array.from(nodes.map((n) => n.id)),
      Float64Array.from(nodes.flatMap((n) => [n.lat, n.lon])),
      nodes.filter((n) => n.tags !== null),
      this.ways,
      this.relations,
    );
    const pool = buildShapePool(osm);
    const graph = assembleGraph(buildGraphInput(osm, profile, pool), pendingShapes(pool));
    graph.shapes = shapesOf(pool);
    if (graph.nodeCount === 0) return { route: () => null, steps: () => null };
    const core = new RouteCore(placeGraphs({ [profile]: graph }));
    const segments = this.segments();
    return {
      route: (waypoints, waypointOptions) => {
        const r = core.route({ profile, waypoints, waypointOptions });
        if (!r.ok) return null;
        return wayNames(r.value.geometry, segments);
      },
      steps: (waypoints, waypointOptions) => {
        const r = core.routeE7({ profile, waypoints, waypointOptions, steps: true, passedIntersections: true, nearestRoad: true });
        if (!r.ok || !r.value.legSteps) return null;
        const { legSteps, geometryE7, legs, distance } = r.value;
        const all = legSteps.flatMap((leg, i) =>
          JSON.parse(
            legStepsJson(leg, core.shapes, geometryE7, {
              profile,
              format: 'geojson',
              legIndex: i,
              legCount: legs.length,
              distance: legs[i].distance,
              duration: legs[i].duration,
            }),
          ),
        ) as OsrmStep[];
        return {
          route: all.map((st) => st.name).join(','),
          turns: all.map(turnOf).join(','),
          ref: all.map((st) => st.ref ?? '').join(','),
          destinations: all.map((st) => st.destinations ?? '').join(','),
          exits: all.map((st) => st.exits ?? '').join(','),
          intersections: all.map(intersectionsOf).join(';'),
          lanes: all.map(lanesOf).join(','),
          locations: all.map((st) => this.nodeNameAt(st.maneuver.location)).join(','),
          bearing: all.map(bearingOf).join(','),
          modes: all.map((st) => st.mode).join(','),
          // util.format's %d of the route's distance as the reply rounds it (a tenth of a meter), measured
          // on OSRM's grid: this layout is LAYOUT_SCALE smaller.
          distance: `${Math.round(10 * LAYOUT_SCALE * distance) / 10}m`,
        };
      },
    };
  }

  /** The named node at a step's maneuver location, as OSRM's data.js `findNodeByLocation` finds it: the
   *  first node of the map within a quarter of the grid's zoom (its degrees per cell) in both coordinates,
   *  else `_`. */
  nodeNameAt([lon, lat]: [number, number]): string {
    const tolerance = 0.25 * this.gridM * OSRM_ZOOM_PER_M;
    for (const [name, n] of this.nodeByName) if (Math.abs(n.lon - lon) <= tolerance && Math.abs(n.lat - lat) <= tolerance) return name;
    return '_';
  }

  private segments(): Segment[] {
    const out: Segment[] = [];
    for (const w of this.ways) {
      for (let i = 0; i + 1 < w.refs.length; i++) {
        const a = this.nodes.get(w.refs[i])!,
          b = this.nodes.get(w.refs[i + 1])!;
        out.push({ name: w.tags.name ?? '', a: [a.lon, a.lat], b: [b.lon, b.lat] });
      }
    }
    return out;
  }
}

/** The columns of a route table that the steps answer, as OSRM's cucumber support writes them from its
 *  steps (features/support/route.js, shared_steps.js): `route` is then the steps' names. */
const STEP_COLUMNS = ['route', 'turns', 'ref', 'destinations', 'exits', 'intersections', 'lanes', 'locations', 'bearing', 'distance', 'modes'] as const;
type StepColumns = Record<(typeof STEP_COLUMNS)[number], string>;

interface Router {
  route(waypoints: LatLon[], options?: Array<WaypointOption | null>): string[] | null;
  steps(waypoints: LatLon[], options?: Array<WaypointOption | null>): StepColumns | null;
}

/** A row's `bearings` (a request's, not an answer's): per waypoint `value` or `value,range` by spaces, the
 *  range 10 when not given (features/support/route.js `requestRoute`), as Waymark's per-waypoint bearing. */
function waypointBearings(text: string | undefined): Array<WaypointOption | null> | undefined {
  if (!text) return undefined;
  return text
    .split(' ')
    .filter(Boolean)
    .map((b) => {
      const [value, range = 10] = b.split(',').map(Number);
      return { bearing: { value, range } };
    });
}

interface OsrmStep {
  name: string;
  ref?: string;
  destinations?: string;
  exits?: string;
  rotary_name?: string;
  maneuver: { type: string; modifier?: string; exit?: number; location: [number, number] };
  mode: string;
  intersections: Array<{ bearings: number[]; entry: boolean[]; in?: number; out?: number; lanes?: Array<{ indications: string[]; valid: boolean }> }>;
}

/** A step as OSRM's features/support/route.js `bearingList` writes it: the bearing arrived by (the way in,
 *  turned round) `->` the bearing left by, at its first intersection; 0 for none. */
function bearingOf(st: OsrmStep): string {
  const x = st.intersections[0];
  const reverse = (b: number): number => (b >= 180 ? b - 180 : b + 180);
  return `${x.in === undefined ? 0 : reverse(x.bearings[x.in])}->${x.out === undefined ? 0 : x.bearings[x.out]}`;
}

/** A step's intersections as OSRM's features/support/route.js `intersectionList` writes them:
 *  `entry:bearing` per road, roads by spaces, intersections by commas (steps by semicolons). */
/** A step's lanes as route.js `lanesList` writes them: per intersection (`;` between), its lanes (spaces
 *  between) as indications joined by `;` and `:true` or `:false`; nothing for one without. */
const lanesOf = (st: OsrmStep): string => st.intersections.map((x) => (x.lanes ?? []).map((l) => `${l.indications.join(';')}:${l.valid}`).join(' ')).join(';');

function intersectionsOf(st: OsrmStep): string {
  return st.intersections.map((x) => x.bearings.map((b, i) => `${x.entry[i]}:${b}`).join(' ')).join(',');
}

/** A step as OSRM's features/support/route.js `turnList` writes it. */
function turnOf(st: OsrmStep): string {
  const m = st.maneuver;
  switch (m.type) {
    case 'depart':
    case 'arrive':
      return m.type;
    case 'roundabout':
      return `roundabout-exit-${m.exit}`;
    case 'rotary':
      return `${st.rotary_name ?? 'rotary'}-exit-${m.exit}`;
    case 'roundabout turn':
      return `${m.type} ${m.modifier} exit-${m.exit}`;
    default:
      return `${m.type} ${m.modifier}`;
  }
}
interface Segment {
  name: string;
  a: [number, number];
  b: [number, number];
}

/** Squared distance (in degrees, x scaled by cos lat) from p to segment ab. */
function distance2(p: [number, number], a: [number, number], b: [number, number]): number {
  const k = Math.cos((ORIGIN.lat * Math.PI) / 180);
  const ax = a[0] * k,
    bx = b[0] * k,
    px = p[0] * k;
  const dx = bx - ax,
    dy = b[1] - a[1];
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (p[1] - a[1]) * dy) / len));
  const x = ax + t * dx - px,
    y = a[1] + t * dy - p[1];
  return x * x + y * y;
}

/** The names of the ways a route's line runs along, consecutive repeats merged. */
function wayNames(geometry: Float64Array, segments: Segment[]): string[] {
  const names: string[] = [];
  for (let i = 0; i + 3 < geometry.length; i += 2) {
    const x0 = geometry[i],
      y0 = geometry[i + 1],
      x1 = geometry[i + 2],
      y1 = geometry[i + 3];
    // Steps shorter than a meter (a snapped end a hair off a node) say nothing about the way taken.
    if (Math.abs(x1 - x0) * Math.cos((ORIGIN.lat * Math.PI) / 180) + Math.abs(y1 - y0) < 1 / M_PER_DEG_LAT) continue;
    const mid: [number, number] = [(x0 + x1) / 2, (y0 + y1) / 2];
    let best = Infinity,
      name = '';
    for (const s of segments) {
      const d = distance2(mid, s.a, s.b);
      if (d < best) {
        best = d;
        name = s.name;
      }
    }
    if (names[names.length - 1] !== name) names.push(name);
  }
  return names;
}

/** OSRM's expected route ("ab,bc,bc": each step's way, the last repeated on arrival) as ways in order. */
function expectedWays(route: string): string[] {
  const steps = route.split(',').map((s) => s.trim());
  steps.pop();
  return steps.filter((s, i) => i === 0 || s !== steps[i - 1]);
}

/** Columns a routability or route table may have that are notes or OSRM internals, not expectations. */
const IGNORED_COLUMNS = /^(#.*|forw_rate|backw_rate|bothw_rate)$/;
const ROUTABILITY = ['forw', 'backw', 'bothw'];

function rowText(row: Record<string, string>): string {
  return Object.entries(row)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/** Runs every scenario of a feature; rows come back in file order. */
export function runFeature(feature: Feature): RowResult[] {
  const results: RowResult[] = [];
  for (const sc of feature.scenarios) {
    const skipAll = [...feature.tags, ...sc.tags].includes('@todo') ? 'scenario tagged @todo (OSRM does not run it either)' : null;
    const world = new World();
    let unsupported: string | null = null;
    for (const step of [...feature.background, ...sc.steps]) {
      let m: RegExpExecArray | null;
      const t = step.text;
      try {
        if ((m = /^the profile "(.*)"$/.exec(t))) {
          world.profile = PROFILE_OF[m[1]] ?? null;
          if (!world.profile) unsupported = `profile "${m[1]}" has no Waymark counterpart`;
        } else if ((m = /^the profile file "(.*)" initialized with$/.exec(t))) {
          world.profile = PROFILE_OF[m[1]] ?? null;
          world.customProfile = true;
        } else if ((m = /^a grid size of ([\d.]+) meters$/.exec(t))) world.gridM = Number(m[1]);
        else if (t === 'the node map') world.nodeMap(step.doc ?? '');
        else if (t === 'the ways') world.waysTable(step.table ?? [[]]);
        else if (t === 'the nodes') world.nodesTable(step.table ?? [[]]);
        else if (t === 'the relations') world.relationsTable(step.table ?? [[]]);
        else if (t === 'routability should be') results.push(...routability(sc.name, world, step.table ?? [[]], skipAll ?? unsupported));
        else if (t === 'I route I should get') results.push(...routes(sc.name, world, step.table ?? [[]], skipAll ?? unsupported));
        // A step this runner does not know changes the scenario: the expectations that follow are skipped.
        else unsupported ??= `step "${t}" not supported`;
      } catch (err) {
        const reason = `scenario not understood: ${(err as Error).message}`;
        if (/^(routability should be|I route I should get)$/.test(t)) results.push(...skippedRows(sc.name, step.table ?? [[]], reason));
        unsupported ??= reason;
      }
    }
  }
  return results;
}

function skippedRows(scenario: string, table: string[][], reason: string): RowResult[] {
  return hashes(table).map((row) => ({ scenario, row: rowText(row), status: 'skipped' as const, detail: reason }));
}

function routability(scenario: string, world: World, table: string[][], skip: string | null): RowResult[] {
  if (skip) return skippedRows(scenario, table, skip);
  if (world.customProfile) return skippedRows(scenario, table, 'expects a changed OSRM Lua profile');
  const rows = hashes(table);
  const ends = rows.map((row, ri) => world.routabilityWay(row, ri));
  const router = world.router();
  return rows.map((row, ri): RowResult => {
    const text = rowText(row);
    const checked = ROUTABILITY.filter((d) => d in row);
    const { from, to } = ends[ri];
    const forw = router.route([from, to]) !== null;
    const backw = router.route([to, from]) !== null;
    const got: Record<string, string> = { forw: forw ? 'x' : '', backw: backw ? 'x' : '', bothw: forw === backw ? (forw ? 'x' : '') : 'diff' };
    // A speed ("36 km/h") or a mode ("cycling", "pushing bike") means routable; only that is compared.
    const bad = checked.filter((d) => (row[d] !== '') !== (got[d] === 'x') || got[d] === 'diff');
    return bad.length === 0
      ? { scenario, row: text, status: 'agree' }
      : { scenario, row: text, status: 'disagree', detail: bad.map((d) => `${d}: OSRM "${row[d]}", Waymark "${got[d]}"`).join('; ') };
  });
}

function routes(scenario: string, world: World, table: string[][], skip: string | null): RowResult[] {
  if (skip) return skippedRows(scenario, table, skip);
  if (world.customProfile) return skippedRows(scenario, table, 'expects a changed OSRM Lua profile');
  const router = world.router();
  return hashes(table).map((row): RowResult => {
    const text = rowText(row);
    const other = Object.keys(row).filter(
      (k) => !['from', 'to', 'waypoints', 'bearings', ...STEP_COLUMNS].includes(k) && !IGNORED_COLUMNS.test(k) && row[k] !== '',
    );
    if (other.length) return { scenario, row: text, status: 'skipped', detail: `expects ${other.join(', ')}, which Waymark does not answer` };
    if (!('route' in row) && !('turns' in row)) return { scenario, row: text, status: 'skipped', detail: 'no route column' };
    const names = row.waypoints ? row.waypoints.split(',').map((s) => s.trim()) : [row.from, row.to];
    const options = waypointBearings(row.bearings);
    // A row that expects turns is about the steps: its route column is then the steps' names, as OSRM's
    // support code writes it, and compared as it is.
    if (STEP_COLUMNS.some((c) => c !== 'route' && c in row)) {
      const got = router.steps(
        names.map((n) => world.point(n)),
        options,
      );
      const bad = STEP_COLUMNS.filter((c) => c in row && !fuzzyMatch(got?.[c] ?? '', row[c]));
      return bad.length === 0
        ? { scenario, row: text, status: 'agree' }
        : { scenario, row: text, status: 'disagree', detail: bad.map((c) => `${c}: OSRM "${row[c]}", Waymark "${got?.[c] ?? ''}"`).join('; ') };
    }
    const got = router.route(
      names.map((n) => world.point(n)),
      options,
    );
    const want = row.route === '' ? null : expectedWays(row.route);
    const same = want === null ? got === null : got !== null && got.join(',') === want.join(',');
    return same
      ? { scenario, row: text, status: 'agree' }
      : {
          scenario,
          row: text,
          status: 'disagree',
          detail: `OSRM ${want === null ? 'no route' : want.join(',')}, Waymark ${got === null ? 'no route' : got.join(',')}`,
        };
  });
}

/**
 * OSRM's FuzzyMatch.match (features/support/data_classes.js), as its support code compares every column:
 * the same text, or within a margin where the expectation says `+-` (a number, each bearing of a
 * `before->after` list, each bearing of an intersections list) or `~ N%`, or a `/regular expression/`.
 */
export function fuzzyMatch(got: string, want: string): boolean {
  if (got === want || (want === '' && got === '')) return true;
  const within = (margin: number, g: string, w: string): boolean => Math.abs(Number.parseFloat(g) - Number.parseFloat(w)) <= margin;
  const bearingList = /^((\d+)->(\d+))(,(\d+)->(\d+))*\s+\+-(.+)$/.test(want),
    intersectionList = /^(((((true|false):\d+)\s{0,1})+,{0,1})+;{0,1})+\s+\+-(.+)$/.test(want);
  if (bearingList) {
    const [base, m] = want.split('+-');
    const w = base.trim().split(','),
      g = got.split(',');
    return w.length === g.length && w.every((pair, i) => pair.split('->').every((b, j) => within(Number.parseFloat(m), g[i].split('->')[j], b)));
  }
  if (intersectionList) {
    const [base, m] = want.split('+-');
    // Steps by `;`, intersections by `,`, roads by spaces, each `entry:bearing`: the same shape, the same
    // entries, the bearings within the margin.
    const parse = (text: string): string[][][][] => text.split(';').map((st) => st.split(',').map((x) => x.split(' ').map((pair) => pair.split(':'))));
    const w = parse(base.trim()),
      g = parse(got);
    return (
      w.length === g.length &&
      w.every(
        (st, i) =>
          st.length === g[i].length &&
          st.every(
            (x, j) => x.length === g[i][j].length && x.every(([entry, b], k) => entry === g[i][j][k][0] && within(Number.parseFloat(m), g[i][j][k][1], b)),
          ),
      )
    );
  }
  const percent = want.match(/(.*)\s+~(.+)%$/);
  if (percent) {
    const target = Number.parseFloat(percent[1]);
    return target === 0 || 100 * Math.abs(1 - Number.parseFloat(got) / target) < Number.parseFloat(percent[2]);
  }
  const absolute = want.match(/(.*)\s+\+-(.+)$/);
  if (absolute) return within(Number.parseFloat(absolute[2]), got, absolute[1]);
  const pattern = want.match(/^\/(.*)\/$/);
  return pattern !== null && new RegExp(pattern[1]).test(got);
}

export interface FileReport {
  file: string;
  agree: number;
  disagree: number;
  skipped: number;
  rows: RowResult[];
}

export function runFeatureFile(path: string, name = path): FileReport {
  const rows = runFeature(parseFeature(readFileSync(path, 'utf8')));
  const count = (s: RowResult['status']): number => rows.filter((r) => r.status === s).length;
  return { file: name, agree: count('agree'), disagree: count('disagree'), skipped: count('skipped'), rows };
}
