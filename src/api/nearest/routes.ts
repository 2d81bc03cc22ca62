// GET /v1/nearest: the roads nearest to a point that a profile may use (an extension beside the contract;
// docs/reachability.md).
import { z } from 'zod';
import { unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Operation } from '../../http/openapi.js';
import type { Route } from '../../http/router.js';
import { parseInto } from '../../http/validate.js';
import { PROFILES } from '../../map/graphs/profiles.js';
import { nearest } from '../../engine/engine.js';
import { engineHttpError } from '../engine-errors.js';
import { micro } from '../../engine/line-json.js';

export const MAX_NEAREST = 10;

/** Query strings are text: numbers are read from it, and a value that is not one is named. */
const numberText = (message: string) =>
  z
    .string({ error: 'is required' })
    .refine((v) => v.trim() !== '' && Number.isFinite(Number(v)), message)
    .transform(Number);

const querySchema = z.object({
  latitude: numberText('must be a number between -90 and 90').pipe(z.number().min(-90, 'must be between -90 and 90').max(90, 'must be between -90 and 90')),
  longitude: numberText('must be a number between -180 and 180').pipe(
    z.number().min(-180, 'must be between -180 and 180').max(180, 'must be between -180 and 180'),
  ),
  profile: z.enum(PROFILES, { error: `must be one of ${PROFILES.join(', ')}` }).default('driving-car'),
  number: numberText(`must be a whole number from 1 to ${MAX_NEAREST}`)
    .pipe(z.int(`must be a whole number from 1 to ${MAX_NEAREST}`).min(1, `must be at least 1`).max(MAX_NEAREST, `must be at most ${MAX_NEAREST}`))
    .optional(),
});

const nearestResponse = z
  .object({
    data: z.array(
      z.object({
        location: z.object({ latitude: z.number(), longitude: z.number() }),
        distance: z.number().describe('Meters from the point asked.'),
        name: z.string().nullable(),
        ref: z.string().nullable(),
        bearing: z.number().describe("Degrees clockwise from north of the road's geometry at that point, 0–360."),
      }),
    ),
  })
  .meta({ id: 'NearestResponse' });

const nearestDoc: Operation = {
  operationId: 'nearestRoads',
  tag: 'Reachability',
  summary: 'The nearest roads to a point',
  description:
    'Extension (not in the service contract). Needs `plan-routes`. The `number` (1–10, default 1) nearest road geometries the ' +
    'profile may use within 500 m, one point on each, nearest first; an empty list when none is that near.',
  query: {
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    profile: z.enum(PROFILES).default('driving-car'),
    number: z.int().min(1).max(MAX_NEAREST).default(1),
  },
  responses: { 200: { description: 'The roads, nearest first.', schema: nearestResponse } },
  errors: [422, 502, 503],
};

export function nearestEndpoint(): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/nearest',
      openapi: nearestDoc,
      permission: 'plan-routes',
      handler: async (ctx) => {
        const q = ctx.query;
        const errors: FieldErrors = Object.create(null);
        const parsed = parseInto(
          querySchema,
          { latitude: q.get('latitude'), longitude: q.get('longitude'), profile: q.get('profile'), number: q.get('number') },
          errors,
        );
        if (!parsed) throw unprocessable(errors);
        const roads = await nearest({ profile: parsed.profile, point: { lat: parsed.latitude, lon: parsed.longitude }, count: parsed.number ?? 1 }).catch(
          (err: unknown) => {
            throw engineHttpError(err, parsed.profile);
          },
        );
        const data = roads.map((r) => ({
          location: { latitude: micro(r.lat), longitude: micro(r.lon) },
          distance: Math.round(r.distance * 10) / 10,
          name: r.name,
          ref: r.ref,
          bearing: Math.round(r.bearing * 10) / 10,
        }));
        return { status: 200, body: { data } };
      },
    },
  ];
}
