// No Docker engine runs on the build machines, so the image is checked in two ways: the Dockerfile and
// the compose file are read (stages, user, healthcheck, what is copied), and the image's runtime stage is
// rebuilt outside Docker from the Dockerfile itself (its COPY --from=build lines into a directory of its
// own, its ENV with the paths moved there) and started with its CMD: it must become ready, route, pass
// its own HEALTHCHECK command, and stop with exit 0 on SIGTERM (docker stop).
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { connect } from '../../src/db/client.js';
import { DEFAULT_EXTRACT, ensureDefaultMap } from '../../src/map/build.js';
import { projectRoot } from '../../src/lib/paths.js';
import { api, TEST_DATABASE_URL } from '../support/app.js';
import { SHIPPED_CONFIG } from '../support/nginx.js';
import { spawnServer, type ServerProcess } from '../support/process.js';

interface Instruction {
  stage: string;
  op: string;
  args: string;
}

/** The Dockerfile's instructions (continuation lines joined, comments dropped), each with its stage. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = '';
  for (const line of text.replace(/\\\n\s*/g, ' ').split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    if (m[1] === 'FROM') stage = / AS (\w+)$/i.exec(m[2])?.[1] ?? `final:${m[2]}`;
    out.push({ stage, op: m[1], args: m[2].trim() });
  }
  return out;
}

