// Draws a soak's samples (bench/results/soak-<map>.json, from bench/soak/run.mjs) as an SVG: each serve
// process's RSS per minute, and the minute's p99 latency on a second axis, the warm-up shaded. SVG so that
// the README shows it as it is and a diff of it is readable; no plotting library for two lines.
// Usage: node bench/soak/plot.mjs bench/results/soak-NAME.json [out.svg]   (default: docs/soak-NAME.svg)
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [input, output] = process.argv.slice(2);
if (!input) {
  console.error('usage: node bench/soak/plot.mjs bench/results/soak-NAME.json [out.svg]');
  process.exit(2);
}
const soak = JSON.parse(readFileSync(input, 'utf8'));
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = output ?? join(root, 'docs', `${basename(input, '.json')}.svg`);

const W = 760,
  H = 320,
  left = 64,
  right = 64,
  top = 40,
  bottom = 44;
const samples = soak.samples.filter((s) => s.rssMb.every((r) => r !== null));
const maxMinute = Math.max(1, ...samples.map((s) => s.minute));
const rssMax = Math.max(...samples.flatMap((s) => s.rssMb)) * 1.1;
const p99Max = Math.max(1, ...samples.map((s) => s.p99Ms ?? 0)) * 1.1;
const x = (m) => left + (m / maxMinute) * (W - left - right);
const yRss = (mb) => H - bottom - (mb / rssMax) * (H - top - bottom);
const yP99 = (ms) => H - bottom - (ms / p99Max) * (H - top - bottom);
const path = (points) => points.map(([px, py], i) => `${i ? 'L' : 'M'}${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
const colours = ['#1f6feb', '#2da44e', '#8250df', '#bf8700'];
const ticks = (max, n) => Array.from({ length: n + 1 }, (_, i) => (max / n) * i);
const text = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');

const s = soak.summary;
const parts = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
  `<rect width="${W}" height="${H}" fill="#fff"/>`,
  `<rect x="${left}" y="${top}" width="${x(soak.warmupMinutes) - left}" height="${H - top - bottom}" fill="#eee"/>`,
  `<text x="${left + 4}" y="${top + 12}" fill="#666">warm-up</text>`,
  `<text x="${left}" y="16" font-size="13">${text(`Soak on ${soak.map}: ${soak.processes} serve processes behind nginx, ${soak.connections} connections, ${soak.minutes} min`)}</text>`,
  `<text x="${left}" y="30" fill="#444">${text(`${s.requests} requests, ${s.fiveHundreds} × 5xx, ${s.failures} without an answer; RSS growth after warm-up ${JSON.stringify(s.rssGrowthAfterWarmupMb)} MB`)}</text>`,
  `<line x1="${left}" y1="${H - bottom}" x2="${W - right}" y2="${H - bottom}" stroke="#333"/>`,
  `<line x1="${left}" y1="${top}" x2="${left}" y2="${H - bottom}" stroke="#333"/>`,
  `<line x1="${W - right}" y1="${top}" x2="${W - right}" y2="${H - bottom}" stroke="#c00"/>`,
  ...ticks(maxMinute, 6).map((m) => `<text x="${x(m)}" y="${H - bottom + 14}" text-anchor="middle">${Math.round(m)}</text>`),
  `<text x="${(left + W - right) / 2}" y="${H - 8}" text-anchor="middle">minutes</text>`,
  ...ticks(rssMax, 4).map((mb) => `<text x="${left - 4}" y="${yRss(mb) + 4}" text-anchor="end">${Math.round(mb)}</text>`),
  `<text x="14" y="${(top + H - bottom) / 2}" transform="rotate(-90 14 ${(top + H - bottom) / 2})" text-anchor="middle">RSS per process (MB)</text>`,
  ...ticks(p99Max, 4).map((ms) => `<text x="${W - right + 4}" y="${yP99(ms) + 4}" fill="#c00">${Math.round(ms)}</text>`),
  `<text x="${W - 14}" y="${(top + H - bottom) / 2}" transform="rotate(90 ${W - 14} ${(top + H - bottom) / 2})" text-anchor="middle" fill="#c00">p99 of the minute (ms)</text>`,
  ...samples[0].rssMb.map(
    (_, i) => `<path d="${path(samples.map((m) => [x(m.minute), yRss(m.rssMb[i])]))}" fill="none" stroke="${colours[i % colours.length]}" stroke-width="2"/>`,
  ),
  `<path d="${path(samples.filter((m) => m.p99Ms !== null).map((m) => [x(m.minute), yP99(m.p99Ms)]))}" fill="none" stroke="#c00" stroke-width="1" stroke-dasharray="3 2"/>`,
  ...samples[0].rssMb.map((_, i) => `<text x="${left + 8 + i * 90}" y="${H - bottom - 8}" fill="${colours[i % colours.length]}">process ${i + 1}</text>`),
  '</svg>',
];
writeFileSync(out, `${parts.join('\n')}\n`);
console.log(`${samples.length} samples -> ${out}`);
