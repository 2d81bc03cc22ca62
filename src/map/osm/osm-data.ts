// The map build's first stage: what the later ones need from an extract, read in three passes so memory
// grows with the road network and the geocoder's few features, never with the extract: relations first
// (turn restrictions, and the boundaries and addressed relations the geocoder uses), then the ways worth
// keeping (roads, streets, addresses, members of those relations), each road with its routing tags as an
// index into a table of the distinct sets (road-tags.ts), then the coordinates of just the nodes those
// ways use, plus barrier, address and place nodes. Everything per node or per way lives in typed arrays
// (the big ones in SharedArrayBuffers). What the tags mean to each routing profile is the graph stage's
// (graphs/profile-ways.ts): this stage knows OSM, not the profiles.
import { CoverageBuilder, type Coverage } from './coverage.js';
import {
  addressOf,
  ASSOCIATED_STREET_MARK,
  isGeocoderRelation,
  minorPlaceName,
  NODE_KEY_PREFIXES,
  NODE_KEYS,
  placeName,
  streetAddress,
  streetName,
  otherNames,
  WAY_KEYS,
  type AddressFields,
} from './address-tags.js';
import {
  NODES,
  PrimitiveBlock,
  readOsmBlobs,
  readOsmPbfSync,
  RELATIONS,
  WayCursor,
  WAYS,
  type KeyFilter,
  type OsmNode,
  type OsmRelation,
  type OsmWay,
} from './osm-pbf.js';
import { destinationsOf, exitsOf, hasSigns, turnLanesOf } from './road-signs.js';
import { BARRIER_KEYS, isRoad, mayClose, MEMBER_ROLES, MEMBER_TYPES, RESTRICTION_KEYS, ROAD_KEYS, TagSets } from './road-tags.js';
import { ChunkedFloat64, Growable, IdSet, lowerBoundFrom, radixSortPairs, sharedArray, toShared } from '../../lib/typed-pools.js';

/** Which pass `loadOsm` is in. */
export type LoadPhase = 'relations' | 'ways' | 'nodes';

/** Progress of one pass: bytes of the file gone through (each pass goes through all of it) and its size. */
export type LoadProgress = (bytesRead: number, totalBytes: number, phase: LoadPhase) => void;

/**
 * The ways that `type=restriction` relations name, by id: the first and last node of each (a restriction's
 * via node must end both its from-way and its to-way) and the kept way (-1: not kept). Only ways with
 * tags of their own are here, so a restriction over an untagged way is never whole.
 */
export type RestrictionWays = Map<number, [first: number, last: number, way: number]>;

/**
 * `type=restriction` relations, file order: each one's restriction tags (road-tags.ts RESTRICTION_KEYS) as
 * a set in `tagSets`, and its `from`, `via` and `to` members, relation i's at [first[i], first[i + 1]):
 * the id and the code (road-tags.ts MEMBER_ROLES index × 3 + MEMBER_TYPES index).
 */
export interface RestrictionRelations {
  count: number;
  tags: Uint32Array;
  tagSets: ReadonlyArray<Readonly<Record<string, string>>>;
  first: Uint32Array;
  memberRef: Float64Array;
  memberCode: Uint8Array;
}

/**
 * A `type=maneuver` (or `manoeuvre`) relation (OSRM's ManeuverOverrideRelationParser): the instruction a
 * route from way `from` along the `via` ways (in order; none when the turn is at the via node itself) onto
 * way `to` is given at node `viaNode`, and the values of its `maneuver` (or `manoeuvre`) and `direction`
 * tags. Only whole ones: one from-way, one to-way, one via node. Rare (none in most extracts): objects.
 */
export interface ManeuverRelation {
  from: number;
  viaNode: number;
  viaWays: number[];
  to: number;
  maneuver: string;
  direction: string;
}

/** The relation as a ManeuverRelation, or null when it is none or not whole (as OSRM's parser reads it). */
export function maneuverRelationOf(rel: OsmRelation): ManeuverRelation | null {
  if (rel.tags.type !== 'maneuver' && rel.tags.type !== 'manoeuvre') return null;
  let from: number | null = null,
    to: number | null = null,
    viaNode: number | null = null,
    whole = true;
  const viaWays: number[] = [];
  for (const m of rel.members) {
    if (m.type === 'node' && m.role === 'via') {
      whole &&= viaNode === null;
      viaNode = m.ref;
    } else if (m.type === 'way' && m.role === 'from') {
      whole &&= from === null;
      from = m.ref;
    } else if (m.type === 'way' && m.role === 'to') {
      whole &&= to === null;
      to = m.ref;
    } else if (m.type === 'way' && m.role === 'via') viaWays.push(m.ref);
  }
  if (!whole || from === null || to === null || viaNode === null) return null;
  // OSRM reads `manoeuvre` where the relation has it, else `maneuver`.
  const maneuver = 'manoeuvre' in rel.tags ? rel.tags.manoeuvre : (rel.tags.maneuver ?? '');
  return { from, viaNode, viaWays, to, maneuver, direction: rel.tags.direction ?? '' };
}

