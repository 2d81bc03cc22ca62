// Which lanes of the road arriving at an intersection serve the turn the route takes there: OSRM's turn
// lane handler (src/guidance/turn_lane_data.cpp, turn_lane_augmentation.cpp, turn_lane_matcher.cpp and
// turn_lane_handler.cpp of v6.0.0) for the intersections it calls simple, where each indication of the
// lanes finds its road at the intersection itself, and for lanes that also tell of turns at the next
// intersection straight on (its PARTITION_LOCAL scenario: the turns here get theirs, the lane straight on
// those of the turns beyond). At that next intersection such lanes (PARTITION_PREVIOUS) and sliproads are
// not followed: there the intersection gets no lanes, as OSRM gives none where its handler does not match
// (lanes anticipated over several turns are steps.ts', lane_processing.cpp). Lanes are counted as OSRM
// counts them, from the right (lane 0).
import { FUZZY_DEG } from './bearings.js';

/** OSRM's lane indications, the bit of each in a lane's mask (TurnLaneType), as the reply names them. */
export const LANE_INDICATIONS = [
  'none',
  'straight',
  'sharp left',
  'left',
  'slight left',
  'slight right',
  'right',
  'sharp right',
  'uturn',
  'merge to left',
  'merge to right',
] as const;
/** The `turn:lanes` values of those bits. */
const OSM_INDICATIONS = [
  'none',
  'through',
  'sharp_left',
  'left',
  'slight_left',
  'slight_right',
  'right',
  'sharp_right',
  'reverse',
  'merge_to_left',
  'merge_to_right',
];
const NONE = 1,
  STRAIGHT = 2,
  SHARP_LEFT = 4,
  LEFT = 8,
  SLIGHT_LEFT = 16,
  SLIGHT_RIGHT = 32,
  RIGHT = 64,
  SHARP_RIGHT = 128,
  UTURN = 256,
  MERGE_LEFT = 512,
  MERGE_RIGHT = 1024;

/** OSRM's DirectionModifier, by its numbers. */
const M_UTURN = 0,
  M_SHARP_RIGHT = 1,
  M_RIGHT = 2,
  M_SLIGHT_RIGHT = 3,
  M_STRAIGHT = 4,
  M_SLIGHT_LEFT = 5,
  M_LEFT = 6,
  M_SHARP_LEFT = 7;
const MODIFIERS: Record<string, number> = {
  uturn: M_UTURN,
  'sharp right': M_SHARP_RIGHT,
  right: M_RIGHT,
  'slight right': M_SLIGHT_RIGHT,
  straight: M_STRAIGHT,
  'slight left': M_SLIGHT_LEFT,
  left: M_LEFT,
  'sharp left': M_SHARP_LEFT,
};
/** The indication of each modifier (the augmentation's tag_by_modifier). */
const TAG_BY_MODIFIER = [UTURN, SHARP_RIGHT, RIGHT, SLIGHT_RIGHT, STRAIGHT, SLIGHT_LEFT, LEFT, SHARP_LEFT];
/** The turn angle each modifier stands for (OSRM's angles: 180 straight on, below it to the right). */
const IDEAL_ANGLES = [0, 35, 90, 135, 180, 225, 270, 315];
/** The order of indications from right to left (turn_lane_data.cpp's operator<). */
const RIGHT_TO_LEFT = [SHARP_RIGHT, RIGHT, SLIGHT_RIGHT, STRAIGHT, SLIGHT_LEFT, LEFT, SHARP_LEFT, UTURN];

/**
 * A lane string's lanes, left to right, each a mask of LANE_INDICATIONS (an empty lane is `none`); null
 * when it names an indication OSRM does not know, which makes it drop the whole string.
 */
export function laneMasks(text: string): number[] | null {
  const masks: number[] = [];
  for (const lane of text.split('|')) {
    let mask = 0;
    for (const token of lane.split(';')) {
      if (token === '') continue;
      const i = OSM_INDICATIONS.indexOf(token);
      if (i < 0) return null;
      mask |= 1 << i;
    }
    masks.push(mask || NONE);
  }
  return masks;
}

