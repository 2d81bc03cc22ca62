// Hostile input on every endpoint that reads a number, a string or an array: the answer is a 4xx that
// names the field (or a 2xx when the value is acceptable), never a 5xx. Values are spliced into the
// JSON text as written, so that `1e400`, `-0` and subnormals reach the parser exactly as a client sent them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testMapDir } from '../geo-api/support.js';
import { api, makeTeam, startTestApp, type ApiResponse, type TestTeam } from '../support/app.js';

let app: App & { url: string };
let team: TestTeam;
const ids = { poi: '', attribute: '', renamed: '', category: '', group: '', conversation: '' };

const VADUZ = { latitude: 47.1393, longitude: 9.5215 };
const SCHAAN = { latitude: 47.165, longitude: 9.5093 };

beforeAll(async () => {
  app = await startTestApp({ WAYMARK_JOBS: 'off', WAYMARK_MAP: await testMapDir() });
  team = await makeTeam(app);
  ids.attribute = (await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: 'num', type: 'number' } })).body.data.id;
  ids.renamed = (await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: 'renamed' } })).body.data.id;
  ids.category = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'c' } })).body.data.id;
  ids.poi = (await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'p', ...VADUZ, attributes: { num: 1 } } })).body.data.id;
  // A POI stored at a subnormal latitude must not break the distance queries of its team afterwards.
  expect((await api(app, 'POST', '/v1/pois', { key: team.key, body: '{"name":"tiny","latitude":5e-324,"longitude":-0}' })).status).toBe(201);
  ids.group = (await api(app, 'POST', '/v1/groups', { key: team.key, body: { name: 'g' } })).body.id;
  ids.conversation = (await api(app, 'POST', '/v1/conversations', { key: team.key, body: { contact_id: 'c1' } })).body.id;
}, 120_000);
afterAll(() => app?.close());

/** Numbers as a client may write them, and things that are not numbers at all. */
const HOSTILE = [
  '5e-324',
  '-5e-324',
  '4.9e-324',
  '2.2250738585072014e-308',
  '1e-310',
  '1e-200',
  '-0',
  '-0.0',
  '0e-999',
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '"NaN"',
  '"Infinity"',
  '"-Infinity"',
  '"47.1"',
  '"1"',
  '"0x10"',
  '" 1 "',
  '""',
  'true',
  'null',
  '[]',
  '[1]',
  '{}',
  '{"a":1}',
];

interface BodyCase {
  label: string;
  method: string;
  path: () => string;
  /** The body's JSON text with `$` where the hostile value goes. */
  template: string;
  field: string;
}

const at = (p: { latitude: number; longitude: number }) => `{"latitude":${p.latitude},"longitude":${p.longitude}}`;
const routeBody = (wp0lat: string, wp0lon: string, avoid: Record<string, string>) =>
  `{"waypoints":[{"latitude":${wp0lat},"longitude":${wp0lon}},${at(SCHAAN)}],"avoid":{${Object.entries(avoid)
    .map(([k, v]) => `"${k}":${v}`)
    .join(',')}}}`;
const avoid = { latitude: '47.15', longitude: '9.515', distance: '2000', radius: '50' };
const clusterStops = `[${at(VADUZ)},${at(SCHAAN)},{"latitude":47.15,"longitude":9.515}]`;

