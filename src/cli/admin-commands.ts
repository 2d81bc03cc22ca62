import { createKey, createTeam, deleteKey, listKeys, setKeyActive, updateTeam } from '../auth/admin.js';
import { parsePermissionList } from '../auth/permissions.js';
import { PLAN_NAMES, type PlanName } from '../auth/plans.js';
import type { Sql } from '../db/client.js';
import { int, output, parse } from './args.js';

const plan = (value: unknown): PlanName => {
  if (!PLAN_NAMES.includes(value as PlanName)) throw new Error(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  return value as PlanName;
};

/** `default` (or `none`, as older scripts say) clears the team's override: its plan's limit applies. */
const limitFlag = (value: string | boolean | undefined, flag: string) =>
  value === 'none' || value === 'default' ? null : int(value, flag);

export async function teamCommand(sql: Sql, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parse(rest, {
    name: { type: 'string' }, plan: { type: 'string' }, 'poi-limit': { type: 'string' }, 'rate-limit': { type: 'string' },
    active: { type: 'boolean' }, inactive: { type: 'boolean' },
  });
  if (sub === 'create') {
    if (!values.name) throw new Error('team create needs --name');
    const team = await createTeam(sql, {
      name: values.name as string,
      plan: plan(values.plan ?? 'basic'),
      planActive: !values.inactive,
      poiLimit: limitFlag(values['poi-limit'], 'poi-limit') ?? null,
      rateLimit: limitFlag(values['rate-limit'], 'rate-limit') ?? null,
    });
    return output(values.json as boolean, team, `team ${team.id} created (${team.name}, plan ${team.plan})`);
  }
  if (sub === 'update') {
    const id = positionals[0];
    if (!id) throw new Error('team update needs the team id');
    const team = await updateTeam(sql, id, {
      name: values.name as string | undefined,
      plan: values.plan === undefined ? undefined : plan(values.plan),
      planActive: values.active ? true : values.inactive ? false : undefined,
      poiLimit: limitFlag(values['poi-limit'], 'poi-limit'),
      rateLimit: limitFlag(values['rate-limit'], 'rate-limit'),
    });
    return output(values.json as boolean, team, `team ${team.id} updated (plan ${team.plan}, ${team.plan_active ? 'active' : 'inactive'})`);
  }
  throw new Error('usage: waymark team create|update …');
}

export async function keyCommand(sql: Sql, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parse(rest, {
    team: { type: 'string' }, name: { type: 'string' }, permissions: { type: 'string' }, expires: { type: 'string' },
  });
  const json = values.json as boolean;
  switch (sub) {
    case 'create': {
      if (!values.team || !values.name) throw new Error('key create needs --team and --name');
      const expires = values.expires ? new Date(values.expires as string) : null;
      if (expires && Number.isNaN(expires.getTime())) throw new Error('--expires must be an ISO 8601 date');
      const key = await createKey(sql, {
        teamId: values.team as string,
        name: values.name as string,
        permissions: parsePermissionList((values.permissions as string) ?? 'all'),
        expiresAt: expires,
      });
      return output(json, key, `key ${key.id} created. Store it now, it is not shown again:\n${key.key}`);
    }
    case 'list': {
      if (!values.team) throw new Error('key list needs --team');
      const keys = await listKeys(sql, values.team as string);
      return output(json, keys, keys.map((k) => `${k.id}  …${k.last_four}  ${k.is_active ? 'active  ' : 'inactive'}  ${k.name}`).join('\n') || '(no keys)');
    }
    case 'activate':
    case 'deactivate': {
      const key = await setKeyActive(sql, required(positionals[0]), sub === 'activate');
      return output(json, key, `key ${key.id} ${key.is_active ? 'activated' : 'deactivated'}`);
    }
    case 'delete':
      await deleteKey(sql, required(positionals[0]));
      return output(json, { deleted: positionals[0] }, `key ${positionals[0]} deleted`);
    default:
      throw new Error('usage: waymark key create|list|activate|deactivate|delete …');
  }
}

const required = (id: string | undefined) => {
  if (!id) throw new Error('the key id is required');
  return id;
};
