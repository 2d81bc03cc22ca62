// Batch optimization jobs (docs/optimization.md): an extension beside the contract's
// POST /v1/routes/optimize, with the same body rules at batch sizes, run as durable jobs.
import type { Sql } from '../../db/client.js';
import { HttpError, invalid, notFound, unprocessable, type FieldErrors } from '../../http/errors.js';
import { pageOf, readPage } from '../../http/pagination.js';
import { pageQuery, type Operation } from '../../http/openapi.js';
import type { Route } from '../../http/router.js';
import { parseInto } from '../../http/validate.js';
import { isUlid } from '../../lib/ids.js';
import { loadedProfiles } from '../../engine/engine.js';
import { timeFrame } from '../optimize/time-frame.js';
import { excludeBits } from '../routes/exclude.js';
import { rawProfile } from '../engine-errors.js';
import { bodyNamesPoi, invalidBodyError, resolveAll } from '../optimize/routes.js';
import { batchBodySchema, batchRequestSchema, exampleOptimization, MAX_BATCH_STOPS, optimizationData, optimizationPage } from './schema.js';
import { expandPoiStops, planDay, poiStopsSchema, type ExpandedStops } from './poi-stops.js';
import { cancelOptimization, createOptimization, fetchOptimization, listOptimizations, optimizationJson } from './store.js';

/** 2,000 stops with windows, skills and ids, and 200 vehicles, take well under this. */
const BODY_LIMIT = 8 * 1024 * 1024;

const NEEDS = 'Needs `plan-routes`';
const one = (description: string, example?: unknown) => ({ description, schema: optimizationData, ...(example ? { example: { data: example } } : {}) });

const docs: Record<'create' | 'list' | 'get' | 'cancel', Operation> = {
  create: {
    operationId: 'createOptimization',
    tag: 'Routing',
    summary: 'Start a batch optimization',
    description: `${NEEDS}, and \`read-pois\` when a location is a POI. The POST /v1/routes/optimize body with up to 2,000 stops and 200 vehicles, run as a background job within \`time_budget\` seconds of search. The body is checked as POST /v1/routes/optimize checks it and POIs are resolved now, every problem in one 422 (locations too far from a road included when it goes out); otherwise locations far from a road or unreachable make the job \`failed\`, with the 422 body POST /v1/routes/optimize would answer as its \`error\`.`,
    body: batchRequestSchema,
    responses: { 202: one('The optimization, queued.', exampleOptimization) },
    errors: [422],
  },
  list: {
    operationId: 'listOptimizations',
    tag: 'Routing',
    summary: 'List batch optimizations',
    description: `${NEEDS}. The team's optimizations, without their plans.`,
    query: pageQuery(),
    responses: { 200: { description: 'A page of optimizations sorted by id.', schema: optimizationPage } },
    errors: [422],
  },
  get: {
    operationId: 'getOptimization',
    tag: 'Routing',
    summary: 'Get a batch optimization',
    description: `${NEEDS}. Its status and progress, and its plan once \`completed\`.`,
    responses: { 200: one('The optimization.') },
    errors: [404],
  },
  cancel: {
    operationId: 'cancelOptimization',
    tag: 'Routing',
    summary: 'Cancel a batch optimization',
    description: `${NEEDS}. A queued or running optimization becomes \`cancelled\` (its search stops within a second); cancelling a cancelled one answers it as it is; a completed or failed one is a 409.`,
    responses: { 200: one('The optimization, cancelled.', { ...exampleOptimization, status: 'cancelled', finished_at: '2026-03-02T06:30:05.456000Z' }) },
    errors: [404, 409],
  },
};

/** Stops at (0, 0) with the ids that the vehicles' steps name, or one without an id. */
function standInStops(vehicles: unknown): Array<{ latitude: number; longitude: number; id?: string }> {
  const list = (x: unknown): Array<Record<string, unknown>> => (Array.isArray(x) ? x.map((v) => (v !== null && typeof v === 'object' ? v : {})) : []);
  const ids = new Set(
    list(vehicles)
      .flatMap((v) => list(v.steps))
      .flatMap((s) => (s.type === 'stop' && (typeof s.id === 'string' || typeof s.id === 'number') ? [String(s.id)] : [])),
  );
  return ids.size ? [...ids].map((id) => ({ latitude: 0, longitude: 0, id })) : [{ latitude: 0, longitude: 0 }];
}

