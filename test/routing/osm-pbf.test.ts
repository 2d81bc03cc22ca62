import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOsmPbf } from '../../src/map/osm/osm-pbf.js';

describe('readOsmPbf', () => {
  it('refuses a corrupt blob header length instead of allocating it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'waymark-pbf-'));
    try {
      const file = join(dir, 'corrupt.osm.pbf');
      await writeFile(file, Buffer.from([0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0]));
      const read = async () => {
        for await (const _block of readOsmPbf(file));
      };
      await expect(read()).rejects.toThrow(/corrupt PBF, blob header of 4294967280 bytes/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
