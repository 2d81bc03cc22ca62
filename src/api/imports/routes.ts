import type { Sql } from '../../db/client.js';
import { notFound, unprocessable, type FieldErrors } from '../../http/errors.js';
import { pageOf, readPage } from '../../http/pagination.js';
import type { Route } from '../../http/router.js';
import { isUlid } from '../../lib/ids.js';
import { parseBoolean } from '../pois/values.js';
import { CsvError } from './csv.js';
import { MAX_FILE_BYTES } from './header.js';
import { readMultipart } from './multipart.js';
import { fetchImport, importJson, listImports } from './store.js';
import { importDocs } from './schema.js';
import { submitImport } from './submit.js';

/** Room for the multipart boundaries, part headers and the flag field around a 10 MB file. */
const MULTIPART_OVERHEAD = 64 * 1024;
const FLAG = 'create_missing_attributes';

export function importRoutes(sql: Sql): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/imports',
      openapi: importDocs.list,
      permission: 'read-pois',
      handler: async (ctx) => {
        const page = readPage(ctx.query);
        const { data, next } = pageOf(await listImports(sql, ctx.teamId, page.cursor, page.limit + 1), page.limit);
        return { status: 200, body: { data: data.map(importJson), next } };
      },
    },
    {
      method: 'GET',
      path: '/v1/imports/{id}',
      openapi: importDocs.get,
      permission: 'read-pois',
      handler: async (ctx) => {
        const row = isUlid(ctx.params.id) ? await fetchImport(sql, ctx.teamId, ctx.params.id.toUpperCase()) : undefined;
        if (!row) throw notFound('Import');
        return { status: 200, body: { data: importJson(row) } };
      },
    },
    {
      method: 'POST',
      path: '/v1/imports',
      openapi: importDocs.create,
      permission: 'create-pois',
      body: 'stream',
      bodyLimit: MAX_FILE_BYTES + MULTIPART_OVERHEAD,
      handler: async (ctx) => {
        const upload = await readMultipart(ctx.stream(), ctx.headers, MAX_FILE_BYTES, [FLAG, 'file']);
        const errors: FieldErrors = {};
        for (const name of upload.unknown) errors[name] = ['is not an accepted field'];
        const rawFlag = upload.fields[FLAG];
        const flag = rawFlag === undefined ? false : parseBoolean(rawFlag);
        if (flag === undefined) errors[FLAG] = ['must be a boolean (true, false, 1, 0, yes, no)'];
        if (upload.fields.file !== undefined) errors.file = ['must be sent as a file part'];
        else if (upload.fileTooLarge) errors.file = ['may not be larger than 10 MB'];
        else if (upload.extraFiles) errors.file = ['send exactly one file'];
        else if (!upload.file) errors.file = ['is required'];
        if (Object.keys(errors).length) throw unprocessable(errors);
        try {
          const row = await submitImport(sql, { teamId: ctx.teamId, filename: upload.filename, bytes: upload.file!, createMissingAttributes: flag! });
          return { status: 202, body: { data: importJson(row) } };
        } catch (err) {
          if (err instanceof CsvError) throw unprocessable({ file: [err.message] });
          throw err;
        }
      },
    },
  ];
}
