// `stops: {pois: …}` of POST /v1/optimizations: the team's POIs matching the filters of GET /v1/pois become
// the stops (stop id = POI id), their opening hours, service time and demand read from attributes. A POI
// whose values cannot be served that day is kept as a stop the plan leaves unassigned with the reason,
// never a 422 for the whole plan: one bad POI among hundreds must not cost the planner the others.
import OpeningHours from 'opening_hours';
import { z } from 'zod';
import { resolveAttribute, teamAttributes, type AttributeRow, type AttributeType } from '../attributes/definitions.js';
import type { Sql } from '../../db/client.js';
import { invalid, type FieldErrors } from '../../http/errors.js';
import { poiValuesMatching } from '../pois/positions.js';
import { POI_SELECTION_ERROR, poiSelectionShape } from '../pois/selection-schema.js';
import { poiSelectionFilter } from '../routes/poi-selection.js';
import { formatDatetime, parseDatetime, type Instant } from '../optimize/datetimes.js';
import { MAX_DEMAND, MAX_SERVICE_S, MAX_WINDOWS } from '../optimize/schema.js';

const attributeKey = z
  .string({ error: 'must be the name or id of an attribute' })
  .min(1, 'must be the name or id of an attribute')
  .max(255, 'must be the name or id of an attribute');

const whole = (max: number) => {
  const message = `must be an integer between 0 and ${max}`;
  return z.number({ error: message }).int(message).min(0, message).max(max, message);
};

export const POI_STOPS_ERROR = "must be an array of stops, or {pois, …} to take the stops from the team's POIs";

export const poiStopsSchema = z
  .strictObject(
    {
      pois: z.strictObject(poiSelectionShape, { error: POI_SELECTION_ERROR }).describe('The filters of GET /v1/pois (`distance` in meters).'),
      time_windows_from: attributeKey
        .optional()
        .describe(
          "A text attribute holding OpenStreetMap `opening_hours` (`Mo-Fr 08:00-12:00,13:00-17:00`): the POI's windows on the plan's day. A POI without the attribute can be served any time.",
        ),
      service_from: attributeKey.optional().describe('A number attribute: seconds of service at the POI.'),
      demand_from: attributeKey.optional().describe('A number attribute: units delivered to the POI.'),
      service: whole(MAX_SERVICE_S).default(0).describe('Seconds of service at a POI without the `service_from` attribute.'),
      demand: whole(MAX_DEMAND).default(1).describe('Units delivered to a POI without the `demand_from` attribute.'),
      date: z
        .string({ error: 'must be a date YYYY-MM-DD' })
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
        .refine((d) => parseDatetime(`${d}T00:00:00Z`) !== null, 'must be a date YYYY-MM-DD')
        .optional()
        .describe(
          "The plan's day for opening hours; default the day of the earliest vehicle `time_window` start, in its offset (UTC today when no vehicle has one).",
        ),
    },
    { error: POI_STOPS_ERROR },
  )
  .meta({
    id: 'PoiStops',
    description:
      "The team's POIs as the stops: stop id = POI id. A POI that cannot be served (closed that day, unreadable hours or values, more than 500 m from a road, cut off from the other places) is in the plan's `unassigned` with the reason.",
  });

export type PoiStopsInput = z.infer<typeof poiStopsSchema>;

/** The plan's day as a calendar date and the offset its times are written in. */
export interface PlanDay {
  date: string;
  offsetMinutes: number;
}

/** The day: `date` if given, else the earliest vehicle start's day in its offset, else today in UTC. */
export function planDay(date: string | undefined, vehicleStarts: Instant[], nowEpoch: number): PlanDay {
  const first = vehicleStarts.reduce<Instant | undefined>((a, t) => (a === undefined || t.epoch < a.epoch ? t : a), undefined);
  const offsetMinutes = first?.offsetMinutes ?? 0;
  return { date: date ?? formatDatetime(first?.epoch ?? nowEpoch, offsetMinutes).slice(0, 10), offsetMinutes };
}

/**
 * The open intervals of `hours` on the day, as ISO datetimes in the day's offset; a reason when there are
 * none or the text cannot be read. The library reads and writes local `Date`s of this process: the day's
 * wall clock goes in as local fields and comes back out the same way, whatever the process's time zone.
 */
