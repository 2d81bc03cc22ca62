// OSRM's guidance feature files (features/guidance/*.feature of osrm-backend v6.0.0) against Waymark's
// steps: extracted from the release tarball into a temporary directory at each run (never kept in the
// repository), run by the same runner as the profile features (osrm-features.ts, which compares a row's
// `turns`, `route` and `ref` columns with the steps), then removed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFeatureFile, type FileReport } from './osrm-features.js';

/** The files issue 31 names: each is run and printed, and the agreement is measured over them. */
export const GUIDANCE_FILES = [
  'continue',
  'end-of-road',
  'fork',
  'intersections',
  'merge',
  'motorway',
  'new-name',
  'obvious-turn-discovery',
  'ramp',
  'roundabout',
  'roundabout-turn',
  'suffix-changes',
  'trimming',
  'turn',
];

/**
 * Extracts the guidance features of `tarball` into a temporary directory, runs `files` (names without
 * `.feature`; every guidance file when omitted) and removes the directory again.
 */
export function runGuidance(tarball: string, files?: readonly string[]): FileReport[] {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-osrm-guidance-'));
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', dir, '--wildcards', '*/features/guidance/*.feature'], { stdio: 'pipe' });
    const [top] = readdirSync(dir);
    const guidance = join(dir, top, 'features', 'guidance');
    const names =
      files ??
      readdirSync(guidance)
        .filter((f) => f.endsWith('.feature'))
        .map((f) => f.slice(0, -'.feature'.length))
        .sort();
    return names.map((name) => runFeatureFile(join(guidance, `${name}.feature`), `guidance/${name}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
