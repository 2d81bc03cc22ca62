import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY, expect422, expectMessage, expectRateHeaders } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
const ids = { poi: '', attribute: '', category: '' };

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
  ids.poi = (await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'p', latitude: 10, longitude: 20 } })).body.data.id;
  ids.attribute = (await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: 'a' } })).body.data.id;
  ids.category = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'c' } })).body.data.id;
});
afterAll(() => app.close());

const endpoints: Array<[string, () => string]> = [
  ['POST', () => '/v1/pois'],
  ['PUT', () => `/v1/pois/${ids.poi}`],
  ['POST', () => '/v1/attributes'],
  ['PUT', () => `/v1/attributes/${ids.attribute}`],
  ['POST', () => '/v1/categories'],
  ['PUT', () => `/v1/categories/${ids.category}`],
];

describe.each(endpoints)('%s body errors', (method, path) => {
  it('400 for a body that is not valid JSON', async () => {
    for (const raw of ['{broken', '{"name": "x",}', "{'name': 'x'}", '', 'nul']) {
      const res = await api(app, method, path(), { key: team.key, body: raw });
      expect(res.status, JSON.stringify(raw)).toBe(400);
      expectMessage(res, 400);
      expect(Object.keys(res.body)).toEqual(['message']);
      expectRateHeaders(res);
    }
  });

  it('400 for JSON that is not an object', async () => {
    for (const raw of ['[]', '[{"name":"x"}]', '"name"', '42', 'null', 'true']) {
      const res = await api(app, method, path(), { key: team.key, body: raw });
      expect(res.status, raw).toBe(400);
      expect(Object.keys(res.body)).toEqual(['message']);
    }
  });

  it('400 for a content type other than JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
      const res = await api(app, method, path(), { key: team.key, body: '{"name":"ok_name","latitude":1,"longitude":1}', headers: { 'content-type': type } });
      expect(res.status, type).toBe(400);
      expect(Object.keys(res.body)).toEqual(['message']);
    }
  });

  it('accepts application/json with a charset', async () => {
    const res = await api(app, method, path(), {
      key: team.key,
      body: '{}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    // An empty object is valid JSON: it gets past the 400 (POST then misses required fields: 422).
    expect(res.status).toBe(method === 'POST' ? 422 : 200);
  });

  it('413 for a body over 1 MB', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), latitude: 1, longitude: 1 });
    const res = await api(app, method, path(), { key: team.key, body: big });
    expect(res.status).toBe(413);
    expectMessage(res, 413);
  });
});

describe('body limits', () => {
  it('a body just under 1 MB is read (and then validated)', async () => {
    const body = JSON.stringify({ name: 'y'.repeat(1000 * 1000), latitude: 1, longitude: 1 });
    const res = await api(app, 'POST', '/v1/pois', { key: team.key, body });
    expect422(res, ['name']);
  });

  it('the server keeps serving after refusing a large body', async () => {
    const big = 'z'.repeat(3 * 1024 * 1024);
    const res = await api(app, 'POST', '/v1/categories', { key: team.key, body: big });
    expect(res.status).toBe(413);
    expect((await api(app, 'GET', '/v1/categories', { key: team.key })).status).toBe(200);
  });
});

describe('unknown fields are 422', () => {
  it.each([
    ['POST', '/v1/pois', { name: 'p', latitude: 1, longitude: 1, colour: 'red' }, ['colour']],
    ['POST', '/v1/attributes', { name: 'ok', kind: 'number' }, ['kind']],
    ['POST', '/v1/categories', { name: 'ok', description: 'd' }, ['description']],
  ])('%s %s', async (method, path, body, fields) => {
    expect422(await api(app, method, path, { key: team.key, body }), fields);
  });

  it('on updates too', async () => {
    expect422(await api(app, 'PUT', `/v1/pois/${ids.poi}`, { key: team.key, body: { nme: 'typo' } }), ['nme']);
    expect422(await api(app, 'PUT', `/v1/attributes/${ids.attribute}`, { key: team.key, body: { nme: 'typo' } }), ['nme']);
    expect422(await api(app, 'PUT', `/v1/categories/${ids.category}`, { key: team.key, body: { nme: 'typo' } }), ['nme']);
  });
});

