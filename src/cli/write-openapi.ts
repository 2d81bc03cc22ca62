// `npm run build` writes the OpenAPI document to docs/openapi.json (for readers of the repository and
// client generators that work from a file); the running service answers the same at /v1/openapi.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { apiRoutes } from '../app.js';
import { UsageRecorder } from '../auth/usage.js';
import { connect } from '../db/client.js';
import { openApiDocument } from '../http/openapi.js';
import { projectRoot } from '../lib/paths.js';

const out = resolve(process.argv[2] ?? `${projectRoot}/docs/openapi.json`);
// Building the routes opens no connection: the client connects on its first query, and there is none.
const sql = connect('postgres://127.0.0.1:1/unused', 1);
const doc = openApiDocument(apiRoutes(sql, new UsageRecorder(sql)));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
await sql.end({ timeout: 0 });
console.log(`wrote ${out}: ${Object.keys(doc.paths as object).length} paths`);
