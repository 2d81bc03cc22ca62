// Solomon-format VRPTW instances (Solomon's 100-customer and Gehring–Homberger's 1,000-customer sets):
// the reader, the integer problem both solvers get, and the feasibility checker, which works on the
// original instance in exact doubles and knows nothing of either solver.

import { execFileSync } from 'node:child_process';
import { SLICE_MS } from '../../dist/api/optimizations/job.js';
import { nextState, sliceOptions } from '../../dist/engine/vrp/slices.js';
import { solveVrp } from '../../dist/engine/vrp/solver.js';

export const SCALE = 1000; // fixed point: travel times are ceil(distance × SCALE), so scaled feasibility implies exact feasibility

export function parse(text) {
  const lines = text.split('\n');
  const vi = lines.findIndex((l) => /NUMBER\s+CAPACITY/.test(l));
  const [vehicles, capacity] = lines[vi + 1].trim().split(/\s+/).map(Number);
  const rows = lines
    .slice(lines.findIndex((l) => /CUST/.test(l)) + 1)
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter((r) => r.length === 7 && r.every(Number.isFinite));
  return { vehicles, capacity, rows: rows.map(([id, x, y, demand, ready, due, service]) => ({ id, x, y, demand, ready, due, service })) };
}

export function toProblem(inst) {
  const n = inst.rows.length;
  const durations = new Int32Array(n * n);
  const distances = new Float64Array(n * n);
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) {
      const d = Math.hypot(inst.rows[a].x - inst.rows[b].x, inst.rows[a].y - inst.rows[b].y);
      distances[a * n + b] = d;
      durations[a * n + b] = Math.ceil(d * SCALE - 1e-7);
    }
  const depot = inst.rows[0];
  const vehicles = Array.from({ length: inst.vehicles }, () => ({
    start: 0,
    end: 0,
    capacity: inst.capacity,
    hours: [depot.ready * SCALE, depot.due * SCALE],
  }));
  const jobs = inst.rows
    .slice(1)
    .map((r, i) => ({ location: i + 1, demand: r.demand, service: r.service * SCALE, timeWindows: [[r.ready * SCALE, r.due * SCALE]] }));
  return { durations, distances, vehicles, jobs };
}

/**
 * The instance as VROOM's matrix input in whole tenths (costs.mjs, breaks.mjs): durations round(10 ×
 * distance), each customer a job (id and place its row) with its demand, and service and window ten times
 * the instance's; the vehicles are the caller's.
 */
export function tenthsInput(inst) {
  return {
    durations: inst.rows.map((a) => inst.rows.map((b) => Math.round(10 * Math.hypot(a.x - b.x, a.y - b.y)))),
    jobs: inst.rows.slice(1).map((r, i) => ({
      id: i + 1,
      location_index: i + 1,
      delivery: [r.demand],
      service: 10 * r.service,
      time_windows: [[10 * r.ready, 10 * r.due]],
    })),
  };
}

/** Runs a solver that writes VROOM's output JSON to standard output: the output and the wall time. */
export function runJson(cmd, argv) {
  const t = performance.now();
  const out = JSON.parse(execFileSync(cmd, argv, { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] }).toString());
  return { out, ms: Math.round(performance.now() - t) };
}

/**
 * Independent check in exact doubles on the original instance; returns a list of problems. With
 * `brk` ({start, end, service} in instance units), every route takes one break where it says
 * (`route.breakAfter`: how many of its customers come before it), starting inside [start, end] where the
 * vehicle is: on leaving the place before it, or on reaching the place after it, before the service
 * there (VROOM takes it so when the vehicle would wait there anyway; ours on leaving). The earlier
 * arrival of the two that keeps the window counts.
 */
