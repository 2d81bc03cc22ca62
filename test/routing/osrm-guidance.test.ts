// OSRM's guidance feature files (v6.0.0, extracted from ../shared's release tarball at each run) against
// Waymark's steps: the files that agree fully stay that way, and the total agreement over issue 31's list
// stays at least what it was measured at. `npm run peer:osrm -- --guidance TARBALL` prints the same run
// row by row; docs/directions.md lists the differences.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/lib/paths.js';
import { GUIDANCE_FILES, runGuidance } from '../../src/peer/osrm-guidance.js';

const TARBALL = join(projectRoot, '..', 'shared', 'peers', 'osrm', 'osrm-backend-6.0.0.tar.gz');

describe.skipIf(!existsSync(TARBALL))("OSRM's guidance feature files", () => {
  const leftovers = () => readdirSync(tmpdir()).filter((f) => f.startsWith('waymark-osrm-guidance-')).length;
  const before = leftovers();
  const reports = runGuidance(TARBALL, GUIDANCE_FILES);
  const byName = new Map(reports.map((r) => [r.file.replace('guidance/', ''), r]));

  it('runs every listed file, and keeps none of them once run', () => {
    expect([...byName.keys()]).toEqual(GUIDANCE_FILES);
    expect(leftovers()).toBe(before);
  });

  it.each(['suffix-changes', 'trimming'])('%s: every compared row agrees', (name) => {
    const r = byName.get(name)!;
    expect(r.agree).toBeGreaterThan(0);
    expect(r.rows.filter((x) => x.status === 'disagree')).toEqual([]);
  });

  it('new names, ends of road, continues, forks, turns and small roundabouts agree on at least 75 % of their rows', () => {
    for (const name of ['new-name', 'end-of-road', 'continue', 'fork', 'turn', 'roundabout-turn']) {
      const r = byName.get(name)!;
      expect(r.agree / (r.agree + r.disagree), name).toBeGreaterThanOrEqual(0.75);
    }
  });

  it('agree on at least 80 % of the compared rows in total, every skipped row with its reason', () => {
    const agree = reports.reduce((a, r) => a + r.agree, 0);
    const compared = reports.reduce((a, r) => a + r.agree + r.disagree, 0);
    expect(compared).toBeGreaterThan(700);
    expect(agree / compared).toBeGreaterThanOrEqual(0.8);
    for (const r of reports) for (const row of r.rows.filter((x) => x.status === 'skipped')) expect(row.detail).toMatch(/\w{4}/);
  });
});
