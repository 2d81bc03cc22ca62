// The body of POST /v1/routes/clusters (service-spec.md "POST /v1/routes/clusters", DECISIONS.md "Routing"):
// types and ranges, the either/or rules and unique stop ids, all reported in one 422.
import { z } from 'zod';
import { POI_SELECTION_ERROR, poiSelectionShape } from '../pois/selection-schema.js';
import { zodErrors, type FieldErrors } from '../../http/errors.js';
import { MAX_CLUSTER_STOPS, MAX_CLUSTERS } from '../../engine/kmeans/kmeans.js';
import { arrayFirst } from '../../http/validate.js';
import { locationSchema } from '../locations.js';
import type { PoiSelectionInput } from '../routes/poi-selection.js';

export const MAX_STOP_ID_LENGTH = 100;

const ID_RULE = `must be a string of 1 to ${MAX_STOP_ID_LENGTH} characters`;
const stopSchema = locationSchema.safeExtend({
  id: z.string({ error: ID_RULE }).min(1, ID_RULE).max(MAX_STOP_ID_LENGTH, ID_RULE).optional(),
});

// The same filters as `avoid` of POST /v1/routes.
const poiSelectionSchema = z.strictObject(poiSelectionShape, { error: POI_SELECTION_ERROR });

const STOPS_RULE = `must be an array of 1 to ${MAX_CLUSTER_STOPS} locations`;
const CLUSTERS_RULE = `must be an integer between 1 and ${MAX_CLUSTERS}`;
const MAX_STOPS_RULE = 'must be an integer of at least 1';

const bodySchema = z
  .strictObject({
    // The type first: zod would also run the length checks on a string.
    stops: arrayFirst(STOPS_RULE)
      .pipe(z.array(stopSchema).min(1, STOPS_RULE).max(MAX_CLUSTER_STOPS, `may have at most ${MAX_CLUSTER_STOPS} stops`))
      .optional(),
    pois: poiSelectionSchema.optional(),
    clusters: z.number({ error: CLUSTERS_RULE }).int(CLUSTERS_RULE).min(1, CLUSTERS_RULE).max(MAX_CLUSTERS, CLUSTERS_RULE).optional(),
    max_stops: z.number({ error: MAX_STOPS_RULE }).int(MAX_STOPS_RULE).min(1, MAX_STOPS_RULE).optional(),
    balanced: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .meta({
    id: 'ClustersRequest',
    description: 'Either `stops` or `pois`, and either `clusters` or `max_stops`.',
    examples: [
      {
        stops: [
          { latitude: 47.14, longitude: 9.52, id: 'a' },
          { latitude: 47.16, longitude: 9.51, id: 'b' },
          { latitude: 47.05, longitude: 9.49, id: 'c' },
        ],
        clusters: 2,
      },
    ],
  });

export const clustersResponseSchema = z
  .object({
    data: z.object({
      summary: z.object({ stops: z.int(), clusters: z.int(), balanced: z.boolean(), max_stops: z.int().nullable() }),
      clusters: z.array(
        z.object({
          id: z.int(),
          centroid: z.object({ latitude: z.number(), longitude: z.number() }),
          count: z.int(),
          radius: z.number().describe('Meters from the centroid to the farthest stop.'),
          stops: z.array(z.object({ index: z.int(), id: z.string().nullable(), poi_id: z.string().nullable(), latitude: z.number(), longitude: z.number() })),
        }),
      ),
    }),
  })
  .meta({ id: 'ClustersResponse' });

export { bodySchema as clustersRequestSchema };

export type StopInput = z.infer<typeof stopSchema>;

export interface ClusterBody {
  /** Exactly one of `stops` and `pois`. */
  stops?: StopInput[];
  pois?: PoiSelectionInput;
  /** Exactly one of `clusters` and `maxStops`. */
  clusters?: number;
  maxStops?: number;
  balanced: boolean;
}

/** One of two fields, not both: `null` counts as sent (and fails its type). */
function exactlyOne(raw: Record<string, unknown>, a: string, b: string, errors: FieldErrors): void {
  const hasA = raw[a] !== undefined,
    hasB = raw[b] !== undefined;
  if (hasA && hasB) (errors[b] ??= []).push(`cannot be combined with ${a}; send one of them`);
  else if (!hasA && !hasB) (errors[a] ??= []).push(`is required unless ${b} is sent`);
}

/** Every repeat of an id is reported at its own position, naming the first. */
function duplicateIds(stops: readonly StopInput[], errors: FieldErrors): void {
  const first = new Map<string, number>();
  stops.forEach((s, i) => {
    if (s.id === undefined) return;
    const at = first.get(s.id);
    if (at === undefined) first.set(s.id, i);
    else (errors[`stops.${i}.id`] ??= []).push(`duplicates stops.${at}.id; stop ids must be unique`);
  });
}

/** The validated body, or undefined with every problem found in `errors`. */
export function parseClusterBody(raw: Record<string, unknown>, errors: FieldErrors): ClusterBody | undefined {
  const parsed = bodySchema.safeParse(raw);
  if (!parsed.success) Object.assign(errors, zodErrors(parsed.error));
  exactlyOne(raw, 'stops', 'pois', errors);
  exactlyOne(raw, 'clusters', 'max_stops', errors);
  if (parsed.success && parsed.data.stops) duplicateIds(parsed.data.stops, errors);
  if (!parsed.success || Object.keys(errors).length) return undefined;
  const { stops, pois, clusters, max_stops: maxStops, balanced } = parsed.data;
  return { stops, pois, clusters, maxStops, balanced };
}
