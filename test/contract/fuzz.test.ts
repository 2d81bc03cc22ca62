// Property-based fuzzing of every operation of the OpenAPI document against the real service (map,
// database, worker pool): requests generated from the document's own schemas — valid ones, valid ones
// with a field made hostile (subnormals, huge numbers, long strings, lone surrogates, huge arrays, deep
// nesting, wrong types), raw bodies that are not JSON objects — with random query strings, path ids and
// headers. The property: the answer is one the document declares for the operation (status, headers,
// body: test/support/contract.ts), never a 5xx, never a hang, never a reset connection.
// A fixed seed and a bounded count run with `npm test`; `npm run fuzz` runs more (WAYMARK_FUZZ_RUNS,
// WAYMARK_FUZZ_SEED).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { makeTeam, startTestApp } from '../support/app.js';
import { checkResponse, contractDocument } from '../support/contract.js';

type Json = Record<string, any>;

const RUNS = Number(process.env.WAYMARK_FUZZ_RUNS ?? 25);
const SEED = Number(process.env.WAYMARK_FUZZ_SEED ?? 20260219);
/** A request not answered in this time is a hang. */
const HANG_MS = 20_000;

const doc = contractDocument();
const deref = (s: Json): Json =>
  typeof s?.$ref === 'string'
    ? s.$ref
        .slice(2)
        .split('/')
        .reduce((n: Json, k: string) => n[k], doc)
    : s;

// ---- hostile values ---------------------------------------------------------------------------------

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};
const hostileNumber = fc.constantFrom(5e-324, -5e-324, 2.2250738585072014e-308, -0, 1e308, -1e308, 2 ** 53 + 2, 0.1 + 0.2, 1e-7, 4294967296, -2147483649);
const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff x',
    '%00',
    '../../etc/passwd',
    '__proto__',
    'constructor',
    '1e999',
    'NaN',
    '-0',
    'true',
    'null',
    '🙂'.repeat(300),
  ),
  fc.string({ maxLength: 40 }),
  fc.nat({ max: 70_000 }).map((n) => 'x'.repeat(n)),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileNumber,
  hostileString,
  fc.constantFrom(null, true, false, [], {}, [null], { __proto__: 1 }, Object.fromEntries([['__proto__', { a: 1 }]])),
  fc.constantFrom(2_000, 20_000, 120_000).map((n) => new Array(n).fill(0)),
  fc.constantFrom(2_001, 100_000).map((n) => Array.from({ length: n }, (_, i) => ({ latitude: 47.1 + (i % 100) / 1000, longitude: 9.5 }))),
  fc.constantFrom(100, 1_500).map((d) => nested(d)),
  fc.jsonValue({ maxDepth: 3 }),
);

// ---- values from the document's schemas -------------------------------------------------------------

const ULID_RE = '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$';
const ulidArb = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);

/** Liechtenstein's roads, where routes, clusters and plans get computed, or anywhere. */
const coordinate = (key: string, s: Json) =>
  key === 'latitude'
    ? fc.oneof(fc.double({ min: 47.05, max: 47.27, noNaN: true }), fc.double({ min: s.minimum ?? -90, max: s.maximum ?? 90, noNaN: true }))
    : fc.oneof(fc.double({ min: 9.47, max: 9.63, noNaN: true }), fc.double({ min: s.minimum ?? -180, max: s.maximum ?? 180, noNaN: true }));

function fromSchema(raw: Json, ctx: { ids: string[] }, key = '', depth = 0): fc.Arbitrary<unknown> {
  const s = deref(raw);
  if (depth > 6) return fc.constant(null);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.anyOf || s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf).map((x: Json) => fromSchema(x, ctx, key, depth + 1)));
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((t) => fromSchema({ ...s, type: t }, ctx, key, depth + 1)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1000, -1e9), max: Math.min(s.maximum ?? 100_000, 1e9) });
    case 'number':
      if (key === 'latitude' || key === 'longitude') return coordinate(key, s);
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'string':
      if (s.pattern === ULID_RE || key.endsWith('_id') || key === 'poi_ids')
        return fc.oneof(fc.constantFrom(...ctx.ids), ulidArb, fc.string({ maxLength: 30 }));
      if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 20, 20) });
    case 'array': {
      if (s.prefixItems) return fc.tuple(...s.prefixItems.map((x: Json) => fromSchema(x, ctx, key, depth + 1)));
      return fc.array(fromSchema(s.items ?? {}, ctx, key, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 6, 6) });
    }
    case 'object': {
      const props: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries<Json>(s.properties ?? {})) props[k] = fromSchema(v, ctx, k, depth + 1);
      const record = fc.record(props, { requiredKeys: s.required ?? [] });
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const extra = fc.dictionary(
          fc.oneof(fc.constantFrom('color', 'size', 'open', '__proto__'), fc.string({ maxLength: 10 })),
          fromSchema(s.additionalProperties, ctx, '', depth + 1),
          { maxKeys: 3 },
        );
        return fc.tuple(record, extra).map(([a, b]) => ({ ...b, ...a }));
      }
      return record;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A valid-looking value with one spot made hostile: a field replaced, removed or added, at any depth. */
