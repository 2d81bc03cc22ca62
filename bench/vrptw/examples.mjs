// VROOM 1.14's own examples (docs/example_{1,2,3}.json, the ones its docs/API.md describes; copies in
// test/fixtures/vroom) solved by both: `waymark optimize --matrix` and `vroom -x 5 -t 1` on the same
// file. The examples that give coordinates get a matrix here (great circles at --speed km/h) since the
// peer is built without a routing engine. Both outputs go through checkOutput below, which re-derives
// feasibility from the input alone: every job and shipment once (a shipment's pickup before its
// delivery, on one route), skills, the load after every step within capacity in every dimension, each
// task's and break's service inside one of its windows, each step reachable from the one before in the
// matrix's time, the vehicle's working hours, and every break of a used vehicle taken once.
// Example 3 is meant for VROOM's plan mode (-c), which `waymark optimize` lacks: both solve it without its steps.
// Usage: node bench/vrptw/examples.mjs --vroom PATH [--speed 50] [--out vrptw-examples.json]
// (`npm run build` first; VROOM: `bash ../shared/peers/vroom/build.sh DIR` prints its path)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { checkOutput } from './vroom-check.mjs';

const { values: args } = parseArgs({
  options: {
    vroom: { type: 'string', default: process.env.VROOM ?? '' },
    speed: { type: 'string', default: '50' },
    out: { type: 'string', default: 'vrptw-examples.json' },
  },
});
if (!args.vroom || !existsSync(args.vroom)) throw new Error(`--vroom ${args.vroom}: no such file (build it with bash ../shared/peers/vroom/build.sh DIR)`);
const log = (msg) => process.stderr.write(`${msg}\n`);

/** The example with location indices into a great-circle matrix in place of coordinates. */
function withMatrix(input) {
  if (input.matrices) return input;
  const points = [];
  const index = (p) => {
    const k = points.findIndex((q) => q[0] === p[0] && q[1] === p[1]);
    if (k >= 0) return k;
    points.push(p);
    return points.length - 1;
  };
  const place = ({ location, ...rest }) => ({ ...rest, location_index: index(location) });
  const vehicles = input.vehicles.map(({ start, end, ...v }) => ({
    ...v,
    ...(start ? { start_index: index(start) } : {}),
    ...(end ? { end_index: index(end) } : {}),
  }));
  const jobs = (input.jobs ?? []).map(place);
  const shipments = (input.shipments ?? []).map((s) => ({ ...s, pickup: place(s.pickup), delivery: place(s.delivery) }));
  const rad = Math.PI / 180;
  const meters = (a, b) => {
    const h = Math.sin(((b[1] - a[1]) * rad) / 2) ** 2 + Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(((b[0] - a[0]) * rad) / 2) ** 2;
    return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
  };
  const mps = (Number(args.speed) * 1000) / 3600;
  const durations = points.map((a) => points.map((b) => Math.round(meters(a, b) / mps)));
  return { ...input, vehicles, jobs, shipments, matrices: { car: { durations } } };
}

const work = mkdtempSync(join(tmpdir(), 'vrptw-examples-'));
const results = [];
try {
  for (const k of [1, 2, 3]) {
    const original = JSON.parse(readFileSync(join(projectRoot, 'test', 'fixtures', 'vroom', `example_${k}.json`), 'utf8'));
    // Example 3's steps are a plan for VROOM's -c (they overload vehicle 1): as a starting plan VROOM
    // rejects the file, so both solve it without them.
    const input = withMatrix({ ...original, vehicles: original.vehicles.map(({ steps, ...v }) => v) });
    const file = join(work, `example_${k}.json`);
    writeFileSync(file, JSON.stringify(input));
    const run = (cmd, argv) => {
      const t = performance.now();
      const out = JSON.parse(execFileSync(cmd, argv, { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      return { out, ms: Math.round(performance.now() - t) };
    };
    const ours = run(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'optimize', file, '--matrix']);
    const peer = run(args.vroom, ['-i', file, '-x', '5', '-t', '1']);
    const side = ({ out, ms }) => ({
      cost: out.summary?.cost,
      unassigned: out.unassigned?.length,
      routes: out.routes?.length,
      feasible: checkOutput(input, out).length === 0,
      problems: checkOutput(input, out).slice(0, 3),
      ms,
    });
    const r = { example: `example_${k}`, features: Object.keys(original).join(', '), ours: side(ours), vroom: side(peer) };
    results.push(r);
    log(
      `example_${k}: ours cost ${r.ours.cost} unassigned ${r.ours.unassigned} ${r.ours.feasible ? 'feasible' : `INFEASIBLE ${r.ours.problems}`} | VROOM cost ${r.vroom.cost} unassigned ${r.vroom.unassigned} ${r.vroom.feasible ? 'feasible' : `INFEASIBLE ${r.vroom.problems}`}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const outFile = resolve(projectRoot, 'bench', 'results', args.out);
mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify({ date: new Date().toISOString(), command: `node bench/vrptw/examples.mjs ${process.argv.slice(2).join(' ')}`, speedKmh: Number(args.speed), results }, null, 2)}\n`,
);
log(`wrote ${outFile}`);
