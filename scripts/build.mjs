// `npm run build`: the WASM kernels, the server (tsc), the OpenAPI document and the dashboard, each rebuilt only when what it
// is made from changed since its last build (a content hash of its inputs, kept beside its output in
// dist/). A second `npm start` on a built checkout then starts at once; `--force` rebuilds everything.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
const bin = (pkg, file) => join(root, 'node_modules', pkg, file);

/** The dashboard's API types, written from docs/openapi.json by the dashboard step itself: not one of its inputs. */
const API_TYPES = join(root, 'web', 'src', 'generated', 'api.ts');

/** Every file under the paths (directories walked), in a stable order. */
function files(paths) {
  const out = [];
  const walk = (p) => {
    if (!existsSync(p) || p === API_TYPES) return;
    if (statSync(p).isDirectory()) for (const name of readdirSync(p).sort()) walk(join(p, name));
    else out.push(p);
  };
  for (const p of paths) walk(join(root, p));
  return out;
}

function digest(paths) {
  const hash = createHash('sha256');
  for (const file of files(paths)) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

// The lock file is an input of each step: a new compiler or bundler version rebuilds.
const steps = [
  {
    name: 'wasm kernels',
    inputs: ['solver-as', 'package-lock.json'],
    outputs: ['route', 'contract', 'kmeans', 'vrp'].map((k) => `dist/wasm/${k}.wasm`),
    run: () => execFileSync(process.execPath, [join(root, 'solver-as', 'build.mjs')], { stdio: 'inherit' }),
  },
  {
    name: 'server (tsc)',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    outputs: ['dist/cli/main.js', 'dist/compute-thread.js'],
    run: () => execFileSync(process.execPath, [bin('typescript', 'bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' }),
  },
  {
    // docs/openapi.json, the document GET /v1/openapi.json serves, written from the compiled routes.
    name: 'openapi document',
    inputs: ['src', 'package-lock.json'],
    outputs: ['docs/openapi.json'],
    run: () => execFileSync(process.execPath, [join(root, 'dist', 'cli', 'write-openapi.js')], { stdio: 'inherit' }),
  },
  {
    // The API's types for the dashboard come from the document (openapi-typescript), not from hand.
    name: 'dashboard',
    // The bundle takes lib/geo's sphere (no imports of its own, so it runs in the browser as it is).
    inputs: ['web', 'src/lib/geo/sphere.ts', 'docs/openapi.json', 'package-lock.json'],
    outputs: ['dist/web/app.js', 'dist/web/index.html', relative(root, API_TYPES)],
    run: () => {
      execFileSync(process.execPath, [bin('openapi-typescript', 'bin/cli.js'), join(root, 'docs', 'openapi.json'), '-o', API_TYPES], { stdio: 'inherit' });
      execFileSync(process.execPath, [bin('typescript', 'bin/tsc'), '-p', join(root, 'web', 'tsconfig.json')], { stdio: 'inherit' });
      execFileSync(process.execPath, [join(root, 'web', 'build.mjs')], { stdio: 'inherit' });
    },
  },
];

const stampsFile = join(root, 'dist', '.build-stamps.json');
const stamps = existsSync(stampsFile) && !force ? JSON.parse(readFileSync(stampsFile, 'utf8')) : {};
for (const step of steps) {
  const started = Date.now();
  const hash = digest(step.inputs);
  if (stamps[step.name] === hash && step.outputs.every((o) => existsSync(join(root, o)))) {
    console.log(`${step.name}: up to date`);
    continue;
  }
  console.log(`${step.name}: building`);
  step.run();
  stamps[step.name] = hash;
  // Written after each step: a build stopped half-way keeps what it finished.
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(stampsFile, JSON.stringify(stamps, null, 2));
  console.log(`${step.name}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
