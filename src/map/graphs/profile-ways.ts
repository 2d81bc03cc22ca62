// The graph stage's first step: the routing profiles applied to what the OSM stage kept. Per kept way its
// speeds and exclude classes per profile, per node whether it closes the way to each profile, the turn
// restrictions per profile, the lorry's limits and the road labels. Each distinct set of road tags is
// worked out once (road-tags.ts TagSets: far fewer sets than roads), in way order, so the tables come out
// in the order the ways first use them.
import { greatCircleMeters } from '../../lib/geo/sphere.js';
import { Growable } from '../../lib/typed-pools.js';
import type { OsmData } from '../osm/osm-data.js';
import { MEMBER_ROLES, MEMBER_TYPES } from '../osm/road-tags.js';
import {
  nodeBlocks,
  nodeLimits,
  PROFILES,
  routeDuration,
  signsDirection,
  turnRestrictions,
  wayAccess,
  wayClasses,
  PUSHED_BACKWARD,
  PUSHED_FORWARD,
  wayLimits,
  type WayLimits,
} from './profiles.js';

const P = PROFILES.length;
const HGV_BIT = 1 << PROFILES.indexOf('driving-hgv');
/** The profiles whose steps show turn lanes: OSRM's car.lua runs its turn lanes handler, bicycle.lua and foot.lua do not. */
const LANE_BITS = (1 << PROFILES.indexOf('driving-car')) | HGV_BIT;
export const RESTRICTION_NO = 1,
  RESTRICTION_ONLY = 2;

/**
 * Turn restrictions, in file order; per profile whether it applies and how (`RESTRICTION_*`). Through a
 * via node `via`, or along via ways from `via` (an end of the first) over the nodes `viaPath` (the far
 * end of each via way in turn).
 */
export interface Restrictions {
  count: number;
  fromWay: Float64Array;
  via: Float64Array;
  /** Per restriction its via ways in order (empty for a via node), and the far end of each. */
  viaWays: number[][];
  viaPath: number[][];
  toWay: Float64Array;
  /** count × PROFILES.length: 0 = not for that profile. */
  kind: Uint8Array;
  /** Bits of the profiles that may use each way named as `from` or `to` (absent = none). */
  wayProfiles: Map<number, number>;
}

/**
 * The `name` and `ref` tags of the ways some profile can use that have either, a road kind or signs: the
 * kept way, ascending, and each tag as an index into `strings` (-1 = none), each distinct text stored once.
 */
export interface RoadLabelSource {
  count: number;
  way: Uint32Array;
  name: Int32Array;
  ref: Int32Array;
  /** The way's road kind (`roadKindOf`), 0 for none. */
  kind: Uint8Array;
  /** Those of the ways with signs, few: ascending too, each of them a row above. */
  signs: RoadSignSource;
  strings: string[];
}

/**
 * Destination signs, exit numbers and turn lanes (osm/road-signs.ts) as steps show them: the kept way, the
 * destinations the profiles of `shownTo` (bit p: PROFILES[p]) read on it, its exits, and the turn lanes
 * along it and against it of a way a car or lorry may use, texts in RoadLabelSource's `strings` (-1 = none).
 */
export interface RoadSignSource {
  count: number;
  way: Uint32Array;
  destinations: Int32Array;
  shownTo: Uint8Array;
  exits: Int32Array;
  lanesForward: Int32Array;
  lanesBackward: Int32Array;
}

/** What the profiles make of the OSM stage's ways and nodes (indexes of ways and nodes are OsmData's). */
export interface ProfileWays {
  /** ways × PROFILES.length: index of the way's (forward, backward) km/h in `speeds`; 0 = not usable. */
  waySpeeds: Uint16Array | Uint32Array;
  /** Pairs of forward, backward km/h; pair 0 is unused. */
  speeds: Float64Array;
  /** ways × PROFILES.length: the way's exclude classes for each profile (`wayClasses`, bits of EXCLUDE_BIT), and the bicycle's PUSHED_FORWARD and PUSHED_BACKWARD. */
  wayClasses: Uint8Array;
  /** Per way its number of lanes (`laneCountOf`), 0 where its tags do not say. */
  wayLanes: Uint8Array;
  /** Per kept node: bit p set when the node closes the ways through it to profile p (a barrier, access=no). */
  nodeBlocked: Uint8Array;
  restrictions: Restrictions;
  /**
   * Ways the lorry profile uses that have a physical limit (all that the smallest lorry fits, or it would
   * not use them): the kept way, ascending, and its height, width, length (m) and weight (t), Infinity = none.
   */
  limits: { way: Uint32Array; values: Float64Array };
  /** Kept nodes that limit the lorry's height or width (a height restrictor), ascending, and their height and width (m). */
  nodeLimits: { node: Uint32Array; values: Float64Array };
  roadLabels: RoadLabelSource;
}