const dockerfile = instructions(readFileSync(join(projectRoot, 'Dockerfile'), 'utf8'));
const final = dockerfile.filter((i) => i.stage.startsWith('final:'));
const build = dockerfile.filter((i) => i.stage === 'build');
const compose = parse(readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8'));
const ignored = readFileSync(join(projectRoot, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter(Boolean);
const exec = (args: string) => JSON.parse(args.replace(/^CMD\s+/, '')) as string[];

describe('Dockerfile', () => {
  it('builds in one stage and runs from another, on Node 20, as a non-root user', () => {
    expect(dockerfile.filter((i) => i.op === 'FROM').map((i) => i.args)).toEqual(['node:20-bookworm-slim AS build', 'node:20-bookworm-slim']);
    expect(final.filter((i) => i.op === 'USER').map((i) => i.args)).toEqual(['node']);
    // Nothing after USER runs as root again.
    expect(final.slice(final.findIndex((i) => i.op === 'USER')).some((i) => i.op === 'RUN')).toBe(false);
    expect(exec(final.find((i) => i.op === 'CMD')!.args)).toEqual(['node', 'bin/waymark.js', 'serve']);
    expect(final.find((i) => i.op === 'STOPSIGNAL')?.args).toBe('SIGTERM');
  });

  it('builds the map of the extract in the build stage, from the osm build context that compose passes', () => {
    const run = build
      .filter((i) => i.op === 'RUN')
      .map((i) => i.args)
      .join(' ');
    expect(run).toContain('npm ci');
    expect(run).toContain('npm run build');
    expect(run).toMatch(/node bin\/waymark\.js map build --osm \S+ --out \/app\/map/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${...} syntax
    expect(build.some((i) => i.op === 'COPY' && i.args.startsWith('--from=osm ${OSM_EXTRACT}'))).toBe(true);
    expect(build.find((i) => i.op === 'ARG')?.args).toBe(`OSM_EXTRACT=${DEFAULT_EXTRACT.split('/').pop()}`);
    const context = compose.services.waymark.build.additional_contexts.osm;
    expect(join(projectRoot, context)).toBe(dirname(DEFAULT_EXTRACT));
    expect(existsSync(DEFAULT_EXTRACT)).toBe(true);
  });

  it('copies nothing into the build that .dockerignore leaves out', () => {
    for (const needed of ['src', 'web', 'solver-as', 'scripts', 'bin', 'patches', 'package.json', 'package-lock.json', 'tsconfig.json']) {
      expect(ignored, needed).not.toContain(needed);
      expect(existsSync(join(projectRoot, needed)), needed).toBe(true);
    }
  });

  it('has a HEALTHCHECK on readiness', () => {
    const check = final.find((i) => i.op === 'HEALTHCHECK')!.args;
    expect(check).toContain('/ready');
    expect(check).toMatch(/--start-period=\d+s/);
  });
});

describe('docker-compose.yml', () => {
  it('runs PostgreSQL 15 (no extension needed) with a readiness healthcheck', () => {
    expect(compose.services.db.image).toMatch(/^postgres:15/);
    expect(compose.services.db.healthcheck.test.join(' ')).toContain('pg_isready');
  });

  it('starts Waymark after the database is healthy, pointed at it, printing a demo key, stopped gracefully', () => {
    const svc = compose.services.waymark;
    expect(svc.build.context).toBe('.');
    expect(svc.depends_on.db.condition).toBe('service_healthy');
    const url = new URL(svc.environment.DATABASE_URL);
    expect(url.hostname).toBe('db');
    expect(url.username).toBe(compose.services.db.environment.POSTGRES_USER);
    expect(url.password).toBe(compose.services.db.environment.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${compose.services.db.environment.POSTGRES_DB}`);
    expect(svc.command).toEqual(['node', 'bin/waymark.js', 'start']);
    expect(svc.expose).toEqual([svc.environment.PORT]);
    expect(svc.volumes).toContain('waymark-data:/data');
    expect(Number.parseInt(svc.stop_grace_period, 10)).toBeGreaterThan(10 + 5);
  });

  it('puts the shipped nginx configuration in front, the only way in, and Waymark believes its X-Forwarded-* alone', () => {
    const svc = compose.services.waymark;
    const proxy = compose.services.proxy;
    // Clients reach Waymark only through the proxy.
    expect(svc.ports).toBeUndefined();
    expect(proxy.image).toMatch(/^nginx:/);
    expect(proxy.depends_on.waymark.condition).toBe('service_healthy');
    // The file test/faults/proxy-*.test.ts run with Debian's nginx, as the official image's site configuration.
    expect(proxy.volumes).toEqual(['./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro']);
    const site = readFileSync(SHIPPED_CONFIG, 'utf8');
    const listen = /^ {4}listen (\d+);$/m.exec(site)?.[1];
    expect(proxy.ports).toEqual([`8080:${listen}`]);
    expect(site).toMatch(new RegExp(`^ {4}server waymark:${svc.environment.PORT};$`, 'm'));
    // The proxy's fixed address is the one trusted, inside the network's subnet.
    const address = proxy.networks.default.ipv4_address;
    expect(svc.environment.WAYMARK_TRUSTED_PROXIES).toBe(address);
    const [subnet] = compose.networks.default.ipam.config.map((c: { subnet: string }) => c.subnet);
    expect(address.split('.').slice(0, 3)).toEqual(subnet.split('/')[0].split('.').slice(0, 3));
    expect(subnet.endsWith('/24')).toBe(true);
  });
});

describe('the runtime stage, outside Docker', () => {
  let dir: string;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has all it needs: ready, routes with a key, passes its HEALTHCHECK, exits 0 on SIGTERM', async () => {
    dir = mkdtempSync(join(tmpdir(), 'waymark-image-'));
    const app = join(dir, 'app');
    const data = join(dir, 'data');
    mkdirSync(data, { mode: 0o700 });
    const moved = (path: string) => path.replace(/^\/app\b/, app).replace(/^\/data\b/, data);
    // The map the build stage makes: the same extract's, built here by the tests' cache.
    const mapDir = await ensureDefaultMap(join(projectRoot, 'data'));
    for (const copy of final.filter((i) => i.op === 'COPY')) {
      const [from, source, target] = copy.args.split(/\s+/);
      expect(from).toBe('--from=build');
      const to = join(app, target === './' ? source.split('/').pop()! : target);
      mkdirSync(dirname(to), { recursive: true });
      const local = source.replace(/^\/app\/?/, '');
      // node_modules as it is (the image has the production part of it), the map from the cache; the rest copied.
      if (local === 'node_modules') symlinkSync(join(projectRoot, 'node_modules'), to);
      else if (local === 'map') symlinkSync(mapDir, to);
      else cpSync(join(projectRoot, local), to, { recursive: true });
    }
    const env = Object.fromEntries(final.filter((i) => i.op === 'ENV').flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], moved(m[2])])));
    expect(env).toMatchObject({ WAYMARK_MAP: join(app, 'map'), WAYMARK_DATA_DIR: data, HOST: '0.0.0.0', PORT: '8080' });

    server = await spawnServer({ ...env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: TEST_DATABASE_URL, WAYMARK_JOBS: 'off' }, 90_000, app);
    const ready = await api(server, 'GET', '/ready');
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(ready.body.map.profiles).toEqual(['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking']);

    const sql = connect(TEST_DATABASE_URL, 1);
    const team = await createTeam(sql, { name: 'image', plan: 'enterprise' });
    const { key } = await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    await sql.end();
    const route = await api(server, 'POST', '/v1/routes', {
      key,
      body: {
        waypoints: [
          { latitude: 47.1393, longitude: 9.5215 },
          { latitude: 47.165, longitude: 9.5093 },
        ],
      },
    });
    expect(route.status, JSON.stringify(route.body)).toBe(200);

    // The HEALTHCHECK's own command, against this server.
    const check = exec(final.find((i) => i.op === 'HEALTHCHECK')!.args.replace(/^.*?CMD\s+/, 'CMD '));
    const port = new URL(server.url).port;
    await expect(
      promisify(execFile)(check[0] === 'node' ? process.execPath : check[0], check.slice(1), { env: { ...process.env, PORT: port }, timeout: 10_000 }),
    ).resolves.toBeDefined();

    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(await server.stop('SIGTERM')).toBe(0);
    server = undefined;
  }, 120_000);
});
