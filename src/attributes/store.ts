import type { Sql } from '../db/client.js';
import { timestamp } from '../ids.js';

export type AttributeType = 'string' | 'number' | 'boolean';

export interface AttributeRow {
  id: string;
  team_id: string;
  name: string;
  type: AttributeType;
  created_at: Date;
  updated_at: Date;
}

export const attributeJson = (r: AttributeRow) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  created_at: timestamp(r.created_at),
  updated_at: timestamp(r.updated_at),
});

/** Every attribute of the team, for resolving names and ids in bodies, filters and CSV headers. */
export async function teamAttributes(sql: Sql, teamId: string): Promise<AttributeRow[]> {
  return sql<AttributeRow[]>`SELECT * FROM attributes WHERE team_id = ${teamId} ORDER BY id`;
}

/** Resolves `key` as an attribute id first, then as a name (names are case-sensitive). */
export function resolveAttribute(attrs: AttributeRow[], key: string): AttributeRow | undefined {
  return attrs.find((a) => a.id === key.toUpperCase()) ?? attrs.find((a) => a.name === key);
}
