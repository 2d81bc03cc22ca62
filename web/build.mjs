// Bundles the dashboard (Preact + uPlot, TypeScript) into dist/web/: app.js, app.css, index.html.
// Everything the page needs is in those files: no CDN, no web font.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'web');
mkdirSync(out, { recursive: true });
const started = Date.now();
await build({
  entryPoints: { app: join(here, 'src', 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
console.log(`dashboard built in ${Date.now() - started} ms -> ${out}`);
