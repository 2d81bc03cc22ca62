// What the service reads of its host's kernel: the transparent huge pages mode, named as the kernel marks it.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { transparentHugePages } from '../../src/lib/host.js';

const FILE = '/sys/kernel/mm/transparent_hugepage/enabled';

describe('host', () => {
  it.skipIf(!existsSync(FILE))('reads the selected transparent huge pages mode (the word the kernel puts in brackets)', () => {
    // e.g. "always [madvise] never"
    const words = readFileSync(FILE, 'utf8').trim().split(/\s+/);
    const selected = words.find((w) => w.startsWith('['))!.slice(1, -1);
    expect(['always', 'madvise', 'never']).toContain(selected);
    expect(transparentHugePages()).toBe(selected);
  });
});
