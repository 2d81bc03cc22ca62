// The bounded-memory extract loader against a plain reading of the same real extract: what it keeps,
// what it drops, and that graph inputs built from its compact form equal a straightforward computation
// over every element as an object.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGeocoderIndex } from '../../src/map/geocoder/index-build.js';
import { interpolatedAddresses } from '../../src/map/geocoder/interpolation.js';
import { addressOf, ASSOCIATED_STREET_MARK, isGeocoderRelation, streetName } from '../../src/map/osm/address-tags.js';
import { greatCircleMeters } from '../../src/lib/geo/sphere.js';
import type { GraphInput } from '../../src/map/graphs/graph-assemble.js';
import { buildGraphInput } from '../../src/map/graphs/graph-build.js';
import { hilbertNumbering } from '../../src/map/graphs/node-order.js';
import { loadOsm, OsmData, type LoadPhase } from '../../src/map/osm/osm-data.js';
import { E7 } from '../../src/map/graphs/road-graph.js';
import { buildShapePool } from '../../src/map/graphs/shapes.js';
import { readOsmPbf, type OsmNode, type OsmRelation, type OsmWay } from '../../src/map/osm/osm-pbf.js';
import {
  nodeBlocks,
  nodeLimits,
  PROFILES,
  PUSHED_BACKWARD,
  PUSHED_FORWARD,
  routeDuration,
  turnRestrictions,
  wayAccess,
  wayClasses,
  wayLimits,
  type ProfileName,
} from '../../src/map/graphs/profiles.js';
import { applyProfiles, laneCountOf, roadKindOf } from '../../src/map/graphs/profile-ways.js';
import { BARRIER_KEYS, ROAD_KEYS } from '../../src/map/osm/road-tags.js';
import { radixSortPairs } from '../../src/lib/typed-pools.js';
import { projectRoot } from '../../src/lib/paths.js';

const EXTRACT = join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf');

interface Plain {
  ids: number[];
  coords: Map<number, [number, number]>;
  tagged: OsmNode[];
  ways: OsmWay[];
  relations: OsmRelation[];
}

let osm: OsmData;
let plain: Plain;
const phases: LoadPhase[] = [];
let lastProgress: [number, number] = [0, 0];

beforeAll(async () => {
  osm = await loadOsm(EXTRACT, (read, total, phase) => {
    if (phases[phases.length - 1] !== phase) phases.push(phase);
    lastProgress = [read, total];
  });
  plain = { ids: [], coords: new Map(), tagged: [], ways: [], relations: [] };
  for await (const block of readOsmPbf(EXTRACT)) {
    for (const n of block.nodes) {
      plain.ids.push(n.id);
      plain.coords.set(n.id, [n.lat, n.lon]);
      if (n.tags) plain.tagged.push(n);
    }
    plain.ways.push(...block.ways);
    plain.relations.push(...block.relations);
  }
});

const usable = (profile: ProfileName, tags: Record<string, string>): boolean => {
  const a = wayAccess(profile, tags);
  return a !== null && !(a.forward === 0 && a.backward === 0);
};

/** Roads, ferries, car trains and piers: what the OSM stage keeps for the profiles. */
const isRoad = (tags: Record<string, string>): boolean =>
  'highway' in tags || tags.route === 'ferry' || tags.route === 'shuttle_train' || tags.man_made === 'pier';

/** `tags` with just the keys in `keys`. */
const only = (tags: Record<string, string>, keys: ReadonlySet<string>): Record<string, string> =>
  Object.fromEntries(Object.entries(tags).filter(([k]) => keys.has(k)));

