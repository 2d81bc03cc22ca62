import { teamAttributes } from '../attributes/definitions.js';
import type { Sql } from '../../db/client.js';
import { inspectUpload } from './header.js';
import { createImport, type ImportRow } from './store.js';

export interface Submission {
  teamId: string;
  filename: string;
  bytes: Uint8Array;
  createMissingAttributes: boolean;
}

/** The upload path shared by the API and the CLI: checks the file at once (a `CsvError` says why it is
 *  rejected), then stores it with its job. */
export async function submitImport(sql: Sql, input: Submission): Promise<ImportRow> {
  const { columns, totalRows } = await inspectUpload(input.bytes, await teamAttributes(sql, input.teamId), input.createMissingAttributes);
  return createImport(sql, {
    teamId: input.teamId,
    filename: input.filename,
    columns,
    totalRows,
    createMissingAttributes: input.createMissingAttributes,
    content: input.bytes,
  });
}