/** Node keys read from the extract: the geocoder's and the barriers'. */
const NODE_READ_SET: ReadonlySet<string> = new Set([...NODE_KEYS, ...BARRIER_KEYS]);
const NODE_READ_KEYS: KeyFilter = { has: (k) => NODE_READ_SET.has(k) || NODE_KEY_PREFIXES.some((p) => k.startsWith(p)) };
/**
 * A way with none of these keys matters only as a relation member (piers are for walking and pushing bikes,
 * `route` marks ferries and car trains).
 */
const WAY_READ_KEYS: ReadonlySet<string> = new Set([...WAY_KEYS, 'man_made', 'route', 'addr:interpolation']);
/** House-number steps of `addr:interpolation` values (Nominatim's; a number is the step itself). */
const INTERPOLATION_STEPS: Record<string, number> = { odd: 2, even: 2, all: 1 };

/** Points with an address: lat, lon each, and street, number, postcode as indexes into `strings` (-1 = none). */
export interface AddressPoints {
  count: number;
  coords: Float64Array;
  fields: Int32Array;
}

/** What only the geocoder index uses. Indexes of ways are into OsmData's way arrays. */
export interface GeocoderSource {
  /** Boundary relations and relations with an address, all tags kept; file order. */
  relations: OsmRelation[];
  /** Way id → its kept way, for the members of `relations` (the last way of an id, should the extract repeat one). */
  relationWays: Map<number, number>;
  /**
   * Address nodes in file order (a house of an associatedStreet relation without a street of its own on
   * the relation's street).
   */
  addressNodes: AddressPoints;
  /**
   * `addr:interpolation` ways with a step (INTERPOLATION_STEPS), file order: the kept way, the step, and
   * the way's own addr:street and addr:postcode in `strings` (-1 = none). The geocoder stage numbers the
   * houses along them (geocoder/interpolation.ts).
   */
  interpolations: { count: number; way: Uint32Array; step: Uint8Array; street: Int32Array; postcode: Int32Array };
  /**
   * The nodes of those ways with a house number, file order: the kept node, and its street, number,
   * postcode, city (4 per node) into `strings`, as in `addressNodes`.
   */
  interpolationNodes: { count: number; node: Uint32Array; fields: Int32Array };
  /** Ways with an address, file order: the way, and street, number, postcode, city (4 per way) into `strings`. */
  addressWays: { count: number; way: Uint32Array; fields: Int32Array };
  /**
   * Named streets, file order: the way, its name, its other names (`;`-separated), its own postcode and
   * addr:city, in `strings` (-1 = none).
   */
  streets: { count: number; way: Uint32Array; name: Int32Array; otherNames: Int32Array; postcode: Int32Array; city: Int32Array };
  /**
   * Per associatedStreet relation, the names of its named street members, `;`-separated (the relation's
   * own name when it has none): a house of the relation has `ASSOCIATED_STREET_MARK` + the relation's
   * number as its street, which the index build puts on the nearest of these streets.
   */
  associatedStreets: string[];
  /** Cities, towns and villages: lat, lon and name in `strings`, file order. */
  places: { count: number; coords: Float64Array; name: Int32Array; otherNames: Int32Array };
  /** Hamlets, localities, suburbs and other smaller named places, the same way (search only). */
  minorPlaces: { count: number; coords: Float64Array; name: Int32Array; otherNames: Int32Array };
  /** Grid cells with any node of the extract, computed over every node read. */
  coverage: Coverage;
}

/** The compact form of an extract that `OsmData` wraps. */
export interface OsmParts {
  /** Ids of the kept nodes (those the kept ways use and the extract has), ascending. */
  nodeIds: Float64Array;
  /** lat, lon per kept node. */
  nodeCoords: Float64Array;
  wayIds: Float64Array;
  /** Per way, its first entry in `wayNodes`; one extra entry at the end. */
  wayFirst: Uint32Array;
  /** Per way node: the kept node's index, or -1 - k when the extract lacks it, its id being `missingIds[k]`. */
  wayNodes: Int32Array;
  missingIds: Float64Array;
  /** Per kept way, its set of road tags (road-tags.ts) in `roadTagSets`; 0 = not a road. */
  wayTags: Uint32Array;
  roadTagSets: ReadonlyArray<Readonly<Record<string, string>>>;
  /**
   * Kept nodes that may close the roads through them (`mayClose`), ascending, and the set of their
   * barrier tags in `barrierTagSets`.
   */
  barrierNodes: { node: Uint32Array; tags: Uint32Array };
  barrierTagSets: ReadonlyArray<Readonly<Record<string, string>>>;
  restrictionRelations: RestrictionRelations;
  restrictionWays: RestrictionWays;
  /** Whole `type=maneuver` relations, file order. */
  maneuverRelations: ManeuverRelation[];
  /** Names and address parts that the geocoder fields refer to. */
  strings: string[];
  roadNames: RoadNames;
  geocoder: GeocoderSource;
}