function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (value === null || typeof value !== 'object') return hostileValue;
  const keys = Object.keys(value);
  return fc.oneof(
    hostileValue,
    fc
      .tuple(fc.constantFrom(...(keys.length ? keys : ['x'])), hostileValue)
      .map(([k, v]) => (Array.isArray(value) ? Object.assign([...value], { [k]: v }) : { ...value, [k]: v })),
    fc.constantFrom(...(keys.length ? keys : ['x'])).map((k) => {
      const copy: any = Array.isArray(value) ? [...value] : { ...value };
      delete copy[k];
      return copy;
    }),
    fc.tuple(fc.string({ maxLength: 12 }), hostileValue).map(([k, v]) => (Array.isArray(value) ? [...value, v] : { ...value, [k]: v })),
    ...(keys.length
      ? [
          fc
            .constantFrom(...keys)
            .chain((k) => mutate((value as any)[k]).map((v) => (Array.isArray(value) ? Object.assign([...value], { [k]: v }) : { ...value, [k]: v }))),
        ]
      : []),
  );
}

// ---- requests ---------------------------------------------------------------------------------------

interface FuzzRequest {
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

const rawBody = fc.oneof(
  fc.constantFrom('', 'null', '[]', '"x"', '{', '{"a":1,}', '\u0000', '{"name": "\ud800"}', 'true'),
  fc.constantFrom(1_000, 50_000, 200_000).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
  fc.constantFrom(1_000, 50_000).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  fc.string({ maxLength: 50 }),
);

function queryArb(op: Json, ctx: { ids: string[] }): fc.Arbitrary<string> {
  const params = (op.parameters ?? []).filter((p: Json) => p.in === 'query');
  const one = params.map((p: Json) => {
    const valid =
      p.style === 'deepObject'
        ? fc
            .dictionary(
              fc.constantFrom('color', 'size', 'open', 'nope', '', '__proto__'),
              fc.oneof(fc.constantFrom('red', '4.50', 'yes', '1e3'), fc.string({ maxLength: 8 })),
              { maxKeys: 2 },
            )
            .map((d) => Object.entries(d).map(([k, v]) => [`${p.name}[${k}]`, v]))
        : fromSchema(p.schema, ctx, p.name).map((v) => [[p.name, String(v)]]);
    const hostile = hostileString.map((v) => [[p.name, v.slice(0, 3000)]]);
    return fc.option(fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostile }), { nil: [] as string[][] });
  });
  const unknown = fc.option(
    fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })).map(([k, v]) => [[k, v]]),
    { nil: [] as string[][] },
  );
  return fc.tuple(fc.tuple(...one), unknown).map(([pairs, extra]) => new URLSearchParams([...(pairs as string[][][]).flat(), ...extra]).toString());
}

function pathArb(path: string, ctx: { ids: string[]; byPrefix: Record<string, string[]> }): fc.Arbitrary<string> {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  if (!names.length) return fc.constant(path);
  const known = ctx.byPrefix[path.split('/{')[0]] ?? [];
  const id = fc.oneof(
    { weight: 3, arbitrary: known.length ? fc.constantFrom(...known) : ulidArb },
    { weight: 1, arbitrary: ulidArb },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom('..', '%2F', '%00', '%E0%A4%A', 'grp_', 'conv_x', 'swagger-ui-bundle.js', 'start.js'),
        fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
      ),
    },
  );
  return fc.tuple(...names.map(() => id)).map((values) => names.reduce((p, n, i) => p.replace(`{${n}}`, values[i]), path));
}

function headersArb(key: string): fc.Arbitrary<Record<string, string>> {
  return fc
    .record({
      key: fc.oneof({ weight: 8, arbitrary: fc.constant(key) }, { weight: 1, arbitrary: fc.constantFrom('', 'wm_nope', key.slice(0, -1)) }),
      type: fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/vnd.api+json', 'multipart/form-data', 'application/json; charset=latin1') },
      ),
      extra: fc.option(
        fc.tuple(
          fc.constantFrom('x-request-id', 'accept', 'x-forwarded-for', 'if-none-match'),
          fc.string({ maxLength: 200 }).map((s) => s.replace(/[^\x20-\x7e]/g, '?')),
        ),
        { nil: undefined },
      ),
    })
    .map(({ key: k, type, extra }) => ({ ...(k ? { 'X-API-KEY': k } : {}), 'content-type': type, ...(extra ? { [extra[0]]: extra[1] } : {}) }));
}