/** A road at the intersection as the matching sees it (OSRM's ConnectedRoad and its instruction). */
export interface LaneRoad {
  /** OSRM's turn angle: 0 back, 90 right, 180 straight on, 270 left. */
  angle: number;
  entry: boolean;
  /** A modifier as the steps name it. */
  modifier: string;
  /** The instruction's type where it matters to the matching: a merge mirrors the sides; a new name, a turn
   *  not announced (`suppressed`), and a fork or continue that bends slightly, go straight. */
  type: string;
  /** The directed edge leaving along the road (the caller's, for `nextRoads`). */
  dir?: number;
}

const toRoad = (r: LaneRoad): Road => ({ angle: r.angle, entry: r.entry, modifier: MODIFIERS[r.modifier] ?? M_STRAIGHT, type: r.type });

interface Road {
  angle: number;
  entry: boolean;
  modifier: number;
  type: string;
}

interface LaneData {
  tag: number;
  from: number;
  to: number;
}

/** OSRM's getTurnDirection of a turn angle. */
export function directionOfAngle(angle: number): string {
  if (angle > 0 && angle < 60) return 'sharp right';
  if (angle >= 60 && angle < 140) return 'right';
  if (angle >= 140 && angle < 160) return 'slight right';
  if (angle >= 160 && angle <= 200) return 'straight';
  if (angle > 200 && angle <= 220) return 'slight left';
  if (angle > 220 && angle <= 300) return 'left';
  if (angle > 300 && angle < 360) return 'sharp left';
  return 'uturn';
}

const angularDeviation = (a: number, b: number): number => {
  const d = Math.abs(a - b);
  return Math.min(d, 360 - d);
};
const hasLeft = (m: number): boolean => m === M_SLIGHT_LEFT || m === M_LEFT || m === M_SHARP_LEFT;
const hasRight = (m: number): boolean => m === M_SLIGHT_RIGHT || m === M_RIGHT || m === M_SHARP_RIGHT;
const hasTag = (tag: number, data: LaneData[]): boolean => data.some((d) => (d.tag & tag) !== 0);
const turns = (roads: Road[]): number => roads.reduce((n, r) => n + (r.entry ? 1 : 0), 0);

/** turn_lane_matcher.cpp isValidMatch. */
function isValidMatch(tag: number, r: Road): boolean {
  const mirrored = r.type === 'merge';
  if (tag === UTURN) return hasLeft(r.modifier) || r.modifier === M_UTURN;
  if (tag === SHARP_RIGHT || tag === RIGHT || tag === SLIGHT_RIGHT) return mirrored ? hasLeft(r.modifier) : hasRight(r.modifier);
  if (tag === STRAIGHT)
    return (
      r.modifier === M_STRAIGHT ||
      r.type === 'suppressed' ||
      r.type === 'new name' ||
      ((r.type === 'fork' || r.type === 'continue') && (r.modifier === M_SLIGHT_LEFT || r.modifier === M_SLIGHT_RIGHT))
    );
  if (tag === SLIGHT_LEFT || tag === LEFT || tag === SHARP_LEFT) return mirrored ? hasRight(r.modifier) : hasLeft(r.modifier);
  return false;
}

/** How far a road is from where an indication points (getMatchingQuality); merges point straight on,
 *  `none` back (OSRM's fallback). */
function matchingQuality(tag: number, r: Road): number {
  const i = TAG_BY_MODIFIER.indexOf(tag);
  const modifier = i >= 0 ? i : tag === MERGE_LEFT || tag === MERGE_RIGHT ? M_STRAIGHT : M_UTURN;
  return angularDeviation(IDEAL_ANGLES[modifier], r.angle);
}

/** The first best of roads[begin..] for an indication (std::min_element with findBestMatch's order). */
function bestMatch(tag: number, roads: Road[], begin = 0): number {
  let best = begin;
  for (let i = begin + 1; i < roads.length; i++) {
    const a = roads[i],
      b = roads[best];
    const va = isValidMatch(tag, a),
      vb = isValidMatch(tag, b);
    if (va !== vb) {
      if (va) best = i;
      continue;
    }
    if (a.entry !== b.entry) {
      if (a.entry) best = i;
      continue;
    }
    if (matchingQuality(tag, a) < matchingQuality(tag, b)) best = i;
  }
  return best;
}

/** findBestMatchForReverse: a U-turn lane's road, from the road its neighbour's indication takes on. */
function bestMatchForReverse(neighbour: number, roads: Road[]): number {
  const n = bestMatch(neighbour, roads);
  return n + 1 === roads.length ? 0 : bestMatch(UTURN, roads, n);
}