/**
 * The `name` and `ref` tags of the roads that have either: the kept way, ascending, and each tag as an
 * index into `strings` (-1 = none), each distinct text stored once; and the roads' signs.
 */
export interface RoadNames {
  count: number;
  way: Uint32Array;
  name: Int32Array;
  ref: Int32Array;
  signs: RoadSigns;
  strings: string[];
}

/**
 * The roads with destination signs, exit numbers or turn lanes (road-signs.ts), a few in a thousand: the
 * kept way, ascending, the destinations read travelling along it and against it, its exits, and its turn
 * lanes along it and against it, as indexes into RoadNames' `strings` (-1 = none).
 */
export interface RoadSigns {
  count: number;
  way: Uint32Array;
  forward: Int32Array;
  backward: Int32Array;
  exits: Int32Array;
  lanesForward: Int32Array;
  lanesBackward: Int32Array;
}

class StringTable {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string | null): number {
    if (s === null) return -1;
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.push(s) - 1;
      this.ids.set(s, id);
    }
    return id;
  }
}

/**
 * Takes an extract's elements kind by kind, relations, then ways, then nodes (the order that lets each
 * pass know what to keep), and builds the compact parts.
 */
class OsmCollector {
  private readonly strings = new StringTable();
  // Relations.
  private readonly restrictionTags = new TagSets(RESTRICTION_KEYS);
  private readonly restrictionSets = new Growable(Uint32Array);
  private readonly restrictionFirst = new Growable(Uint32Array);
  private readonly restrictionRefs = new Growable(Float64Array);
  private readonly restrictionCodes = new Growable(Uint8Array);
  private readonly restrictionMembers = new IdSet();
  private readonly restrictionWays: RestrictionWays = new Map();
  private readonly maneuverRelations: ManeuverRelation[] = [];
  private readonly geoRelations: OsmRelation[] = [];
  private readonly memberWays = new IdSet();
  // Ways: rows grown together and written in place (a generic push per field is measurably slower).
  private wayCount = 0;
  private wayIds = new Float64Array(1024);
  private wayFirst = new Uint32Array(1025);
  private wayTags = new Uint32Array(1024);
  private readonly refs = new ChunkedFloat64();
  private readonly roadTags = new TagSets(ROAD_KEYS);
  private readonly relationWays = new Map<number, number>();
  private readonly streetWays = new Growable(Uint32Array);
  private readonly streetNames = new Growable(Int32Array);
  private readonly labelStrings = new StringTable();
  private readonly labelWays = new Growable(Uint32Array);
  private readonly labelNames = new Growable(Int32Array);
  private readonly labelRefs = new Growable(Int32Array);
  private readonly signWays = new Growable(Uint32Array);
  private readonly signForward = new Growable(Int32Array);
  private readonly signBackward = new Growable(Int32Array);
  private readonly signExits = new Growable(Int32Array);
  private readonly signLanesForward = new Growable(Int32Array);
  private readonly signLanesBackward = new Growable(Int32Array);
  private readonly addressWays = new Growable(Uint32Array);
  private readonly addressWayFields = new Growable(Int32Array);
  /** `addr:interpolation` ways: the kept way, its step and its own street/postcode (in `strings`), if tagged. */
  private readonly interpolationWays = new Growable(Uint32Array);
  private readonly interpolationSteps = new Growable(Uint8Array);
  private readonly interpolationStreets = new Growable(Int32Array);
  private readonly interpolationPostcodes = new Growable(Int32Array);
  /** Nodes of interpolation ways; those with a house number (read in the node pass) as a needed-node index and their address. */
  private readonly interpolationRefs = new IdSet();
  private readonly interpolationAt = new Growable(Uint32Array);
  private readonly interpolationFields = new Growable(Int32Array);
  /** Members with role `house` of `type=associatedStreet` relations → the relation's number among them. */
  private readonly associatedNodes = new Map<number, number>();
  private readonly associatedWays = new Map<number, number>();
  /** Way members with role `street` → the numbers of their relations; per relation its streets' names and its own name (the fallback). */
  private readonly associatedStreetWays = new Map<number, number[]>();
  private readonly associatedStreetNames: Array<{ own: string | null; names: Set<string> }> = [];
  private readonly streetOtherNames = new Growable(Int32Array);
  private readonly streetPostcodes = new Growable(Int32Array);
  private readonly streetCities = new Growable(Int32Array);
  /** Needed-node index → the node's set of barrier tags. */
  private readonly barrierAt = new Map<number, number>();
  private readonly barrierTags = new TagSets(BARRIER_KEYS);
  // Nodes.
  private needed = new Float64Array(0);
  private neededCount = 0;
  private wayNodes = new Int32Array(0);
  private coords = new Float64Array(0);
  private cursor = 0;
  private lastId = -Infinity;
  private readonly addressNodeCoords = new Growable(Float64Array);
  private readonly addressNodeFields = new Growable(Int32Array);
  private readonly placeCoords = new Growable(Float64Array);
  private readonly placeNames = new Growable(Int32Array);
  private readonly placeOtherNames = new Growable(Int32Array);
  private readonly minorPlaceCoords = new Growable(Float64Array);
  private readonly minorPlaceNames = new Growable(Int32Array);
  private readonly minorPlaceOtherNames = new Growable(Int32Array);
  private readonly coverage = new CoverageBuilder();