describe('hostile bodies never cause a 500', () => {
  it('NUL characters in any string are 422 at their path', async () => {
    expect422(await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'a\u0000b', latitude: 1, longitude: 1 } }), ['name']);
    expect422(await api(app, 'PUT', `/v1/pois/${ids.poi}`, { key: team.key, body: { name: '\u0000' } }), ['name']);
    expect422(await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'ok', latitude: 1, longitude: 1, attributes: { a: 'x\u0000' } } }), [
      'attributes.a',
    ]);
    expect422(await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'nul\u0000' } }), ['name']);
    expect422(await api(app, 'PUT', `/v1/categories/${ids.category}`, { key: team.key, body: { name: 'nul\u0000' } }), ['name']);
    expect422(await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: 'nul\u0000' } }), ['name']);
    expect((await api(app, 'GET', `/v1/pois/${ids.poi}`, { key: team.key })).body.data.name).toBe('p');
  });

  it('unpaired surrogate escapes are 422 at their path, stored nowhere', async () => {
    // Valid JSON, but jsonb refuses them and text would keep U+FFFD in their place.
    for (const sequence of ['\\ud800', '\\udfff', 'x\\udc00y']) {
      const attr = `{"name":"s","latitude":1,"longitude":1,"attributes":{"a":"${sequence}"}}`;
      expect422(await api(app, 'POST', '/v1/pois', { key: team.key, body: attr }), ['attributes.a']);
      expect422(await api(app, 'PUT', `/v1/pois/${ids.poi}`, { key: team.key, body: `{"name":"${sequence}"}` }), ['name']);
      expect422(await api(app, 'POST', '/v1/categories', { key: team.key, body: `{"name":"c${sequence}"}` }), ['name']);
    }
    // A pair is one character, and fine.
    const pair = await api(app, 'POST', '/v1/categories', { key: team.key, body: '{"name":"pin \\ud83d\\udccd"}' });
    expect(pair.status).toBe(201);
    expect(pair.body.data.name).toBe('pin \u{1F4CD}');
    expect((await api(app, 'GET', `/v1/pois/${ids.poi}`, { key: team.key })).body.data.name).toBe('p');
  });

  it('a body that is not UTF-8 is 400', async () => {
    for (const bytes of [Buffer.from('{"name":"\xff\xfe"}', 'latin1'), Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d])]) {
      const res = await fetch(`${app.url}/v1/categories`, {
        method: 'POST',
        headers: { 'X-API-KEY': team.key, 'content-type': 'application/json' },
        body: bytes,
      });
      expect(res.status).toBe(400);
      expect((await res.json()).message).toMatch(/not valid JSON/);
    }
  });

  it('__proto__ as an unknown field is a plain 422 field', async () => {
    const raw = '{"name":"p","latitude":1,"longitude":1,"__proto__":{"x":1}}';
    const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: raw });
    expect422(res, ['__proto__']);
    expect422(await api(app, 'POST', '/v1/categories', { key: team.key, body: '{"name":"c2","__proto__":1}' }), ['__proto__']);
    expect422(await api(app, 'POST', '/v1/pois', { key: team.key, body: '{"name":"p","latitude":1,"longitude":1,"attributes":{"__proto__":1}}' }), [
      'attributes.__proto__',
    ]);
  });

  it('deeply nested JSON is refused cleanly', async () => {
    const depth = 100_000;
    const raw = `{"name":"deep","latitude":1,"longitude":1,"x":${'{"a":'.repeat(depth)}"\\u0000"${'}'.repeat(depth)}}`;
    const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: raw });
    expect([400, 413, 422]).toContain(res.status);
    expect((await api(app, 'GET', '/v1/categories', { key: team.key })).status).toBe(200);
  });
});

describe('answers given before the body is read', () => {
  // Each case answers without reading the body (unknown path, no key, no permission, unknown id, 413
  // by Content-Length); the next request on the same keep-alive connection must still be served.
  const big = JSON.stringify({ name: 'n'.repeat(900_000) });
  const cases: Array<[string, () => Promise<{ status: number }>, number]> = [
    ['unknown path', () => api(app, 'POST', '/v1/nowhere', { key: team.key, body: big }), 404],
    ['405', () => api(app, 'POST', `/v1/pois/${ids.poi}`, { key: team.key, body: big }), 405],
    ['no key', () => api(app, 'POST', '/v1/categories', { body: big }), 401],
    ['unknown id', () => api(app, 'PUT', '/v1/categories/01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: team.key, body: big }), 404],
    ['over the limit', () => api(app, 'POST', '/v1/categories', { key: team.key, body: big + ' '.repeat(300_000) }), 413],
  ];
  it.each(cases)('%s keeps the connection usable', async (_label, request, status) => {
    for (let i = 0; i < 3; i++) {
      expect((await request()).status).toBe(status);
      const next = await api(app, 'GET', '/v1/categories?limit=1', { key: team.key });
      expect(next.status).toBe(200);
    }
  });
});
