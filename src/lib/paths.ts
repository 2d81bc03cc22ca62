import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${start}`);
    dir = up;
  }
  return dir;
}

/** The checkout (or installed package) root, whether this module runs from src/ or dist/. */
export const projectRoot = findRoot(dirname(fileURLToPath(import.meta.url)));

/** Compiled artefacts (workers, WASM) always come from dist/, also when tests import src/. */
export const distPath = (...parts: string[]): string => join(projectRoot, 'dist', ...parts);