  relation(rel: OsmRelation): void {
    // Which profiles a restriction applies to, and how, is the graph stage's: here its ways' ends are noted.
    if (rel.tags.type === 'restriction') {
      if (this.restrictionFirst.length === 0) this.restrictionFirst.push(0);
      this.restrictionSets.push(this.restrictionTags.id(rel.tags));
      for (const m of rel.members) {
        const role = MEMBER_ROLES.indexOf(m.role as (typeof MEMBER_ROLES)[number]),
          type = MEMBER_TYPES.indexOf(m.type as (typeof MEMBER_TYPES)[number]);
        if (role < 0 || type < 0) continue;
        this.restrictionRefs.push(m.ref);
        this.restrictionCodes.push(role * 3 + type);
        if (m.type === 'way') this.restrictionMembers.add(m.ref);
      }
      this.restrictionFirst.push(this.restrictionRefs.length);
    }
    const maneuver = maneuverRelationOf(rel);
    if (maneuver) this.maneuverRelations.push(maneuver);
    // A house of an associatedStreet relation is on the relation's street, whatever its addr:street says
    // (as Nominatim): the nearest of its named street members, the relation's name when it has none.
    if (rel.tags.type === 'associatedStreet') {
      const k = this.associatedStreetNames.push({ own: rel.tags.name || rel.tags['addr:street'] || null, names: new Set() }) - 1;
      for (const m of rel.members) {
        if (m.role === 'house' && m.type === 'node') this.associatedNodes.set(m.ref, k);
        else if (m.role === 'house' && m.type === 'way') this.associatedWays.set(m.ref, k);
        else if (m.role === 'street' && m.type === 'way') this.associatedStreetWays.set(m.ref, [...(this.associatedStreetWays.get(m.ref) ?? []), k]);
      }
    }
    if (isGeocoderRelation(rel.tags)) {
      this.geoRelations.push(rel);
      for (const m of rel.members) if (m.type === 'way') this.memberWays.add(m.ref);
    }
  }

  /** `tags` may be null when the way has none of WAY_READ_KEYS: then it matters only as a relation member. */
  way(id: number, tags: Record<string, string> | null, refs: ArrayLike<number>, refCount: number): void {
    const member = this.memberWays.has(id);
    const road = tags !== null && isRoad(tags);
    let street: string | null = null;
    let address: AddressFields | null = null;
    if (tags) {
      street = streetName(tags);
      address = addressOf(tags, 'way');
      if (street !== null) for (const k of this.associatedStreetWays.get(id) ?? []) this.associatedStreetNames[k].names.add(street);
    }
    address = this.associated(address, this.associatedWays.get(id));
    const interpolation = tags?.['addr:interpolation'];
    const step = interpolation === undefined ? 0 : (INTERPOLATION_STEPS[interpolation] ?? (/^[1-9]\d?$/.test(interpolation) ? Number(interpolation) : 0));
    const keep = road || street !== null || address !== null || member || step !== 0;
    if (tags && this.restrictionMembers.has(id)) this.restrictionWays.set(id, [refs[0], refs[refCount - 1], keep ? this.wayCount : -1]);
    if (!keep) return;
    const w = this.wayCount++;
    if (w === this.wayIds.length) this.growWays();
    this.wayIds[w] = id;
    this.refs.append(refs, refCount);
    this.wayFirst[w + 1] = this.refs.length;
    if (road) {
      this.wayTags[w] = this.roadTags.id(tags);
      const name = tags.name || null,
        ref = tags.ref || null;
      if (name !== null || ref !== null) {
        this.labelWays.push(w);
        this.labelNames.push(this.labelStrings.id(name));
        this.labelRefs.push(this.labelStrings.id(ref));
      }
      if (hasSigns(tags)) this.roadSigns(w, tags);
    }
    if (member) this.relationWays.set(id, w);
    if (street !== null) {
      this.streetWays.push(w);
      this.streetNames.push(this.strings.id(street));
      this.streetOtherNames.push(this.strings.id(otherNames(tags!, street)));
      const own = streetAddress(tags!);
      this.streetPostcodes.push(this.strings.id(own.postcode));
      this.streetCities.push(this.strings.id(own.city));
    }
    if (address !== null) {
      this.addressWays.push(w);
      this.pushAddress(this.addressWayFields, address);
    }
    if (step && tags) {
      this.interpolationWays.push(w);
      this.interpolationSteps.push(step);
      this.interpolationStreets.push(this.strings.id(tags['addr:street'] || null));
      this.interpolationPostcodes.push(this.strings.id(tags['addr:postcode'] || null));
      for (let i = 0; i < refCount; i++) this.interpolationRefs.add(refs[i]);
    }
  }

