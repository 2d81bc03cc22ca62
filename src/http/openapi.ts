// The OpenAPI 3.1 document, generated from the routes themselves: each route carries its operation
// (summary, parameters, body and response schemas as the zod schemas the handlers use), and the JSON
// Schemas come from zod (`z.toJSONSchema`, JSON Schema 2020-12, which OpenAPI 3.1 uses as it is). Named
// schemas (`.meta({ id })`) become `components.schemas`; the errors every operation shares are
// `components.responses`. A route without an operation fails the contract test (test/contract).
import { z } from 'zod';

/** Errors an operation answers with, beyond the ones added from how it is served (see `commonErrors`). */
export type ErrorStatus = 400 | 403 | 404 | 409 | 422 | 502 | 503;

export interface ResponseDoc {
  description: string;
  /** A named schema (`.meta({ id })`); none for bodiless answers (204). */
  schema?: z.ZodType;
  example?: unknown;
  /** Response headers beyond the rate-limit ones. */
  headers?: Record<string, { description: string; schema: Record<string, unknown>; required?: boolean }>;
  /** Other content types than JSON (the reference page's HTML, scripts and styles, metrics, tiles). */
  contentTypes?: string[];
  /** The schema of those (default: any object for JSON types, a string for the others). */
  contentSchema?: Record<string, unknown>;
}

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Query parameters, one per key; `.describe()` gives each its description. An object schema is sent
   *  as `name[key]=value` (deepObject), as the POI list's attribute filters. */
  query?: Record<string, z.ZodType>;
  /** Descriptions of the `{name}` path parameters (default: the resource id). */
  pathParams?: Record<string, string>;
  /** A named schema of the JSON body. */
  body?: z.ZodType;
  /** A named schema of a multipart/form-data body. */
  multipart?: z.ZodType;
  bodyExample?: unknown;
  responses: Record<number, ResponseDoc>;
  /** The errors the operation's own checks answer with. */
  errors?: ErrorStatus[];
}

/** The parts of a route the document needs (a structural subset of router.ts's Route). */
export interface DocumentedRoute {
  method: string;
  path: string;
  public?: boolean;
  body?: 'json' | 'stream' | 'none';
  openapi?: Operation;
}

// ---- shared schemas -------------------------------------------------------------------------------

export const errorSchema = z.object({ message: z.string() }).meta({
  id: 'Error',
  description: 'Every error answer carries a human-readable message.',
  examples: [{ message: 'POI not found.' }],
});

// Registered under their meta ids, which the error responses below name: nothing refers to the objects.
z.object({
  message: z.string().describe('The first problem, as `<field>: <message>`.'),
  errors: z
    .record(z.string(), z.array(z.string()).min(1))
    .describe('Every invalid field path (dot-separated, e.g. `waypoints.1.latitude`) with all its messages.'),
}).meta({
  id: 'ValidationError',
  description: 'Every invalid field at once: schema problems and the checks that need data (unknown ids, waypoints far from roads) alike.',
  examples: [
    {
      message: 'waypoints.0: is more than 500 m from a road usable by the driving-car profile',
      errors: { 'waypoints.0': ['is more than 500 m from a road usable by the driving-car profile'], 'waypoints.2.poi_id': ['is not a POI of this team'] },
    },
  ],
});

z.object({
  message: z.string(),
  retry_after: z.int().describe('Seconds to wait.'),
}).meta({ id: 'RateLimited', examples: [{ message: 'Too many requests. Retry after the time in the Retry-After header.', retry_after: 1800 }] });

/** ISO 8601 UTC with microseconds, as every POI, attribute, category, import and key timestamp. */
export const timestamp = z
  .string()
  .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  .meta({
    id: 'Timestamp',
    description: 'ISO 8601 UTC with microsecond precision.',
    examples: ['2026-01-31T09:30:00.123000Z'],
  });

export const ulid = z
  .string()
  .regex(/^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/)
  .meta({ description: 'A ULID.', examples: ['01JH8Z6Q4W3Y9V5T2R1P0N8M7K'] });
export const uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/)
  .meta({ description: 'A UUID.' });

