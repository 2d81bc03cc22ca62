/** Stable permission ids (DECISIONS.md): the id is the position + 1. Never reorder. */
export const PERMISSIONS = [
  'read-pois',
  'create-pois',
  'update-pois',
  'delete-pois',
  'read-attributes',
  'create-attributes',
  'update-attributes',
  'delete-attributes',
  'read-categories',
  'create-categories',
  'update-categories',
  'delete-categories',
  'plan-routes',
  'read-conversations',
  'write-conversations',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const permissionId = (name: string): number => PERMISSIONS.indexOf(name as Permission) + 1;

export function permissionObjects(ids: readonly number[]): Array<{ id: number; name: string }> {
  return [...ids].sort((a, b) => a - b).map((id) => ({ id, name: PERMISSIONS[id - 1] }));
}

export function hasPermission(ids: readonly number[], name: string): boolean {
  return ids.includes(permissionId(name));
}

/** Parses `all` or a comma list of names or ids. Throws with the offending entry. */
export function parsePermissionList(spec: string): number[] {
  if (spec.trim() === 'all') return PERMISSIONS.map((_, i) => i + 1);
  const ids = new Set<number>();
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const id = /^\d+$/.test(part) ? Number(part) : permissionId(part);
    if (!(id >= 1 && id <= PERMISSIONS.length)) throw new Error(`unknown permission '${part}'`);
    ids.add(id);
  }
  if (ids.size === 0) throw new Error('no permissions given');
  return [...ids].sort((a, b) => a - b);
}