/** The ways the loader should keep, by the rules written out plainly. */
function expectedWays(p: Plain): OsmWay[] {
  const members = new Set(p.relations.filter((r) => isGeocoderRelation(r.tags)).flatMap((r) => r.members.filter((m) => m.type === 'way').map((m) => m.ref)));
  // addr:interpolation ways are kept for the house numbers along them.
  const interpolation = (tags: Record<string, string>) => /^(odd|even|all|[1-9]\d?)$/.test(tags['addr:interpolation'] ?? '');
  return p.ways.filter((w) => isRoad(w.tags) || streetName(w.tags) !== null || addressOf(w.tags, 'way') !== null || members.has(w.id) || interpolation(w.tags));
}

/** A graph input with each geometry's points in its own array (how the builder worked before shared shapes). */
type ReferenceInput = Omit<GraphInput, 'geomFirst' | 'geomLast'> & { geomFirst: Uint32Array; geomCoords: Float64Array };

/** The graph input of a profile computed directly over objects, as the builder did before the compact form. */
function referenceGraphInput(p: Plain, profile: ProfileName): ReferenceInput {
  const sortedIds = [...p.ids].sort((a, b) => a - b);
  const indexOf = new Map(sortedIds.map((id, i) => [id, i]));
  const coordOf = (i: number) => p.coords.get(sortedIds[i])!;
  const pieces: Array<{ way: number; idx: number[]; fwd: number; bwd: number }> = [];
  const usableWays = new Set<number>();
  // Barrier nodes close the way through them: the pieces stop short of them.
  const blocked = new Set(p.tagged.filter((n) => nodeBlocks(profile, n.tags!)).map((n) => n.id));
  for (const way of p.ways) {
    const access = wayAccess(profile, way.tags);
    if (!access || (access.forward === 0 && access.backward === 0)) continue;
    usableWays.add(way.id);
    let run: number[] = [];
    const flush = () => {
      if (run.length >= 2) pieces.push({ way: way.id, idx: run, fwd: access.forward, bwd: access.backward });
      run = [];
    };
    for (const ref of way.refs) {
      const i = indexOf.get(ref);
      if (i === undefined || blocked.has(ref)) flush();
      else run.push(i);
    }
    flush();
  }
  const usage = new Map<number, number>();
  for (const { idx } of pieces) idx.forEach((n, k) => usage.set(n, Math.min(2, (usage.get(n) ?? 0) + (k === 0 || k === idx.length - 1 ? 2 : 1))));
  const fileOrder = [...usage]
    .filter(([, u]) => u >= 2)
    .map(([n]) => n)
    .sort((a, b) => a - b);
  // Numbered along the Hilbert curve, as the build numbers them (node-order.ts, tested on its own).
  const numberOf = hilbertNumbering(Float64Array.from(fileOrder.flatMap((n) => coordOf(n))), fileOrder.length);
  const graphNodes: number[] = [];
  fileOrder.forEach((n, v) => (graphNodes[numberOf[v]] = n));
  const nodeOf = new Map(graphNodes.map((n, v) => [n, v]));
  const tenths = (m: number, kmh: number) => (kmh > 0 ? Math.max(1, Math.round((m / (kmh / 3.6)) * 10)) : 0);
  const g = {
    a: [] as number[],
    b: [] as number[],
    fwd: [] as number[],
    bwd: [] as number[],
    way: [] as number[],
    len: [] as number[],
    first: [0],
    coords: [] as number[],
  };
  // The lorry graph keeps the physical limits of each geometry whose way has any.
  const limitGeom: number[] = [],
    limitValue: number[] = [];
  // Each geometry's exclude classes are its way's, and for the bicycle where the bike is pushed each way.
  const geomClass: number[] = [];
  // And its way's lanes, which turn guidance's records read (graphs/road-guide.ts).
  const geomLanes: number[] = [];
  const tagsOf = new Map(p.ways.map((w) => [w.id, w.tags]));
  for (const piece of pieces) {
    let start = 0;
    for (let k = 1; k < piece.idx.length; k++) {
      if (!nodeOf.has(piece.idx[k])) continue;
      let length = 0;
      for (let j = start; j <= k; j++) {
        g.coords.push(...coordOf(piece.idx[j]));
        if (j > start) length += greatCircleMeters(...coordOf(piece.idx[j - 1]), ...coordOf(piece.idx[j]));
      }
      g.a.push(nodeOf.get(piece.idx[start])!);
      g.b.push(nodeOf.get(piece.idx[k])!);
      g.fwd.push(tenths(length, piece.fwd));
      g.bwd.push(tenths(length, piece.bwd));
      const limits = profile === 'driving-hgv' ? wayLimits(tagsOf.get(piece.way)!) : null;
      if (limits) {
        limitGeom.push(g.a.length - 1);
        limitValue.push(limits.heightM, limits.widthM, limits.lengthM, limits.weightT);
      }
      const access = wayAccess(profile, tagsOf.get(piece.way)!);
      geomClass.push(
        wayClasses(profile, tagsOf.get(piece.way)!) | (access?.pushedForward ? PUSHED_FORWARD : 0) | (access?.pushedBackward ? PUSHED_BACKWARD : 0),
      );
      geomLanes.push(laneCountOf(tagsOf.get(piece.way)!));
      g.way.push(piece.way);
      g.len.push(length);
      g.first.push(g.coords.length / 2);
      start = k;
    }
  }
  const restrictions: ReferenceInput['restrictions'] = [];
  const wayById = new Map(p.ways.map((w) => [w.id, w]));
  // The via node must end both the from-way and the to-way.
  const ends = (way: number, node: number): boolean => {
    const refs = wayById.get(way)?.refs;
    return refs !== undefined && (refs[0] === node || refs[refs.length - 1] === node);
  };
  const viaWayRestrictions: ReferenceInput['viaWayRestrictions'] = [];
  const graphNode = (id: number): number | undefined => nodeOf.get(indexOf.get(id) ?? -1);
  for (const rel of p.relations) {
    for (const r of turnRestrictions(profile, rel.tags, rel.members)) {
      if (!usableWays.has(r.fromWay) || !usableWays.has(r.toWay)) continue;
      if (r.viaWays.length) {
        // Along via ways, end to end: from an end of the from-way to an end of the to-way.
        const refsOf = r.viaWays.map((w) => wayById.get(w)?.refs);
        if (refsOf.some((refs, i) => !refs || !usableWays.has(r.viaWays[i]) || refs[0] === refs[refs.length - 1])) continue;
        const first = refsOf[0]!;
        const start = ends(r.fromWay, first[0]) ? first[0] : first[first.length - 1];
        if (!ends(r.fromWay, start)) continue;
        const nodes = [start];
        for (const refs of refsOf as number[][]) {
          const at = nodes[nodes.length - 1];
          if (refs[0] !== at && refs[refs.length - 1] !== at) break;
          nodes.push(refs[0] === at ? refs[refs.length - 1] : refs[0]);
        }
        if (nodes.length !== refsOf.length + 1 || !ends(r.toWay, nodes[nodes.length - 1])) continue;
        const graph = nodes.map(graphNode);
        if (graph.every((n) => n !== undefined))
          viaWayRestrictions!.push({ nodes: graph as number[], fromWay: r.fromWay, viaWays: r.viaWays, toWay: r.toWay, only: r.only });
        continue;
      }
      if (!ends(r.fromWay, r.viaNode) || !ends(r.toWay, r.viaNode)) continue;
      const v = graphNode(r.viaNode);
      if (v !== undefined) restrictions.push({ via: v, fromWay: r.fromWay, toWay: r.toWay, only: r.only });
    }
  }
  return {
    nodeCount: graphNodes.length,
    nodeCoords: Float64Array.from(graphNodes.flatMap((n) => coordOf(n))),
    geomA: Uint32Array.from(g.a),
    geomB: Uint32Array.from(g.b),
    geomFwd: Uint32Array.from(g.fwd),
    geomBwd: Uint32Array.from(g.bwd),
    geomWay: Float64Array.from(g.way),
    geomCm: Uint32Array.from(g.len, (m) => Math.round(m * 100)),
    geomFirst: Uint32Array.from(g.first),
    geomCoords: Float64Array.from(g.coords),
    restrictions,
    viaWayRestrictions,
    limitGeom: Uint32Array.from(limitGeom),
    limitValue: Float64Array.from(limitValue),
    geomClass: Uint8Array.from(geomClass),
    geomLanes: Uint8Array.from(geomLanes),
  };
}

