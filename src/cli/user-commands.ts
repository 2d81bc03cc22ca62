import { createInterface } from 'node:readline';
import type { Sql } from '../db/client.js';
import { createUser, resetPassword } from '../dashboard/users.js';
import { output, parse } from './args.js';

/** Reads the password: prompted (not echoed) on a terminal, else the first line of standard input.
 *  Never a flag: flags end up in shell history and in `ps`. */
export async function readPassword(prompt: string, stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += chunk;
    return text.split(/\r?\n/)[0];
  }
  const ask = (question: string) => new Promise<string>((resolve) => {
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

export async function userCommand(sql: Sql, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parse(rest, { team: { type: 'string' }, email: { type: 'string' } });
  if (sub === 'create') {
    if (!values.team || !values.email) throw new Error('usage: waymark user create --team ID --email E (the password is read from standard input or a prompt)');
    const password = await readPassword(`Password for ${values.email}: `);
    const user = await createUser(sql, { teamId: values.team as string, email: values.email as string, password });
    return output(values.json as boolean, user, `dashboard user ${user.email} created for team ${user.team_id}`);
  }
  if (sub === 'reset-password') {
    if (!values.email) throw new Error('usage: waymark user reset-password --email E (the password is read from standard input or a prompt)');
    const password = await readPassword(`New password for ${values.email}: `);
    const user = await resetPassword(sql, values.email as string, password);
    return output(values.json as boolean, user, `password of ${user.email} changed; their sessions were ended`);
  }
  throw new Error('usage: waymark user create --team ID --email E | waymark user reset-password --email E');
}
