// The runner of Nominatim's search feature files (src/peer/nominatim-features.ts) on scenarios written
// here in their format: grid and places become OSM objects, queries run through the real search index,
// results are compared by the OSM object they are; a wrong expectation is reported as a disagreement,
// and what the runner does not model is skipped, never counted as agreement.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNominatimFile } from '../../src/peer/nominatim-features.js';

const FEATURE = `Feature: Waymark's own scenarios in Nominatim's format
    Background:
        Given the grid
         | 1 |   | 2 |   | 3 |
         |   | 9 |   |   |   |

    Scenario Outline: A house number in its forms
        Given the places
         | osm | class    | type | housenr | geometry |
         | N1  | building | yes  | <hnr>   | 9        |
        And the places
         | osm | class   | type        | name       | geometry |
         | W10 | highway | residential | North Road | 1,2,3    |
        When importing
        And geocoding "North Road 45 a"
        Then the result set contains
         | object |
         | N1     |
        When geocoding "north road"
        Then result 0 contains
         | object |
         | W10    |
        When geocoding "Nowhere Lane"
        Then exactly 0 results are returned

        Examples:
         | hnr  |
         | 45a  |
         | 45 A |

    Scenario: A wrong expectation is a disagreement, Nominatim's own output is skipped
        Given the places
         | osm | class   | type        | name       | geometry |
         | W10 | highway | residential | South Road | 1,2,3    |
        When importing
        And geocoding "South Road"
        Then result 0 contains
         | object |
         | W11    |
        Then result 0 contains
         | object | display_name |
         | W10    | South Road   |
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'waymark-nominatim-runner-'));
  await writeFile(join(dir, 'own.feature'), FEATURE);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('Nominatim feature runner', () => {
  it('expands outlines, builds each scenario, and counts agreement, disagreement and skips row by row', async () => {
    const report = await runNominatimFile(join(dir, 'own.feature'), 'own.feature');
    const by = (status: string) => report.rows.filter((r) => r.status === status);
    // Two examples × three expectations agree; the wrong object disagrees; the display_name row is skipped.
    expect(by('agree').map((r) => r.scenario)).toHaveLength(6);
    expect(by('disagree')).toEqual([expect.objectContaining({ scenario: expect.stringMatching(/wrong expectation/), detail: 'got street South Road [W10]' })]);
    expect(by('skipped')).toEqual([expect.objectContaining({ detail: "compares display_name (Nominatim's output)" })]);
    expect([report.agree, report.disagree, report.skipped]).toEqual([6, 1, 1]);
  });
});
