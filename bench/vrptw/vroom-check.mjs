// An independent reader of VROOM-format outputs for the benches (examples.mjs, costs.mjs): re-derives
// feasibility from the input alone (matrix form), trusting neither solver.

/** Problems of a VROOM-format output against the input (matrix form); [] when it keeps every rule. */
export function checkOutput(input, out) {
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
