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

/** Problems of a VROOM-format output against the input (matrix form); [] when it keeps every rule. */
function checkOutput(input, out) {
  const errs = [];
  if (out.code !== 0) return [`code ${out.code}: ${out.error}`];
  const travel = input.matrices.car.durations;
  const dims = input.vehicles.find((v) => v.capacity)?.capacity.length ?? 0;
  const zero = () => new Array(dims).fill(0);
  const tasks = new Map();
  for (const j of input.jobs ?? [])
    tasks.set(`job ${j.id}`, {
      ...j,
      start: j.delivery ?? (j.pickup ? zero() : (j.amount ?? zero())),
      change: (j.pickup ?? zero()).map((x, d) => x - (j.delivery ?? j.amount ?? zero())[d]),
    });
  (input.shipments ?? []).forEach((s, k) => {
    const amount = s.amount ?? zero();
    tasks.set(`pickup ${s.pickup.id}`, { ...s.pickup, skills: s.skills, shipment: k, start: zero(), change: amount });
    tasks.set(`delivery ${s.delivery.id}`, { ...s.delivery, skills: s.skills, shipment: k, start: zero(), change: amount.map((x) => -x) });
  });
  const inWindow = (t, windows) => !windows?.length || windows.some(([a, b]) => t >= a && t <= b);
  const seen = new Set();
  const shipmentSteps = new Map();
  for (const r of out.routes) {
    const v = input.vehicles.find((x) => x.id === r.vehicle);
    if (!v) {
      errs.push(`unknown vehicle ${r.vehicle}`);
      continue;
    }
    const [hs, he] = v.time_window ?? [0, Infinity];
    let load = zero();
    for (const s of r.steps) {
      const t = tasks.get(`${s.type} ${s.id}`);
      if (t) load = load.map((x, d) => x + t.start[d]);
    }
    let at = v.start_index;
    let free = -Infinity;
    const breaks = new Set();
    for (const [i, s] of r.steps.entries()) {
      const where =
        s.type === 'start' ? v.start_index : s.type === 'end' ? v.end_index : s.type === 'break' ? at : tasks.get(`${s.type} ${s.id}`)?.location_index;
      if (s.type !== 'start' && s.type !== 'break' && at !== undefined && where !== undefined) {
        if (s.arrival < free + travel[at][where]) errs.push(`vehicle ${v.id} step ${i} arrives before it can`);
      } else if (s.type === 'break' && s.arrival < free) errs.push(`vehicle ${v.id} break ${s.id} starts before the step before ends`);
      const begin = s.arrival + (s.waiting_time ?? 0);
      if (s.type === 'start' && s.arrival < hs) errs.push(`vehicle ${v.id} leaves before its hours`);
      if (begin + (s.service ?? 0) > he) errs.push(`vehicle ${v.id} step ${i} after its hours`);
      if (s.type === 'break') {
        const b = (v.breaks ?? []).find((x) => x.id === s.id);
        if (!b) errs.push(`vehicle ${v.id}: unknown break ${s.id}`);
        else if (!inWindow(begin, b.time_windows)) errs.push(`vehicle ${v.id} break ${s.id} outside its windows`);
        if (b && s.service !== b.service) errs.push(`vehicle ${v.id} break ${s.id} too short`);
        breaks.add(s.id);
      } else if (s.type !== 'start' && s.type !== 'end') {
        const key = `${s.type} ${s.id}`;
        const t = tasks.get(key);
        if (!t) {
          errs.push(`unknown ${key}`);
          continue;
        }
        if (seen.has(key)) errs.push(`${key} twice`);
        seen.add(key);
        if (!(t.skills ?? []).every((k) => (v.skills ?? []).includes(k))) errs.push(`${key} on vehicle ${v.id} without its skills`);
        if (!inWindow(begin, t.time_windows)) errs.push(`${key} outside its windows`);
        if (t.shipment !== undefined) {
          const got = shipmentSteps.get(t.shipment) ?? {};
          got[s.type] = [v.id, i];
          shipmentSteps.set(t.shipment, got);
        }
        load = load.map((x, d) => x + t.change[d]);
        if (v.capacity && load.some((x, d) => x < 0 || x > v.capacity[d])) errs.push(`vehicle ${v.id} carries ${load} after ${key}`);
      }
      if (where !== undefined) at = where;
      free = begin + (s.service ?? 0);
    }
    for (const b of v.breaks ?? []) if (!breaks.has(b.id)) errs.push(`vehicle ${v.id} skips break ${b.id}`);
  }
  for (const [k, got] of shipmentSteps) {
    if (!got.pickup || !got.delivery) errs.push(`shipment ${k} split`);
    else if (got.pickup[0] !== got.delivery[0] || got.pickup[1] > got.delivery[1]) errs.push(`shipment ${k}: delivery not after its pickup on one vehicle`);
  }
  const unassigned = new Set(out.unassigned.map((u) => `${u.type} ${u.id}`));
  for (const key of tasks.keys()) if (!seen.has(key) && !unassigned.has(key)) errs.push(`${key} neither served nor unassigned`);
  return errs;
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