export function check(inst, sol, brk = null) {
  const errs = [];
  const seen = new Set();
  const [depot, ...cust] = inst.rows;
  const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);
  let total = 0;
  for (const route of sol.routes) {
    let t = depot.ready;
    let at = depot;
    let load = 0;
    /** Arrival after a leg of travel d from the current place, the break taken on it when it comes after k customers. */
    const leg = (k, d) => {
      if (!brk || route.breakAfter !== k) return t + d;
      const onArrival = Math.max(t + d, brk.start);
      if (onArrival <= brk.end + 1e-9) return onArrival + brk.service;
      const onLeaving = Math.max(t, brk.start);
      if (onLeaving > brk.end + 1e-9) errs.push(`vehicle ${route.vehicle} break starts late (${onLeaving.toFixed(3)} > ${brk.end})`);
      return onLeaving + brk.service + d;
    };
    if (brk && !(Number.isInteger(route.breakAfter) && route.breakAfter >= 0 && route.breakAfter <= route.jobs.length))
      errs.push(`vehicle ${route.vehicle} takes no break`);
    for (const [k, j] of route.jobs.entries()) {
      if (seen.has(j)) errs.push(`customer ${j + 1} twice`);
      seen.add(j);
      const c = cust[j];
      const d = dist(at, c);
      total += d;
      const arrival = leg(k, d);
      if (arrival > c.due + 1e-9) errs.push(`customer ${j + 1} late`);
      t = Math.max(arrival, c.ready) + c.service;
      load += c.demand;
      at = c;
    }
    const back = dist(at, depot);
    total += back;
    if (leg(route.jobs.length, back) > depot.due + 1e-9) errs.push(`vehicle ${route.vehicle} returns late`);
    if (load > inst.capacity) errs.push(`vehicle ${route.vehicle} overloaded`);
  }
  if (seen.size + sol.unassigned.length !== cust.length) errs.push('customers missing');
  if (sol.unassigned.length) errs.push(`${sol.unassigned.length} unassigned`);
  if (sol.routes.length > inst.vehicles) errs.push('too many vehicles');
  return { errs, total };
}

/**
 * Ours, as the batch job runs it: slices with warm starts until `budgetMs` of search is spent. With
 * `wall`, `budgetMs` is wall-clock time instead: the slices, what they cost beyond their search
 * (packing the problem, timing the routes: measured as they go) and `reserveMs` for what follows them
 * (the breaks' placement) end within it, the cooling schedule stretched over the search time that leaves.
 * With `cpu`, each slice counts the CPU time this process spent on it (all of it: packing the problem,
 * the search, timing the routes), so `budgetMs` is CPU time, whatever the machine's load.
 */
export function solveInSlices(problem, budgetMs, seed, { wall = false, reserveMs = 0, cpu = false } = {}) {
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const clock = cpu ? cpuMs : () => performance.now();
  const started = performance.now();
  let state = { routes: [], searchedMs: 0, rate: 0 };
  let sol,
    slice = 0,
    iterations = 0;
  for (;;) {
    let plan = budgetMs;
    let sliceMs = Math.max(1, Math.min(SLICE_MS, budgetMs - state.searchedMs));
    if (wall) {
      const elapsed = performance.now() - started;
      // Wall time per ms of search so far; before the first slice, a guess that the first one corrects.
      const overhead = state.searchedMs > 0 ? elapsed / state.searchedMs : 1.1;
      const searchLeft = (budgetMs - reserveMs - elapsed) / overhead;
      if (sol && searchLeft < 1) break;
      plan = state.searchedMs + Math.max(1, searchLeft);
      sliceMs = Math.max(1, Math.min(SLICE_MS, searchLeft));
    }
    const t = clock();
    sol = solveVrp(problem, sliceOptions(state, sliceMs, plan, seed * 100_000 + slice++));
    state = nextState(state, sol.routes, sol.iterations, clock() - t, sliceMs);
    iterations += sol.iterations;
    if (!wall && state.searchedMs >= budgetMs) break;
  }
  return { sol, ms: performance.now() - started, iterations };
}