export function openingWindows(hours: string, day: PlanDay): { windows: Array<[string, string]> } | { reason: string } {
  let oh: OpeningHours;
  try {
    oh = new OpeningHours(hours, null, 0);
  } catch (err) {
    return { reason: `its opening hours '${hours}' cannot be read: ${String(err).split('\n')[0]}` };
  }
  const [y, m, d] = day.date.split('-').map(Number);
  const wall = (t: Date) => Date.UTC(t.getFullYear(), t.getMonth(), t.getDate(), t.getHours(), t.getMinutes(), t.getSeconds()) / 1000 - day.offsetMinutes * 60;
  let intervals: Array<[Date, Date, boolean, string | undefined]>;
  try {
    intervals = oh.getOpenIntervals(new Date(y, m - 1, d), new Date(y, m - 1, d + 1));
  } catch (err) {
    return { reason: `its opening hours '${hours}' cannot be evaluated for ${day.date}: ${String(err).split('\n')[0]}` };
  }
  // "Unknown" intervals (`Mo 10:00-12:00 unknown`) are not promised open: they are left out.
  const open = intervals.filter(([, , unknown]) => !unknown).map(([from, to]) => [wall(from), wall(to)] as const);
  if (open.length === 0) return { reason: `it is closed on ${day.date} (opening hours '${hours}')` };
  if (open.length > MAX_WINDOWS) return { reason: `its opening hours '${hours}' give ${open.length} windows on ${day.date}, more than ${MAX_WINDOWS}` };
  return { windows: open.map(([a, b]) => [formatDatetime(a, day.offsetMinutes), formatDatetime(b, day.offsetMinutes)]) };
}

/** The stops, and why each one that cannot be served is not (by its index). */
export interface ExpandedStops {
  stops: Array<Record<string, unknown>>;
  unservable: Record<number, string>;
}

const FROM_TYPES: Record<'time_windows_from' | 'service_from' | 'demand_from', AttributeType> = {
  time_windows_from: 'string',
  service_from: 'number',
  demand_from: 'number',
};

/**
 * The team's POIs as stops; null when the filters or attribute names are wrong (reported in `errors` at
 * `stops.…`). Selecting no POI, or more than `max`, is a 422 at `stops.pois`.
 */
export async function expandPoiStops(
  sql: Sql,
  teamId: string,
  input: PoiStopsInput,
  day: PlanDay,
  max: number,
  errors: FieldErrors,
): Promise<ExpandedStops | null> {
  const attrs = await teamAttributes(sql, teamId);
  const from: Partial<Record<keyof typeof FROM_TYPES, AttributeRow>> = {};
  for (const field of Object.keys(FROM_TYPES) as Array<keyof typeof FROM_TYPES>) {
    const key = input[field];
    if (key === undefined) continue;
    const attr = resolveAttribute(attrs, key);
    if (!attr) errors[`stops.${field}`] = ['is not an attribute of this team'];
    else if (attr.type !== FROM_TYPES[field])
      errors[`stops.${field}`] = [`must name a ${FROM_TYPES[field] === 'string' ? 'text' : 'number'} attribute; '${attr.name}' is a ${attr.type}`];
    else from[field] = attr;
  }
  const filter = await poiSelectionFilter(sql, teamId, input.pois, 'stops.pois', max, errors);
  if (Object.keys(errors).length) return null;
  const ids = Object.values(from).map((a) => a.id);
  const rows = await poiValuesMatching(sql, teamId, filter, ids, max + 1);
  if (rows.length > max) throw invalid('stops.pois', `selects more than ${max} POIs; at most ${max} can be planned at once. Narrow the filters.`);
  if (rows.length === 0) throw invalid('stops.pois', 'selects no POIs; at least one is needed to plan');

  const unservable: Record<number, string> = {};
  const stops = rows.map((poi, i) => {
    const stop: Record<string, unknown> = { id: poi.id, poi_id: poi.id, service: input.service, demand: input.demand };
    const why: string[] = [];
    const number = (attr: AttributeRow | undefined, most: number, what: string, into: 'service' | 'demand') => {
      if (!attr || !(attr.id in poi.values)) return;
      const v = poi.values[attr.id];
      if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= most) stop[into] = v;
      else why.push(`its '${attr.name}' (${JSON.stringify(v)}) is not ${what} from 0 to ${most}`);
    };
    number(from.service_from, MAX_SERVICE_S, 'a whole number of seconds', 'service');
    number(from.demand_from, MAX_DEMAND, 'a whole number of units', 'demand');
    const hoursAttr = from.time_windows_from;
    if (hoursAttr && hoursAttr.id in poi.values) {
      const text = String(poi.values[hoursAttr.id]);
      const read = openingWindows(text, day);
      if ('reason' in read) why.push(read.reason);
      else stop.time_windows = read.windows;
    }
    if (why.length) unservable[i] = why.join('; ');
    return stop;
  });
  return { stops, unservable };
}