/**
 * Checks a graph input against the reference: everything but the geometries' points equal, and each
 * geometry's run of shared points the reference's points of it (in 1e-7 degrees, as shapes store them).
 */
function expectSameGraph(osm: OsmData, profile: ProfileName, want: ReferenceInput): GraphInput {
  const pool = buildShapePool(osm);
  const got = buildGraphInput(osm, profile, pool);
  const { geomFirst, geomLast, guided: isGuided, maneuvers, ...rest } = got;
  const { geomFirst: refFirst, geomCoords: refCoords, ...refRest } = want;
  expect(rest).toEqual(refRest);
  // The extracts have no maneuver relation (test/map/maneuvers.test.ts and OSRM's maneuver-tag.feature
  // check those that do).
  expect(osm.maneuverRelations).toEqual([]);
  expect(maneuvers).toEqual(new Int32Array(0));
  // The motor graphs carry turn guidance's records (map/graphs/road-guide.ts), made from the same input.
  expect(isGuided).toBe(profile === 'driving-car' || profile === 'driving-hgv');
  expect(geomFirst.length).toBe(refFirst.length - 1);
  for (let g = 0; g < geomFirst.length; g++) {
    const points = Array.from(pool.pointsE7.subarray(2 * geomFirst[g], 2 * geomLast[g] + 2));
    const refPoints = Array.from(refCoords.subarray(2 * refFirst[g], 2 * refFirst[g + 1]), (c) => Math.round(c / E7));
    if (points.join() !== refPoints.join()) expect(points).toEqual(refPoints);
  }
  return got;
}

