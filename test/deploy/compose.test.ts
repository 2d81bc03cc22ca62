import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../../src/paths.js';

// No Docker engine runs on the build machines, so the compose file is checked by reading it.
const compose = parse(readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8'));

describe('docker-compose.yml', () => {
  it('runs PostGIS with a readiness healthcheck', () => {
    const db = compose.services.db;
    expect(db.image).toMatch(/^postgis\/postgis:15-/);
    expect(db.healthcheck.test.join(' ')).toContain('pg_isready');
  });

  it('starts the service after the database is healthy, pointed at it, with its own healthcheck', () => {
    const svc = compose.services.waymark;
    expect(svc.build).toBe('.');
    expect(svc.depends_on.db.condition).toBe('service_healthy');
    const url = new URL(svc.environment.DATABASE_URL);
    expect(url.hostname).toBe('db');
    expect(url.username).toBe(compose.services.db.environment.POSTGRES_USER);
    expect(url.pathname).toBe(`/${compose.services.db.environment.POSTGRES_DB}`);
    expect(svc.healthcheck.test.join(' ')).toContain(`:${svc.environment.PORT}/health`);
    expect(svc.ports).toContain(`${svc.environment.PORT}:${svc.environment.PORT}`);
  });

  it('builds from a Dockerfile that serves the compiled CLI', () => {
    const dockerfile = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toContain('npm run build');
    expect(dockerfile).toMatch(/CMD \["node", "bin\/waymark.js", "serve"\]/);
  });
});