/** turn_lane_data.cpp's order of lane data. */
function laneLess(a: LaneData, b: LaneData): boolean {
  if (a.from !== b.from) return a.from < b.from;
  if (a.to !== b.to) return a.to < b.to;
  if (a.tag === UTURN) return a.from === 0;
  if (b.tag === UTURN) return b.from !== 0;
  const ia = RIGHT_TO_LEFT.indexOf(a.tag),
    ib = RIGHT_TO_LEFT.indexOf(b.tag);
  return (ia < 0 ? 8 : ia) < (ib < 0 ? 8 : ib);
}
const sortLanes = (data: LaneData[]): LaneData[] => data.sort((a, b) => (laneLess(a, b) ? -1 : laneLess(b, a) ? 1 : 0));

/** laneDataFromDescription: each indication with the lanes (from the right) from its rightmost to its
 *  leftmost; none where two indications' lanes cross by more than one. */
function laneData(masks: number[]): LaneData[] {
  const byTag = new Map<number, LaneData>();
  let lane = masks.length - 1;
  for (const mask of masks) {
    for (let bit = 0; bit < LANE_INDICATIONS.length; bit++) {
      const tag = 1 << bit;
      if (!(mask & tag)) continue;
      const d = byTag.get(tag);
      if (d) d.from = lane;
      else byTag.set(tag, { tag, from: lane, to: lane });
    }
    lane--;
  }
  const data = sortLanes([...byTag.values()]);
  for (let i = 1; i < data.length; i++) {
    if (i + 1 < data.length && data[i].tag & UTURN) return [];
    if (data[i - 1].to > data[i].from) return [];
  }
  return data;
}

/** canMatchTrivially: every indication in order onto the roads one may take, each its best match. */
function canMatchTrivially(roads: Road[], data: LaneData[]): boolean {
  let lane = 0;
  if (data.length && data[0].tag === UTURN && roads[0].entry) lane = 1;
  for (let r = 1; r < roads.length && lane < data.length; r++) {
    if (!roads[r].entry) continue;
    if (!isValidMatch(data[lane].tag, roads[r]) || bestMatch(data[lane].tag, roads) !== r) return false;
    lane++;
  }
  return lane === data.length || (lane + 1 === data.length && data[data.length - 1].tag === UTURN);
}

/** isSimpleIntersection: the lanes are for this intersection's turns, one indication each. */
function isSimple(data: LaneData[], roads: Road[], uturnReversed: boolean): boolean {
  if (data.length === 0) return false;
  if (roads.length === 2) return data.filter((d) => d.tag & (MERGE_LEFT | MERGE_RIGHT)).length + 1 >= data.length;
  let count = turns(roads);
  if (count < data.length && !roads[0].entry && data[data.length - 1].tag === UTURN) count++;
  if (count + 2 <= data.length) return false;
  if (count + 1 === data.length && data[0].tag !== NONE && data[data.length - 1].tag !== NONE) return false;
  const hasNone = data.some((d) => d.tag === NONE);
  if (count > data.length && !hasNone) return false;
  const lastTag = data[data.length - 1].tag;
  if (count > data.length && roads[0].entry && !(hasTag(UTURN, data) || (lastTag !== LEFT && lastTag !== SHARP_LEFT))) return false;
  const matched = new Set<number>();
  let allSimple = true;
  for (let i = 0; i < data.length; i++) {
    const { tag } = data[i];
    if (tag === NONE) continue;
    const best =
      tag !== UTURN || data.length === 1
        ? bestMatch(tag, roads)
        : i + 1 === data.length
          ? bestMatchForReverse(data[i - 1].tag, roads)
          : i === 0
            ? bestMatchForReverse(data[i + 1].tag, roads)
            : 0;
    allSimple &&= !matched.has(best);
    matched.add(best);
    allSimple &&= roads[best].entry || ((best === 0 || best + 1 === roads.length) && !uturnReversed);
    allSimple &&= isValidMatch(tag, roads[best]);
  }
  return allSimple && (matched.size === data.length || (matched.size + 1 === data.length && hasNone));
}