const bodyCases: BodyCase[] = [
  ...['latitude', 'longitude'].map((f) => ({
    label: `POST /v1/pois ${f}`,
    method: 'POST',
    path: () => '/v1/pois',
    field: f,
    template: `{"name":"h",${f === 'latitude' ? '"latitude":$,"longitude":9.5' : '"latitude":47.1,"longitude":$'}}`,
  })),
  {
    label: 'POST /v1/pois attributes.num',
    method: 'POST',
    path: () => '/v1/pois',
    field: 'attributes.num',
    template: '{"name":"h","latitude":47.1,"longitude":9.5,"attributes":{"num":$}}',
  },
  { label: 'POST /v1/pois name', method: 'POST', path: () => '/v1/pois', field: 'name', template: '{"name":$,"latitude":47.1,"longitude":9.5}' },
  { label: 'PUT /v1/pois latitude', method: 'PUT', path: () => `/v1/pois/${ids.poi}`, field: 'latitude', template: '{"latitude":$}' },
  { label: 'PUT /v1/pois longitude', method: 'PUT', path: () => `/v1/pois/${ids.poi}`, field: 'longitude', template: '{"longitude":$}' },
  { label: 'PUT /v1/pois attributes.num', method: 'PUT', path: () => `/v1/pois/${ids.poi}`, field: 'attributes.num', template: '{"attributes":{"num":$}}' },
  { label: 'PUT /v1/pois category_id', method: 'PUT', path: () => `/v1/pois/${ids.poi}`, field: 'category_id', template: '{"category_id":$}' },
  { label: 'POST /v1/attributes type', method: 'POST', path: () => '/v1/attributes', field: 'type', template: '{"name":"t","type":$}' },
  { label: 'PUT /v1/attributes name', method: 'PUT', path: () => `/v1/attributes/${ids.renamed}`, field: 'name', template: '{"name":$}' },
  { label: 'POST /v1/categories name', method: 'POST', path: () => '/v1/categories', field: 'name', template: '{"name":$}' },
  { label: 'PUT /v1/categories name', method: 'PUT', path: () => `/v1/categories/${ids.category}`, field: 'name', template: '{"name":$}' },
  {
    label: 'POST /v1/routes waypoints.0.latitude',
    method: 'POST',
    path: () => '/v1/routes',
    field: 'waypoints.0',
    template: routeBody('$', String(VADUZ.longitude), avoid),
  },
  {
    label: 'POST /v1/routes waypoints.0.longitude',
    method: 'POST',
    path: () => '/v1/routes',
    field: 'waypoints.0',
    template: routeBody(String(VADUZ.latitude), '$', avoid),
  },
  ...Object.keys(avoid).map((k) => ({
    label: `POST /v1/routes avoid.${k}`,
    method: 'POST',
    path: () => '/v1/routes',
    field: `avoid.${k}`,
    template: routeBody(String(VADUZ.latitude), String(VADUZ.longitude), { ...avoid, [k]: '$' }),
  })),
  {
    label: 'POST /v1/routes profile',
    method: 'POST',
    path: () => '/v1/routes',
    field: 'profile',
    template: `{"waypoints":[${at(VADUZ)},${at(SCHAAN)}],"profile":$}`,
  },
  {
    label: 'POST /v1/routes/clusters stops.1.latitude',
    method: 'POST',
    path: () => '/v1/routes/clusters',
    field: 'stops.1',
    template: `{"stops":[${at(VADUZ)},{"latitude":$,"longitude":9.5},${at(SCHAAN)}],"clusters":2}`,
  },
  {
    label: 'POST /v1/routes/clusters clusters',
    method: 'POST',
    path: () => '/v1/routes/clusters',
    field: 'clusters',
    template: `{"stops":${clusterStops},"clusters":$}`,
  },
  {
    label: 'POST /v1/routes/clusters max_stops',
    method: 'POST',
    path: () => '/v1/routes/clusters',
    field: 'max_stops',
    template: `{"stops":${clusterStops},"max_stops":$}`,
  },
  {
    label: 'POST /v1/routes/clusters balanced',
    method: 'POST',
    path: () => '/v1/routes/clusters',
    field: 'balanced',
    template: `{"stops":${clusterStops},"clusters":2,"balanced":$}`,
  },
  ...['latitude', 'longitude', 'distance'].map((k) => ({
    label: `POST /v1/routes/clusters pois.${k}`,
    method: 'POST',
    path: () => '/v1/routes/clusters',
    field: `pois.${k}`,
    template: `{"pois":{"latitude":${k === 'latitude' ? '$' : '47.14'},"longitude":${k === 'longitude' ? '$' : '9.52'},"distance":${k === 'distance' ? '$' : '5000'}},"max_stops":2}`,
  })),
  ...[
    ['vehicles.0.start', `{"vehicles":[{"start":{"latitude":$,"longitude":9.5215}}],"stops":[${at(SCHAAN)}]}`],
    ['vehicles.0.capacity', `{"vehicles":[{"start":${at(VADUZ)},"capacity":$}],"stops":[${at(SCHAAN)}]}`],
    ['vehicles.0.time_window', `{"vehicles":[{"start":${at(VADUZ)},"time_window":[$,"2030-01-01T18:00:00Z"]}],"stops":[${at(SCHAAN)}]}`],
    ['stops.0', `{"vehicles":[{"start":${at(VADUZ)}}],"stops":[{"latitude":47.165,"longitude":$}]}`],
    ['stops.0.service', `{"vehicles":[{"start":${at(VADUZ)}}],"stops":[{"latitude":47.165,"longitude":9.5093,"service":$}]}`],
    ['stops.0.demand', `{"vehicles":[{"start":${at(VADUZ)},"capacity":5}],"stops":[{"latitude":47.165,"longitude":9.5093,"demand":$}]}`],
    [
      'stops.0.time_windows',
      `{"vehicles":[{"start":${at(VADUZ)}}],"stops":[{"latitude":47.165,"longitude":9.5093,"time_windows":[["2030-01-01T08:00:00Z",$]]}]}`,
    ],
  ].map(([field, template]) => ({ label: `POST /v1/routes/optimize ${field}`, method: 'POST', path: () => '/v1/routes/optimize', field, template })),
  { label: 'POST /v1/groups name', method: 'POST', path: () => '/v1/groups', field: 'name', template: '{"name":$}' },
  { label: 'PUT /v1/groups archived_at', method: 'PUT', path: () => `/v1/groups/${ids.group}`, field: 'archived_at', template: '{"archived_at":$}' },
  { label: 'POST /v1/conversations contact_id', method: 'POST', path: () => '/v1/conversations', field: 'contact_id', template: '{"contact_id":$}' },
  {
    label: 'PUT /v1/conversations archived_at',
    method: 'PUT',
    path: () => `/v1/conversations/${ids.conversation}`,
    field: 'archived_at',
    template: '{"archived_at":$}',
  },
  {
    label: 'PUT /v1/conversations is_pinned',
    method: 'PUT',
    path: () => `/v1/conversations/${ids.conversation}`,
    field: 'is_pinned',
    template: '{"is_pinned":$}',
  },
  { label: 'POST messages text', method: 'POST', path: () => `/v1/conversations/${ids.conversation}/messages`, field: 'text', template: '{"text":$}' },
];

