// OSRM's own feature files (../shared/peer-tests/osrm-features) run against Waymark's profiles: the files
// that agree fully stay that way, and the total stays above the bar. `npm run peer:osrm -- DIR`
// prints the same run row by row.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFeature, runFeature, runFeatureFile, type FileReport } from '../../src/cli/peer/osrm-features.js';
import { projectRoot } from '../../src/lib/paths.js';

const DIR = join(projectRoot, '..', 'shared', 'peer-tests', 'osrm-features');

/** Every file of the shared folder. */
const FULLY_AGREEING = [
  'bicycle/access',
  'bicycle/barrier',
  'bicycle/cycleway',
  'bicycle/oneway',
  'bicycle/way',
  'car/access',
  'car/barrier',
  'car/construction',
  'car/maxspeed',
  'car/oneway',
  'car/physical_limitation',
  'car/restrictions',
  'car/service',
  'foot/access',
  'foot/barrier',
  'foot/oneway',
  'foot/way',
];

const reports = new Map<string, FileReport>();
const report = (name: string): FileReport => {
  let r = reports.get(name);
  if (!r) reports.set(name, (r = runFeatureFile(join(DIR, `${name}.feature`), name)));
  return r;
};

describe('OSRM feature files', () => {
  it.each(FULLY_AGREEING)('%s: every compared row agrees', (name) => {
    const r = report(name);
    expect(r.agree).toBeGreaterThan(0);
    expect(r.rows.filter((x) => x.status === 'disagree')).toEqual([]);
  });

  it("car/restrictions: the turns at a via-way restriction's copy of a node and the name change after a U-turn agree (their locations compared)", () => {
    const r = report('car/restrictions');
    // Both turns before the U-turn: the via way's far node (a copy without the banned way) still has its
    // every road, as OSRM's guidance sees it ("turn left" at a T, not "new name left" round a bend).
    const viaWay = r.rows.filter((x) => /Car - (prohibit|allow only) turn/.test(x.scenario) && /to=f/.test(x.row) && /turn right,turn left,arrive/.test(x.row));
    expect(viaWay.length).toBeGreaterThan(0);
    expect(viaWay.filter((x) => x.status !== 'agree')).toEqual([]);
    // Turned back at the dead end f, straight on from ef onto de (200 m) and arrive at d: OSRM says the new
    // name, a long one, before arriving.
    const after = r.rows.filter((x) => /continue uturn,new name straight,arrive/.test(x.row) && /locations=/.test(x.row));
    expect(after.length).toBe(3);
    expect(after.filter((x) => x.status !== 'agree')).toEqual([]);
  });

  it('car/restrictions: restrictions through via nodes and along via ways agree, and routes turn back only at dead ends', () => {
    const r = report('car/restrictions');
    // Both read the drawing as OSRM lays it out (a character half a cell across): the dead ends b and c are
    // then as far from x, and the turn prices send the car straight on to b; the dead end h is farther
    // than the way round by f. On a drawing a cell per character OSRM 6.0.0 answers both as Waymark did
    // (docs/decisions.md).
    for (const scenario of ['Car - No u-turn', 'Two times same way']) {
      const rows = r.rows.filter((x) => x.scenario === scenario && x.status !== 'skipped');
      expect(rows.length, scenario).toBeGreaterThan(0);
      expect(rows.filter((x) => x.status !== 'agree')).toEqual([]);
    }
    // OSRM drives on to a dead end (h) to turn round after an only_ restriction, and round the loop e-f-c
    // rather than turn back at d: Waymark's routes did turn back at the junction before turn-back.ts.
    for (const scenario of ['Car - Several only_ restrictions at the same segment', 'Restriction On Compressed Geometry']) {
      const rows = r.rows.filter((x) => x.scenario === scenario);
      expect(rows.length, scenario).toBeGreaterThan(0);
      expect(
        rows.filter((x) => x.status !== 'agree'),
        scenario,
      ).toEqual([]);
    }
    expect(r.rows.filter((x) => x.status === 'agree' && /prohibit turn|allow only turn|Geometry|Duplicated/.test(x.scenario)).length).toBeGreaterThanOrEqual(
      14,
    );
  });

  it('agree on at least 95 % of the compared rows in total, every skipped row with its reason', () => {
    const all = FULLY_AGREEING.map(report);
    const agree = all.reduce((a, r) => a + r.agree, 0);
    const compared = all.reduce((a, r) => a + r.agree + r.disagree, 0);
    expect(compared).toBeGreaterThan(1000);
    expect(agree / compared).toBeGreaterThanOrEqual(0.95);
    for (const r of all) for (const row of r.rows.filter((x) => x.status === 'skipped')) expect(row.detail).toMatch(/\w{4}/);
  });

  it('counts a disagreement as one, and skips rows that expect what Waymark does not answer', () => {
    const rows = runFeature(
      parseFeature(`
Feature: made up
    Background:
        Given the profile "car"
    Scenario: a oneway the table gets wrong on purpose
        Then routability should be
            | highway | oneway | forw | backw |
            | primary | yes    | x    | x     |
            | primary | -1     |      | x     |
    Scenario: turns and times
        Given the node map
            """
            a b c
            """
        And the ways
            | nodes |
            | abc   |
        When I route I should get
            | from | to | route   | time |
            | a    | c  | abc,abc | 20s  |
            | a    | c  | abc,abc |      |
            | c    | a  | xyz,xyz |      |
`),
    );
    expect(rows.map((r) => r.status)).toEqual(['disagree', 'agree', 'skipped', 'agree', 'disagree']);
    expect(rows[0].detail).toBe('backw: OSRM "x", Waymark ""');
    expect(rows[2].detail).toBe('expects time, which Waymark does not answer');
    expect(rows[4].detail).toBe('OSRM xyz, Waymark abc');
  });

  it('reads an empty highway cell as no road class, as OSRM writes it (a ferry row is a ferry, not a primary road)', () => {
    const feature = (route: string): string => `
Feature: made up
    Background:
        Given the profile "car"
    Scenario: a ferry between two roads
        Given the node map
            """
            a b c
                d
                e f g
            """
        And the ways
            | nodes | highway | route   |
            | abc   | primary |         |
            | cde   |         | ${route} |
            | efg   | primary |         |
        When I route I should get
            | from | to | route           |
            | a    | g  | abc,cde,efg,efg |
`;
    expect(runFeature(parseFeature(feature('ferry'))).map((r) => r.status)).toEqual(['agree']);
    // Without route=ferry the middle way has no class: no route (with the default primary it would agree).
    expect(runFeature(parseFeature(feature('bus'))).map((r) => r.detail)).toEqual(['OSRM abc,cde,efg, Waymark no route']);
  });

  it('a restriction over two via ways bans only that sequence: the way on from its last via node (multi-via, not in the shared files)', () => {
    const feature = (relations: string): string => `
Feature: made up
    Background:
        Given the profile "car"
    Scenario: two via ways
        Given the node map
            """
            a b c
                d
                e
            x   y
            """
        And the ways
            | nodes |
            | ab    |
            | bc    |
            | cd    |
            | de    |
            | ax    |
            | xy    |
            | ye    |
${relations}
        When I route I should get
            | from | to | route       |
            | a    | e  | ax,xy,ye,ye |
            | a    | d  | ab,bc,cd,cd |
            | b    | e  | bc,cd,de,de |
            | x    | e  | xy,ye,ye    |
`;
    const relation = `        And the relations
            | type        | way:from | way:via | way:to | restriction   |
            | restriction | ab       | bc,cd   | de     | no_right_turn |`;
    expect(runFeature(parseFeature(feature(relation))).map((r) => r.status)).toEqual(['agree', 'agree', 'agree', 'agree']);
    // Without it the first row takes the banned sequence, the shorter way.
    expect(runFeature(parseFeature(feature(''))).map((r) => r.detail ?? r.status)).toEqual(['OSRM ax,xy,ye, Waymark ab,bc,cd,de', 'agree', 'agree', 'agree']);
  });
  it('a via way that a side road joins in the middle still carries its restriction; turning off there leaves it', () => {
    const feature = (relations: string): string => `
Feature: made up
    Background:
        Given the profile "car"
    Scenario: a via way with a junction on it
        Given the node map
            """
            a b c z
                d
                e
            x   y
            """
        And the ways
            | nodes |
            | ab    |
            | bcd   |
            | cz    |
            | de    |
            | ax    |
            | xy    |
            | ye    |
${relations}
        When I route I should get
            | from | to | route        |
            | a    | e  | ax,xy,ye,ye  |
            | a    | z  | ab,bcd,cz,cz |
            | a    | d  | ab,bcd,bcd   |
            | b    | e  | bcd,de,de    |
`;
    const relation = `        And the relations
            | type        | way:from | way:via | way:to | restriction   |
            | restriction | ab       | bcd     | de     | no_right_turn |`;
    expect(runFeature(parseFeature(feature(relation))).map((r) => r.detail ?? r.status)).toEqual(['agree', 'agree', 'agree', 'agree']);
    expect(runFeature(parseFeature(feature(''))).map((r) => r.detail ?? r.status)).toEqual(['OSRM ax,xy,ye, Waymark ab,bcd,de', 'agree', 'agree', 'agree']);
  });
});
