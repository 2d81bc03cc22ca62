import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { projectRoot } from '../../src/lib/paths.js';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `waymark serve` (the compiled CLI; `root`: another copy of the project) as a separate process
 *  and waits for its listening line. */
export function spawnServer(env: Record<string, string>, timeoutMs = 60_000, root = projectRoot): Promise<ServerProcess> {
  const child = spawn(process.execPath, [join(root, 'bin', 'waymark.js'), 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), timeoutMs);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /waymark listening on http:\/\/localhost:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
        resolve({
          url: `http://127.0.0.1:${m[1]}`,
          child,
          output: () => output,
          stop: (signal = 'SIGTERM') =>
            new Promise((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode);
              child.removeAllListeners('exit');
              child.once('exit', (code) => done(code));
              child.kill(signal);
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  });
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The compiled CLI to its end, with `env` over the test process's environment. */
export const runCli = (args: string[], env: Record<string, string | undefined> = {}) =>
  new Promise<CliRun>((resolve) => {
    execFile(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/** The CLI's `main` in this process (a spawned CLI costs a second or more on a busy machine): what
 *  commander and the commands print, and the exit code bin/waymark.js would exit with. `env` is set
 *  on process.env for the call (the CLI reads its settings there). */
export async function inProcess(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  let stdout = '',
    stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  vi.spyOn(console, 'log').mockImplementation((...a) => void (stdout += `${a.join(' ')}\n`));
  vi.spyOn(console, 'error').mockImplementation((...a) => void (stderr += `${a.join(' ')}\n`));
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
