// Debian's nginx with the shipped proxy configuration (deploy/nginx.conf) in front of `serve` processes,
// for the proxy tests (test/faults/proxy-*.test.ts through test/support/nginx.ts) and the soak
// (bench/soak/run.mjs): the file as it is, with only the upstream block's `server` lines and the `listen`
// port replaced, inside a main configuration of its own (a temporary prefix for the pid, the logs and the
// buffered bodies). Never the system nginx or its port 80.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NGINX = '/usr/sbin/nginx';
export const SHIPPED_CONFIG = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy', 'nginx.conf');
export const hasNginx = existsSync(NGINX);

/** A port free now (the kernel picks it), for a server started right after. */
export async function freePort() {
  const probe = net.createServer();
  await new Promise((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address();
  await new Promise((done) => probe.close(done));
  return port;
}

/** The shipped configuration with `upstreams` (host:port) as its servers and 127.0.0.1:`port` as its listen address. */
export function shippedConfig(upstreams, port) {
  const text = readFileSync(SHIPPED_CONFIG, 'utf8');
  const servers = text.match(/^ {4}server \S+;$/gm) ?? [];
  const listens = text.match(/^ {4}listen \d+;$/gm) ?? [];
  // Exactly one of each, so that nothing else of the file can differ from what compose runs.
  if (servers.length !== 1 || listens.length !== 1) throw new Error(`${SHIPPED_CONFIG}: expected one upstream server line and one listen line`);
  return text.replace(servers[0], upstreams.map((u) => `    server ${u};`).join('\n')).replace(listens[0], `    listen 127.0.0.1:${port};`);
}

/**
 * Starts nginx in the foreground (its master a child of this process) and waits until it accepts.
 * @param {string[]} upstreams host:port of each serve process
 * @returns {Promise<{ port: number, errors(): string, stop(): Promise<void> }>}
 */
export async function startProxy(upstreams) {
  const prefix = mkdtempSync(join(tmpdir(), 'waymark-nginx-'));
  // Run as root, nginx's workers are `nobody`: they must reach the prefix for the bodies they buffer.
  chmodSync(prefix, 0o755);
  const port = await freePort();
  writeFileSync(join(prefix, 'site.conf'), shippedConfig(upstreams, port));
  writeFileSync(
    join(prefix, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 2;',
      `pid ${join(prefix, 'nginx.pid')};`,
      `error_log ${join(prefix, 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      `  access_log ${join(prefix, 'access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(prefix, t)};`),
      `  include ${join(prefix, 'site.conf')};`,
      '}',
    ].join('\n'),
  );
  const child = spawn(NGINX, ['-e', join(prefix, 'error.log'), '-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c.toString()));
  child.stderr.on('data', (c) => (output += c.toString()));
  const errors = () => {
    const log = join(prefix, 'error.log');
    return output + (existsSync(log) ? readFileSync(log, 'utf8') : '');
  };
  const exited = new Promise((resolve) => child.once('exit', () => resolve()));
  // Accepting once a connection opens; an nginx that exits (a bad configuration) says why in its log.
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited:\n${errors()}`);
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.end(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (i > 300) throw new Error(`nginx did not listen:\n${errors()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    errors,
    stop: async () => {
      // SIGQUIT: nginx's graceful stop.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
      await exited;
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