export function optimizationRoutes(sql: Sql): Route[] {
  const byId = async (teamId: string, id: string) => {
    const row = isUlid(id) ? await fetchOptimization(sql, teamId, id.toUpperCase()) : undefined;
    if (!row) throw notFound('Optimization');
    return row;
  };
  return [
    {
      method: 'POST',
      path: '/v1/optimizations',
      openapi: docs.create,
      permission: 'plan-routes',
      bodyLimit: BODY_LIMIT,
      handler: async (ctx) => {
        let raw = await ctx.json();
        const fromPois = raw.stops !== null && typeof raw.stops === 'object' && !Array.isArray(raw.stops);
        if (fromPois || bodyNamesPoi(raw)) ctx.require('read-pois');
        const errors: FieldErrors = Object.create(null);
        let expanded: ExpandedStops | undefined;
        if (fromPois) {
          // The rest of the body is checked with stand-in stops, so that its problems and the selection's
          // come in one 422: one for each stop a plan mode's steps name (their POIs are checked below).
          const rest = parseInto(batchBodySchema, { ...raw, stops: standInStops(raw.vehicles) }, errors);
          const scratch: FieldErrors = {};
          const input = parseInto(poiStopsSchema, raw.stops, scratch);
          for (const [k, v] of Object.entries(scratch)) errors[k === 'body' ? 'stops' : `stops.${k}`] = v;
          if (!rest || !input) throw await invalidBodyError(sql, ctx.teamId, { ...raw, stops: [] }, errors);
          const starts = rest.vehicles.flatMap((v) => (v.time_window ? [v.time_window[0]] : []));
          const day = planDay(input.date, starts, Math.floor(Date.now() / 1000));
          const got = await expandPoiStops(sql, ctx.teamId, input, day, MAX_BATCH_STOPS, errors);
          if (!got) throw unprocessable(errors);
          expanded = got;
          raw = { ...raw, stops: got.stops };
        }
        const body = parseInto(batchBodySchema, raw, errors);
        const exclude = excludeBits(body?.profile ?? rawProfile(raw.profile), raw.exclude, errors);
        // Unknown POI ids and locations far from a road join the body's own problems, as in POST /v1/routes/optimize.
        if (!body || Object.keys(errors).length) throw await invalidBodyError(sql, ctx.teamId, raw, errors, exclude);
        // A process without a map queues the job for one that has it; one with a map knows its profiles.
        const profiles = loadedProfiles();
        if (profiles.length && !profiles.includes(body.profile)) throw invalid('profile', 'is not available on the loaded map');
        const frame = timeFrame(body, Object.keys(raw), Math.floor(Date.now() / 1000));
        // POIs are resolved now: the job plans the places the team had when it asked.
        const resolved = await resolveAll(sql, ctx.teamId, body, exclude);
        const locations = expanded ? { ...resolved, fromPois: true, unservable: expanded.unservable } : resolved;
        const row = await createOptimization(sql, { teamId: ctx.teamId, body: raw, locations, frame, timeBudget: body.time_budget });
        return { status: 202, body: { data: optimizationJson(row, true) } };
      },
    },
    {
      method: 'GET',
      path: '/v1/optimizations',
      openapi: docs.list,
      permission: 'plan-routes',
      handler: async (ctx) => {
        const page = readPage(ctx.query);
        const { data, next } = pageOf(await listOptimizations(sql, ctx.teamId, page.cursor, page.limit + 1), page.limit);
        return { status: 200, body: { data: data.map((r) => optimizationJson(r, false)), next } };
      },
    },
    {
      method: 'GET',
      path: '/v1/optimizations/{id}',
      openapi: docs.get,
      permission: 'plan-routes',
      handler: async (ctx) => ({ status: 200, body: { data: optimizationJson(await byId(ctx.teamId, ctx.params.id), true) } }),
    },
    {
      method: 'DELETE',
      path: '/v1/optimizations/{id}',
      openapi: docs.cancel,
      permission: 'plan-routes',
      handler: async (ctx) => {
        await byId(ctx.teamId, ctx.params.id);
        const row = (await cancelOptimization(sql, ctx.teamId, ctx.params.id.toUpperCase()))!;
        if (row.status === 'completed' || row.status === 'failed') {
          throw new HttpError(
            409,
            `The optimization has already ${row.status === 'completed' ? 'completed' : 'failed'}; only a queued or running one can be cancelled.`,
          );
        }
        return { status: 200, body: { data: optimizationJson(row, true) } };
      },
    },
  ];
}
