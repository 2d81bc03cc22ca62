// OSM's maneuver relations read as OSRM's ManeuverOverrideRelationParser reads them, and resolved to runs
// of a graph's directed geometries (the steps' side is checked by OSRM's maneuver-tag.feature in
// test/routing/osrm-guidance.test.ts).
import { describe, expect, it } from 'vitest';
import { MANEUVER_HEAD, MANEUVER_MODIFIERS, MANEUVER_TYPES, maneuverCodes, resolveManeuvers } from '../../src/map/graphs/maneuvers.js';
import { maneuverRelationOf } from '../../src/map/osm/osm-data.js';
import type { OsmRelation } from '../../src/map/osm/osm-pbf.js';

const relation = (tags: Record<string, string>, members: OsmRelation['members']): OsmRelation => ({ id: 1, tags, members });
const way = (ref: number, role: string) => ({ type: 'way' as const, ref, role });
const node = (ref: number, role: string) => ({ type: 'node' as const, ref, role });

describe('a maneuver relation', () => {
  it('is whole with one from-way, one to-way and one via node; its via ways keep their order', () => {
    expect(
      maneuverRelationOf(relation({ type: 'maneuver', maneuver: 'turn', direction: 'sharp_right' }, [way(1, 'from'), node(7, 'via'), way(2, 'to')])),
    ).toEqual({
      from: 1,
      viaNode: 7,
      viaWays: [],
      to: 2,
      maneuver: 'turn',
      direction: 'sharp_right',
    });
    const viaWays = maneuverRelationOf(
      relation({ type: 'manoeuvre', maneuver: 'turn' }, [way(1, 'from'), way(5, 'via'), way(4, 'via'), way(2, 'to'), node(7, 'via')]),
    );
    expect(viaWays?.viaWays).toEqual([5, 4]);
    // maneuver-tag.feature's invalid ones: no via node, no from-way, no to-way, two via nodes.
    for (const members of [
      [way(1, 'from'), way(5, 'via'), way(2, 'to')],
      [node(7, 'via'), way(5, 'via'), way(2, 'to')],
      [way(1, 'from'), node(7, 'via'), way(5, 'via')],
      [way(1, 'from'), node(7, 'via'), node(8, 'via'), way(2, 'to')],
    ])
      expect(maneuverRelationOf(relation({ type: 'maneuver', maneuver: 'suppress' }, members))).toBeNull();
    expect(maneuverRelationOf(relation({ type: 'restriction', restriction: 'no_left_turn' }, [way(1, 'from'), node(7, 'via'), way(2, 'to')]))).toBeNull();
  });

  it('reads `manoeuvre` before `maneuver`, and uturn as a turn whose modifier is uturn', () => {
    const both = maneuverRelationOf(
      relation({ type: 'maneuver', manoeuvre: 'fork', maneuver: 'turn', direction: 'slight_right' }, [way(1, 'from'), node(7, 'via'), way(2, 'to')]),
    );
    expect(both?.maneuver).toBe('fork');
    const [type, modifier] = maneuverCodes(both!.maneuver, both!.direction);
    expect([MANEUVER_TYPES[type], MANEUVER_MODIFIERS[modifier]]).toEqual(['fork', 'slight right']);
    const uturn = maneuverCodes('uturn', '');
    expect([MANEUVER_TYPES[uturn[0]], MANEUVER_MODIFIERS[uturn[1]]]).toEqual(['turn', 'uturn']);
    expect(maneuverCodes('dance', 'up')).toEqual([0, 0]);
  });
});

describe("a maneuver relation on a profile's graph", () => {
  // Nodes 0 … 4: way 10 runs 0 → 1, way 11 runs 1 → 2 → 3 (cut at the junction 2, where way 13 leaves
  // to 4), way 12 runs 3 → 4. Every geometry two-way but way 12, one-way 3 → 4.
  const input = {
    geomA: Uint32Array.from([0, 1, 2, 3, 2]),
    geomB: Uint32Array.from([1, 2, 3, 4, 4]),
    geomFwd: Uint32Array.from([10, 10, 10, 10, 10]),
    geomBwd: Uint32Array.from([10, 10, 10, 0, 10]),
    geomWay: Float64Array.from([10, 11, 11, 12, 13]),
  };
  const osmNode = (id: number) => (id >= 100 && id <= 104 ? id - 100 : -1);
  const records = (m: Int32Array) => {
    const out: Array<{ at: number; type: string; modifier: string; dirs: number[] }> = [];
    for (let r = 0; r < m.length; r += MANEUVER_HEAD + m[r])
      out.push({
        at: m[r + 1],
        type: MANEUVER_TYPES[m[r + 2]],
        modifier: MANEUVER_MODIFIERS[m[r + 3]],
        dirs: [...m.subarray(r + MANEUVER_HEAD, r + MANEUVER_HEAD + m[r])],
      });
    return out;
  };

  it('is the run of directed geometries from the from-way along each via way, piece by piece, onto the to-way, given at its via node', () => {
    const m = resolveManeuvers([{ from: 10, viaNode: 103, viaWays: [11], to: 12, maneuver: 'turn', direction: 'sharp_left' }], input, osmNode);
    // 0 → 1 (geometry 0 along), 1 → 2 → 3 (geometries 1 and 2 along), 3 → 4 (geometry 3 along); the
    // instruction at node 3, the start of the fourth.
    expect(records(m)).toEqual([{ at: 3, type: 'turn', modifier: 'sharp left', dirs: [0, 2, 4, 6] }]);
  });

  it('follows only the ways a profile may drive that way, and drops a relation whose via node is not on its run', () => {
    // Way 12 is one-way 3 → 4, away from way 11: no run from 12 onto 11.
    expect(resolveManeuvers([{ from: 12, viaNode: 103, viaWays: [], to: 11, maneuver: 'turn', direction: 'left' }], input, osmNode).length).toBe(0);
    // Via node 0 lies on no junction of the run 1 → 2 → 4.
    expect(resolveManeuvers([{ from: 11, viaNode: 100, viaWays: [], to: 13, maneuver: 'turn', direction: 'left' }], input, osmNode).length).toBe(0);
    // A node the graph lacks, and a relation that says nothing it knows.
    expect(resolveManeuvers([{ from: 11, viaNode: 999, viaWays: [], to: 13, maneuver: 'turn', direction: 'left' }], input, osmNode).length).toBe(0);
    expect(resolveManeuvers([{ from: 11, viaNode: 102, viaWays: [], to: 13, maneuver: 'dance', direction: '' }], input, osmNode).length).toBe(0);
    // From 11 at node 2 onto 13, either way along 11: arriving 1 → 2 (geometry 1 along) and 3 → 2 (geometry 2 against).
    expect(records(resolveManeuvers([{ from: 11, viaNode: 102, viaWays: [], to: 13, maneuver: 'suppress', direction: '' }], input, osmNode))).toEqual([
      { at: 1, type: 'suppress', modifier: '', dirs: [2, 8] },
      { at: 1, type: 'suppress', modifier: '', dirs: [5, 8] },
    ]);
  });
});
