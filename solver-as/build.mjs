// Compiles every AssemblyScript kernel listed below to dist/wasm/<name>.wasm, after writing the layout
// constants both sides share from layouts.json (layouts.mjs).
// Kernels that read the shared road graph import one shared memory; the others own theirs.
// --checked builds the same kernels into dist/wasm-checked/ with every check on: assertions kept (no
// --noAssert; lib/memory.ts's accessors and the kernels' own asserts check their indexes), and unchecked()
// array accesses checked too (--uncheckedBehavior never). An index bug there traps instead of reading or
// writing a neighbour's data; the kernel tests run against it (npm run test:kernels-checked).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeLayouts } from './layouts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const checked = process.argv.includes('--checked');
const out = join(root, 'dist', checked ? 'wasm-checked' : 'wasm');
mkdirSync(out, { recursive: true });
writeLayouts();

const SHARED = ['--importMemory', '--sharedMemory', '--enable', 'threads', '--runtime', 'stub', '--initialMemory', '1', '--maximumMemory', '65536'];
const OWN = ['--runtime', 'stub', '--exportRuntime'];
const CHECKS = checked ? ['--uncheckedBehavior', 'never'] : ['--noAssert'];

/** name → [entry file under assembly/, extra asc flags] */
const kernels = {
  route: ['route.ts', SHARED],
  contract: ['contract.ts', OWN],
  kmeans: ['kmeans/index.ts', OWN],
  vrp: ['vrp/index.ts', OWN],
};

const asc = join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js');
for (const [name, [entry, flags]] of Object.entries(kernels)) {
  const started = Date.now();
  execFileSync(process.execPath, [asc, join(root, 'solver-as', 'assembly', entry), '-O3', ...CHECKS, '-o', join(out, `${name}.wasm`), ...flags], {
    stdio: 'inherit',
  });
  console.log(`wasm ${checked ? 'checked ' : ''}${name}.wasm built in ${Date.now() - started} ms`);
}