/** Road classes of `RoadKind`'s low bits, by `highway` value (0: any other). */
export const ROAD_CLASSES: Record<string, number> = {
  motorway: 1,
  trunk: 2,
  primary: 3,
  secondary: 4,
  tertiary: 5,
  unclassified: 6,
  residential: 6,
  living_street: 6,
  service: 7,
};
/** A road kind's class: its low bits. */
export const ROAD_CLASS_MASK = 15;
/** Bits of a road kind above its class (`road-labels.ts` reads them). */
export const ROAD_LINK = 16,
  ROAD_ROUNDABOUT = 32,
  ROAD_CIRCULAR = 64;

/**
 * What turn guidance needs of a way beyond its name: its class (1 motorway … 7 service, 0 other), whether
 * it is a `_link` ramp, and whether it is a roundabout (`junction=roundabout`) or another circular
 * junction (`junction=circular`, OSRM's rotary). One byte, kept with the name and ref.
 */
export function roadKindOf(tags: Readonly<Record<string, string>>): number {
  const highway = tags.highway ?? '';
  const link = highway.endsWith('_link');
  let kind = ROAD_CLASSES[link ? highway.slice(0, -5) : highway] ?? 0;
  if (link) kind |= ROAD_LINK;
  if (tags.junction === 'roundabout') kind |= ROAD_ROUNDABOUT;
  else if (tags.junction === 'circular') kind |= ROAD_CIRCULAR;
  return kind;
}

/** A Lua `tonumber` of a tag (a number, spaces around it allowed), or null. */
const tagNumber = (value: string | undefined): number | null => {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value.trim());
  return Number.isFinite(n) ? n : null;
};

/**
 * A way's number of lanes as OSRM's profiles read it (lib/guidance.lua `set_classification`): `lanes`, else
 * `lanes:forward` and `lanes:backward` added up; 0 where they do not say (a `lanes` that is no number
 * included). OSRM's turn guidance looks further down a road at a junction of wide roads.
 */
export function laneCountOf(tags: Readonly<Record<string, string>>): number {
  let count: number | null;
  if (tags.lanes !== undefined) count = tagNumber(tags.lanes);
  else count = (tagNumber(tags['lanes:forward']) ?? 0) + (tagNumber(tags['lanes:backward']) ?? 0);
  return count === null ? 0 : Math.max(0, Math.min(255, Math.trunc(count)));
}

/** Distinct (forward, backward) speeds: a handful per extract, so a way stores a small index per profile. */
class SpeedTable {
  readonly pairs = new Growable(Float64Array, 64);
  private readonly index = new Map<number, Map<number, number>>();
  constructor() {
    this.pairs.push(0);
    this.pairs.push(0);
  }
  id(forward: number, backward: number): number {
    let byBackward = this.index.get(forward);
    if (!byBackward) this.index.set(forward, (byBackward = new Map()));
    let id = byBackward.get(backward);
    if (id === undefined) {
      id = this.pairs.length / 2;
      this.pairs.push(forward);
      this.pairs.push(backward);
      byBackward.set(backward, id);
    }
    return id;
  }
}

/** One set of road tags as the profiles see it. */
interface RoadRules {
  /** Per profile its speed pair in the table (0: not usable). */
  speeds: Uint32Array;
  usable: number;
  classes: Uint8Array;
  kind: number;
  lanes: number;
  limits: WayLimits | null;
  /** A ferry's seconds end to end (`duration`), or null. */
  seconds: number | null;
  /** Bits of the profiles that read the destination signs for travel along the way, and against it. */
  signsForward: number;
  signsBackward: number;
}

interface ShownDestinations {
  text: number;
  shownTo: number;
}
const NO_DESTINATIONS: ShownDestinations = { text: -1, shownTo: 0 };

/**
 * The destinations a way's steps show, and to which profiles, from its signs along (`forward`) and against
 * it (`backward`, texts; -1 none): a profile reads those of the way it may go. Should one profile read
 * the one and another the other (two oneways opposed, not met), the first profile's are kept.
 */
