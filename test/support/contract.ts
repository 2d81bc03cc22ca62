// The contract check every test response goes through (test/support/app.ts `api`, the imports upload):
// the answer must be one the OpenAPI document declares for its operation — the status, the required
// headers with their types, and the body against the status's schema. A response the document does not
// describe fails the test that received it, so the document cannot drift from the service. Each checked
// response is also logged (operation and status) for the suite's coverage report (global-setup.ts).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { apiRoutes } from '../../src/app.js';
import { UsageRecorder } from '../../src/auth/usage.js';
import { connect } from '../../src/db/client.js';
import { openApiDocument } from '../../src/http/openapi.js';

type Json = Record<string, any>;

let built: { doc: Json; ajv: InstanceType<typeof Ajv2020>; templates: Array<{ path: string; re: RegExp }> } | undefined;

/** The document of the routes as this source tree registers them (the same the service answers). */
export function contractDocument(): Json {
  return load().doc;
}

function load() {
  if (built) return built;
  // The routes open no connection until a handler queries: none runs here.
  const sql = connect('postgres://127.0.0.1:1/unused', 1);
  const doc: Json = openApiDocument(apiRoutes(sql, new UsageRecorder(sql)));
  void sql.end({ timeout: 0 });
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const templates = Object.keys(doc.paths).map((path) => ({
    path,
    re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`),
  }));
  // Static segments win over parameters, as in the router: the longest literal match first.
  templates.sort((a, b) => b.path.replace(/\{\w+\}/g, '').length - a.path.replace(/\{\w+\}/g, '').length);
  built = { doc, ajv, templates };
  return built;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The documented operation of a request, if the document has one. */
export function operationOf(method: string, url: string): { path: string; method: string; op: Json } | undefined {
  const { doc, templates } = load();
  const pathname = new URL(url, 'http://x').pathname;
  const m = (method === 'HEAD' ? 'GET' : method).toLowerCase();
  for (const t of templates) {
    if (!t.re.test(pathname)) continue;
    const op = doc.paths[t.path][m];
    if (op) return { path: t.path, method: m, op };
  }
  return undefined;
}

function deref(doc: Json, value: Json): Json {
  if (typeof value?.$ref !== 'string') return value;
  return value.$ref
    .slice(2)
    .split('/')
    .reduce((node: Json, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

const validators = new Map<string, ReturnType<InstanceType<typeof Ajv2020>['compile']>>();

export class ContractError extends Error {}

/**
 * Checks one response against the document; throws a ContractError naming what does not match. Requests
 * the document has no operation for (the dashboard, unknown paths, a method a path does not have) are
 * the router's business and are not checked.
 */
export function checkResponse(method: string, url: string, status: number, headers: Headers, text: string): void {
  const found = operationOf(method, url);
  if (!found) return;
  const { doc, ajv } = load();
  const where = `${method} ${found.path} → ${status}`;
  log(`${found.method.toUpperCase()} ${found.path} ${status}`);
  const declared = found.op.responses[String(status)];
  if (!declared) throw new ContractError(`${where}: status not declared (declared: ${Object.keys(found.op.responses).join(', ')}); body ${text.slice(0, 300)}`);
  const response = deref(doc, declared);
  for (const [name, raw] of Object.entries<Json>(response.headers ?? {})) {
    const header = deref(doc, raw);
    const value = headers.get(name);
    if (value === null) {
      if (header.required) throw new ContractError(`${where}: required header ${name} missing`);
      continue;
    }
    if (header.schema?.type === 'integer' && !/^-?\d+$/.test(value)) throw new ContractError(`${where}: header ${name}=${value} is not an integer`);
    if (header.schema?.pattern && !new RegExp(header.schema.pattern).test(value))
      throw new ContractError(`${where}: header ${name}=${value} does not match ${header.schema.pattern}`);
  }
  if (method === 'HEAD') return;
  const content = response.content as Json | undefined;
  if (!content) {
    if (text !== '') throw new ContractError(`${where}: a body where the document declares none: ${text.slice(0, 200)}`);
    return;
  }
  const type = (headers.get('content-type') ?? '').split(';')[0].trim();
  if (!content[type]) throw new ContractError(`${where}: content type ${type || '(none)'} not declared (${Object.keys(content).join(', ')})`);
  if (!type.endsWith('json')) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContractError(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  const schemaRef =
    typeof declared.$ref === 'string'
      ? `openapi.json${declared.$ref}/content/${pointer(type)}/schema`
      : `openapi.json#/${pointer('paths', found.path, found.method, 'responses', String(status), 'content', type, 'schema')}`;
  let validate = validators.get(schemaRef);
  if (!validate) validators.set(schemaRef, (validate = ajv.compile({ $ref: schemaRef })));
  if (!validate(body)) {
    throw new ContractError(`${where}: body does not match the document: ${ajv.errorsText(validate.errors)}; body ${text.slice(0, 500)}`);
  }
}

/** One line per checked response, in the file global-setup.ts reads for the coverage report. */
function log(line: string): void {
  const dir = process.env.WAYMARK_CONTRACT_DIR;
  if (dir) appendFileSync(join(dir, `${process.pid}.log`), `${line}\n`);
}
