// The attributes resource's SQL. What other folders need of the team's attributes (resolving names and
// ids) is in definitions.ts.
import { type Sql, retryable } from '../../db/client.js';
import { newId, timestamp } from '../../lib/ids.js';
import type { AttributeRow, AttributeType } from './definitions.js';

export const attributeJson = (r: AttributeRow) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  created_at: timestamp(r.created_at),
  updated_at: timestamp(r.updated_at),
});

export async function listAttributes(sql: Sql, teamId: string, cursor: string | null, limit: number): Promise<AttributeRow[]> {
  return retryable(sql<AttributeRow[]>`
    SELECT * FROM attributes WHERE team_id = ${teamId} AND (${cursor}::text IS NULL OR id > ${cursor})
    ORDER BY id LIMIT ${limit}`);
}

/** `id` is a ULID in upper case. */
export async function findAttribute(sql: Sql, teamId: string, id: string): Promise<AttributeRow | undefined> {
  const [row] = await retryable(sql<AttributeRow[]>`SELECT * FROM attributes WHERE team_id = ${teamId} AND id = ${id}`);
  return row;
}

/** Throws the unique violation when the team has an attribute of that name. */
export async function createAttribute(sql: Sql, teamId: string, input: { name: string; type: AttributeType }): Promise<AttributeRow> {
  const [row] = await sql<AttributeRow[]>`
    INSERT INTO attributes (id, team_id, name, type) VALUES (${newId()}, ${teamId}, ${input.name}, ${input.type}) RETURNING *`;
  return row;
}

/** Values are stored by attribute id, so a rename keeps them on every POI. Throws the unique violation on a taken name. */
export async function renameAttribute(sql: Sql, teamId: string, id: string, name: string): Promise<AttributeRow | undefined> {
  const [row] = await sql<AttributeRow[]>`
    UPDATE attributes SET name = ${name}, updated_at = now() WHERE team_id = ${teamId} AND id = ${id} RETURNING *`;
  return row;
}

/** Deletes the attribute and its values on the team's POIs; false when there was none. */
export async function deleteAttribute(sql: Sql, teamId: string, id: string): Promise<boolean> {
  // The POIs' values go first: the team's poi_versions row (bumped by both statements) must be the
  // last lock taken, as in every other writer of POIs, or this and a PUT of one of them deadlock.
  const deleted = await sql.begin(async (tx) => {
    const found = await tx`SELECT 1 FROM attributes WHERE team_id = ${teamId} AND id = ${id} FOR UPDATE`;
    if (!found.length) return 0;
    await tx`UPDATE pois SET attrs = attrs - ${id}::text, updated_at = now() WHERE team_id = ${teamId} AND attrs ? ${id}`;
    return (await tx`DELETE FROM attributes WHERE team_id = ${teamId} AND id = ${id}`).count;
  });
  return deleted > 0;
}