  private roadSigns(w: number, tags: Record<string, string>): void {
    const forward = destinationsOf(tags, true),
      backward = destinationsOf(tags, false),
      exits = exitsOf(tags),
      lanesForward = turnLanesOf(tags, true),
      lanesBackward = turnLanesOf(tags, false);
    if (forward === null && backward === null && exits === null && lanesForward === null && lanesBackward === null) return;
    this.signWays.push(w);
    this.signForward.push(this.labelStrings.id(forward));
    this.signBackward.push(this.labelStrings.id(backward));
    this.signExits.push(this.labelStrings.id(exits));
    this.signLanesForward.push(this.labelStrings.id(lanesForward));
    this.signLanesBackward.push(this.labelStrings.id(lanesBackward));
  }

  /** A house of an associatedStreet relation is on the relation's street (resolved by the index build), with or without a number. */
  private associated(a: AddressFields | null, relation: number | undefined): AddressFields | null {
    if (relation === undefined) return a;
    return { street: `${ASSOCIATED_STREET_MARK}${relation}`, number: a?.number ?? null, postcode: a?.postcode ?? null, city: a?.city ?? null };
  }

  private growWays(): void {
    const size = Math.ceil(this.wayIds.length * 1.5);
    const ids = new Float64Array(size);
    ids.set(this.wayIds);
    this.wayIds = ids;
    const first = new Uint32Array(size + 1);
    first.set(this.wayFirst);
    this.wayFirst = first;
    const wayTags = new Uint32Array(size);
    wayTags.set(this.wayTags);
    this.wayTags = wayTags;
  }

  private pushAddress(into: Growable<Int32Array>, a: AddressFields): void {
    into.push(this.strings.id(a.street));
    into.push(this.strings.id(a.number));
    into.push(this.strings.id(a.postcode));
    into.push(this.strings.id(a.city));
  }

  /**
   * After the last way: the node ids to look for, sorted and unique, and every way node as a position
   * among them, so the id pool (8 bytes per way node) is gone before the coordinates (16 per node) come.
   */
  endWays(): void {
    const total = this.refs.length;
    const ids = sharedArray(Float64Array, total);
    this.refs.drainTo(ids);
    const order = new Uint32Array(total);
    for (let i = 0; i < total; i++) order[i] = i;
    radixSortPairs(ids, order);
    const wayNodes = sharedArray(Int32Array, total);
    let n = 0;
    for (let i = 0; i < total; i++) {
      if (n === 0 || ids[i] !== ids[n - 1]) ids[n++] = ids[i];
      wayNodes[order[i]] = n - 1;
    }
    // Nodes shared by several ways leave part of the id array unused: copied out only when that part is big.
    let needed = ids.subarray(0, n);
    if (n < total - total / 8) needed = toShared(needed);
    this.needed = needed;
    this.neededCount = n;
    this.wayNodes = wayNodes;
    this.coords = sharedArray(Float64Array, 2 * n).fill(NaN);
  }

  /** Every node of the extract, in file order (ascending ids make this a merge walk). */
  node(id: number, lat: number, lon: number): void {
    this.coverage.add(lat, lon);
    const needed = this.needed,
      n = this.neededCount;
    let at = this.cursor;
    if (id < this.lastId) at = lowerBoundFrom(needed, id, 0, n);
    else if (at < n && needed[at] < id) at = lowerBoundFrom(needed, id, at + 1, n);
    this.cursor = at;
    this.lastId = id;
    if (at < n && needed[at] === id) {
      this.coords[2 * at] = lat;
      this.coords[2 * at + 1] = lon;
    }
  }

