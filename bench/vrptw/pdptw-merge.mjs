// Puts results of several pdptw.mjs runs together (e.g. instances of one size run side by side in
// separate processes on the shared machine), with the summary recomputed and every command kept.
// Usage: node bench/vrptw/pdptw-merge.mjs --out vrptw-pdptw-600.json a.json b.json ... (names in bench/results)
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { summarize } from './pdptw-summary.mjs';

const { values: args, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
if (!args.out || !positionals.length) throw new Error('usage: --out NAME.json A.json [B.json ...] (in bench/results)');
const runs = positionals.map((name) => JSON.parse(readFileSync(resolve(projectRoot, 'bench', 'results', name), 'utf8')));
const instances = runs.flatMap((r) => r.instances);
const names = instances.map((r) => r.instance);
const twice = names.filter((n, i) => names.indexOf(n) !== i);
if (twice.length) throw new Error(`instances in more than one run: ${twice.join(', ')}`);
const sizes = [...new Set(instances.map((r) => r.size))].sort((a, b) => a - b);
const merged = {
  date: new Date().toISOString(),
  // A merged file's own runs carry through, so merging again keeps every command.
  runs: runs.flatMap((r) => r.runs ?? [{ date: r.date, command: r.command, instances: r.instances.map((x) => x.instance) }]),
  instances_from: runs[0].instances_from,
  options: runs[0].options,
  scale: runs[0].scale,
  summary: summarize(instances, sizes),
  instances,
};
writeFileSync(resolve(projectRoot, 'bench', 'results', args.out), `${JSON.stringify(merged, null, 2)}\n`);
process.stderr.write(`wrote bench/results/${args.out}: ${instances.length} instances (${sizes.join(', ')} tasks)\n`);
