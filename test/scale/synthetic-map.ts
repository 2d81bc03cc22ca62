// A mid-sized synthetic country (3x3 tiles of real OSM road networks joined by new roads) made with
// ../shared/tools/synth-country and built into a map, both cached under data/test-maps. Another seed and
// origin than bench/scale uses, so tests do not tune to the bench's map. Needs osmium-tool (.ci/run
// installs it).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ensureMap } from '../../src/map/build.js';
import { projectRoot } from '../../src/lib/paths.js';

export const SYNTH_TOOL = join(projectRoot, '..', 'shared', 'tools', 'synth-country', 'synth-country.mjs');
const CACHE = join(projectRoot, 'data', 'test-maps');

/** The extract's path, generated on first use. */
export function syntheticExtract(tiles = '3x3', seed = 7, origin = '46.0,7.0'): string {
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, `synth-${tiles}-seed${seed}-${origin.replace(',', '_')}.osm.pbf`);
  if (!existsSync(out)) {
    const tmp = `${out}.tmp-${process.pid}.osm.pbf`;
    execFileSync(
      process.execPath,
      [SYNTH_TOOL, '--tiles', tiles, '--seed', String(seed), '--origin', origin, '--out', tmp, '--work', join(CACHE, `synth-work-${process.pid}`)],
      { stdio: 'pipe' },
    );
    renameSync(tmp, out);
  }
  return out;
}

/** The synthetic extract's map directory, built on first use. */
export async function syntheticMap(): Promise<string> {
  return ensureMap(CACHE, syntheticExtract());
}
