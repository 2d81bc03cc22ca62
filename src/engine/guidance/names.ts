// Whether a change of road deserves a "new name": OSRM's requiresNameAnnounced (util/guidance/
// name_announcements.hpp), on the names, refs and exit numbers of two labels, with car.lua's suffix list. A
// name dropped, a name that begins the other ("Landstrasse" → "Landstrasse Nord"), or only a direction
// word changing before or after the part both share ("42 N" → "42 S") is not announced, nor a ref list
// that holds the other ("US 64;US 412;OK 151" → "US 64; US 412"); other exit numbers are, but for a ramp
// that only loses its number. OSRM's pronunciations are not kept.
import type { RoadLabels } from '../../map/graphs/road-graph.js';
import { labelSigns, labelTexts } from '../../map/graphs/road-labels.js';

/** car.lua's `suffix_list`, lower-cased as OSRM's SuffixTable keeps it. */
const SUFFIXES = new Set(['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw', 'north', 'south', 'west', 'east', 'nor', 'sou', 'we', 'ea']);

/** The longest run of characters both have (the first one found, as OSRM's dynamic programme finds it). */
function longestCommonSubstring(a: string, b: string): string {
  if (!a || !b) return '';
  let previous = new Uint32Array(b.length),
    current = new Uint32Array(b.length);
  let best = 0,
    end = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      // As OSRM's: a cell of a row not matched keeps the value two rows up (it swaps, not clears, its rows).
      if (a[i] === b[j]) {
        current[j] = j === 0 ? 1 : previous[j - 1] + 1;
        if (current[j] > best) {
          best = current[j];
          end = i + 1;
        }
      }
    }
    [previous, current] = [current, previous];
  }
  return a.slice(end - best, end);
}

const clean = (s: string): string => s.toLowerCase().trim();

/** Whether the two names differ only by suffix-list words around the part they share (OSRM's
 *  checkForPrefixOrSuffixChange over `decompose`). */
function suffixChange(a: string, b: string): boolean {
  const common = longestCommonSubstring(a, b);
  let parts: string[];
  if (!common) parts = [clean(a), clean(b)];
  else {
    const i = a.indexOf(common),
      j = b.indexOf(common);
    parts = [clean(a.slice(0, i)), clean(a.slice(i + common.length)), clean(b.slice(0, j)), clean(b.slice(j + common.length))];
  }
  return parts.every((p) => p === '' || SUFFIXES.has(p));
}

/** A ref list as OSRM's profiles write it (canonicalizeStringList: `a; b`). */
const canonicalRef = (ref: string): string =>
  ref
    .split(';')
    .map((r) => r.trim())
    .filter(Boolean)
    .join('; ');

/** OSRM's requiresNameAnnounced without pronunciations. */
export function nameAnnounced(fromName: string, fromRef: string, toName: string, toRef: string, fromExits = '', toExits = ''): boolean {
  if (fromName === '' && fromRef === '' && !(toName === '' && toRef === '')) return true;
  const namesEmpty = fromName === '' && toName === '';
  const contained = fromName.startsWith(toName) || toName.startsWith(fromName);
  const suffixChanged = suffixChange(fromName, toName);
  const namesEqual = fromName === toName || contained || suffixChanged;
  const nameRemoved = fromName !== '' && toName === '';
  const refsEmpty = fromRef === '' && toRef === '';
  const refContained = fromRef === '' || toRef === '' || fromRef.includes(toRef) || toRef.includes(fromRef);
  const refRemoved = fromRef !== '' && toRef === '';
  const obvious =
    (namesEmpty && refsEmpty) ||
    (namesEqual && refContained) ||
    (namesEqual && refsEmpty) ||
    (refContained && nameRemoved) ||
    (namesEqual && refRemoved) ||
    suffixChanged;
  const needed =
    // A ref alone onto a name alone, and back; or no names and another ref.
    (fromName === '' && fromRef !== '' && toName !== '' && toRef === '') ||
    (fromName !== '' && fromRef === '' && toName === '' && toRef !== '') ||
    (namesEmpty && !refContained);
  // OSRM numbers only the first way of some ramps: a ramp of one name going on without its number is no new road.
  const losesExit = namesEqual && fromExits !== '' && toExits === '';
  return !obvious || needed || (fromExits !== toExits && !losesExit);
}

/** Whether going from the road of label `from` onto that of label `to` (road-labels.ts; -1 none) is a new name. */
export function announced(shapes: RoadLabels, from: number, to: number): boolean {
  if (from === to) return false;
  if (
    from >= 0 &&
    to >= 0 &&
    shapes.labelName[from] === shapes.labelName[to] &&
    shapes.labelRef[from] === shapes.labelRef[to] &&
    shapes.labelExits[from] === shapes.labelExits[to]
  )
    return false;
  const a = from >= 0 ? labelTexts(shapes, from) : { name: null, ref: null };
  const b = to >= 0 ? labelTexts(shapes, to) : { name: null, ref: null };
  const exits = (label: number): string => (label >= 0 ? (labelSigns(shapes, label).exits ?? '') : '');
  return nameAnnounced(a.name ?? '', canonicalRef(a.ref ?? ''), b.name ?? '', canonicalRef(b.ref ?? ''), exits(from), exits(to));
}
