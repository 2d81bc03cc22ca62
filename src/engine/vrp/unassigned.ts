// Why a job stayed unassigned, with the reason strings of DECISIONS.md, checked from the most to the
// least structural cause.
import { amountOf, capacityOf, dimensionsOf, fitsIn, hasSkills, hoursOf, jobFits } from './problem.js';
import type { VrpJob, VrpProblem, VrpVehicle } from './types.js';

export type UnassignedReason =
  | 'demand exceeds every capacity'
  | 'no vehicle has the required skills'
  | "time windows fall outside every vehicle's working hours"
  | 'no vehicle can reach it in time with the capacity and hours left';

export function unassignedReason(job: VrpJob, problem: VrpProblem): UnassignedReason {
  const vehicles = problem.vehicles;
  const dims = dimensionsOf(problem);
  const capacitated = vehicles.some((v) => v.capacity != null);
  // A shipment's end carries the shipment's amount (the job itself none).
  const shipment = (problem.shipments ?? []).find((s) => problem.jobs[s.pickup] === job || problem.jobs[s.delivery] === job);
  const carried = shipment?.amount === undefined ? null : amountOf(shipment.amount);
  const fits = (v: VrpVehicle) => jobFits(job, v, dims) && (carried === null || fitsIn(carried, capacityOf(v, dims)));
  if (capacitated && vehicles.every((v) => v.capacity != null) && vehicles.every((v) => !fits(v))) {
    return 'demand exceeds every capacity';
  }
  if (!vehicles.some((v) => hasSkills(v, job))) return 'no vehicle has the required skills';
  // Vehicles that could carry it at all; with none, the conflict is between skills and capacity.
  const able = vehicles.filter((v) => hasSkills(v, job) && fits(v));
  // Service must start inside a window and end within the hours (types.ts): some start t with
  // max(window start, hours start) <= t <= min(window end, hours end - service). A stop without windows
  // whose service outlasts the hours is left to the last reason, as it has no windows to blame.
  const windows = job.timeWindows ?? [];
  const service = job.service ?? 0;
  if (able.length > 0 && windows.length > 0) {
    const fits = able.some((v) => {
      const [hs, he] = hoursOf(v);
      return windows.some(([ws, we]) => Math.max(ws, hs) <= Math.min(we, he - service));
    });
    if (!fits) return "time windows fall outside every vehicle's working hours";
  }
  return 'no vehicle can reach it in time with the capacity and hours left';
}
