// The team's attribute definitions, which POIs, imports and route selections resolve names and ids
// against; the attributes resource's own SQL stays in store.ts.
import { type Sql, retryable } from '../../db/client.js';

export type AttributeType = 'string' | 'number' | 'boolean';

export interface AttributeRow {
  id: string;
  team_id: string;
  name: string;
  type: AttributeType;
  created_at: Date;
  updated_at: Date;
}

/** Every attribute of the team, for resolving names and ids in bodies, filters and CSV headers. */
export async function teamAttributes(sql: Sql, teamId: string): Promise<AttributeRow[]> {
  return retryable(sql<AttributeRow[]>`SELECT * FROM attributes WHERE team_id = ${teamId} ORDER BY id`);
}

/** Resolves `key` as an attribute id first, then as a name (names are case-sensitive). */
export function resolveAttribute(attrs: AttributeRow[], key: string): AttributeRow | undefined {
  return attrs.find((a) => a.id === key.toUpperCase()) ?? attrs.find((a) => a.name === key);
}
