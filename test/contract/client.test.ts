// A client generated from the document, as the README tells integrators to make one: openapi-typescript's
// types for the paths, plain fetch for the calls. It must compile with tsc (and a call that breaks the
// document's types must not), then make real calls against the service.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { API_ONLY } from '../api/helpers.js';
import { makeTeam, startTestApp } from '../support/app.js';
import { contractDocument } from '../support/contract.js';

const CLIENT = `
import type { paths } from './waymark.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type CategoryCreate = paths['/v1/categories']['post']['requestBody']['content']['application/json'];
export type Created = Json<paths['/v1/categories']['post']['responses'][201]>;
export type PoiPage = Json<paths['/v1/pois']['get']['responses'][200]>;
export type PoiQuery = NonNullable<paths['/v1/pois']['get']['parameters']['query']>;

export class Waymark {
  constructor(private readonly base: string, private readonly key: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(this.base + path, {
      method,
      headers: { 'X-API-KEY': this.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  createCategory(body: CategoryCreate) {
    return this.call<Created>('POST', '/v1/categories', body);
  }

  listPois(query: PoiQuery) {
    const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    return this.call<PoiPage>('GET', \`/v1/pois?\${q}\`);
  }
}
`;

/** Compiles the files in `dir`; the diagnostics as text (empty when it compiles). */
function compile(dir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((f) => join(dir, f)),
    {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      outDir: dir,
      skipLibCheck: true,
      types: [],
    },
  );
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

let app: App & { url: string };
let dir: string;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  dir = mkdtempSync(join(tmpdir(), 'waymark-client-'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
});

afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('openapi-typescript types plus fetch compile, a call against the types does not, and the client works', async () => {
  writeFileSync(join(dir, 'waymark.ts'), astToString(await openapiTS(contractDocument() as never)));
  writeFileSync(join(dir, 'client.ts'), CLIENT);
  expect(compile(dir, ['waymark.ts', 'client.ts'])).toEqual([]);

  // The generated types are the document's: a category without a name, or a string page size, is refused.
  writeFileSync(
    join(dir, 'wrong.ts'),
    `import { Waymark } from './client.js';
const w = new Waymark('', '');
void w.createCategory({ title: 'x' });
void w.listPois({ limit: 'ten' });
`,
  );
  const errors = compile(dir, ['wrong.ts']);
  expect(errors.join('\n')).toMatch(/title/);
  expect(errors.join('\n')).toMatch(/limit|string.*number/);

  const team = await makeTeam(app);
  const { Waymark } = await import(pathToFileURL(join(dir, 'client.js')).href);
  const client = new Waymark(app.url, team.key);
  const created = await client.createCategory({ name: 'Museums' });
  expect(created.status).toBe(201);
  expect(created.body.data.name).toBe('Museums');
  const page = await client.listPois({ limit: 5 });
  expect(page).toEqual({ status: 200, body: { data: [], next: null } });
});
