// The clock of one optimize request: the solver counts seconds from an origin, the answer writes
// datetimes in the offset of the request's first datetime (service-spec.md optimize rule 1).
import type { Instant } from './datetimes.js';
import type { OptimizeBody } from './schema.js';

export interface TimeFrame {
  /** Epoch seconds of solver time 0: the earliest datetime sent, or now when none is. */
  origin: number;
  /** Offset of the answer's datetimes, minutes east of UTC (0 is written `Z`). */
  offsetMinutes: number;
}

/**
 * "First" is the order of the JSON text: the top-level key (`vehicles` or `stops`) written first is
 * scanned first, its items in order, each window's start before its end. `keyOrder` is the request's
 * top-level keys as written (a parsed JSON object keeps them in that order).
 */
export function timeFrame(body: OptimizeBody, keyOrder: readonly string[], nowEpoch: number): TimeFrame {
  const fromVehicles = body.vehicles.flatMap((v) => v.time_window ?? []);
  const fromStops = [
    ...body.stops.flatMap((s) => (s.time_windows ?? []).flat()),
    ...(body.shipments ?? []).flatMap((s) => [...(s.pickup.time_windows ?? []).flat(), ...(s.delivery.time_windows ?? []).flat()]),
  ];
  const stopsFirst = keyOrder.indexOf('stops') < keyOrder.indexOf('vehicles');
  const all: Instant[] = stopsFirst ? [...fromStops, ...fromVehicles] : [...fromVehicles, ...fromStops];
  if (all.length === 0) return { origin: nowEpoch, offsetMinutes: 0 };
  return { origin: Math.min(...all.map((t) => t.epoch)), offsetMinutes: all[0].offsetMinutes ?? 0 };
}
