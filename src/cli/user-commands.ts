import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { createUser, resetPassword } from '../dashboard/users.js';
import type { WithDatabase } from './admin-commands.js';
import { output } from './args.js';

/** Reads the password: prompted (not echoed) on a terminal, else the first line of standard input.
 *  Never a flag: flags end up in shell history and in `ps`. */
export async function readPassword(prompt: string, stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += chunk;
    return text.split(/\r?\n/)[0];
  }
  const ask = (question: string) =>
    new Promise<string>((resolve) => {
      const rl = createInterface({ input: stdin, output: process.stderr, terminal: true });
      // Echo nothing while the password is typed.
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
        if (s.includes(question)) process.stderr.write(question);
      };
      rl.question(question, (answer) => {
        rl.close();
        process.stderr.write('\n');
        resolve(answer);
      });
    });
  const first = await ask(prompt);
  const again = await ask('Repeat the password: ');
  if (first !== again) throw new Error('the passwords do not match');
  return first;
}

export function userCommand(withDatabase: WithDatabase): Command {
  const user = new Command('user').description('dashboard users (the password is read from standard input or a prompt, never a flag)');
  user
    .command('create')
    .description('create a dashboard user of a team')
    .requiredOption('--team <id>', 'the team id')
    .requiredOption('--email <email>', 'their e-mail address (they sign in with it)')
    .option('--json', 'print the result as JSON')
    .action((o) =>
      withDatabase(async (sql) => {
        const password = await readPassword(`Password for ${o.email}: `);
        const created = await createUser(sql, { teamId: o.team, email: o.email, password });
        output(o.json, created, `dashboard user ${created.email} created for team ${created.team_id}`);
      }),
    );
  user
    .command('reset-password')
    .description('give a dashboard user a new password; ends their sessions')
    .requiredOption('--email <email>', 'their e-mail address')
    .option('--json', 'print the result as JSON')
    .action((o) =>
      withDatabase(async (sql) => {
        const password = await readPassword(`New password for ${o.email}: `);
        const changed = await resetPassword(sql, o.email, password);
        output(o.json, changed, `password of ${changed.email} changed; their sessions were ended`);
      }),
    );
  return user;
}