describe('loadOsm on a real extract', () => {
  it('reads the file once per element kind, relations first', () => {
    expect(phases).toEqual(['relations', 'ways', 'nodes']);
    expect(lastProgress[0]).toBe(lastProgress[1]);
    expect(lastProgress[1]).toBeGreaterThan(2_000_000);
  });

  it('keeps exactly the roads and the ways the geocoder uses, in file order, with their node ids', () => {
    const expected = expectedWays(plain);
    expect(expected.length).toBeGreaterThan(5000);
    expect(expected.length).toBeLessThan(plain.ways.length); // buildings without an address, landuse, ... are dropped
    expect(Array.from(osm.wayIds)).toEqual(expected.map((w) => w.id));
    expected.forEach((w, i) => expect(osm.wayRefIds(i)).toEqual(w.refs));
  });

  it('keeps each road’s routing tags as one of a few distinct sets, and the profiles read nothing else', () => {
    const expected = expectedWays(plain);
    const roads = expected.filter((w) => isRoad(w.tags)).length;
    expect(osm.roadTagSets.length).toBeLessThan(roads / 5);
    expected.forEach((w, i) => {
      const kept = osm.roadTagSets[osm.wayTags[i]];
      if (!isRoad(w.tags)) return expect(osm.wayTags[i]).toBe(0);
      expect({ ...kept }).toEqual(only(w.tags, ROAD_KEYS));
      // Every rule of the graph stage gives on the kept set what it gives on all the way's tags.
      for (const profile of PROFILES) {
        expect(wayAccess(profile, kept)).toEqual(wayAccess(profile, w.tags));
        expect(wayClasses(profile, kept)).toBe(wayClasses(profile, w.tags));
      }
      expect([wayLimits(kept), routeDuration(kept), roadKindOf(kept)]).toEqual([wayLimits(w.tags), routeDuration(w.tags), roadKindOf(w.tags)]);
    });
    // Barrier nodes on kept ways likewise; a node that closes a road to some profile is among them.
    const barrierOf = new Map(Array.from(osm.barrierNodes.node, (n, i) => [osm.nodeIds[n], osm.barrierTagSets[osm.barrierNodes.tags[i]]]));
    let closing = 0;
    for (const n of plain.tagged) {
      if (osm.nodeIndex(n.id) < 0) continue;
      const kept = barrierOf.get(n.id);
      if (kept) expect({ ...kept }).toEqual(only(n.tags!, BARRIER_KEYS));
      const tags = kept ?? {};
      for (const profile of PROFILES) expect(nodeBlocks(profile, tags)).toBe(nodeBlocks(profile, n.tags!));
      expect(nodeLimits(tags)).toEqual(nodeLimits(n.tags!));
      if (PROFILES.some((profile) => nodeBlocks(profile, n.tags!))) closing++;
    }
    expect(closing).toBeGreaterThan(10);
  });

  it('gives each kept way the speeds per profile its tags give (the graph stage’s profiles)', () => {
    const expected = expectedWays(plain);
    const P = PROFILES.length;
    const { waySpeeds, speeds } = applyProfiles(osm);
    expected.forEach((w, i) => {
      PROFILES.forEach((profile, p) => {
        const s = waySpeeds[i * P + p];
        const a = wayAccess(profile, w.tags);
        if (!usable(profile, w.tags)) expect(s).toBe(0);
        else expect([speeds[2 * s], speeds[2 * s + 1]]).toEqual([a!.forward, a!.backward]);
      });
    });
  });

  it('keeps the coordinates of the nodes kept ways use, and of no other node', () => {
    const used = new Set(expectedWays(plain).flatMap((w) => w.refs.filter((r) => plain.coords.has(r))));
    expect(osm.nodeCount).toBe(used.size);
    expect(osm.nodeCount).toBeLessThan(plain.ids.length);
    expect(Array.from(osm.nodeIds)).toEqual([...used].sort((a, b) => a - b));
    for (let i = 0; i < osm.nodeCount; i += 97) expect(osm.coord(osm.nodeIds[i])).toEqual(plain.coords.get(osm.nodeIds[i]));
    // A node on a way nobody routes on or looks up (a building without an address, say) is gone.
    const dropped = plain.ways.find((w) => w.tags.building && !addressOf(w.tags, 'way') && w.refs.every((r) => !used.has(r)))!;
    expect(dropped).toBeDefined();
    expect(osm.nodeIndex(dropped.refs[0])).toBe(-1);
    expect(osm.coord(dropped.refs[0])).toBeUndefined();
    // So is an untagged node no way uses, and a tagged one (a bus stop) that is neither address nor place.
    const busStop = plain.tagged.find((n) => n.tags!.highway === 'bus_stop' && !used.has(n.id) && !n.tags!['addr:housenumber'])!;
    expect(busStop).toBeDefined();
    expect(osm.coord(busStop.id)).toBeUndefined();
  });

  it('keeps address points and places with only the fields the geocoder records', () => {
    const { addressNodes, places } = osm.geocoder;
    const addressed = plain.tagged.filter((n) => addressOf(n.tags!, 'node'));
    expect(addressNodes.count).toBe(addressed.length);
    // A house of an associatedStreet relation is on the relation's street: marked with the relation's
    // number until the index build picks the nearest of its streets.
    const houses = new Set(
      plain.relations
        .filter((r) => r.tags.type === 'associatedStreet')
        .flatMap((r) => r.members.filter((m) => m.type === 'node' && m.role === 'house').map((m) => m.ref)),
    );
    addressed.forEach((n, i) => {
      const a = addressOf(n.tags!, 'node')!;
      expect([addressNodes.coords[2 * i], addressNodes.coords[2 * i + 1]]).toEqual([n.lat, n.lon]);
      const field = (k: number) => osm.strings[addressNodes.fields[4 * i + k]] ?? null;
      if (houses.has(n.id)) expect(field(0)).toMatch(new RegExp(`^${ASSOCIATED_STREET_MARK}\\d+$`));
      else expect(field(0)).toBe(a.street);
      expect([field(1), field(2), field(3)]).toEqual([a.number, a.postcode, a.city]);
    });
    expect(places.count).toBeGreaterThan(10);
    expect(osm.geocoder.relations.every((r) => isGeocoderRelation(r.tags))).toBe(true);
  });

  it.each(PROFILES)('builds the %s graph input a direct computation over all elements gives', (profile) => {
    const want = referenceGraphInput(plain, profile);
    expect(want.geomA.length).toBeGreaterThan(1000);
    const got = expectSameGraph(osm, profile, want);
    // A few ways by hand: each geometry joins graph nodes along a way of the extract.
    for (let g = 0; g < got.geomA.length; g += 501) {
      const way = plain.ways.find((w) => w.id === got.geomWay[g])!;
      const a = [got.nodeCoords[2 * got.geomA[g]], got.nodeCoords[2 * got.geomA[g] + 1]];
      const b = [got.nodeCoords[2 * got.geomB[g]], got.nodeCoords[2 * got.geomB[g] + 1]];
      expect(way.refs.some((r) => plain.coords.get(r)?.join() === a.join())).toBe(true);
      expect(way.refs.some((r) => plain.coords.get(r)?.join() === b.join())).toBe(true);
    }
  });

  it('keeps the addr:interpolation way as the extract gives it, and the geocoder stage numbers the houses along it', () => {
    const { interpolations, interpolationNodes } = osm.geocoder;
    const way = plain.ways.find((w) => w.tags['addr:interpolation'])!;
    expect([interpolations.count, osm.wayIds[interpolations.way[0]], interpolations.step[0]]).toEqual([1, way.id, 2]);
    expect([osm.strings[interpolations.street[0]], osm.strings[interpolations.postcode[0]]]).toEqual([undefined, undefined]);
    // Its nodes with a house number, and only those, with their own address.
    const ends = plain.tagged.filter((n) => way.refs.includes(n.id) && addressOf(n.tags!, 'node')?.number);
    expect(Array.from(interpolationNodes.node, (k) => osm.nodeIds[k])).toEqual(ends.map((n) => n.id));
    ends.forEach((n, i) => expect(osm.strings[interpolationNodes.fields[4 * i + 1]]).toBe(n.tags!['addr:housenumber']));
    // Odd, 1001 to 1051: the 24 numbers in between.
    expect(interpolatedAddresses(osm).map((a) => a.fields.number)).toEqual(Array.from({ length: 24 }, (_, i) => String(1003 + 2 * i)));
  });

  it('gives the same graph inputs and geocoder files when built from objects in memory, node order shuffled', async () => {
    // Descending ids take the binary-search path of the node matching instead of the merge walk.
    const order = [...plain.ids].sort((a, b) => b - a);
    const fromObjects = new OsmData(
      Float64Array.from(order),
      Float64Array.from(order.flatMap((id) => plain.coords.get(id)!)),
      plain.tagged,
      plain.ways,
      plain.relations,
    );
    const [poolA, poolB] = [buildShapePool(fromObjects), buildShapePool(osm)];
    for (const profile of PROFILES) expect(buildGraphInput(fromObjects, profile, poolA)).toEqual(buildGraphInput(osm, profile, poolB));
    expect(poolA).toEqual(poolB);
    const [a, b] = [await mkdtemp(join(tmpdir(), 'waymark-osm-a-')), await mkdtemp(join(tmpdir(), 'waymark-osm-b-'))];
    try {
      await buildGeocoderIndex(osm, a);
      await buildGeocoderIndex(fromObjects, b);
      const files = await readdir(join(a, 'geocoder'));
      expect(files.length).toBeGreaterThan(5);
      for (const f of files) expect(await readFile(join(b, 'geocoder', f))).toEqual(await readFile(join(a, 'geocoder', f)));
    } finally {
      await rm(a, { recursive: true, force: true });
      await rm(b, { recursive: true, force: true });
    }
  });

  it('still offers every element as an object, read again on demand', () => {
    expect(osm.ways.length).toBe(plain.ways.length);
    expect(osm.relations).toEqual(plain.relations);
    expect(osm.taggedNodes).toEqual(plain.tagged);
  });
});

