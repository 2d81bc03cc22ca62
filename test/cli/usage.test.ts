// The command line as a script sees it: --help, --version and `help` everywhere, exit 2 with the usage
// for a wrong command line, 1 with the reason in words when the work fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { projectRoot } from '../../src/lib/paths.js';
import { inProcess, runCli } from '../support/process.js';

afterEach(() => vi.restoreAllMocks());

const version = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).version;

describe('waymark --help, --version and help', () => {
  it('prints the version and the commands, exit 0', async () => {
    // One spawned run: bin/waymark.js itself.
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = await inProcess(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['start', 'serve', 'worker', 'team', 'key', 'user', 'map', 'import', 'help'])
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect((await inProcess(['help'])).stdout).toBe(help.stdout);
  });

  it('lists the flags of every subcommand, by --help and by help', async () => {
    const flags: Record<string, string[]> = {
      'team create': ['--name <name>', '--plan <plan>', '--poi-limit <n>', '--rate-limit <n>', '--inactive', '--json'],
      'team update': ['<id>', '--name <name>', '--plan <plan>', '--active', '--inactive', '--poi-limit', '--rate-limit', '--json'],
      'key create': ['--team <id>', '--name <name>', '--permissions <list>', '--expires <date>', '--json'],
      'key list': ['--team <id>', '--json'],
      'key activate': ['<id>', '--json'],
      'key deactivate': ['<id>', '--json'],
      'key delete': ['<id>', '--json'],
      'user create': ['--team <id>', '--email <email>', '--json'],
      'user reset-password': ['--email <email>', '--json'],
      'map build': ['--osm <file>', '--out <dir>', '--json'],
      import: ['<file>', '--team <id>', '--create-missing-attributes', '--json'],
      serve: [],
      start: [],
      worker: [],
    };
    for (const [command, expected] of Object.entries(flags)) {
      const words = command.split(' ');
      const byFlag = await inProcess([...words, '--help']);
      expect(byFlag.code, command).toBe(0);
      expect(byFlag.stdout).toContain(`Usage: waymark ${command}`);
      for (const flag of expected) expect(byFlag.stdout, `${command} ${flag}`).toContain(flag);
      const byHelp = await inProcess(words.length === 2 ? [words[0], 'help', words[1]] : ['help', command]);
      expect(byHelp).toMatchObject({ code: 0, stdout: byFlag.stdout });
    }
  });
});

describe('exit codes', () => {
  it('2 with the usage for no command, an unknown one, a missing or bad flag', async () => {
    // Spawned: the exit code the shell sees.
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: waymark');
    const unknown = await inProcess(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    expect((await inProcess(['key'])).code).toBe(2);
    expect(await inProcess(['key', 'rotate'])).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown command 'rotate'") });
    const missing = await inProcess(['key', 'create', '--name', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--team <id>' not specified");
    const plan = await inProcess(['team', 'create', '--name', 'x', '--plan', 'gold']);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('Allowed choices are basic, pro, enterprise');
    expect(await inProcess(['team', 'create', '--name', 'x', '--rate-limit', 'lots'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--rate-limit must be a non-negative integer'),
    });
    expect(await inProcess(['key', 'create', '--team', 't', '--name', 'y', '--permissions', 'fly'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown permission 'fly'/),
    });
    expect(await inProcess(['serve', '--bogus'])).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option '--bogus'") });
  });

  it('1 naming the variable and what it expects for a bad setting, before anything starts', async () => {
    const workers = await runCli(['serve'], { WAYMARK_WORKERS: 'abc', PORT: '0' });
    expect(workers.code).toBe(1);
    expect(workers.stderr).toContain("WAYMARK_WORKERS must be a whole number from 1 to 256, not 'abc'");
    expect(workers.stdout).not.toContain('listening');
    const map = await runCli(['serve'], { WAYMARK_MAP: '/nonexistent/map', PORT: '0' });
    expect(map.code).toBe(1);
    expect(map.stderr).toContain("WAYMARK_MAP: no map directory at '/nonexistent/map'");
    expect(map.stdout).not.toContain('listening');
  });
});