  /** A node with tags, after `node` for it; only NODE_READ_KEYS are looked at. */
  taggedNode(id: number, lat: number, lon: number, tags: Record<string, string>): void {
    if (mayClose(tags)) {
      const at = lowerBoundFrom(this.needed, id, 0, this.neededCount);
      if (at < this.neededCount && this.needed[at] === id) this.barrierAt.set(at, this.barrierTags.id(tags));
    }
    const address = this.associated(addressOf(tags, 'node'), this.associatedNodes.get(id));
    if (address && address.number !== null && this.interpolationRefs.has(id)) {
      // A needed node (its ways are kept), and one with coordinates when `node` has seen it first.
      const at = lowerBoundFrom(this.needed, id, 0, this.neededCount);
      if (!Number.isNaN(this.coords[2 * at])) {
        this.interpolationAt.push(at);
        this.pushAddress(this.interpolationFields, address);
      }
    }
    if (address) {
      this.addressNodeCoords.push(lat);
      this.addressNodeCoords.push(lon);
      this.pushAddress(this.addressNodeFields, address);
    }
    const place = placeName(tags);
    if (place !== null) {
      this.placeCoords.push(lat);
      this.placeCoords.push(lon);
      this.placeNames.push(this.strings.id(place));
      this.placeOtherNames.push(this.strings.id(otherNames(tags, place)));
    }
    const minor = minorPlaceName(tags);
    if (minor !== null) {
      this.minorPlaceCoords.push(lat);
      this.minorPlaceCoords.push(lon);
      this.minorPlaceNames.push(this.strings.id(minor));
      this.minorPlaceOtherNames.push(this.strings.id(otherNames(tags, minor)));
    }
  }

  private keptBarriers(keptIndex: (i: number) => number): OsmParts['barrierNodes'] {
    // A node with coordinates is kept, and only those have tags read.
    const entries = [...this.barrierAt].map(([i, set]) => [keptIndex(i), set] as const).sort((a, b) => a[0] - b[0]);
    const node = new Uint32Array(entries.length),
      tags = new Uint32Array(entries.length);
    entries.forEach(([k, set], i) => {
      node[i] = k;
      tags[i] = set;
    });
    return { node, tags };
  }

  finish(): OsmParts {
    let { needed: nodeIds, coords: nodeCoords } = this;
    const n = this.neededCount,
      wayNodes = this.wayNodes;
    let kept = 0;
    for (let i = 0; i < n; i++) if (!Number.isNaN(nodeCoords[2 * i])) kept++;
    let missingIds = new Float64Array(0);
    let keptIndex = (i: number): number => i;
    if (kept < n) {
      // Ways reach past the extract: renumber the nodes it has and move the others' ids aside.
      const remap = new Int32Array(n);
      const keptIds = sharedArray(Float64Array, kept);
      const keptCoords = sharedArray(Float64Array, 2 * kept);
      missingIds = new Float64Array(n - kept);
      let k = 0,
        m = 0;
      for (let i = 0; i < n; i++) {
        if (Number.isNaN(nodeCoords[2 * i])) {
          missingIds[m] = nodeIds[i];
          remap[i] = -1 - m++;
        } else {
          keptIds[k] = nodeIds[i];
          keptCoords[2 * k] = nodeCoords[2 * i];
          keptCoords[2 * k + 1] = nodeCoords[2 * i + 1];
          remap[i] = k++;
        }
      }
      for (let i = 0; i < wayNodes.length; i++) wayNodes[i] = remap[wayNodes[i]];
      keptIndex = (i) => remap[i];
      nodeIds = keptIds;
      nodeCoords = keptCoords;
    }
    const interpolationNodes = this.interpolationAt.toShared();
    for (let i = 0; i < interpolationNodes.length; i++) interpolationNodes[i] = keptIndex(interpolationNodes[i]);
    return {
      nodeIds,
      nodeCoords,
      wayIds: toShared(this.wayIds.subarray(0, this.wayCount)),
      wayFirst: toShared(this.wayFirst.subarray(0, this.wayCount + 1)),
      wayNodes,
      missingIds,
      wayTags: toShared(this.wayTags.subarray(0, this.wayCount)),
      roadTagSets: this.roadTags.list,
      barrierNodes: this.keptBarriers(keptIndex),
      barrierTagSets: this.barrierTags.list,
      restrictionRelations: {
        count: this.restrictionSets.length,
        tags: this.restrictionSets.toShared(),
        tagSets: this.restrictionTags.list,
        first: this.restrictionFirst.length ? this.restrictionFirst.toShared() : new Uint32Array(1),
        memberRef: this.restrictionRefs.toShared(),
        memberCode: this.restrictionCodes.toShared(),
      },
      restrictionWays: this.restrictionWays,
      maneuverRelations: this.maneuverRelations,
      strings: this.strings.list,
      roadNames: {
        count: this.labelWays.length,
        way: this.labelWays.toShared(),
        name: this.labelNames.toShared(),
        ref: this.labelRefs.toShared(),
        signs: {
          count: this.signWays.length,
          way: this.signWays.toShared(),
          forward: this.signForward.toShared(),
          backward: this.signBackward.toShared(),
          exits: this.signExits.toShared(),
          lanesForward: this.signLanesForward.toShared(),
          lanesBackward: this.signLanesBackward.toShared(),
        },
        strings: this.labelStrings.list,
      },
      geocoder: {
        relations: this.geoRelations,
        relationWays: this.relationWays,
        addressNodes: { count: this.addressNodeCoords.length / 2, coords: this.addressNodeCoords.toShared(), fields: this.addressNodeFields.toShared() },
        addressWays: { count: this.addressWays.length, way: this.addressWays.toShared(), fields: this.addressWayFields.toShared() },
        interpolations: {
          count: this.interpolationWays.length,
          way: this.interpolationWays.toShared(),
          step: this.interpolationSteps.toShared(),
          street: this.interpolationStreets.toShared(),
          postcode: this.interpolationPostcodes.toShared(),
        },
        interpolationNodes: { count: interpolationNodes.length, node: interpolationNodes, fields: this.interpolationFields.toShared() },
        streets: {
          count: this.streetWays.length,
          way: this.streetWays.toShared(),
          name: this.streetNames.toShared(),
          otherNames: this.streetOtherNames.toShared(),
          postcode: this.streetPostcodes.toShared(),
          city: this.streetCities.toShared(),
        },
        associatedStreets: this.associatedStreetNames.map((r) => [...r.names].join(';') || r.own || ''),
        places: {
          count: this.placeNames.length,
          coords: this.placeCoords.toShared(),
          name: this.placeNames.toShared(),
          otherNames: this.placeOtherNames.toShared(),
        },
        minorPlaces: {
          count: this.minorPlaceNames.length,
          coords: this.minorPlaceCoords.toShared(),
          name: this.minorPlaceNames.toShared(),
          otherNames: this.minorPlaceOtherNames.toShared(),
        },
        coverage: this.coverage.result(),
      },
    };
  }
}