/** augmentMultiple: a `none` lane where there are more turns than indications serves the turns beside it. */
function augmentMultiple(none: number, connections: number, data: LaneData[], roads: Road[]): LaneData[] {
  const spare = connections - data.length;
  let first = 0,
    end = 0;
  if (none === 0) {
    for (let i = 1, count = 0; i < roads.length; i++) {
      count += roads[i].entry ? 1 : 0;
      if (count > spare) {
        first = 1;
        end = i + 1;
        break;
      }
    }
  } else if (none + 1 === data.length) {
    for (let i = roads.length - 1, count = 0; i > 0; i--) {
      count += roads[i].entry ? 1 : 0;
      if (count > spare) {
        first = i;
        end = roads.length;
        break;
      }
    }
  } else {
    let begin = 1,
      count = 0;
    for (let i = 1; i < roads.length; i++) {
      count += roads[i].entry ? 1 : 0;
      if (count >= none) {
        begin = i + 1;
        break;
      }
    }
    count = 0;
    for (let i = begin; i < roads.length; i++) {
      count += roads[i].entry ? 1 : 0;
      if (count > spare) {
        first = begin;
        end = i + 1;
        break;
      }
    }
  }
  const n = data[none];
  const range = roads.slice(first, end);
  const out = data.slice();
  if (range.filter((r) => r.entry).length > 1 && n.to - n.from >= 1) {
    const straight = range.findIndex((r) => r.modifier === M_STRAIGHT);
    if (straight >= 0) {
      range.forEach((r, i) => {
        out.push({ tag: TAG_BY_MODIFIER[r.modifier], from: i <= straight ? n.from : n.to, to: i < straight ? n.from : n.to });
      });
      out.splice(none, 1);
    }
    return out;
  }
  for (const r of range) if (r.entry) out.push({ tag: TAG_BY_MODIFIER[r.modifier], from: n.from, to: n.to });
  out.splice(none, 1);
  return out;
}

/** mergeNoneTag: a `none` lane where there is one indication too many joins its neighbours. */
function mergeNone(none: number, data: LaneData[]): LaneData[] {
  const out = data.map((d) => ({ ...d }));
  if (none === 0 || none + 1 === out.length) {
    if (none === 0) out[1].from = out[0].from;
    else out[none - 1].to = out[none].to;
    out.splice(none, 1);
  } else if (out[none].to - out[none].from <= 1) {
    out[none - 1].to = out[none].from;
    out[none + 1].from = out[none].to;
    out.splice(none, 1);
  }
  return out;
}

/** handleRenamingSituations: as many indications as turns, a `none` lane at the side is the turn there. */
function renameNone(none: number, data: LaneData[], roads: Road[]): LaneData[] {
  const out = data.map((d) => ({ ...d }));
  let right = false,
    through = false,
    left = false;
  for (const r of roads) {
    if (!r.entry) continue;
    right ||= hasRight(r.modifier);
    through ||= r.modifier === M_STRAIGHT;
    left ||= hasLeft(r.modifier);
  }
  const n = out[none];
  if (none === 0) {
    if (right && (out.length === 1 || (out[1].tag !== SHARP_RIGHT && out[1].tag !== RIGHT))) {
      n.tag = RIGHT;
      if (out.length > 1 && out[1].tag === STRAIGHT) {
        out[1].from = n.from;
        n.to = n.from;
      }
    } else if (through && (out.length === 1 || out[1].tag !== STRAIGHT)) n.tag = STRAIGHT;
  } else if (none + 1 === out.length) {
    const before = out[none - 1];
    if (left && before.tag !== SHARP_LEFT && before.tag !== LEFT) {
      n.tag = LEFT;
      if (before.tag === STRAIGHT) {
        before.to = n.to;
        n.from = n.to;
      }
    } else if (through && before.tag !== STRAIGHT) n.tag = STRAIGHT;
  } else {
    const next = out[none + 1].tag,
      before = out[none - 1].tag;
    if ((next === LEFT || next === SLIGHT_LEFT || next === SHARP_LEFT) && (before === RIGHT || before === SLIGHT_RIGHT || before === SHARP_RIGHT))
      n.tag = STRAIGHT;
  }
  return out;
}

