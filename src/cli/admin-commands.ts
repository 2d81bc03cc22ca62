import { Command, InvalidArgumentError, Option } from 'commander';
import { createKey, createTeam, deleteKey, getTeam, listKeys, setKeyActive, updateTeam } from '../auth/admin.js';
import { parsePermissionList } from '../auth/permissions.js';
import { PLAN_NAMES, type PlanName } from '../auth/plans.js';
import type { Sql } from '../db/client.js';
import { output, wholeNumber } from './args.js';

/** Runs a command's work on the database (opened, and closed after, by the caller). */
export type WithDatabase = (work: (sql: Sql) => Promise<void>) => Promise<void>;

/** `default` (or `none`, as older scripts say) clears the team's override: its plan's limit applies.
 *  (Kept as the word here: commander stores a null from a parser as an empty string.) */
const limit =
  (flag: string) =>
  (value: string): number | 'default' =>
    value === 'none' || value === 'default' ? 'default' : wholeNumber(flag)(value);
const override = (value: number | 'default' | undefined): number | null | undefined => (value === 'default' ? null : value);

const planOption = (description: string) => new Option('--plan <plan>', description).choices(PLAN_NAMES);
const json = new Option('--json', 'print the result as JSON');

async function requireTeam(sql: Sql, id: string): Promise<void> {
  if (!(await getTeam(sql, id))) throw new Error(`team ${id} not found`);
}

export function teamCommand(withDatabase: WithDatabase): Command {
  const team = new Command('team').description('create and change teams');
  team
    .command('create')
    .description('create a team')
    .requiredOption('--name <name>', 'the team name')
    .addOption(planOption('its plan').default('basic'))
    .option('--poi-limit <n>', "POIs it may keep (default: its plan's)", wholeNumber('--poi-limit'))
    .option('--rate-limit <n>', "requests per minute (default: its plan's)", wholeNumber('--rate-limit'))
    .option('--inactive', 'without an active plan (every request is refused 403)')
    .addOption(json)
    .action((o) =>
      withDatabase(async (sql) => {
        const created = await createTeam(sql, {
          name: o.name,
          plan: o.plan as PlanName,
          planActive: !o.inactive,
          poiLimit: o.poiLimit ?? null,
          rateLimit: o.rateLimit ?? null,
        });
        output(o.json, created, `team ${created.id} created (${created.name}, plan ${created.plan})`);
      }),
    );
  team
    .command('update')
    .description('change a team: only the fields given')
    .argument('<id>', 'the team id')
    .option('--name <name>', 'a new name')
    .addOption(planOption('a new plan'))
    .addOption(new Option('--active', 'activate its plan').conflicts('inactive'))
    .option('--inactive', 'deactivate its plan')
    .option('--poi-limit <n|default>', "POIs it may keep; 'default' for its plan's", limit('--poi-limit'))
    .option('--rate-limit <n|default>', "requests per minute; 'default' for its plan's", limit('--rate-limit'))
    .addOption(json)
    .action((id: string, o) =>
      withDatabase(async (sql) => {
        const updated = await updateTeam(sql, id, {
          name: o.name,
          plan: o.plan,
          planActive: o.active ? true : o.inactive ? false : undefined,
          poiLimit: override(o.poiLimit),
          rateLimit: override(o.rateLimit),
        });
        output(o.json, updated, `team ${updated.id} updated (plan ${updated.plan}, ${updated.plan_active ? 'active' : 'inactive'})`);
      }),
    );
  return team;
}

const expiry = (value: string): Date => {
  const date = new Date(value);
  if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(date.getTime())) throw new InvalidArgumentError('--expires must be an ISO 8601 date');
  return date;
};

const permissions = (value: string): number[] => {
  try {
    return parsePermissionList(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

export function keyCommand(withDatabase: WithDatabase): Command {
  const key = new Command('key').description('create, list, switch and delete API keys');
  key
    .command('create')
    .description('create an API key for a team (the key is printed once)')
    .requiredOption('--team <id>', 'the team id')
    .requiredOption('--name <name>', 'a name to tell the key by')
    .addOption(
      new Option('--permissions <list>', "'all' or a comma-separated list of permissions").argParser(permissions).default(parsePermissionList('all'), 'all'),
    )
    .option('--expires <date>', 'an ISO 8601 date after which the key is refused', expiry)
    .addOption(json)
    .action((o) =>
      withDatabase(async (sql) => {
        await requireTeam(sql, o.team);
        const created = await createKey(sql, { teamId: o.team, name: o.name, permissions: o.permissions, expiresAt: o.expires ?? null });
        output(o.json, created, `key ${created.id} created. Store it now, it is not shown again:\n${created.key}`);
      }),
    );
  key
    .command('list')
    .description("a team's keys (never the keys themselves)")
    .requiredOption('--team <id>', 'the team id')
    .addOption(json)
    .action((o) =>
      withDatabase(async (sql) => {
        await requireTeam(sql, o.team);
        const keys = await listKeys(sql, o.team);
        output(o.json, keys, keys.map((k) => `${k.id}  …${k.last_four}  ${k.is_active ? 'active  ' : 'inactive'}  ${k.name}`).join('\n') || '(no keys)');
      }),
    );
  for (const [name, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    key
      .command(name)
      .description(`${name} a key (takes effect at once in every process)`)
      .argument('<id>', 'the key id')
      .addOption(json)
      .action((id: string, o) =>
        withDatabase(async (sql) => {
          const changed = await setKeyActive(sql, id, active);
          output(o.json, changed, `key ${changed.id} ${changed.is_active ? 'activated' : 'deactivated'}`);
        }),
      );
  }
  key
    .command('delete')
    .description('delete a key for good')
    .argument('<id>', 'the key id')
    .addOption(json)
    .action((id: string, o) =>
      withDatabase(async (sql) => {
        await deleteKey(sql, id);
        output(o.json, { deleted: id }, `key ${id} deleted`);
      }),
    );
  return key;
}
