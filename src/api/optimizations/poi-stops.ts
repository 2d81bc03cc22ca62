// `stops: {pois: …}` of POST /v1/optimizations: the team's POIs matching the filters of GET /v1/pois become
// the stops (stop id = POI id), their opening hours, service time, demand (in one or several dimensions)
// and skills read from attributes. A POI
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
import { MAX_DEMAND, MAX_SERVICE_S, MAX_SKILLS, MAX_WINDOWS } from '../optimize/schema.js';
import { MAX_DIMENSIONS } from '../../engine/vrp/problem.js';

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
      demand_from: z
        .union([attributeKey, z.array(attributeKey).min(1).max(MAX_DIMENSIONS)], {
          error: `must be the name or id of an attribute, or an array of 1 to ${MAX_DIMENSIONS} of them`,
        })
        .optional()
        .describe(
          'A number attribute: units delivered to the POI; or one per load dimension (`["kg", "pallets"]`), the demand then an array like the capacities.',
        ),
      skills_from: attributeKey
        .optional()
        .describe(`A text attribute: the skills a vehicle needs to serve the POI, separated by commas (\`fridge, tail-lift\`; at most ${MAX_SKILLS}).`),
      service: whole(MAX_SERVICE_S).default(0).describe('Seconds of service at a POI without the `service_from` attribute.'),
      demand: z
        .union([whole(MAX_DEMAND), z.array(whole(MAX_DEMAND)).min(1).max(MAX_DIMENSIONS)], {
          error: `must be an integer between 0 and ${MAX_DEMAND}, or an array of 1 to ${MAX_DIMENSIONS} of them`,
        })
        .default(1)
        .describe(
          "Units delivered to a POI without the `demand_from` attribute (or, per dimension, without that dimension's attribute): an integer, or an array as long as `demand_from`.",
        ),
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

const FROM_TYPES: Record<'time_windows_from' | 'service_from' | 'demand_from' | 'skills_from', AttributeType> = {
  time_windows_from: 'string',
  service_from: 'number',
  demand_from: 'number',
  skills_from: 'string',
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
  const from: Partial<Record<Exclude<keyof typeof FROM_TYPES, 'demand_from'>, AttributeRow>> = {};
  const resolve = (key: string, field: keyof typeof FROM_TYPES, path: string): AttributeRow | undefined => {
    const attr = resolveAttribute(attrs, key);
    if (!attr) errors[path] = ['is not an attribute of this team'];
    else if (attr.type !== FROM_TYPES[field])
      errors[path] = [`must name a ${FROM_TYPES[field] === 'string' ? 'text' : 'number'} attribute; '${attr.name}' is a ${attr.type}`];
    else return attr;
    return undefined;
  };
  for (const field of ['time_windows_from', 'service_from', 'skills_from'] as const) {
    const key = input[field];
    const attr = key === undefined ? undefined : resolve(key, field, `stops.${field}`);
    if (attr) from[field] = attr;
  }
  // One attribute per load dimension; a single name is one dimension, the demand then an integer.
  const several = Array.isArray(input.demand_from) || Array.isArray(input.demand);
  const demandKeys = input.demand_from === undefined ? [] : [input.demand_from].flat();
  const demandAttrs = demandKeys.map((key, d) =>
    resolve(key, 'demand_from', Array.isArray(input.demand_from) ? `stops.demand_from.${d}` : 'stops.demand_from'),
  );
  const dims = Array.isArray(input.demand_from) ? input.demand_from.length : Array.isArray(input.demand) ? input.demand.length : 1;
  if (Array.isArray(input.demand) && Array.isArray(input.demand_from) && input.demand.length !== input.demand_from.length)
    errors['stops.demand'] = [`must have ${dims} amounts, one per attribute of demand_from`];
  if (Array.isArray(input.demand) && typeof input.demand_from === 'string' && input.demand.length !== 1)
    errors['stops.demand'] = ['must be one amount when demand_from names one attribute'];
  const defaults = [input.demand].flat();
  const defaultOf = (d: number) => (defaults.length === 1 ? defaults[0] : defaults[d]);
  const filter = await poiSelectionFilter(sql, teamId, input.pois, 'stops.pois', max, errors);
  if (Object.keys(errors).length) return null;
  const ids = [...Object.values(from), ...demandAttrs.filter((a) => a !== undefined)].map((a) => a.id);
  const rows = await poiValuesMatching(sql, teamId, filter, ids, max + 1);
  if (rows.length > max) throw invalid('stops.pois', `selects more than ${max} POIs; at most ${max} can be planned at once. Narrow the filters.`);
  if (rows.length === 0) throw invalid('stops.pois', 'selects no POIs; at least one is needed to plan');

  const unservable: Record<number, string> = {};
  const stops = rows.map((poi, i) => {
    const stop: Record<string, unknown> = { id: poi.id, poi_id: poi.id, service: input.service };
    const why: string[] = [];
    const number = (attr: AttributeRow | undefined, most: number, what: string, otherwise: number): number => {
      if (!attr || !(attr.id in poi.values)) return otherwise;
      const v = poi.values[attr.id];
      if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= most) return v;
      why.push(`its '${attr.name}' (${JSON.stringify(v)}) is not ${what} from 0 to ${most}`);
      return otherwise;
    };
    stop.service = number(from.service_from, MAX_SERVICE_S, 'a whole number of seconds', input.service);
    const demand = Array.from({ length: dims }, (_, d) => number(demandAttrs[d], MAX_DEMAND, 'a whole number of units', defaultOf(d)));
    stop.demand = several ? demand : demand[0];
    const skillsAttr = from.skills_from;
    if (skillsAttr && skillsAttr.id in poi.values) {
      const text = String(poi.values[skillsAttr.id]);
      const skills = [...new Set(text.split(',').map((x) => x.trim()))].filter(Boolean);
      if (skills.length > MAX_SKILLS || skills.some((x) => x.length > 100))
        why.push(`its '${skillsAttr.name}' ('${text}') is not up to ${MAX_SKILLS} skills of 1 to 100 characters, separated by commas`);
      else if (skills.length) stop.skills = skills;
    }
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
