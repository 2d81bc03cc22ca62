// Who the dashboard believes about where a request comes from (issue 33): X-Forwarded-Host (the Origin
// check against CSRF) and X-Forwarded-For (whose failed sign-ins are counted) only from the proxies in
// WAYMARK_TRUSTED_PROXIES; and failed sign-ins bounded per client address, not only per e-mail (one
// password tried across many accounts). A database of its own: the client bound would otherwise hold
// 127.0.0.1 for every other test signing in for 15 minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { SIGN_IN_MAX_CLIENT_FAILURES } from '../../src/dashboard/sessions.js';
import { freshDatabase } from '../faults/support.js';
import { startTestApp } from '../support/app.js';
import { makeDashboardTeam } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
/** No trusted proxy (the default). */
let direct: App & { url: string };
/** Behind a proxy on this host. */
let proxied: App & { url: string };

beforeAll(async () => {
  db = await freshDatabase('signinlimits');
  const env = { DATABASE_URL: db.url, WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' };
  direct = await startTestApp(env);
  proxied = await startTestApp({ ...env, WAYMARK_TRUSTED_PROXIES: '127.0.0.1, ::1' });
});
afterAll(async () => {
  await direct?.close();
  await proxied?.close();
  await db?.drop();
});

const signIn = (app: { url: string }, email: string, password: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/dashboard/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password }),
  });

describe('X-Forwarded-Host and the Origin check', () => {
  it('from a client that is not a trusted proxy, X-Forwarded-Host cannot vouch for another site', async () => {
    const t = await makeDashboardTeam(direct);
    const evil = { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' };
    const res = await signIn(direct, t.email, t.password, evil);
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).message).toBe('Sign in from the dashboard page.');
    // This host's own Origin still signs in.
    expect((await signIn(direct, t.email, t.password, { origin: direct.url })).status).toBe(201);
  });

  it('from a trusted proxy, X-Forwarded-Host names the host the browser asked for', async () => {
    const t = await makeDashboardTeam(proxied);
    const viaProxy = { origin: 'https://waymark.example', 'x-forwarded-host': 'waymark.example' };
    expect((await signIn(proxied, t.email, t.password, viaProxy)).status).toBe(201);
    // The proxy's word is about its host: another site's Origin is still refused.
    expect((await signIn(proxied, t.email, t.password, { origin: 'https://evil.example', 'x-forwarded-host': 'waymark.example' })).status).toBe(403);
  });

  it('X-Forwarded-Proto makes the session cookie Secure only from a trusted proxy', async () => {
    const overTls = { 'x-forwarded-proto': 'https' };
    const p = await makeDashboardTeam(proxied);
    const viaProxy = await signIn(proxied, p.email, p.password, overTls);
    expect(viaProxy.status).toBe(201);
    expect(viaProxy.headers.get('set-cookie')).toMatch(/; Secure$/);
    const d = await makeDashboardTeam(direct);
    const res = await signIn(direct, d.email, d.password, overTls);
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).not.toMatch(/Secure/);
  });
});

describe('failed sign-ins per client', () => {
  it(`one address trying a password on many e-mails waits after ${SIGN_IN_MAX_CLIENT_FAILURES} failures, its right password included`, async () => {
    const victim = await makeDashboardTeam(proxied);
    const from = (address: string) => ({ 'x-forwarded-for': `198.51.100.1, ${address}` });
    for (let i = 0; i < SIGN_IN_MAX_CLIENT_FAILURES; i++) {
      expect((await signIn(proxied, `nobody-${i}@example.test`, 'Winter2026!', from('203.0.113.7'))).status).toBe(401);
    }
    const blocked = await signIn(proxied, victim.email, victim.password, from('203.0.113.7'));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await blocked.json()) as any).message).toMatch(/^Too many failed sign-ins from your address\. Try again in \d+ minute/);
    // Another client is not held by it; what the client itself wrote before the proxy's entry is not its address.
    expect((await signIn(proxied, victim.email, victim.password, from('203.0.113.8'))).status).toBe(201);
  });

  it('X-Forwarded-For from a client that is not a trusted proxy changes nothing: its own address is counted', async () => {
    for (let i = 0; i < SIGN_IN_MAX_CLIENT_FAILURES; i++) {
      const res = await signIn(direct, `spray-${i}@example.test`, 'Winter2026!', { 'x-forwarded-for': `192.0.2.${i}` });
      expect(res.status).toBe(401);
    }
    const t = await makeDashboardTeam(direct);
    const res = await signIn(direct, t.email, t.password, { 'x-forwarded-for': '192.0.2.200' });
    expect(res.status).toBe(429);
  });
});
