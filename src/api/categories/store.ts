// The categories resource's SQL.
import { type Sql, retryable } from '../../db/client.js';
import { likeContains } from '../../db/like.js';
import { newId, timestamp } from '../../lib/ids.js';

export interface CategoryRow {
  id: string;
  team_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export const categoryJson = (r: CategoryRow) => ({
  id: r.id,
  name: r.name,
  created_at: timestamp(r.created_at),
  updated_at: timestamp(r.updated_at),
});

/** A page of the team's categories after `cursor`, those whose name contains `nameContains` when given. */
export async function listCategories(sql: Sql, teamId: string, q: { cursor: string | null; limit: number; nameContains?: string }): Promise<CategoryRow[]> {
  const filter = q.nameContains;
  return retryable(sql<CategoryRow[]>`
    SELECT * FROM categories WHERE team_id = ${teamId}
      AND (${q.cursor}::text IS NULL OR id > ${q.cursor})
      AND (${filter ?? null}::text IS NULL OR name ILIKE ${filter === undefined ? null : likeContains(filter)})
    ORDER BY id LIMIT ${q.limit}`);
}

/** `id` is a ULID in upper case. */
export async function findCategory(sql: Sql, teamId: string, id: string): Promise<CategoryRow | undefined> {
  const [row] = await retryable(sql<CategoryRow[]>`SELECT * FROM categories WHERE team_id = ${teamId} AND id = ${id}`);
  return row;
}

/** Throws the unique violation when the team has a category of that name. */
export async function createCategory(sql: Sql, teamId: string, name: string): Promise<CategoryRow> {
  const [row] = await sql<CategoryRow[]>`
    INSERT INTO categories (id, team_id, name) VALUES (${newId()}, ${teamId}, ${name}) RETURNING *`;
  return row;
}

/** Throws the unique violation on a taken name. */
export async function renameCategory(sql: Sql, teamId: string, id: string, name: string): Promise<CategoryRow | undefined> {
  const [row] = await sql<CategoryRow[]>`
    UPDATE categories SET name = ${name}, updated_at = now() WHERE team_id = ${teamId} AND id = ${id} RETURNING *`;
  return row;
}

/** POIs keep existing: the foreign key sets their category to null. False when there was none. */
export async function deleteCategory(sql: Sql, teamId: string, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM categories WHERE team_id = ${teamId} AND id = ${id} RETURNING id`;
  return rows.length > 0;
}
