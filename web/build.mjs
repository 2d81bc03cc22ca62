// Bundles the dashboard (Preact + uPlot + MapLibre GL JS, TypeScript) into dist/web/: app.js (the map
// pages' code in a chunk loaded when one is opened), app.css, index.html, MapLibre's worker, and the
// Noto Sans files the map's labels are drawn with. Everything the pages need is served from there: no CDN.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'web');
// Chunk names carry their content's hash: old ones are removed so dist/web/ holds one build.
for (const f of (() => {
  try {
    return readdirSync(out);
  } catch {
    return [];
  }
})())
  if (f.startsWith('chunk-')) rmSync(join(out, f));
mkdirSync(out, { recursive: true });
const modules = join(here, '..', 'node_modules');
const started = Date.now();
await build({
  entryPoints: { app: join(here, 'src', 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  splitting: true,
  // The font files are copied beside the bundle below; the CSS names them by URL.
  external: ['*.woff2'],
  chunkNames: 'chunk-[hash]',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
// Served at /favicon.ico (every browser asks for it) and named by index.html.
copyFileSync(join(here, 'favicon.ico'), join(out, 'favicon.ico'));
// MapLibre starts its worker from maplibre-gl-worker.mjs beside the script that loaded it.
copyFileSync(join(modules, 'maplibre-gl', 'dist', 'maplibre-gl-worker.mjs'), join(out, 'maplibre-gl-worker.mjs'));
// The labels' font (SIL Open Font License): Latin and Latin Extended, regular and bold.
const fonts = join(modules, '@fontsource', 'noto-sans', 'files');
for (const f of ['latin-400', 'latin-ext-400', 'latin-700', 'latin-ext-700'])
  copyFileSync(join(fonts, `noto-sans-${f}-normal.woff2`), join(out, `noto-sans-${f}-normal.woff2`));
console.log(`dashboard built in ${Date.now() - started} ms -> ${out}`);
