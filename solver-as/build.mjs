// Compiles every AssemblyScript kernel listed below to dist/wasm/<name>.wasm.
// Kernels that read the shared road graph import one shared memory; the others own theirs.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'wasm');
mkdirSync(out, { recursive: true });

const SHARED = ['--importMemory', '--sharedMemory', '--enable', 'threads', '--runtime', 'stub', '--initialMemory', '1', '--maximumMemory', '65536'];
const OWN = ['--runtime', 'stub', '--exportRuntime'];

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
  execFileSync(process.execPath, [asc, join(root, 'solver-as', 'assembly', entry), '-O3', '--noAssert', '-o', join(out, `${name}.wasm`), ...flags], {
    stdio: 'inherit',
  });
  console.log(`wasm ${name}.wasm built in ${Date.now() - started} ms`);
}
