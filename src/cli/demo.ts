import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKey, createTeam } from '../auth/admin.js';
import { keyDigest } from '../auth/keys.js';
import { parsePermissionList } from '../auth/permissions.js';
import { type Sql, retryable } from '../db/client.js';
import { writeSecretFile } from '../lib/secret-files.js';

/** The demo key is kept (mode 0600 in the 0700 data dir) under the data dir so every start can print a working key; a new
 *  team and key are made when the stored one no longer authenticates against this database. */
export async function ensureDemoKey(sql: Sql, dataDir: string): Promise<{ key: string; teamId: string }> {
  const file = join(dataDir, 'demo-key.json');
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { key: string; teamId: string };
    const [row] = await retryable(sql`SELECT 1 FROM api_keys WHERE digest = ${keyDigest(stored.key)} AND is_active`);
    if (row) return stored;
  } catch {
    // no stored key yet
  }
  const team = await createTeam(sql, { name: 'Demo team', plan: 'enterprise' });
  const key = await createKey(sql, { teamId: team.id, name: 'demo', permissions: parsePermissionList('all') });
  writeSecretFile(dataDir, 'demo-key.json', JSON.stringify({ key: key.key, teamId: team.id }));
  return { key: key.key, teamId: team.id };
}
