// What a road's signs say beyond its name and ref, as OSRM's car and foot profiles write it into a step:
// the destinations signposted along it (profiles/lib/destination.lua) and its exit numbers
// (`junction:ref`, way_handlers.lua's names handler). Read from the way's own tags in the OSM stage; which
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

/** Whether a way has any tag `destinationsOf` or `exitsOf` reads: most roads have none. */
export const hasSigns = (tags: Tags): boolean => {
  for (const key in tags) if (key.startsWith('destination') || key === 'junction:ref') return true;
  return false;
};