function shownDestinations(r: Pick<RoadRules, 'signsForward' | 'signsBackward'>, forward: number, backward: number): ShownDestinations {
  const along = forward < 0 ? 0 : r.signsForward,
    against = backward < 0 ? 0 : r.signsBackward;
  // A lower bit is an earlier profile.
  const alongFirst = along !== 0 && (against === 0 || (along & -along) < (against & -against));
  const shown =
    forward === backward ? { text: forward, shownTo: along | against } : alongFirst ? { text: forward, shownTo: along } : { text: backward, shownTo: against };
  return shown.shownTo ? shown : NO_DESTINATIONS;
}

export function applyProfiles(osm: OsmData): ProfileWays {
  const speeds = new SpeedTable();
  const rules: Array<RoadRules | undefined> = new Array(osm.roadTagSets.length);
  const rulesOf = (set: number): RoadRules => {
    let r = rules[set];
    if (r) return r;
    const tags = osm.roadTagSets[set];
    r = {
      speeds: new Uint32Array(P),
      usable: 0,
      classes: new Uint8Array(P),
      kind: roadKindOf(tags),
      lanes: laneCountOf(tags),
      limits: null,
      seconds: routeDuration(tags),
      signsForward: 0,
      signsBackward: 0,
    };
    for (let p = 0; p < P; p++) {
      const access = wayAccess(PROFILES[p], tags);
      if (!access || (access.forward === 0 && access.backward === 0)) continue;
      r.speeds[p] = speeds.id(access.forward, access.backward);
      r.usable |= 1 << p;
      r.classes[p] = wayClasses(PROFILES[p], tags) | (access.pushedForward ? PUSHED_FORWARD : 0) | (access.pushedBackward ? PUSHED_BACKWARD : 0);
      const signs = signsDirection(PROFILES[p], tags);
      if (signs === 'forward') r.signsForward |= 1 << p;
      else if (signs === 'backward') r.signsBackward |= 1 << p;
    }
    if (r.usable & HGV_BIT) r.limits = wayLimits(tags);
    return (rules[set] = r);
  };

  const ways = osm.wayCount;
  let waySpeeds: Uint16Array | Uint32Array = new Uint16Array(ways * P);
  const classes = new Uint8Array(ways * P);
  const lanes = new Uint8Array(ways);
  const usable = new Uint8Array(ways);
  const limitWays = new Growable(Uint32Array),
    limitValues = new Growable(Float64Array);
  const timedWays: Array<[number, number]> = [];
  const names = osm.roadNames;
  const labelStrings: string[] = [],
    labelIds = new Map<string, number>();
  const labelText = (s: number): number => {
    if (s < 0) return -1;
    const text = names.strings[s];
    let id = labelIds.get(text);
    if (id === undefined) labelIds.set(text, (id = labelStrings.push(text) - 1));
    return id;
  };
  const labelWays = new Growable(Uint32Array),
    labelNames = new Growable(Int32Array),
    labelRefs = new Growable(Int32Array),
    labelKinds = new Growable(Uint8Array);
  const signs = names.signs;
  const signWays = new Growable(Uint32Array),
    signDestinations = new Growable(Int32Array),
    signShownTo = new Growable(Uint8Array),
    signExits = new Growable(Int32Array),
    signLanesForward = new Growable(Int32Array),
    signLanesBackward = new Growable(Int32Array);
  let named = 0,
    signed = 0;
  for (let w = 0; w < ways; w++) {
    const set = osm.wayTags[w];
    if (set === 0) continue;
    const r = rulesOf(set);
    if (!r.usable) continue;
    usable[w] = r.usable;
    if (speeds.pairs.length / 2 > 0xffff && waySpeeds instanceof Uint16Array) waySpeeds = Uint32Array.from(waySpeeds);
    waySpeeds.set(r.speeds, w * P);
    classes.set(r.classes, w * P);
    lanes[w] = r.lanes;
    while (named < names.count && names.way[named] < w) named++;
    const name = named < names.count && names.way[named] === w ? names.name[named] : -1,
      ref = named < names.count && names.way[named] === w ? names.ref[named] : -1;
    while (signed < signs.count && signs.way[signed] < w) signed++;
    const hasSigns = signed < signs.count && signs.way[signed] === w;
    const shown = hasSigns ? shownDestinations(r, signs.forward[signed], signs.backward[signed]) : NO_DESTINATIONS,
      exits = hasSigns ? signs.exits[signed] : -1;
    const laned = hasSigns && (r.usable & LANE_BITS) !== 0;
    const lanesForward = laned ? signs.lanesForward[signed] : -1,
      lanesBackward = laned ? signs.lanesBackward[signed] : -1;
    const signposted = shown.shownTo !== 0 || exits >= 0 || lanesForward >= 0 || lanesBackward >= 0;
    if (name >= 0 || ref >= 0 || r.kind !== 0 || signposted) {
      labelWays.push(w);
      labelNames.push(labelText(name));
      labelRefs.push(labelText(ref));
      labelKinds.push(r.kind);
    }
    if (signposted) {
      signWays.push(w);
      signDestinations.push(labelText(shown.text));
      signShownTo.push(shown.shownTo);
      signExits.push(labelText(exits));
      signLanesForward.push(labelText(lanesForward));
      signLanesBackward.push(labelText(lanesBackward));
    }
    if (r.seconds !== null) timedWays.push([w, r.seconds]);
    if (r.limits) {
      limitWays.push(w);
      limitValues.push(r.limits.heightM);
      limitValues.push(r.limits.widthM);
      limitValues.push(r.limits.lengthM);
      limitValues.push(r.limits.weightT);
    }
  }
  waySpeeds = applyDurations(osm, timedWays, waySpeeds, speeds);

  const { nodeBlocked, nodeLimits } = barriers(osm);
  return {
    waySpeeds,
    speeds: speeds.pairs.toShared(),
    wayClasses: classes,
    wayLanes: lanes,
    nodeBlocked,
    restrictions: restrictionsOf(osm, usable),
    limits: { way: limitWays.toShared(), values: limitValues.toShared() },
    nodeLimits,
    roadLabels: {
      count: labelWays.length,
      way: labelWays.toShared(),
      name: labelNames.toShared(),
      ref: labelRefs.toShared(),
      kind: labelKinds.toShared(),
      signs: {
        count: signWays.length,
        way: signWays.toShared(),
        destinations: signDestinations.toShared(),
        shownTo: signShownTo.toShared(),
        exits: signExits.toShared(),
        lanesForward: signLanesForward.toShared(),
        lanesBackward: signLanesBackward.toShared(),
      },
      strings: labelStrings,
    },
  };
}

