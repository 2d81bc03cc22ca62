// Which road a point of the shared shapes is on: the `name` and `ref` tags of the routable ways, with their
// road kind and signs, kept per run of points (see RoadLabels in road-graph.ts). Built with the shape pool;
// looked up in compute threads.
import type { RoadLabelSource } from './profile-ways.js';
import { Growable } from '../../lib/typed-pools.js';
import type { RoadLabels, Shapes } from './road-graph.js';

/** A road's name and ref (`name=Landstrasse`, `ref=28`), null where the way has none. */
export interface RoadLabel {
  name: string | null;
  ref: string | null;
}

const utf8 = new TextDecoder();

function text(shapes: RoadLabels, s: number): string | null {
  return s < 0 ? null : utf8.decode(shapes.labelText.subarray(shapes.labelTextFirst[s], shapes.labelTextFirst[s + 1]));
}

/**
 * The name and ref of the way that point `point` of `shapes.pointsE7` (a pair index, as `geomFirst[g]`
 * gives) belongs to: a binary search over the runs of points.
 */
export function roadLabelAt(shapes: Shapes, point: number): RoadLabel {
  const label = labelAt(shapes, point);
  return label < 0 ? { name: null, ref: null } : { name: text(shapes, shapes.labelName[label]), ref: text(shapes, shapes.labelRef[label]) };
}

/** The name and ref of label `label` (as `labelAt` gives). */
export const labelTexts = (shapes: RoadLabels, label: number): RoadLabel => ({
  name: text(shapes, shapes.labelName[label]),
  ref: text(shapes, shapes.labelRef[label]),
});

/**
 * What a road's signs say beyond its name and ref (OSRM's step fields, null where nothing): the
 * destinations, which only the profiles of bit p (PROFILES[p]) of `shownTo` show, and the exit numbers.
 */
export interface RoadSigns {
  destinations: string | null;
  shownTo: number;
  exits: string | null;
}

/** The signs of label `label` (as `labelAt` gives). */
export const labelSigns = (shapes: RoadLabels, label: number): RoadSigns => ({
  destinations: text(shapes, shapes.labelDestinations[label]),
  shownTo: shapes.labelDestinationsShown[label],
  exits: text(shapes, shapes.labelExits[label]),
});

/** The text (`labelText`) of the turn lanes (`left|through;right`, osm/road-signs.ts `turnLanesOf`) of label
 *  `label`'s road travelled along its way (`forward`) or against it, or -1. Texts are stored once each: the
 *  same lanes are the same number. */
export const labelLanesText = (shapes: RoadLabels, label: number, forward: boolean): number =>
  label < 0 ? -1 : (forward ? shapes.labelLanesForward : shapes.labelLanesBackward)[label];

/** The turn lanes of `labelLanesText`, or null. */
export const laneText = (shapes: RoadLabels, lanes: number): string | null => text(shapes, lanes);

/**
 * The label of the way point `point` belongs to (0: neither name, ref, kind nor signs; -1: not a point of the
 * shapes), without decoding its texts: turn guidance compares labels along a whole route.
 */
export function labelAt(shapes: Pick<Shapes, 'labelFirst' | 'labelIndex' | 'pointsE7'>, point: number): number {
  const first = shapes.labelFirst;
  let lo = 0,
    hi = first.length - 1,
    run = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (first[mid] <= point) {
      run = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (run < 0 || point < 0 || 2 * point >= shapes.pointsE7.length) return -1;
  return shapes.labelIndex[run];
}

/**
 * The runs of labelled points from the ways' labels: `wayStart` and `wayPoints` give each kept way's first
 * point and its count of points (wayStart -1: the way has no points in the shapes).
 */
export function buildRoadLabels(source: RoadLabelSource, wayStart: Int32Array, wayPoints: (w: number) => number): RoadLabels {
  const labelFirst = new Growable(Uint32Array),
    labelIndex = new Growable(Uint32Array);
  // Label 0: neither name, ref, kind nor signs; the others once per distinct (name, ref, kind, signs).
  const names = [-1],
    refs = [-1],
    kinds = [0],
    destinations = [-1],
    shown = [0],
    exits = [-1],
    lanesForward = [-1],
    lanesBackward = [-1];
  const labelOf = new Map<number | string, number>();
  const { signs } = source;
  const textCount = source.strings.length;
  let next = 0,
    signed = 0,
    last = -1;
  for (let w = 0; w < wayStart.length; w++) {
    if (wayStart[w] < 0 || wayPoints(w) === 0) continue;
    while (next < source.count && source.way[next] < w) next++;
    while (signed < signs.count && signs.way[signed] < w) signed++;
    let label = 0;
    if (next < source.count && source.way[next] === w) {
      const name = source.name[next],
        ref = source.ref[next],
        kind = source.kind[next];
      const sign = signed < signs.count && signs.way[signed] === w ? signed : -1;
      // Both are below textCount, and -1 maps to textCount: one number per pair, times 256 kinds (below 2^53
      // for up to 2^22 distinct texts); the few ways with signs add them to it as text.
      const pair = ((name < 0 ? textCount : name) * (textCount + 1) + (ref < 0 ? textCount : ref)) * 256 + kind;
      const key =
        sign < 0
          ? pair
          : `${pair} ${signs.destinations[sign]} ${signs.shownTo[sign]} ${signs.exits[sign]} ${signs.lanesForward[sign]} ${signs.lanesBackward[sign]}`;
      label = labelOf.get(key) ?? -1;
      if (label < 0) {
        label = names.push(name) - 1;
        refs.push(ref);
        kinds.push(kind);
        destinations.push(sign < 0 ? -1 : signs.destinations[sign]);
        shown.push(sign < 0 ? 0 : signs.shownTo[sign]);
        exits.push(sign < 0 ? -1 : signs.exits[sign]);
        lanesForward.push(sign < 0 ? -1 : signs.lanesForward[sign]);
        lanesBackward.push(sign < 0 ? -1 : signs.lanesBackward[sign]);
        labelOf.set(key, label);
      }
    }
    if (label === last) continue;
    labelFirst.push(wayStart[w]);
    labelIndex.push(label);
    last = label;
  }
  // Only the texts some label uses, renumbered in order of first use.
  const renumber = new Int32Array(textCount).fill(-1);
  const textFirst = new Growable(Uint32Array),
    bytes = new Growable(Uint8Array, 4096);
  const encoder = new TextEncoder();
  textFirst.push(0);
  const use = (s: number): number => {
    if (s < 0) return -1;
    if (renumber[s] < 0) {
      const str = source.strings[s];
      bytes.reserve(3 * str.length); // UTF-8 takes at most 3 bytes per UTF-16 unit
      bytes.length += encoder.encodeInto(str, bytes.data.subarray(bytes.length)).written;
      renumber[s] = textFirst.length - 1;
      textFirst.push(bytes.length);
    }
    return renumber[s];
  };
  const labelName = Int32Array.from(names, use),
    labelRef = Int32Array.from(refs, use),
    labelDestinations = Int32Array.from(destinations, use),
    labelExits = Int32Array.from(exits, use),
    labelLanesForward = Int32Array.from(lanesForward, use),
    labelLanesBackward = Int32Array.from(lanesBackward, use);
  return {
    labelFirst: labelFirst.toShared(),
    labelIndex: labelIndex.toShared(),
    labelName,
    labelRef,
    labelKind: Uint8Array.from(kinds),
    labelDestinations,
    labelDestinationsShown: Uint8Array.from(shown),
    labelExits,
    labelLanesForward,
    labelLanesBackward,
    labelTextFirst: textFirst.toShared(),
    labelText: bytes.toShared(),
  };
}