function bodyArb(op: Json, ctx: { ids: string[] }): fc.Arbitrary<string | FormData | undefined> {
  const content = op.requestBody?.content ?? {};
  if (content['multipart/form-data']) {
    const csv = fc.oneof(
      fc.constantFrom(
        'name,latitude,longitude\nA,47.1,9.5\n',
        'name;latitude;longitude;color\nB;47.2;9.52;red\n',
        'nope\n',
        '',
        'name,latitude,longitude\n\u0000,1e999,-0\n',
      ),
      fc.string({ maxLength: 200 }),
    );
    return fc
      .record({
        csv: fc.option(csv, { nil: undefined }),
        flag: fc.option(fc.oneof(fc.constantFrom('true', 'false', 'yes', '2'), fc.string({ maxLength: 5 })), { nil: undefined }),
        extra: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        raw: fc.option(rawBody, { nil: undefined, freq: 6 }),
      })
      .map(({ csv, flag, extra, raw }) => {
        if (raw !== undefined) return raw;
        const form = new FormData();
        if (flag !== undefined) form.append('create_missing_attributes', flag);
        if (extra !== undefined) form.append(extra || 'x', 'y');
        if (csv !== undefined) form.append('file', new Blob([csv], { type: 'text/csv' }), 'fuzz.csv');
        return form;
      });
  }
  const json = content['application/json'];
  if (!json) return fc.constant(undefined);
  const valid = fromSchema(json.schema, ctx);
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: valid.chain(mutate).map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: rawBody },
  );
}

// ---- the run ----------------------------------------------------------------------------------------

let app: App & { url: string };
let key: string;
const ctx = { ids: [] as string[], byPrefix: {} as Record<string, string[]> };

async function call(method: string, r: FuzzRequest): Promise<{ status: number; headers: Headers; text: string }> {
  const url = `${app.url}${r.path}${r.query ? `?${r.query}` : ''}`;
  const headers = { ...r.headers };
  if (r.body instanceof FormData) delete headers['content-type'];
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: r.body, signal: AbortSignal.timeout(HANG_MS) });
  } catch (err) {
    const cause =
      (err as Error).name === 'TimeoutError'
        ? `no answer in ${HANG_MS} ms (a hang)`
        : `connection failed (a reset?): ${(err as Error).message} ${String((err as any).cause ?? '')}`;
    throw new Error(`${method} ${url}: ${cause}`);
  }
  const text = await res.text().catch((err: Error) => {
    throw new Error(`${method} ${url}: the body broke off (a reset?): ${err.message}`);
  });
  return { status: res.status, headers: res.headers, text };
}

beforeAll(async () => {
  // With the map and the worker pool: routing requests are computed, not answered 503.
  app = await startTestApp({ WAYMARK_JOBS: 'off' });
  const team = await makeTeam(app);
  key = team.key;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, path).toBe(201);
    return (await res.json()) as Json;
  };
  const category = (await post('/v1/categories', { name: 'Cafés' })).data.id;
  const attributes = [(await post('/v1/attributes', { name: 'color' })).data.id, (await post('/v1/attributes', { name: 'size', type: 'number' })).data.id];
  await post('/v1/attributes', { name: 'open', type: 'boolean' });
  const pois: string[] = [];
  for (const [lat, lon] of [
    [47.1393, 9.5215],
    [47.165, 9.5093],
    [47.152, 9.515],
  ]) {
    pois.push(
      (await post('/v1/pois', { name: `P ${lat}`, latitude: lat, longitude: lon, category_id: category, attributes: { color: 'red', size: 2 } })).data.id,
    );
  }
  const group = await post('/v1/groups', { name: 'Drivers', contacts: [{ username: 'anna' }] });
  const conversation = await post('/v1/conversations', { contact_id: 'ben' });
  ctx.ids = [category, ...attributes, ...pois];
  ctx.byPrefix = {
    '/v1/pois': pois,
    '/v1/categories': [category],
    '/v1/attributes': attributes,
    '/v1/groups': [group.id],
    '/v1/conversations': [conversation.id, group.conversation_id],
    '/v1/imports': [],
    '/docs/assets': ['swagger-ui-bundle.js', 'start.js', 'docs.css'],
  };
}, 180_000);

afterAll(async () => {
  await app?.close();
});

describe(`fuzzing every documented operation (seed ${SEED}, ${RUNS} runs each)`, () => {
  const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

  for (const { path, method, op } of operations) {
    it(
      `${method} ${path}`,
      async () => {
        const request = fc.record({
          path: pathArb(path, ctx),
          query: queryArb(op, ctx),
          headers: fc.constant(null).chain(() => headersArb(key)),
          body: bodyArb(op, ctx),
        }) as fc.Arbitrary<FuzzRequest>;
        await fc.assert(
          fc.asyncProperty(request, async (r) => {
            const res = await call(method, r);
            expect(res.status, `${method} ${r.path}?${r.query} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
            checkResponse(method, r.path, res.status, res.headers, res.text);
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
      },
      Math.max(60_000, RUNS * 2_000),
    );
  }
});
