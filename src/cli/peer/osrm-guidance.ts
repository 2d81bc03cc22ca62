// OSRM's guidance feature files (features/guidance/*.feature of osrm-backend v6.0.0) against Waymark's
// steps: extracted from the release tarball into a temporary directory at each run (never kept in the
// repository), run by the same runner as the profile features (osrm-features.ts, which compares a row's
// `turns`, `route`, `ref`, `destinations`, `exits`, `intersections`, `lanes` and `locations` columns with the
// steps), then removed.
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
 * Why Waymark's steps differ from OSRM's on purpose or for want of OSRM's model, per cause: each scenario
 * of the listed files with a row that differs is named in KNOWN_DIFFERENCES under one of these, and the
 * runner prints the cause beside the row (docs/directions.md explains each).
 */
export const DIFFERENCE_CAUSES = {
  'junction-model':
    "OSRM merges a divided road's carriageways into one road before it classifies a turn (its mergable road detector); Waymark classifies each node on its own",
  obviousness:
    'OSRM weighs road classes and the curvature of the whole road when it decides that a way on is obvious; Waymark the angles and names at the node',
  modifiers:
    "OSRM keeps some modifiers apart that Waymark does not; and where two roads lie exactly as far from a square turn (a grid's symmetry), which of them takes the plain modifier follows the coordinates' last digit",
  ramps:
    "ramps beside OSRM's motorway handler (ported): the modifier its collapse gives the turn off a suppressed ramp junction, a ramp's obviousness at a symmetric fork, a ferry's name onto a ramp",
  roundabouts: "OSRM's roundabout geometry: exits of turbo-roundabouts, which ring is a rotary, bearings of a ring's roads, a ring crossed at one node",
  names: 'one unnamed way onto another round a bend with no other road: OSRM turns, Waymark sees one road going on',
} as const;
export type DifferenceCause = keyof typeof DIFFERENCE_CAUSES;

/** The scenarios of GUIDANCE_FILES with rows that differ, `file/scenario` → cause. */
export const KNOWN_DIFFERENCES: Record<string, DifferenceCause> = {
  "fork/Fork on motorway links - don't fork on through": 'ramps',
  'obvious-turn-discovery/Forking into Tertiary': 'obviousness',
  'obvious-turn-discovery/No turn instruction when turning from unnamed onto unnamed': 'names',
  'ramp/Ferry Onto A Ramp': 'ramps',
  'ramp/Fork Ramp': 'ramps',
  'roundabout-turn/Enter And Exit Throughabout': 'roundabouts',
  'roundabout/Collapsing a sliproad step after roundabouts': 'roundabouts',
  'roundabout/Double Roundabout with through-lane': 'roundabouts',
  'roundabout/Drive through roundabout': 'roundabouts',
  'roundabout/Linked Roundabouts': 'roundabouts',
  'roundabout/Turboroundabout, Königstein im Taunus': 'roundabouts',
  'turn/No turn instruction when turning from unnamed onto unnamed': 'names',
  'turn/Right Turn Assignment Three Conflicting Turns with invalid - 2': 'modifiers',
  'turn/Turns ordering must respect initial bearings': 'modifiers',
};

/** The known cause of a row of `file` (as the reports name it, `guidance/<name>`) that differs, if listed. */
export function knownCause(file: string, scenario: string): DifferenceCause | undefined {
  return KNOWN_DIFFERENCES[`${file.replace(/^guidance\//, '')}/${scenario}`];
}

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
