// A Waymark optimize body (the contract's, or a batch job's) as VROOM input, so the CLI solves and
// answers both the same way. Ids go to `description` (VROOM ids are integers: the positions), skills
// become integers, datetimes epoch seconds. POIs need the API (the CLI has no database).

import { zodErrors } from '../../http/errors.js';
import { amountOf } from '../../engine/vrp/problem.js';
import { batchBodySchema } from '../../api/optimizations/schema.js';
import type { LocationInput } from '../../api/locations.js';
import type { Instant } from '../../api/optimize/datetimes.js';
import type { OptimizeBody } from '../../api/optimize/schema.js';
import type { Amount } from '../../engine/vrp/types.js';
import { VroomInputError, type VroomInput } from './input.js';

export function fromWaymark(doc: unknown): { input: VroomInput; profile: string } {
  const parsed = batchBodySchema.safeParse(doc);
  if (!parsed.success) {
    const [field, messages] = Object.entries(zodErrors(parsed.error))[0];
    throw new VroomInputError(`${field}: ${messages[0]}`);
  }
  // The batch fields are typed by OptimizeBody (the schema's own type keeps the contract's shape).
  const body = parsed.data as OptimizeBody;
  // VROOM's amounts are arrays of one length; a stop without a demand carries 1 in each dimension.
  const shipments = body.shipments ?? [];
  const first = [...body.vehicles.map((v) => v.capacity), ...body.stops.map((s) => s.demand), ...shipments.map((s) => s.amount)].find((a) => a !== undefined);
  const dims = first === undefined ? 1 : amountOf(first).length;
  const units = (a: Amount | undefined) => (a === undefined ? new Array<number>(dims).fill(1) : amountOf(a));
  const skillIds = new Map<string, number>();
  const skills = (list?: string[]) => (list ?? []).map((s) => skillIds.get(s) ?? skillIds.set(s, skillIds.size).get(s)!);
  const windows = (w: Array<[Instant, Instant]>) => w.map(([a, b]) => [a.epoch, b.epoch] as [number, number]);
  const place = (loc: LocationInput, field: string): [number, number] => {
    if (loc.poi_id !== undefined) throw new VroomInputError(`${field}.poi_id: POIs need the API (POST /v1/optimizations); give latitude and longitude here`);
    return [loc.longitude!, loc.latitude!];
  };
  const input: VroomInput = {
    vehicles: body.vehicles.map((v, i) => ({
      id: i,
      profile: body.profile,
      description: v.id ?? `vehicle-${i + 1}`,
      start: place(v.start, `vehicles.${i}.start`),
      ...(v.end ? { end: place(v.end, `vehicles.${i}.end`) } : {}),
      ...(v.capacity !== undefined ? { capacity: units(v.capacity) } : {}),
      skills: skills(v.skills),
      ...(v.time_window ? { time_window: [v.time_window[0].epoch, v.time_window[1].epoch] as [number, number] } : {}),
      ...(v.max_tasks !== undefined ? { max_tasks: v.max_tasks } : {}),
      ...(v.max_travel_time !== undefined ? { max_travel_time: v.max_travel_time } : {}),
      ...(v.max_distance !== undefined ? { max_distance: v.max_distance } : {}),
      ...(v.speed_factor !== undefined ? { speed_factor: v.speed_factor } : {}),
      ...(v.costs ? { costs: { fixed: v.costs.fixed ?? 0, per_hour: v.costs.per_hour ?? 3600, per_km: v.costs.per_km ?? 0 } } : {}),
      // VROOM's break ids are integers: the position, with the given id as the description.
      ...(v.breaks?.length
        ? {
            breaks: v.breaks.map((b, k) => ({
              id: k,
              description: String(b.id),
              service: b.service,
              ...(b.time_windows ? { time_windows: windows(b.time_windows) } : {}),
            })),
          }
        : {}),
    })),
    jobs: body.stops.map((s, i) => ({
      id: i,
      ...(s.id !== undefined ? { description: s.id } : {}),
      location: place(s, `stops.${i}`),
      setup: 0,
      service: s.service,
      delivery: units(s.demand),
      skills: skills(s.skills),
      priority: s.priority ?? 0,
      ...(s.time_windows ? { time_windows: windows(s.time_windows) } : {}),
    })),
    shipments: shipments.map((sh, i) => {
      const end = (e: 'pickup' | 'delivery') => ({
        id: i,
        ...(sh.id !== undefined ? { description: sh.id } : {}),
        location: place(sh[e], `shipments.${i}.${e}`),
        setup: 0,
        service: sh[e].service,
        ...(sh[e].time_windows ? { time_windows: windows(sh[e].time_windows) } : {}),
      });
      return {
        amount: sh.amount === undefined ? new Array<number>(dims).fill(0) : amountOf(sh.amount),
        skills: skills(sh.skills),
        priority: sh.priority ?? 0,
        pickup: end('pickup'),
        delivery: end('delivery'),
      };
    }),
  };
  return { input, profile: body.profile };
}