/** Elements as objects, as the extract holds them: what `OsmData` was made from, or re-read on demand. */
interface ObjectView {
  taggedNodes?: OsmNode[];
  ways?: OsmWay[];
  relations?: OsmRelation[];
}

export class OsmData implements OsmParts {
  readonly nodeIds!: Float64Array;
  readonly nodeCoords!: Float64Array;
  readonly wayIds!: Float64Array;
  readonly wayFirst!: Uint32Array;
  readonly wayNodes!: Int32Array;
  readonly missingIds!: Float64Array;
  readonly wayTags!: Uint32Array;
  readonly roadTagSets!: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly barrierNodes!: OsmParts['barrierNodes'];
  readonly barrierTagSets!: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly restrictionRelations!: RestrictionRelations;
  readonly restrictionWays!: RestrictionWays;
  readonly maneuverRelations!: ManeuverRelation[];
  readonly strings!: string[];
  readonly roadNames!: RoadNames;
  readonly geocoder!: GeocoderSource;
  private readonly source: string | null;
  private readonly objects: ObjectView;

  /** From the compact parts of `path` (what `loadOsm` does). */
  constructor(parts: OsmParts, path: string);
  /**
   * From elements in memory (tests): `nodeIds` ascending with their lat, lon in `nodeCoords`, tagged
   * nodes with their own coordinates. They are compacted the way `loadOsm` compacts a file.
   */
  constructor(nodeIds: Float64Array, nodeCoords: Float64Array, taggedNodes: OsmNode[], ways: OsmWay[], relations: OsmRelation[]);
  constructor(a: OsmParts | Float64Array, b: string | Float64Array, taggedNodes?: OsmNode[], ways?: OsmWay[], relations?: OsmRelation[]) {
    if (a instanceof Float64Array) {
      const nodeIds = a,
        nodeCoords = b as Float64Array;
      const c = new OsmCollector();
      for (const rel of relations!) c.relation(rel);
      for (const w of ways!) c.way(w.id, Object.keys(w.tags).some((k) => WAY_READ_KEYS.has(k)) ? w.tags : null, w.refs, w.refs.length);
      c.endWays();
      for (let i = 0; i < nodeIds.length; i++) c.node(nodeIds[i], nodeCoords[2 * i], nodeCoords[2 * i + 1]);
      for (const node of taggedNodes!) if (node.tags) c.taggedNode(node.id, node.lat, node.lon, node.tags);
      Object.assign(this, c.finish());
      this.source = null;
      this.objects = { taggedNodes, ways, relations };
    } else {
      Object.assign(this, a);
      this.source = b as string;
      this.objects = {};
    }
  }

