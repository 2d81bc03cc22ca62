import pino from 'pino';
import { createKey, createTeam, type TeamInput } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { checkResponse } from './contract.js';

export const TEST_DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${process.env.WAYMARK_TEST_DB}`;

/** The real service on a free port against the test database. */
export async function startTestApp(env: Record<string, string> = {}): Promise<App & { url: string }> {
  const config = loadConfig({ ...process.env, DATABASE_URL: TEST_DATABASE_URL, PORT: '0', HOST: '127.0.0.1', ...env });
  const app = await startApp(config, pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  return Object.assign(app, { url: `http://127.0.0.1:${app.port}` });
}

export interface TestTeam {
  teamId: string;
  key: string;
  /** Makes another key of the same team. */
  keyWith(permissions: string, opts?: { expiresAt?: Date }): Promise<string>;
}

let seq = 0;

/** A team with a full-permission key; enterprise by default so the rate limit does not get in the way. */
export async function makeTeam(app: App, input: Partial<TeamInput> = {}, permissions = 'all'): Promise<TestTeam> {
  const team = await createTeam(app.sql, { name: `team ${++seq}`, plan: 'enterprise', ...input });
  const keyWith = async (perms: string, opts: { expiresAt?: Date } = {}) =>
    (await createKey(app.sql, { teamId: team.id, name: `key ${++seq}`, permissions: parsePermissionList(perms), expiresAt: opts.expiresAt })).key;
  return { teamId: team.id, key: await keyWith(permissions), keyWith };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A JSON request to the running app. `body` objects are sent as JSON; strings are sent raw. */
export async function api<T = any>(
  app: { url: string },
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.key ? { 'X-API-KEY': opts.key } : {}), ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(app.url + path, { method, headers, body });
  const text = await res.text();
  checkResponse(method, path, res.status, res.headers, text);
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: the test sees the text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/**
 * `fetch` with the answer checked against the OpenAPI document as `api` checks it, for tests that need
 * the Response itself (binary tiles, the metrics text, another address than app.url). The body is read
 * here; the Response handed back carries the same bytes.
 */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  checkResponse(init.method ?? 'GET', url, res.status, res.headers, new TextDecoder().decode(bytes));
  const empty = res.status === 204 || res.status === 304 || (init.method ?? 'GET') === 'HEAD';
  return new Response(empty ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
}
