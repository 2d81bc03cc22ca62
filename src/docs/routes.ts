// GET /v1/openapi.json (the OpenAPI document of the routes served) and GET /docs (a reference page
// rendered from it by Swagger UI, served from the installed package: no CDN, the dashboard's CSP).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SECURITY_HEADERS } from '../dashboard/security.js';
import { asset } from '../dashboard/static.js';
import { openApiDocument, type Operation } from '../http/openapi.js';
import { RawBytes, RawJson, type Route } from '../http/router.js';
import { projectRoot } from '../lib/paths.js';

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The page's files: Swagger UI's bundle and styles, and our page and its start script (web/docs). */
const ASSETS: Record<string, { path: string; type: string }> = {
  'swagger-ui-bundle.js': { path: join(swaggerDir, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { path: join(swaggerDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'start.js': { path: join(projectRoot, 'web', 'docs', 'start.js'), type: 'text/javascript; charset=utf-8' },
  'docs.css': { path: join(projectRoot, 'web', 'docs', 'docs.css'), type: 'text/css; charset=utf-8' },
};
const cache = new Map<string, string>();
const read = (path: string) => {
  let text = cache.get(path);
  if (text === undefined) cache.set(path, (text = readFileSync(path, 'utf8')));
  return text;
};

const docs = (operationId: string, summary: string, description: string, ...contentTypes: string[]): Operation => ({
  operationId,
  tag: 'Service',
  summary,
  description,
  responses: { 200: { description: summary, contentTypes } },
});

const documentDoc = docs(
  'getOpenApiDocument',
  'This OpenAPI 3.1 document',
  'Generated from the routes and the zod schemas that validate their requests; no key needed.',
  'application/json',
);

/** Routes of the document and the reference page, over `routes` (the API's). */
export function docsRoutes(routes: readonly Route[]): Route[] {
  let text: string | undefined;
  const own: Route[] = [
    {
      method: 'GET',
      path: '/favicon.ico',
      public: true,
      body: 'none',
      openapi: {
        ...docs('getFavicon', 'The site icon', 'For the dashboard and /docs (browsers ask every site for one).', 'image/x-icon'),
        errors: [404],
      },
      handler: () => {
        const icon = asset('favicon.ico');
        if (!icon) return { status: 404, body: { message: 'Not found.' }, headers: SECURITY_HEADERS };
        return {
          status: 200,
          body: new RawBytes(icon.body),
          headers: { ...SECURITY_HEADERS, 'Content-Type': icon.type, ETag: icon.etag, 'Cache-Control': 'max-age=86400' },
        };
      },
    },
    {
      method: 'GET',
      path: '/v1/openapi.json',
      public: true,
      body: 'none',
      openapi: documentDoc,
      handler: () => {
        // Built on first use: every route is registered by then, this one included.
        text ??= JSON.stringify(openApiDocument([...routes, ...own]), null, 2);
        return { status: 200, body: new RawJson(text), headers: { 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' } };
      },
    },
    {
      method: 'GET',
      path: '/docs',
      public: true,
      body: 'none',
      openapi: docs('getReferencePage', 'The API reference page', 'Rendered from /v1/openapi.json.', 'text/html'),
      handler: () => ({
        status: 200,
        body: new RawJson(read(join(projectRoot, 'web', 'docs', 'index.html'))),
        headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' },
      }),
    },
    {
      method: 'GET',
      path: '/docs/assets/{file}',
      public: true,
      body: 'none',
      openapi: {
        ...docs('getReferencePageAsset', 'A file of the reference page', 'Scripts and styles of /docs.', 'text/javascript', 'text/css'),
        pathParams: { file: 'The file name.' },
        errors: [404],
      },
      handler: (ctx) => {
        const asset = Object.hasOwn(ASSETS, ctx.params.file) ? ASSETS[ctx.params.file] : undefined;
        if (!asset) return { status: 404, body: { message: 'Not found.' }, headers: SECURITY_HEADERS };
        return { status: 200, body: new RawJson(read(asset.path)), headers: { ...SECURITY_HEADERS, 'Content-Type': asset.type, 'Cache-Control': 'no-cache' } };
      },
    },
  ];
  return own;
}
