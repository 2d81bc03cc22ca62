import { createTeam, type TeamInput } from '../../src/auth/admin.js';
import type { App } from '../../src/app.js';
import { createUser } from '../../src/dashboard/users.js';

let seq = 0;

/** A team with a dashboard user; the e-mail is unique per call. */
export async function makeDashboardTeam(app: App, input: Partial<TeamInput> = {}, fixedEmail?: string) {
  const n = `${process.pid}-${++seq}-${Date.now().toString(36)}`;
  const team = await createTeam(app.sql, { name: `Dashboard team ${seq}`, plan: 'pro', ...input });
  const email = fixedEmail ?? `ops-${n}@example.test`;
  const password = `correct horse ${n}`;
  await createUser(app.sql, { teamId: team.id, email, password });
  return { teamId: team.id, teamName: team.name, email, password };
}

/** Signs in over HTTP: the session cookie and the CSRF token. */
export async function signIn(url: string, email: string, password: string) {
  const res = await fetch(`${url}/dashboard/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = (await res.json()) as any;
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  return { status: res.status, body, cookie, csrf: body?.data?.csrf_token as string, setCookie: res.headers.get('set-cookie') };
}
