// Imports: the multipart upload, the resource, the operations of the OpenAPI document.
import { z } from 'zod';
import { dataSchema, pageQuery, pageSchema, timestamp, ulid, type Operation } from '../../http/openapi.js';

/** The form of POST /v1/imports (read by multipart.ts; this is its description). */
export const importUploadSchema = z
  .object({
    file: z.string().meta({
      contentMediaType: 'text/csv',
      description: 'The CSV file: UTF-8, comma or semicolon separated, a header row then up to 50,000 rows; at most 10 MB.',
    }),
    create_missing_attributes: z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default('false')
      .describe('Create unknown columns as string attributes instead of rejecting the file.'),
  })
  .meta({ id: 'ImportUpload' });

export const importSchema = z
  .object({
    id: ulid,
    status: z.enum(['queued', 'processing', 'completed', 'failed']),
    filename: z.string(),
    columns: z.array(z.string()).describe('Header column names, lowercased.'),
    total_rows: z.int(),
    processed_rows: z.int(),
    created: z.int().describe('POIs created so far.'),
    failed: z.int().describe('Rows not imported.'),
    limit_reached: z.boolean().describe('Rows were skipped because the team reached its POI limit.'),
    errors: z.array(z.object({ line: z.int().describe('Line in the file; the header is line 1.'), message: z.string() })).max(100),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
  })
  .meta({ id: 'Import' });
const importData = dataSchema('ImportData', importSchema);

export const importDocs = {
  list: {
    operationId: 'listImports',
    tag: 'Imports',
    summary: 'List imports',
    description: 'Needs the `read-pois` permission.',
    query: pageQuery(),
    responses: { 200: { description: 'A page of imports sorted by id.', schema: pageSchema('ImportPage', importSchema) } },
    errors: [422],
  },
  create: {
    operationId: 'createImport',
    tag: 'Imports',
    summary: 'Upload a CSV file of POIs',
    description:
      'Needs the `create-pois` permission. The header is checked and the rows counted at once (422 for a rejected file); the rows are then imported in the background in batches of 500. Poll the import until `completed` or `failed`. ' +
      "Extension: a row without latitude and longitude may give its address instead, as `address` (free text) or `street`, `housenumber`, `postcode`, `city`, `country` columns (a column a team attribute of that name owns stays the attribute's); the import finds it on the map as `GET /v1/geo/search` does, and a row it cannot place (nothing found, not every part found, or only the street or place when the row names a house number) is a row error at its line.",
    multipart: importUploadSchema,
    responses: { 202: { description: 'The import, queued.', schema: importData } },
    errors: [422],
  },
  get: {
    operationId: 'getImport',
    tag: 'Imports',
    summary: 'Get an import',
    description: 'Needs the `read-pois` permission.',
    responses: { 200: { description: 'The import.', schema: importData } },
    errors: [404],
  },
} satisfies Record<string, Operation>;