/** handleNoneValueAtSimpleTurn. */
function handleNone(data: LaneData[], roads: Road[]): LaneData[] {
  if (roads.length === 0 || data.length === 0 || !hasTag(NONE, data)) return data;
  const connections = turns(roads) - (roads[0].entry && data[data.length - 1].tag !== UTURN ? 1 : 0);
  const none = data.findIndex((d) => (d.tag & NONE) !== 0);
  let out: LaneData[];
  if (connections > data.length) out = augmentMultiple(none, connections, data, roads);
  else if (connections < data.length) {
    if (connections + 1 !== data.length) return data;
    out = mergeNone(none, data);
  } else out = renameNone(none, data, roads);
  return sortLanes(out);
}

/** The lanes (from the right, first and last inclusive) of road `taken` after triviallyMatchLanesToTurns,
 *  or null when it gets none. */
function matchTrivially(roads: Road[], data: LaneData[], uturnReversed: boolean, taken: number): LaneData | null {
  let r = 1,
    lane = 0;
  const last = data[data.length - 1];
  if (data.length && data[0].tag === UTURN) {
    if (!roads[0].entry) return null;
    let uturn = 0;
    if (uturnReversed) {
      if (roads.length <= 1 || !roads[1].entry || roads[1].modifier !== M_SHARP_RIGHT) return null;
      uturn = 1;
      r = 2;
    }
    if (uturn === taken) return last;
    lane = 1;
  }
  for (; r < roads.length && lane < data.length; r++) {
    if (!roads[r].entry) continue;
    if (r === taken) return data[lane];
    lane++;
  }
  if (lane + 1 === data.length && last.tag === UTURN) {
    let uturn = 0;
    if (uturnReversed) {
      const end = roads[roads.length - 1];
      if (!end.entry || end.modifier !== M_SHARP_LEFT) return null;
      uturn = roads.length - 1;
    }
    if (uturn === taken) return last;
  }
  return null;
}

/** findClosestTurn(STRAIGHT_ANGLE): the road nearest straight on. */
function straightmost(roads: Road[]): number {
  let best = 0;
  for (let i = 1; i < roads.length; i++) if (angularDeviation(roads[i].angle, 180) < angularDeviation(roads[best].angle, 180)) best = i;
  return best;
}

/**
 * partitionLaneData's first part (turn_lane_handler.cpp): lanes given before an intersection for turns at
 * the next one too (a segregated road's far carriageway, a one-way street passed on the way). Each
 * indication goes to the intersection where it matches best (`next`, the roads at the end of the road
 * straight on `s`); those for the next intersection join the lane going straight on here. Null where an
 * indication matches at neither.
 */
function partitionFirst(data: LaneData[], roads: Road[], s: number, next: Road[]): LaneData[] | null {
  const n = data.length;
  const atFirst: boolean[] = new Array(n).fill(false),
    atSecond: boolean[] = new Array(n).fill(false);
  let straightAt = n;
  for (let lane = 0; lane < n; lane++) {
    const { tag } = data[lane];
    if (tag & (NONE | UTURN)) continue;
    const best = bestMatch(tag, roads);
    if (roads[best].entry && isValidMatch(tag, roads[best])) {
      atFirst[lane] = true;
      if (best === s) straightAt = lane;
    }
    const later = bestMatch(tag, next);
    if (next[later].entry && isValidMatch(tag, next[later])) {
      if (!atFirst[lane] || tag === STRAIGHT || matchingQuality(tag, roads[best]) > matchingQuality(tag, next[later])) {
        if (tag !== STRAIGHT) atFirst[lane] = false;
        atSecond[lane] = true;
      }
    }
    if (!atFirst[lane] && !atSecond[lane]) return null;
  }
  const none = data.findIndex((d) => (d.tag & NONE) !== 0);
  if (straightAt === n && none >= 0) straightAt = none;
  const count = (m: boolean[]): number => m.reduce((c, b) => c + (b ? 1 : 0), 0);
  if (none >= 0) {
    if (count(atFirst) <= turns(roads)) atFirst[none] = true;
    if (count(atSecond) <= turns(next)) atSecond[none] = true;
  }
  // The lane straight on here takes the lanes of the turns at the next intersection.
  const augment = (d: LaneData): void => {
    for (let lane = 0; lane < n; lane++)
      if (atSecond[lane]) {
        d.from = Math.min(data[lane].from, d.from);
        d.to = Math.max(data[lane].to, d.to);
      }
  };
  const first: LaneData[] = [];
  for (let lane = 0; lane < n; lane++) {
    const d = { ...data[lane] };
    if (lane === straightAt) augment(d);
    if (atFirst[lane]) first.push(d);
  }
  if (straightAt === n && turns(next) > 0 && count(atSecond) === turns(next)) {
    const d = { tag: STRAIGHT, from: 255, to: 0 };
    augment(d);
    first.push(d);
    sortLanes(first);
  }
  return first;
}