  /** Kept nodes (see OsmParts.nodeIds). */
  get nodeCount(): number {
    return this.nodeIds.length;
  }

  get wayCount(): number {
    return this.wayIds.length;
  }

  /** Position of a kept node's id in nodeIds, or -1. */
  nodeIndex(id: number): number {
    const ids = this.nodeIds;
    let lo = 0,
      hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid];
      if (v < id) lo = mid + 1;
      else if (v > id) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /** [lat, lon] of a kept node. */
  coord(id: number): [number, number] | undefined {
    const i = this.nodeIndex(id);
    return i < 0 ? undefined : [this.nodeCoords[2 * i], this.nodeCoords[2 * i + 1]];
  }

  /** The node ids of kept way `w`, present in the extract or not. */
  wayRefIds(w: number): number[] {
    const out: number[] = [];
    for (let k = this.wayFirst[w]; k < this.wayFirst[w + 1]; k++) {
      const i = this.wayNodes[k];
      out.push(i >= 0 ? this.nodeIds[i] : this.missingIds[-1 - i]);
    }
    return out;
  }

  /** [lat, lon] of the nodes of kept way `w` that the extract has, in order. */
  wayPoints(w: number): [number, number][] {
    const out: [number, number][] = [];
    for (let k = this.wayFirst[w]; k < this.wayFirst[w + 1]; k++) {
      const i = this.wayNodes[k];
      if (i >= 0) out.push([this.nodeCoords[2 * i], this.nodeCoords[2 * i + 1]]);
    }
    return out;
  }

  // Every element as an object, for tests and tools on small extracts: a loaded extract is read again
  // for them, in full, so memory grows with the extract. The map build never touches these.

  /** Every node with tags, all tags included. */
  get taggedNodes(): OsmNode[] {
    return (this.objects.taggedNodes ??= this.readObjects(NODES).nodes.filter((n) => n.tags !== null));
  }

  /** Every way, all tags included. */
  get ways(): OsmWay[] {
    return (this.objects.ways ??= this.readObjects(WAYS).ways);
  }

  /** Every relation, all tags included. */
  get relations(): OsmRelation[] {
    return (this.objects.relations ??= this.readObjects(RELATIONS).relations);
  }

  private readObjects(kind: number): { nodes: OsmNode[]; ways: OsmWay[]; relations: OsmRelation[] } {
    if (!this.source) throw new Error('OsmData: no source extract to read elements from');
    const all = { nodes: [] as OsmNode[], ways: [] as OsmWay[], relations: [] as OsmRelation[] };
    for (const block of readOsmPbfSync(this.source, kind)) {
      for (const n of block.nodes) all.nodes.push(n);
      for (const w of block.ways) all.ways.push(w);
      for (const r of block.relations) all.relations.push(r);
    }
    return all;
  }
}

/**
 * Reads an extract in three passes (see the top of this file); `onProgress` hears each pass go through
 * the file. Node ids are matched by a merge walk when the file lists them in order (extracts do) and by
 * binary search where it does not.
 */
export async function loadOsm(path: string, onProgress?: LoadProgress): Promise<OsmData> {
  const c = new OsmCollector();
  const progress = (phase: LoadPhase) => onProgress && ((read: number, total: number) => onProgress(read, total, phase));
  // Which kinds each data blob holds, learnt in the first pass so later passes skip the rest uninflated.
  const kinds = new Growable(Uint8Array, 1024);
  for await (const { index, data } of readOsmBlobs(path, { onProgress: progress('relations') })) {
    const block = new PrimitiveBlock(data);
    if (index !== kinds.length) throw new Error(`${path}: data blob ${index} read out of order`);
    kinds.push(block.kinds);
    if (block.kinds & RELATIONS) for (const rel of block.relations()) c.relation(rel);
  }
  const has = (kind: number) => (index: number) => index < kinds.length && (kinds.data[index] & kind) !== 0;

  const cursor = new WayCursor();
  const visitWay = (w: WayCursor): void => c.way(w.id, w.hasAnyKey(WAY_READ_KEYS) ? w.tags(true) : null, w.refs, w.refCount);
  for await (const { data } of readOsmBlobs(path, { want: has(WAYS), onProgress: progress('ways') })) {
    new PrimitiveBlock(data).forEachWay(cursor, visitWay);
  }
  c.endWays();

  const visitNode = (id: number, lat: number, lon: number, tags: Record<string, string> | null): void => {
    c.node(id, lat, lon);
    if (tags) c.taggedNode(id, lat, lon, tags);
  };
  for await (const { data } of readOsmBlobs(path, { want: has(NODES), onProgress: progress('nodes') })) {
    new PrimitiveBlock(data).forEachNode(NODE_READ_KEYS, visitNode);
  }
  return new OsmData(c.finish(), path);
}