/** `{data, next}` of the cursor-paginated lists. */
export const pageSchema = <T extends z.ZodType>(id: string, item: T) =>
  z.object({ data: z.array(item), next: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.') }).meta({ id });

/** `{data}` of the single-resource answers. */
export const dataSchema = <T extends z.ZodType>(id: string, item: T) => z.object({ data: item }).meta({ id });

export const pageQuery = (cursor: 'ULID' | 'UUID' = 'ULID') => ({
  limit: z.int().min(1).max(100).default(15).describe('Page size.'),
  cursor: z.string().describe(`The \`next\` of the previous page (a ${cursor}).`),
});

/** The five operations of a team resource with `<verb>-<plural>` permissions (attributes, categories). */
export function resourceDocs(o: {
  tag: string;
  singular: string;
  plural: string;
  name: string;
  item: z.ZodType;
  create: z.ZodType;
  update: z.ZodType;
  query?: Operation['query'];
  notes: { update: string; delete: string };
}): Record<'list' | 'create' | 'get' | 'update' | 'delete', Operation> {
  const needs = (verb: string) => `Needs the \`${verb}-${o.plural}\` permission.`;
  const data = dataSchema(`${o.name}Data`, o.item);
  const one = { description: `The ${o.singular}.`, schema: data };
  return {
    list: {
      operationId: `list${o.name.replace(/y$/, 'ie')}s`,
      tag: o.tag,
      summary: `List ${o.plural}`,
      description: needs('read'),
      query: { ...pageQuery(), ...o.query },
      responses: { 200: { description: `A page of ${o.plural} sorted by id.`, schema: pageSchema(`${o.name}Page`, o.item) } },
      errors: [422],
    },
    create: {
      operationId: `create${o.name}`,
      tag: o.tag,
      summary: `Create ${/^[aeiou]/.test(o.singular) ? 'an' : 'a'} ${o.singular}`,
      description: needs('create'),
      body: o.create,
      responses: { 201: one },
      errors: [422],
    },
    get: {
      operationId: `get${o.name}`,
      tag: o.tag,
      summary: `Get ${/^[aeiou]/.test(o.singular) ? 'an' : 'a'} ${o.singular}`,
      description: needs('read'),
      responses: { 200: one },
      errors: [404],
    },
    update: {
      operationId: `update${o.name}`,
      tag: o.tag,
      summary: `Rename ${/^[aeiou]/.test(o.singular) ? 'an' : 'a'} ${o.singular}`,
      description: `${needs('update')} ${o.notes.update}`,
      body: o.update,
      responses: { 200: one },
      errors: [404, 422],
    },
    delete: {
      operationId: `delete${o.name}`,
      tag: o.tag,
      summary: `Delete ${/^[aeiou]/.test(o.singular) ? 'an' : 'a'} ${o.singular}`,
      description: `${needs('delete')} ${o.notes.delete}`,
      responses: { 204: { description: 'Deleted.' } },
      errors: [404],
    },
  };
}

// ---- the document -----------------------------------------------------------------------------------

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current hour (-1: unlimited).', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in it (-1: unlimited).', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the limit resets, Unix epoch seconds.', schema: { type: 'integer' } },
};
/** Which map answered (a process with a map sets it on every answer; a swap changes it between requests,
 *  never within one). */
const MAP_HEADER = {
  'X-Waymark-Map': {
    description:
      "The id of the map this answer comes from (its manifest's SHA-256, 12 hex digits; `GET /ready` names the map answering new requests). Absent when the process runs without a map.",
    schema: { type: 'string', pattern: '^[0-9a-f]{12}$' },
  },
};

/** The rate-limit headers: required on the answers of authenticated operations, which always carry them;
 *  referenced (present when the key was known) on the shared error answers. */
const rateHeaders = (required: boolean) =>
  Object.fromEntries(Object.entries(RATE_HEADERS).map(([h, header]) => [h, required ? { ...header, required: true } : { $ref: `#/components/headers/${h}` }]));

const errorResponse = (description: string, schema = 'Error', headers: Record<string, unknown> = {}) => ({
  description,
  headers,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

/** The shared error answers, by status. */
const ERROR_RESPONSES: Record<number, [name: string, response: ReturnType<typeof errorResponse>]> = {
  400: [
    'BadRequest',
    errorResponse('The body cannot be read: a wrong content type, invalid JSON or UTF-8, not a JSON object, or (uploads) not multipart/form-data.'),
  ],
  401: ['Unauthenticated', errorResponse('Missing, unknown, expired, inactive or deleted API key.')],
  403: [
    'Forbidden',
    errorResponse('The key lacks the permission, the team has no active plan, or (POI creation) the team reached its POI limit.', 'Error', rateHeaders(false)),
  ],
  404: ['NotFound', errorResponse('The resource does not exist in the team.', 'Error', rateHeaders(false))],
  409: ['Conflict', errorResponse('The resource is in a state that does not allow the operation.', 'Error', rateHeaders(false))],
  408: ['RequestTimeout', errorResponse('The request body stopped arriving.')],
  413: ['PayloadTooLarge', errorResponse("The request body exceeds the operation's size limit.")],
  422: ['ValidationError', errorResponse('Validation failed: every invalid field with its messages.', 'ValidationError', rateHeaders(false))],
  429: [
    'TooManyRequests',
    errorResponse("The team's rate limit is used up.", 'RateLimited', {
      ...rateHeaders(false),
      'X-RateLimit-Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' }, required: true },
      'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' }, required: true },
    }),
  ],
  431: ['HeadersTooLarge', errorResponse("The request's header fields are too large.")],
  502: ['BadGateway', errorResponse('The routing service failed to answer; retry shortly.', 'Error', rateHeaders(false))],
  503: [
    'ServiceUnavailable',
    errorResponse('Not available now (the database is unreachable, no map is loaded, or the routing engine is busy); retry later.', 'Error', {
      'Retry-After': { description: 'Seconds to wait, when known.', schema: { type: 'integer' } },
    }),
  ],
};

