// The OpenAPI document: valid and lint-clean OpenAPI 3.1, one operation for every route the router
// serves (and none it does not), the same as docs/openapi.json and /v1/openapi.json, and a contract
// check that does fail on answers the document does not declare.
import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRouter, type App } from '../../src/app.js';
import { UsageRecorder } from '../../src/auth/usage.js';
import { connect } from '../../src/db/client.js';
import { isInternal } from '../../src/http/openapi.js';
import { projectRoot } from '../../src/lib/paths.js';
import { API_ONLY } from '../api/helpers.js';
import { api, startTestApp } from '../support/app.js';
import { checkResponse, ContractError, contractDocument } from '../support/contract.js';

const doc = contractDocument();
const operations = (d: Record<string, any>) =>
  Object.entries(d.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();

describe('the OpenAPI document', () => {
  it("lints clean with Redocly's recommended-strict rules (which include the OpenAPI 3.1 structure)", async () => {
    const config = await createConfig({ extends: ['recommended-strict'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${projectRoot}/docs/openapi.json`, config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("describes every route the router serves, and nothing else; the dashboard's are internal", () => {
    const sql = connect('postgres://127.0.0.1:1/unused', 1);
    const router = buildRouter(sql, new UsageRecorder(sql));
    void sql.end({ timeout: 0 });
    const served = router.routes
      .filter((r) => !isInternal(r.path))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const undocumented = served.filter((op) => !operations(doc).includes(op));
    expect(undocumented, 'routes without an operation: give each an `openapi` field (docs/api.md, "How the document cannot drift")').toEqual([]);
    expect(operations(doc)).toEqual(served);
    // The operator's routes are in it, though a running service makes them from its configuration.
    expect(served).toEqual(expect.arrayContaining(['GET /ready', 'GET /metrics', 'GET /tiles/{z}/{x}/{tile}', 'POST /v1/optimizations']));
    expect(router.routes.filter((r) => isInternal(r.path)).every((r) => r.path.startsWith('/dashboard/'))).toBe(true);
  });

  it('is version 1.0.0 with the X-API-KEY scheme, the rate-limit headers and the shared errors', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-KEY' }));
    const create = doc.paths['/v1/pois'].post;
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '401', '403', '408', '413', '422', '429', '431', '503']);
    expect(Object.keys(create.responses['201'].headers).sort()).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Waymark-Map']);
    // Which map answered: on every answer of a process with a map, so never required.
    expect(create.responses['201'].headers['X-Waymark-Map']).toEqual({ $ref: '#/components/headers/X-Waymark-Map' });
    expect(doc.components.headers['X-Waymark-Map'].schema.pattern).toBe('^[0-9a-f]{12}$');
    expect(doc.components.responses.TooManyRequests.headers['Retry-After'].required).toBe(true);
    expect(doc.paths['/v1/imports'].post.requestBody.content['multipart/form-data'].schema).toEqual({ $ref: '#/components/schemas/ImportUpload' });
    expect(doc.paths['/v1/routes'].post.requestBody.content['application/json'].example.waypoints).toHaveLength(2);
  });

  it('is what the build wrote to docs/openapi.json', () => {
    expect(JSON.parse(readFileSync(`${projectRoot}/docs/openapi.json`, 'utf8'))).toEqual(doc);
  });
});

describe('the contract check', () => {
  const headers = (h: Record<string, string>) => new Headers({ 'content-type': 'application/json', ...h });
  const rate = { 'x-ratelimit-limit': '-1', 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '1767225600' };

  it('fails on a status, a header or a body the document does not declare', () => {
    const category = {
      id: '01JH8Z6Q4W3Y9V5T2R1P0N8M7K',
      name: 'Museums',
      created_at: '2026-01-31T09:30:00.123000Z',
      updated_at: '2026-01-31T09:30:00.123000Z',
    };
    expect(() => checkResponse('GET', '/v1/categories/x', 200, headers(rate), JSON.stringify({ data: category }))).not.toThrow();
    expect(() => checkResponse('GET', '/v1/categories/x', 201, headers(rate), JSON.stringify({ data: category }))).toThrow(/status not declared/);
    expect(() => checkResponse('GET', '/v1/categories/x', 200, headers({}), JSON.stringify({ data: category }))).toThrow(/required header X-RateLimit-Limit/);
    expect(() => checkResponse('GET', '/v1/categories/x', 200, headers(rate), JSON.stringify({ data: { ...category, created_at: '2026-01-31' } }))).toThrow(
      ContractError,
    );
    expect(() => checkResponse('DELETE', '/v1/categories/x', 204, headers(rate), '{}')).toThrow(/a body where the document declares none/);
    expect(() => checkResponse('POST', '/v1/routes', 422, headers(rate), JSON.stringify({ message: 'x', errors: { a: [] } }))).toThrow(ContractError);
    // The public, non-JSON and operator answers too.
    const tile = (h: Record<string, string>) =>
      new Headers({ 'content-type': 'application/vnd.mapbox-vector-tile', 'cache-control': 'public, max-age=300', vary: 'Accept-Encoding', ...h });
    expect(() => checkResponse('GET', '/tiles/14/8626/5761.mvt', 200, tile({ etag: '"x"' }), '\u001a\u0002')).not.toThrow();
    expect(() => checkResponse('GET', '/tiles/14/8626/5761.mvt', 200, tile({}), '\u001a\u0002')).toThrow(/required header ETag/);
    expect(() => checkResponse('GET', '/tiles/14/0/0.mvt', 204, tile({}), 'x')).toThrow(/a body where the document declares none/);
    expect(() => checkResponse('GET', '/metrics', 200, headers({}), '{}')).toThrow(/content type application\/json not declared/);
    expect(() => checkResponse('GET', '/metrics', 403, headers({}), '{"message":"x"}')).toThrow(/status not declared/);
    expect(() =>
      checkResponse('GET', '/ready', 503, headers({ 'cache-control': 'no-store' }), JSON.stringify({ message: 'The database is unavailable.' })),
    ).toThrow(ContractError);
    expect(() => checkResponse('GET', '/v1/optimizations/x', 200, headers(rate), JSON.stringify({ data: { id: 'x' } }))).toThrow(ContractError);
  });
});

describe('served', () => {
  let app: App & { url: string };
  beforeAll(async () => {
    app = await startTestApp(API_ONLY);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('GET /v1/openapi.json answers the document without a key', async () => {
    const res = await api(app, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc);
  });

  it("GET /docs answers the reference page under the dashboard's CSP, its files from this server", async () => {
    const res = await api(app, 'GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const scripts = [...String(res.body).matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/start.js']);
    for (const src of scripts) expect((await api(app, 'GET', src)).status).toBe(200);
    expect((await api(app, 'GET', '/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });
});