/** A field path and every path above it: a 422 about a whole location names `waypoints.0`. */
const namesField = (errors: Record<string, unknown>, field: string) =>
  Object.keys(errors).some((k) => k === field || field.startsWith(`${k}.`) || k.startsWith(`${field}.`));

function expectSane(res: ApiResponse, field: string | undefined, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
  expect([200, 201, 204, 400, 404, 413, 422], `${what}: ${JSON.stringify(res.body)}`).toContain(res.status);
  if (res.status >= 400) expect(res.body?.message, what).toBeTypeOf('string');
  if (res.status === 422 && field) expect(namesField(res.body.errors, field), `${what}: ${JSON.stringify(res.body)}`).toBe(true);
}

/** Runs the requests a few at a time: enough to be quick, few enough not to fill the compute queue. */
async function inBatches<T>(items: T[], run: (item: T) => Promise<void>, width = 8): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(run));
}

describe('hostile numbers, strings and types in JSON bodies', () => {
  it.each(bodyCases.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    await inBatches(HOSTILE, async (value) => {
      const body = c.template.replace('$', value);
      const res = await api(app, c.method, c.path(), { key: team.key, body });
      expectSane(res, c.field, `${c.label} = ${value}`);
    });
  });

  it('5e-324 as a coordinate is a 2xx or a 422 at its field, and distance lists still answer', async () => {
    const created = await api(app, 'POST', '/v1/pois', { key: team.key, body: '{"name":"sub","latitude":5e-324,"longitude":5e-324}' });
    expect([201, 422]).toContain(created.status);
    for (const q of [
      'latitude=0&longitude=0&distance=1000',
      'latitude=5e-324&longitude=0&distance=5',
      'latitude=1e-200&longitude=-1e-200',
      `latitude=0&longitude=0&distance=100&category_id=${ids.category}`,
      'latitude=2.2250738585072014e-308&longitude=0&attributes[num]=1',
    ]) {
      const res = await api(app, 'GET', `/v1/pois?${q}`, { key: team.key });
      expect(res.status, `${q}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    const avoidTiny = await api(app, 'POST', '/v1/routes/clusters', {
      key: team.key,
      body: '{"pois":{"latitude":1e-300,"longitude":0,"distance":1000},"clusters":1}',
    });
    expectSane(avoidTiny, 'pois', 'clusters around a tiny point');
  });
});

describe('hostile query strings', () => {
  const numbers = [
    '5e-324',
    '-0',
    '1e308',
    '1e400',
    'NaN',
    'Infinity',
    '-Infinity',
    '0x10',
    '1e2',
    ' 1',
    '1,5',
    '',
    '%00',
    '9'.repeat(400),
    '1.5',
    '-1',
    '%F0%28%8C%28',
  ];
  const cases: Array<[string, string, string]> = [
    ...['limit', 'latitude', 'longitude', 'distance', 'attributes[num]', 'attributes[nope]', 'cursor', 'category_id', 'country_id', 'category_name'].map(
      (p): [string, string, string] => ['/v1/pois', p, p === 'attributes[num]' || p === 'attributes[nope]' ? p.slice(11, -1) : p],
    ),
    ['/v1/attributes', 'limit', 'limit'],
    ['/v1/categories', 'limit', 'limit'],
    ['/v1/categories', 'name', 'name'],
    ['/v1/imports', 'limit', 'limit'],
    ['/v1/geo/countries', 'limit', 'limit'],
    ['/v1/geo/cities', 'country_id', 'country_id'],
    ['/v1/geo/zipcodes', 'city_id', 'city_id'],
    ['/v1/groups', 'limit', 'limit'],
    ['/v1/groups', 'archived', 'archived'],
    ['/v1/conversations', 'limit', 'limit'],
    ['/v1/conversations', 'muted', 'muted'],
  ];
  it.each(cases)('GET %s ?%s=', async (path, param, field) => {
    const extra = param === 'latitude' ? '&longitude=9' : param === 'longitude' ? '&latitude=9' : param === 'distance' ? '&latitude=9&longitude=9' : '';
    await inBatches(numbers, async (value) => {
      const res = await api(app, 'GET', `${path}?${param}=${value}${extra}`, { key: team.key });
      expectSane(res, param.startsWith('attributes') ? `attributes.${field}` : field, `${path}?${param}=${value}`);
    });
  });
});

describe('hostile bodies on every JSON endpoint', () => {
  /** Each endpoint with the body field where a long array hurts most (`$` is the array). */
  const endpoints: Array<[string, () => string, string]> = [
    ['POST', () => '/v1/pois', '{"name":"x","latitude":1,"longitude":1,"attributes":$}'],
    ['PUT', () => `/v1/pois/${ids.poi}`, '{"attributes":$}'],
    ['POST', () => '/v1/attributes', '{"name":$}'],
    ['PUT', () => `/v1/attributes/${ids.renamed}`, '{"name":$}'],
    ['POST', () => '/v1/categories', '{"name":$}'],
    ['PUT', () => `/v1/categories/${ids.category}`, '{"name":$}'],
    ['POST', () => '/v1/routes', '{"waypoints":$}'],
    ['POST', () => '/v1/routes', `{"waypoints":[${at(VADUZ)},${at(SCHAAN)}],"avoid":{"poi_ids":$}}`],
    ['POST', () => '/v1/routes/clusters', '{"stops":$,"clusters":2}'],
    ['POST', () => '/v1/routes/optimize', `{"vehicles":[{"start":${at(VADUZ)}}],"stops":$}`],
    ['POST', () => '/v1/groups', '{"name":"g","contacts":$}'],
    ['PUT', () => `/v1/groups/${ids.group}`, '{"contacts":$}'],
    ['POST', () => '/v1/conversations', '{"contact_id":$}'],
    ['PUT', () => `/v1/conversations/${ids.conversation}`, '{"pinned_message_id":$}'],
    ['POST', () => `/v1/conversations/${ids.conversation}/messages`, '{"text":$}'],
  ];
  const array = (n: number, item: string) => `[${`${item},`.repeat(n - 1)}${item}]`;
  const bodies = (template: string): Array<[string, string | Buffer<ArrayBuffer>, number[]]> => [
    ['not JSON', 'name=x&latitude=1', [400]],
    ['truncated JSON', '{"name":"x","latitude":', [400]],
    ['a JSON array', '[1,2,3]', [400]],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xc0, 0x80, 0x22, 0x7d]), [400]],
    ['overlong UTF-8 NUL', Buffer.from('{"name":"a\xc0\x80b"}', 'latin1'), [400]],
    ['a lone surrogate escape', '{"name":"\\udc00"}', [422]],
    // 10⁶ items do not fit in 1 MB (413); 2·10⁵ do, and the schema refuses them (422).
    ['10⁶ array items', template.replace('$', array(1_000_000, '0')), [413]],
    ['2·10⁵ numbers', template.replace('$', array(200_000, '0')), [422]],
    ['3·10⁴ objects', template.replace('$', array(30_000, '{"latitude":1,"longitude":1}')), [422]],
    ['arrays nested 10⁴ deep', template.replace('$', `${'['.repeat(10_000)}${']'.repeat(10_000)}`), [422]],
    ['objects nested 10⁴ deep', template.replace('$', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`), [422]],
  ];
  it.each(endpoints)('%s %s', async (method, path, template) => {
    const field = /"(\w+)":\$/.exec(template)![1];
    for (const [label, body, statuses] of bodies(template)) {
      const res = await fetch(`${app.url}${path()}`, { method, headers: { 'X-API-KEY': team.key, 'content-type': 'application/json' }, body });
      const text = await res.text();
      const what = `${method} ${path()} with ${label}: ${res.status} ${text.slice(0, 300)}`;
      expect(statuses, what).toContain(res.status);
      const parsed = JSON.parse(text);
      expect(parsed.message).toBeTypeOf('string');
      if (res.status === 422 && typeof body === 'string' && body.includes('$') === false && label.includes('0')) {
        expect(
          Object.keys(parsed.errors).some((k) => k.split('.').includes(field)),
          what,
        ).toBe(true);
      }
    }
  });
});

