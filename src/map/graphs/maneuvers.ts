// OSM's maneuver relations (`type=maneuver`, OSRM's maneuver overrides) as one profile's graph has them:
// each a run of directed geometries (the from-way's piece into the junction, the via ways' pieces, the
// to-way's piece out of it) and the instruction a route along all of it is given at the via node. Turn
// guidance (engine/guidance/steps.ts) gives that node's step the relation's type and direction, makes
// one where nothing would be said, or says nothing there (`suppress`).
import type { ManeuverRelation } from '../osm/osm-data.js';

/** The types a relation may give (`maneuver=*`), by code; 0 keeps the step's own. */
export const MANEUVER_TYPES = ['', 'turn', 'continue', 'fork', 'suppress'] as const;
export const MANEUVER_SUPPRESS = 4;
/** The modifiers (`direction=*`, and `maneuver=uturn`), by code; 0 keeps the step's own. */
export const MANEUVER_MODIFIERS = ['', 'uturn', 'sharp right', 'right', 'slight right', 'straight', 'slight left', 'left', 'sharp left'] as const;

/** OSRM's values of `direction` (extraction_containers.cpp), as step modifiers. */
const DIRECTIONS: Record<string, number> = {
  sharp_right: 2,
  right: 3,
  slight_right: 4,
  straight: 5,
  slight_left: 6,
  left: 7,
  sharp_left: 8,
};

/** A relation's type and modifier codes: `uturn` is a turn whose modifier is uturn (as OSRM reads it). */
export function maneuverCodes(maneuver: string, direction: string): [type: number, modifier: number] {
  const type = maneuver === 'uturn' ? 1 : Math.max(0, MANEUVER_TYPES.indexOf(maneuver as (typeof MANEUVER_TYPES)[number]));
  return [type, maneuver === 'uturn' ? 1 : (DIRECTIONS[direction] ?? 0)];
}

/** Words before a record's directed geometries: their count, the index of the one the instruction is
 *  given at the start of, the type and the modifier. */
export const MANEUVER_HEAD = 4;
/** The longest run of geometries a relation is followed along (a via way cut at many junctions). */
const MAX_PIECES = 64;

/** What `resolveManeuvers` reads of a graph being built (graph-assemble.ts GraphInput). */
export interface ManeuverInput {
  geomA: Uint32Array;
  geomB: Uint32Array;
  geomFwd: Uint32Array;
  geomBwd: Uint32Array;
  geomWay: Float64Array;
}

/**
 * The relations as records of the graph (`RoadGraph.maneuvers`): per way of geometries from the from-way
 * along the via ways in order onto the to-way that the profile may drive, `MANEUVER_HEAD` words then the
 * directed geometries (2g along geometry g, 2g+1 against it). `graphNode` is the graph node of an OSM
 * node id (-1 none). A relation whose via node is not a junction on its way is left out, as OSRM finds no
 * step to change there; so is one with neither a type nor a modifier it knows.
 */
export function resolveManeuvers(relations: readonly ManeuverRelation[], g: ManeuverInput, graphNode: (id: number) => number): Int32Array {
  if (!relations.length) return new Int32Array(0);
  const tail = (d: number): number => (d & 1 ? g.geomB[d >> 1] : g.geomA[d >> 1]);
  const head = (d: number): number => (d & 1 ? g.geomA[d >> 1] : g.geomB[d >> 1]);
  const open = (d: number): boolean => (d & 1 ? g.geomBwd[d >> 1] : g.geomFwd[d >> 1]) > 0;
  const named = new Set<number>();
  for (const r of relations) for (const w of [r.from, ...r.viaWays, r.to]) named.add(w);
  // The open directed geometries of the relations' ways, by the node they leave.
  const outOf = new Map<number, number[]>();
  const ofFrom = new Map<number, number[]>();
  for (let k = 0; k < g.geomWay.length; k++) {
    const way = g.geomWay[k];
    if (!named.has(way)) continue;
    for (const d of [2 * k, 2 * k + 1]) {
      if (!open(d)) continue;
      const t = tail(d);
      let list = outOf.get(t);
      if (!list) outOf.set(t, (list = []));
      list.push(d);
      let own = ofFrom.get(way);
      if (!own) ofFrom.set(way, (own = []));
      own.push(d);
    }
  }
  const out: number[] = [];
  for (const r of relations) {
    const [type, modifier] = maneuverCodes(r.maneuver, r.direction);
    const via = graphNode(r.viaNode);
    if ((!type && !modifier) || via < 0) continue;
    const ways = [r.from, ...r.viaWays, r.to];
    const last = ways.length - 1;
    const found = (run: number[]): void => {
      // The instruction is at the start of the first piece that leaves the via node.
      let at = 1;
      while (at < run.length && head(run[at - 1]) !== via) at++;
      if (at < run.length) out.push(run.length, at, type, modifier, ...run);
    };
    // Along way `i` of `ways` (its last piece the run's last), onto the rest.
    const follow = (run: number[], i: number): void => {
      const d = run[run.length - 1];
      for (const e of outOf.get(head(d)) ?? []) {
        if (e === (d ^ 1) || run.includes(e) || run.length >= MAX_PIECES) continue;
        const way = g.geomWay[e >> 1];
        // A via way goes on piece by piece where junctions cut it.
        if (i > 0 && way === ways[i]) follow([...run, e], i);
        if (way === ways[i + 1]) {
          if (i + 1 === last) found([...run, e]);
          else follow([...run, e], i + 1);
        }
      }
    };
    for (const d of ofFrom.get(r.from) ?? []) follow([d], 0);
  }
  return Int32Array.from(out);
}
