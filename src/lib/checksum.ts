// The checksum of a map file (the manifest's `xxh128`): XXH128, which the map's reader computes at ~3.5 GB
// of CPU a second against SHA-256's ~1 (this machine, SHA extensions on). `serve` checks every byte of a
// map before it says ready, 4.3 GB on a country. It finds damage, not tampering: whoever can write a
// map's files can write its manifest.
import { createXXHash128, xxhash128, type IHasher } from 'hash-wasm';

/** The checksum of `bytes`, 32 hex digits (`xxhsum -H2` prints the same). */
export const fileChecksum = (bytes: Uint8Array): Promise<string> => xxhash128(bytes);

/** A checksum over bytes given piece by piece (`update` each, then `digest('hex')`). */
export async function fileChecksummer(): Promise<IHasher> {
  const hasher = await createXXHash128();
  hasher.init();
  return hasher;
}
