// Whether a change of road deserves a "new name": OSRM's requiresNameAnnounced, on the names and refs of
// two labels. A name dropped (a road losing its name tag) or only a direction prefix or suffix changing
// ("42 N" → "42 S", "North Central Expressway" → "Central Expressway") is not announced, nor a ref that
// keeps the refs it had ("US 64;US 412;OK 151" → "US 64; US 412").
import type { RoadLabels } from '../../map/graphs/road-graph.js';
import { labelTexts } from '../../map/graphs/road-labels.js';

const DIRECTIONS = new Set(['n', 's', 'e', 'w', 'ne', 'nw', 'se', 'sw', 'north', 'south', 'east', 'west', 'northeast', 'northwest', 'southeast', 'southwest']);

/** The name without a direction word at either end. */
function core(name: string): string {
  const words = name.trim().split(/\s+/);
  if (words.length > 1 && DIRECTIONS.has(words[0].toLowerCase())) words.shift();
  if (words.length > 1 && DIRECTIONS.has(words[words.length - 1].toLowerCase())) words.pop();
  return words.join(' ');
}

const refSet = (ref: string): string[] =>
  ref
    .split(';')
    .map((r) => r.trim())
    .filter(Boolean);

/** Whether every ref of one is among the other's (either way round); an empty ref is contained. */
function refsContained(a: string, b: string): boolean {
  const x = refSet(a),
    y = refSet(b);
  if (!x.length || !y.length) return true;
  return x.every((r) => y.includes(r)) || y.every((r) => x.includes(r));
}

/** Whether going from the road of label `from` onto that of label `to` (road-labels.ts; -1 none) is a new name. */
export function announced(shapes: RoadLabels, from: number, to: number): boolean {
  if (from === to) return false;
  if (from >= 0 && to >= 0 && shapes.labelName[from] === shapes.labelName[to] && shapes.labelRef[from] === shapes.labelRef[to]) return false;
  const a = from >= 0 ? labelTexts(shapes, from) : { name: null, ref: null };
  const b = to >= 0 ? labelTexts(shapes, to) : { name: null, ref: null };
  const an = a.name?.trim() ?? '',
    bn = b.name?.trim() ?? '',
    ar = a.ref ?? '',
    br = b.ref ?? '';
  if (an !== '' && bn === '') return false;
  if (ar !== '' && br === '' && an === bn) return false;
  const namesEqual = an === bn || core(an) === core(bn);
  if (an === '' && bn === '') return !refsContained(ar, br) || (ar === '' && br !== '');
  return !(namesEqual && refsContained(ar, br));
}