describe('ways reaching past the extract', () => {
  // Nodes 98 and 99 are not in the extract; node 7 is in it but on no way.
  const coords = new Map<number, [number, number]>([
    [1, [47, 9]],
    [2, [47, 9.001]],
    [3, [47, 9.002]],
    [4, [47, 9.003]],
    [5, [47.001, 9.003]],
    [6, [47.002, 9.003]],
    [7, [47.5, 9.5]],
  ]);
  const ways: OsmWay[] = [
    { id: 10, refs: [1, 2, 99, 3, 4], tags: { highway: 'residential', name: 'Cut Road' } },
    { id: 11, refs: [4, 5, 6], tags: { highway: 'footway' } },
    { id: 12, refs: [6, 98, 1], tags: {} },
    { id: 13, refs: [5, 7], tags: { building: 'yes' } },
  ];
  const relations: OsmRelation[] = [
    { id: 20, tags: { type: 'boundary', boundary: 'administrative', admin_level: '8', name: 'X' }, members: [{ type: 'way', ref: 12, role: 'outer' }] },
  ];
  const ids = [...coords.keys()];
  const data = new OsmData(Float64Array.from(ids), Float64Array.from(ids.flatMap((id) => coords.get(id)!)), [], ways, relations);

  it('keeps the ids of missing nodes for the ways and no coordinates for them', () => {
    expect(Array.from(data.wayIds)).toEqual([10, 11, 12]); // 13 is a building without an address
    expect(Array.from(data.nodeIds)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(data.wayRefIds(0)).toEqual([1, 2, 99, 3, 4]);
    expect(data.wayRefIds(2)).toEqual([6, 98, 1]);
    expect(data.wayPoints(0)).toEqual([coords.get(1), coords.get(2), coords.get(3), coords.get(4)]);
    expect(data.coord(99)).toBeUndefined();
    expect(data.coord(7)).toBeUndefined();
    expect(data.geocoder.relationWays.get(12)).toBe(2);
  });

  it.each(PROFILES)('cuts %s geometries at the gap as the direct computation does', (profile) => {
    const plainData: Plain = { ids, coords, tagged: [], ways, relations };
    expectSameGraph(data, profile, referenceGraphInput(plainData, profile));
  });
});

describe('radixSortPairs', () => {
  it('sorts ids of any size and sign like a comparison sort, carrying the payload along', () => {
    for (const [n, lo, hi] of [
      [5000, 0, 50],
      [20000, 0, 1.3e10],
      [20000, -3e9, 2 ** 50],
      [30000, 2 ** 40, 2 ** 40 + 5000],
      [3, 7, 8],
    ]) {
      const keys = Float64Array.from({ length: n }, (_, i) => lo + Math.floor((((i * 2654435761) % 1000003) / 1000003) * (hi - lo)));
      const original = keys.slice();
      const payload = Uint32Array.from({ length: n }, (_, i) => i);
      radixSortPairs(keys, payload);
      expect(Array.from(keys)).toEqual([...original].sort((a, b) => a - b));
      expect(Array.from(payload, (i) => original[i])).toEqual(Array.from(keys));
      expect(new Set(payload).size).toBe(n);
    }
  });
});
