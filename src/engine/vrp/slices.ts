// A long search cut into slices: each slice is one solver run that continues from the best routes of
// the one before (a warm start), so a batch job gives the worker pool back between slices, a restarted
// job resumes from its checkpoint, and progress can be reported as it goes.
import type { SolveOptions } from './types.js';

/** The solver's default annealing range (types.ts), spread over the whole budget across slices. */
const T0 = 0.3,
  TF = 0.003;

/** Where a sliced search stands: the best routes so far and the search time spent on them. */
export interface SearchState {
  routes: Array<{ vehicle: number; jobs: number[] }>;
  searchedMs: number;
  /** Search iterations per millisecond measured so far (0 before the first slice), so a resumed search keeps its cooling pace. */
  rate: number;
}

/**
 * The options of one slice. The annealing temperature falls over the whole budget, so a slice takes its
 * stretch of the schedule; the iteration cap of a slice comes from the measured pace so the temperature
 * moves within it (the first slice measures it, at the starting temperature).
 */
export function sliceOptions(state: SearchState, sliceMs: number, budgetMs: number, seed: number): SolveOptions {
  const at = (f: number) => T0 * (TF / T0) ** Math.min(1, f);
  const f0 = state.searchedMs / budgetMs,
    f1 = (state.searchedMs + sliceMs) / budgetMs;
  const calibrating = state.rate <= 0;
  return {
    timeLimitMs: sliceMs,
    iterations: calibrating ? 1e9 : Math.max(1, Math.round(state.rate * sliceMs)),
    seed,
    temperature: calibrating ? [at(f0), at(f0)] : [at(f0), at(f1)],
    warmStart: state.routes.length ? state.routes : undefined,
  };
}

/** The state after a slice that ran `ms` of its `sliceMs` and returned these routes after `iterations`. */
export function nextState(
  state: SearchState,
  routes: ReadonlyArray<{ vehicle: number; jobs: number[] }>,
  iterations: number,
  ms: number,
  sliceMs: number,
): SearchState {
  const spent = Math.min(ms, sliceMs);
  const rate = iterations > 0 && spent > 0 ? iterations / spent : state.rate;
  return {
    routes: routes.map((r) => ({ vehicle: r.vehicle, jobs: r.jobs })),
    searchedMs: state.searchedMs + spent,
    rate: state.rate > 0 ? (state.rate + rate) / 2 : rate,
  };
}