/**
 * A ferry's `duration` covers the whole way: each profile that takes it gets the speed that crosses the
 * way's length (over the nodes the extract has) in that time, in the directions it may use it.
 */
function applyDurations(osm: OsmData, timedWays: Array<[number, number]>, waySpeeds: Uint16Array | Uint32Array, speeds: SpeedTable): Uint16Array | Uint32Array {
  const { wayFirst, wayNodes, nodeCoords: coords } = osm;
  for (const [w, seconds] of timedWays) {
    let meters = 0,
      prev = -1;
    for (let k = wayFirst[w]; k < wayFirst[w + 1]; k++) {
      const n = wayNodes[k];
      if (n < 0) continue;
      if (prev >= 0) meters += greatCircleMeters(coords[2 * prev], coords[2 * prev + 1], coords[2 * n], coords[2 * n + 1]);
      prev = n;
    }
    if (meters <= 0) continue;
    const kmh = (meters / seconds) * 3.6;
    for (let p = 0; p < P; p++) {
      const id = waySpeeds[w * P + p];
      if (!id) continue;
      const fwd = speeds.pairs.data[2 * id],
        bwd = speeds.pairs.data[2 * id + 1];
      const timed = speeds.id(fwd > 0 ? kmh : 0, bwd > 0 ? kmh : 0);
      if (timed > 0xffff && waySpeeds instanceof Uint16Array) waySpeeds = Uint32Array.from(waySpeeds);
      waySpeeds[w * P + p] = timed;
    }
  }
  return waySpeeds;
}

/** Which profiles each barrier node closes the ways through it to, and the lorry's limits of the others. */
function barriers(osm: OsmData): Pick<ProfileWays, 'nodeBlocked' | 'nodeLimits'> {
  const nodeBlocked = new Uint8Array(osm.nodeCount);
  const limitNodes = new Growable(Uint32Array),
    limitValues = new Growable(Float64Array);
  const { node, tags } = osm.barrierNodes;
  const bitsOf = new Map<number, { bits: number; limits: WayLimits | null }>();
  for (let i = 0; i < node.length; i++) {
    let b = bitsOf.get(tags[i]);
    if (!b) {
      const t = osm.barrierTagSets[tags[i]];
      let bits = 0;
      for (let p = 0; p < P; p++) if (nodeBlocks(PROFILES[p], t)) bits |= 1 << p;
      bitsOf.set(tags[i], (b = { bits, limits: bits & HGV_BIT ? null : nodeLimits(t) }));
    }
    nodeBlocked[node[i]] |= b.bits;
    if (b.limits) {
      limitNodes.push(node[i]);
      limitValues.push(b.limits.heightM);
      limitValues.push(b.limits.widthM);
    }
  }
  return { nodeBlocked, nodeLimits: { node: limitNodes.toShared(), values: limitValues.toShared() } };
}