describe('CSV numbers', () => {
  it('subnormal, huge and odd coordinates in an import are row errors or stored, never a failed import', async () => {
    const rows = [
      'name,latitude,longitude,num',
      `a,0.${'0'.repeat(330)}1,1,1`,
      'b,1e-300,1,1',
      'c,-0,-0,-0',
      'd,NaN,1,1',
      'e,Infinity,1,1',
      `f,${'9'.repeat(400)},1,1`,
      'g,1,1,1e400',
      'h,1,1,5e-324',
      'i,0x10,1,1',
    ];
    const form = new FormData();
    form.append('file', new Blob([rows.join('\n')], { type: 'text/csv' }), 'hostile.csv');
    const res = await fetch(`${app.url}/v1/imports`, { method: 'POST', headers: { 'X-API-KEY': team.key }, body: form });
    expect(res.status).toBe(202);
    const { data } = await res.json();
    // Jobs are off in this process: process the import here, as a worker would.
    const { processImport } = await import('../../src/api/imports/processor.js');
    await processImport(app.sql, data.id);
    const done = (await api(app, 'GET', `/v1/imports/${data.id}`, { key: team.key })).body.data;
    expect(done.status).toBe('completed');
    expect(done.created + done.failed).toBe(rows.length - 1);
    for (const e of done.errors) expect(e.message).toMatch(/^(latitude|longitude|num): /);
    const list = await api(app, 'GET', '/v1/pois?latitude=0&longitude=1&distance=1000&limit=100', { key: team.key });
    expect(list.status).toBe(200);
  });
});