/** Errors every operation can answer with because of how it is served. */
function commonErrors(route: DocumentedRoute): number[] {
  const codes = [431, 503];
  if (!route.public) codes.push(401, 403, 429);
  const hasBody = route.body !== 'none' && (route.method === 'POST' || route.method === 'PUT');
  if (hasBody) codes.push(400, 408, 413);
  return codes;
}

const schemaId = (schema: z.ZodType, where: string): string => {
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof id !== 'string') throw new Error(`${where}: the schema has no id (.meta({ id }))`);
  return id;
};
const ref = (schema: z.ZodType, where: string) => ({ $ref: `#/components/schemas/${schemaId(schema, where)}` });

/** A parameter's schema: input side (defaults make it optional), without the `$schema` line. */
function inlineSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return json;
}

function parameters(route: DocumentedRoute, op: Operation): unknown[] {
  const out: unknown[] = [];
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
    out.push({ name, in: 'path', required: true, description: op.pathParams?.[name] ?? 'The resource id.', schema: { type: 'string' } });
  }
  for (const [name, schema] of Object.entries(op.query ?? {})) {
    const json = inlineSchema(schema);
    const { description, ...rest } = json;
    const deep = rest.type === 'object';
    out.push({
      name,
      in: 'query',
      required: false,
      ...(description ? { description } : {}),
      schema: rest,
      ...(deep ? { style: 'deepObject', explode: true } : {}),
    });
  }
  return out;
}

function operationObject(route: DocumentedRoute, op: Operation): Record<string, unknown> {
  const where = `${route.method} ${route.path}`;
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    const headers = { ...(route.public ? {} : rateHeaders(true)), 'X-Waymark-Map': { $ref: '#/components/headers/X-Waymark-Map' }, ...(r.headers ?? {}) };
    const content = r.contentTypes
      ? Object.fromEntries(r.contentTypes.map((t) => [t, { schema: r.contentSchema ?? { type: t.endsWith('json') ? 'object' : 'string' } }]))
      : r.schema
        ? { 'application/json': { schema: ref(r.schema, where), ...(r.example === undefined ? {} : { example: r.example }) } }
        : undefined;
    responses[status] = { description: r.description, ...(Object.keys(headers).length ? { headers } : {}), ...(content ? { content } : {}) };
  }
  const codes = [...new Set([...(op.errors ?? []), ...commonErrors(route)])].sort((a, b) => a - b);
  // An operation's own answer for a status (the 503 of /ready, the 404 of the tiles) wins over the shared one.
  for (const code of codes) responses[String(code)] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[code][0]}` };
  const body = op.body ?? op.multipart;
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(route.public ? { security: [] } : {}),
    parameters: parameters(route, op),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: {
              [op.multipart ? 'multipart/form-data' : 'application/json']: {
                schema: ref(body, where),
                ...(op.bodyExample === undefined ? {} : { example: op.bodyExample }),
                ...(op.multipart ? { encoding: { file: { contentType: 'text/csv, application/octet-stream' } } } : {}),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

export const TAGS = [
  { name: 'API key', description: 'The key that authenticates the request.' },
  { name: 'POIs', description: 'Points of interest of the team, with filters.' },
  { name: 'Attributes', description: 'Typed custom fields of POIs.' },
  { name: 'Categories', description: 'POI categories.' },
  { name: 'Geolocation', description: "Countries, cities and zip codes the team's POIs are in." },
  { name: 'Imports', description: 'Bulk POI creation from CSV files, processed in the background.' },
  { name: 'Routing', description: 'Routes avoiding POIs, clustering, delivery optimization.' },
  { name: 'Groups', description: 'Messaging groups.' },
  { name: 'Conversations', description: 'Conversations and their messages.' },
  { name: 'Service', description: 'Health and this description (no key needed).' },
  { name: 'Operator', description: 'Readiness and metrics for whoever runs the service (no key needed).' },
  { name: 'Base map', description: 'Vector tiles of the loaded map (no key needed).' },
];

/** Routes not part of the public API: the dashboard's pages and session endpoints (cookie + CSRF, used
 *  only by the bundled web app, which may change with it). */
export const isInternal = (path: string) => path === '/dashboard' || path.startsWith('/dashboard/');

export function openApiDocument(routes: readonly DocumentedRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (isInternal(route.path)) continue;
    // Left out rather than failing the document at run time; test/contract/document.test.ts names it.
    if (!route.openapi) continue;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route, route.openapi);
  }
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Waymark API',
      version: '1.0.0',
      description:
        "Points of interest and routing: POIs with typed attributes and categories, CSV imports, geolocation lists, routes avoiding POIs, clustering and delivery optimization. Every request but /health, /ready, /metrics, /tiles, /v1/openapi.json and /docs needs an API key in the `X-API-KEY` header; authenticated answers carry the team's rate-limit headers.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ apiKey: [] }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'A key made in the dashboard (or `waymark key create`).' } },
      headers: { ...RATE_HEADERS, ...MAP_HEADER },
      responses: Object.fromEntries(Object.values(ERROR_RESPONSES).map(([name, r]) => [name, r])),
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