/**
 * The restrictions of each profile, kept where the via node ends both the from-way and the to-way (as
 * OSRM requires): a way that runs on through the via node leaves it unclear which turn is meant, and an
 * `only_` turn onto a way that does not touch the node would otherwise close every turn there. Via ways
 * must run end to end from an end of the from-way to an end of the to-way; their ends are found here.
 */
function restrictionsOf(osm: OsmData, usable: Uint8Array): Restrictions {
  const fromWay = new Growable(Float64Array),
    via = new Growable(Float64Array),
    toWay = new Growable(Float64Array),
    kind = new Growable(Uint8Array);
  const viaWays: number[][] = [],
    viaPath: number[][] = [];
  const wayProfiles = new Map<number, number>();
  for (const [id, [, , w]] of osm.restrictionWays) wayProfiles.set(id, w >= 0 ? usable[w] : 0);
  const endsOf = (way: number): [number, number] | undefined => {
    const e = osm.restrictionWays.get(way);
    return e && [e[0], e[1]];
  };
  const ends = (way: number, node: number): boolean => {
    const e = endsOf(way);
    return e !== undefined && (e[0] === node || e[1] === node);
  };
  const rels = osm.restrictionRelations;
  for (let i = 0; i < rels.count; i++) {
    const tags = rels.tagSets[rels.tags[i]];
    const members: Array<{ type: string; ref: number; role: string }> = [];
    for (let k = rels.first[i]; k < rels.first[i + 1]; k++) {
      const code = rels.memberCode[k];
      members.push({ type: MEMBER_TYPES[code % 3], ref: rels.memberRef[k], role: MEMBER_ROLES[Math.floor(code / 3)] });
    }
    // One entry per (from, via, to); whether and how it applies varies by profile.
    const entries = new Map<string, { fromWay: number; via: number; viaWays: number[]; toWay: number; kinds: Uint8Array }>();
    for (let p = 0; p < P; p++) {
      for (const r of turnRestrictions(PROFILES[p], tags, members)) {
        const key = `${r.fromWay}:${r.viaNode}:${r.viaWays.join(',')}:${r.toWay}`;
        let e = entries.get(key);
        if (!e) entries.set(key, (e = { fromWay: r.fromWay, via: r.viaNode, viaWays: r.viaWays, toWay: r.toWay, kinds: new Uint8Array(P) }));
        e.kinds[p] = r.only ? RESTRICTION_ONLY : RESTRICTION_NO;
      }
    }
    for (const e of entries.values()) {
      let start = e.via;
      const path: number[] = [];
      if (e.viaWays.length) {
        const first = endsOf(e.viaWays[0]);
        if (!first || first[0] === first[1]) continue;
        start = ends(e.fromWay, first[0]) ? first[0] : first[1];
        if (!ends(e.fromWay, start)) continue;
        // Each via way from where the previous one ended to its other end.
        let at = start,
          ok = true;
        for (const w of e.viaWays) {
          const end = endsOf(w);
          if (!end || end[0] === end[1] || (end[0] !== at && end[1] !== at)) {
            ok = false;
            break;
          }
          at = end[0] === at ? end[1] : end[0];
          path.push(at);
        }
        if (!ok || !ends(e.toWay, at)) continue;
      } else if (!ends(e.fromWay, start) || !ends(e.toWay, start)) continue;
      fromWay.push(e.fromWay);
      via.push(start);
      viaWays.push(e.viaWays);
      viaPath.push(path);
      toWay.push(e.toWay);
      for (let p = 0; p < P; p++) kind.push(e.kinds[p]);
    }
  }
  return {
    count: viaWays.length,
    fromWay: fromWay.toShared(),
    via: via.toShared(),
    viaWays,
    viaPath,
    toWay: toWay.toShared(),
    kind: kind.toShared(),
    wayProfiles,
  };
}
