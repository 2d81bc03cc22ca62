// The runner of Nominatim's search feature files (src/cli/peer/nominatim-features.ts) on scenarios written
// here in their format: grid and places become OSM objects, queries run through the real search index,
// results are compared by the OSM object they are; a wrong expectation is reported as a disagreement,
// and what the runner does not model is skipped, never counted as agreement.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/lib/paths.js';
import { featureFiles } from '../../src/cli/peer/feature-files.js';
import { runNominatimFile } from '../../src/cli/peer/nominatim-features.js';

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

// Address model rows (db/import): the address a POI at the object gets, compared with placex and
// place_addressline. Written so that each rule decides a row (grid steps of about 8 by 11 m): N1's
// addr:street names the far street (the near one is another), N2 has no tags and no house within 30 m
// (the nearest street), N3 is a POI 8 m from N1 naming the street abbreviated and carrying no number (it
// takes none of N1's).
const IMPORT_FEATURE = `Feature: Waymark's own address scenarios in Nominatim's format
    Scenario: Parents, numbers and cities
        Given the 0.0001 grid
         | 10 |   |   |   |   |   |   |   | 11 |
         |    | 1 | 3 |   |   |   |   | 2 |    |
         |    |   |   |   |   |   |   |   |    |
         |    |   |   |   |   |   |   |   |    |
         | 20 |   |   |   |   |   |   |   | 21 |
        And the places
         | osm | class | type  | housenr | street |
         | N1  | place | house | 4       | South Street |
        And the places
         | osm | class | type  |
         | N2  | place | house |
        And the places
         | osm | class   | type | name  | street       |
         | N3  | amenity | cafe | Bolder | South St    |
        And the places
         | osm | class   | type        | name         | geometry |
         | W1  | highway | residential | North Street | 10,11    |
         | W2  | highway | residential | South Street | 20,21    |
        When importing
        Then placex contains
         | object | parent_place_id | housenumber |
         | N1     | W2              | 4           |
         | N2     | W1              | None        |
         | N3     | W2              | None        |
         | N2     | W2              | None        |
        Then placex contains
         | object | rank_address |
         | N1     | 30           |
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'waymark-nominatim-runner-'));
  await writeFile(join(dir, 'own.feature'), FEATURE);
  await writeFile(join(dir, 'import.feature'), IMPORT_FEATURE);
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

  it('compares placex rows with the address a POI at the object gets, a wrong parent as a disagreement', async () => {
    const report = await runNominatimFile(join(dir, 'import.feature'), 'import.feature');
    const rows = (status: string) => report.rows.filter((r) => r.status === status).map((r) => r.row);
    expect(rows('disagree')).toEqual(['placex: N2 parent_place_id = W2']);
    expect(rows('skipped')).toEqual(['placex: N1 rank_address = 30']);
    expect(rows('agree')).toHaveLength(7);
  });

  it("agrees with Nominatim's own db/query files (vendored in test/fixtures/nominatim) on at least 90 % of the rows compared", async () => {
    const folder = join(projectRoot, 'test', 'fixtures', 'nominatim', 'db', 'query');
    const files = featureFiles(folder);
    expect(files.map((f) => basename(f)).sort()).toEqual([
      'housenumbers.feature',
      'interpolation.feature',
      'normalization.feature',
      'postcodes.feature',
      'search_simple.feature',
    ]);
    let agree = 0,
      compared = 0;
    for (const f of files) {
      const r = await runNominatimFile(f, basename(f));
      agree += r.agree;
      compared += r.agree + r.disagree;
    }
    console.log(`Nominatim db/query: ${agree}/${compared} compared rows agree`);
    expect(compared).toBeGreaterThan(100);
    expect(agree / compared).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});