/** The lanes of a turn, from the right: the first and how many (OSRM's LaneTuple). */
export interface LaneTuple {
  first: number;
  count: number;
}

/**
 * The lanes of `masks` (the arriving road's, left to right) that serve the turn onto road `taken` of
 * `roads` (in OSRM's order: the way back first, then by angle), or null where OSRM's handler gives the
 * turn none. `uturnReversed`: the way back may not be driven (the road arrived by is oneway);
 * `sameLanesAhead`: the road straight on has the same lanes (they are for a later intersection);
 * `nextRoads`, for the road's own lanes: the roads (in the same order) of the intersection at the end of
 * road i, null where there is none (OSRM's partitioned lanes, `partitionFirst`).
 */
export function turnLanes(
  masks: number[],
  input: LaneRoad[],
  taken: number,
  uturnReversed: boolean,
  sameLanesAhead: boolean,
  nextRoads: ((i: number) => LaneRoad[] | null) | null = null,
): LaneTuple | null {
  if (input.length <= 1) return null;
  const roads = input.map(toRoad);
  if (roads.length === 2 && sameLanesAhead && angularDeviation(roads[1].angle, 180) < FUZZY_DEG) return null;
  let data = laneData(masks);
  if (data.length === 0) return null;
  if (data.length === 1 && data[0].tag === NONE) return null;
  if (hasTag(MERGE_LEFT | MERGE_RIGHT, data)) return null;
  const entries = turns(roads);
  if (roads[0].entry && !hasTag(NONE | LEFT | SHARP_LEFT | UTURN, data) && data.length + 1 === entries) return null;
  const trivial = canMatchTrivially(roads, data);
  const missingUturn = trivial && data.length !== (!hasTag(UTURN, data) && roads[0].entry ? 1 : 0) + entries && roads[0].entry;
  if (missingUturn && !hasTag(NONE, data)) data.push({ tag: UTURN, from: data[data.length - 1].to, to: data[data.length - 1].to });
  if (!isSimple(data, roads, uturnReversed)) {
    // PARTITION_LOCAL: the lanes of the turns here, the one straight on taking those for the next intersection.
    if (!nextRoads || data.length < entries) return null;
    const s = straightmost(roads);
    if (!roads[s].entry) return null;
    const next = nextRoads(s);
    if (!next || next.length === 0) return null;
    const first = partitionFirst(data, roads, s, next.map(toRoad));
    if (!first || first.length !== entries || !isSimple(first, roads, uturnReversed)) return null;
    data = first;
  }
  data = handleNone(data, roads);
  if (data.length === 0 || !canMatchTrivially(roads, data)) return null;
  const match = matchTrivially(roads, data, uturnReversed, taken);
  return match ? { first: match.from, count: match.to - match.from + 1 } : null;
}

/**
 * The lanes of the turn onto road `taken` where the road arrived by is a sliproad or the road beside one
 * (turn_lane_handler.cpp's SLIPROAD scenario and handleSliproadTurn): its own lanes (`masks`), `offset`
 * lanes further left in the description of both roads' lanes side by side, each indication onto its turn
 * as they come (no `none` handled, no U-turn added: OSRM decides this scenario before either); null where
 * they do not match so. The other arguments are turnLanes'.
 */
export function sliproadTurnLanes(
  masks: number[],
  offset: number,
  input: LaneRoad[],
  taken: number,
  uturnReversed: boolean,
  sameLanesAhead: boolean,
): LaneTuple | null {
  if (input.length <= 1) return null;
  const roads = input.map(toRoad);
  if (roads.length === 2 && sameLanesAhead && angularDeviation(roads[1].angle, 180) < FUZZY_DEG) return null;
  const data = laneData(masks);
  if (data.length === 0 || (data.length === 1 && data[0].tag === NONE)) return null;
  for (const d of data) {
    d.from += offset;
    d.to += offset;
  }
  if (!canMatchTrivially(roads, data)) return null;
  const match = matchTrivially(roads, data, uturnReversed, taken);
  return match ? { first: match.from, count: match.to - match.from + 1 } : null;
}
