// What a road's signs say beyond its name and ref, as OSRM's car and foot profiles write it into a step:
// the destinations signposted along it (profiles/lib/destination.lua), its exit numbers (`junction:ref`,
// way_handlers.lua's names handler) and, for the car, its turn lanes (lib/guidance.lua). Read from the way's own tags in the OSM stage; which
// profiles show the destinations, and in which direction, is the profiles' (graphs/profiles.ts
// `signsDirection`).

type Tags = Readonly<Record<string, string>>;

/** Runs of white space as `isspace` in the C locale sees them: OSRM collapses each to its first character. */
const SPACE_RUN = /[\t\n\v\f\r ]{2,}/g;

/** OSRM's canonicalizeStringList: a space after each delimiter, then each run of white space one character
 *  ("aaa;bbb; ccc" → "aaa; bbb; ccc"). */
export const canonicalList = (text: string, delimiter: string): string => text.replaceAll(delimiter, `${delimiter} `).replace(SPACE_RUN, (run) => run[0]);

/** A sign tag for travel along the way (`forward`) or against it: its `:forward` / `:backward` variant
 *  before the plain one, lists by `;` written with `, ` (destination.lua's get_directional_tag). */
function directional(tags: Tags, key: string, forward: boolean): string | null {
  const value = tags[`${key}${forward ? ':forward' : ':backward'}`] || tags[key];
  return value ? value.replaceAll(';', ', ') : null;
}

/**
 * The destinations signposted for travel along the way (`forward`) or against it, as destination.lua
 * assembles them: `destination:ref`, then `: ` and `destination` (`A1, A2: Berlin, Hamburg`); one of them
 * alone, else `destination:street`. Null when the way has none. An empty tag counts as none (Lua would
 * keep it: OSM has no such values to speak of).
 */
export function destinationsOf(tags: Tags, forward: boolean): string | null {
  const ref = directional(tags, 'destination:ref', forward),
    destination = directional(tags, 'destination', forward);
  const text = ref && destination ? `${ref}: ${destination}` : (ref ?? destination ?? directional(tags, 'destination:street', forward));
  return text ? canonicalList(text, ',') : null;
}

/** The way's exit numbers (`junction:ref`, `;` between them written `; `), or null. */
export function exitsOf(tags: Tags): string | null {
  const exits = tags['junction:ref'];
  return exits ? canonicalList(exits, ';') : null;
}

/** Whether a way has any tag `destinationsOf`, `exitsOf` or `turnLanesOf` reads: most roads have none. */
export const hasSigns = (tags: Tags): boolean => {
  for (const key in tags) if (key.startsWith('destination') || key === 'junction:ref' || key.startsWith('turn:lanes')) return true;
  return false;
};

/** A lane string without the lanes a `vehicle:lanes` list (as long) does not mark `yes`: guidance.lua's
 *  applyAccessTokens (parsing_toolkit.hpp), which leaves a string of another length as it is. */
function applyAccessTokens(lanes: string, access: string): string {
  const tokens = lanes.split('|'),
    allowed = access.split('|');
  if (tokens.length !== allowed.length) return lanes;
  let out = '';
  for (let i = 0; i < tokens.length; i++) {
    if (allowed[i] !== 'yes') continue;
    // As OSRM: no `|` before a lane while nothing is written (an empty first lane merges into the next).
    if (out !== '') out += '|';
    out += tokens[i];
  }
  return out;
}

/** A lane string without `left` empty lanes on its left and `right` on its right (public transport lanes,
 *  `lanes:psv`), where it has them: parsing_toolkit.hpp's trimLaneString. */
function trimLanes(lanes: string, left: number, right: number): string {
  let s = lanes;
  if (left && left < s.length && s.slice(0, left) === '|'.repeat(left)) s = s.slice(left);
  if (right && right < s.length && s.slice(s.length - right) === '|'.repeat(right)) s = s.slice(0, s.length - right);
  return s;
}

/** The number a tag holds, as Lua's tonumber, 0 for none. */
const count = (value: string | undefined): number => {
  const n = value === undefined || value.trim() === '' ? Number.NaN : Number(value);
  return Number.isFinite(n) ? n : 0;
};

/**
 * The turn lanes of a way for travel along it (`forward`) or against it, left to right as `turn:lanes`
 * writes them (`left|through;right`), as OSRM's guidance.lua get_turn_lanes reads them: the `:forward` /
 * `:backward` tag before the plain one, without the lanes `vehicle:lanes` closes, else trimmed by the
 * public transport lanes at the side (`lanes:psv`). Null when the way has none. A oneway's plain tag is
 * read both ways: against it no car goes.
 */
export function turnLanesOf(tags: Tags, forward: boolean): string | null {
  const way = forward ? 'forward' : 'backward';
  const lanes = tags[`turn:lanes:${way}`] ?? tags['turn:lanes'];
  if (!lanes) return null;
  const vehicle = tags[`vehicle:lanes:${way}`] ?? tags['vehicle:lanes'];
  if (vehicle) return applyAccessTokens(lanes, vehicle) || null;
  const psvForward = count(tags['lanes:psv:forward'] ?? tags['lanes:psv']),
    psvBackward = count(tags['lanes:psv:backward'] ?? tags['lanes:psv']);
  // OSRM trims a way's forward lanes by the backward count on the left, its backward lanes the other way round.
  return (forward ? trimLanes(lanes, psvBackward, psvForward) : trimLanes(lanes, psvForward, psvBackward)) || null;
}
