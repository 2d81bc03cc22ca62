import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { api, type TestTeam } from '../support/app.js';

export type TestApp = App & { url: string };

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Epoch seconds close to now (the database clock and the test's may differ by a second). */
export function expectRecentSeconds(value: unknown): void {
  expect(Number.isInteger(value)).toBe(true);
  expect(Math.abs((value as number) - nowSeconds())).toBeLessThanOrEqual(5);
}

export async function createGroup(app: TestApp, team: TestTeam, body: Record<string, unknown> = {}) {
  const res = await api(app, 'POST', '/v1/groups', { key: team.key, body: { name: 'Crew', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

export async function createConversation(app: TestApp, team: TestTeam, body: Record<string, unknown> = { contact_id: 'c-1' }) {
  const res = await api(app, 'POST', '/v1/conversations', { key: team.key, body });
  expect(res.status).toBe(201);
  return res.body;
}

export async function postMessage(app: TestApp, team: TestTeam, conversationId: string, text: string) {
  const res = await api(app, 'POST', `/v1/conversations/${conversationId}/messages`, { key: team.key, body: { text } });
  expect(res.status).toBe(201);
  return res.body;
}

/** Follows `starting_after` until `has_more` is false; returns every id in order and the page sizes. */
export async function collectPages(app: TestApp, key: string, path: string, limit: number) {
  const ids: string[] = [];
  const sizes: number[] = [];
  const sep = path.includes('?') ? '&' : '?';
  let after: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const res = await api(app, 'GET', `${path}${sep}limit=${limit}${after ? `&starting_after=${after}` : ''}`, { key });
    expect(res.status).toBe(200);
    ids.push(...res.body.data.map((item: { id: string }) => item.id));
    sizes.push(res.body.data.length);
    if (!res.body.has_more) return { ids, sizes };
    after = res.body.data[res.body.data.length - 1].id;
  }
  throw new Error('paging did not end');
}

export async function countMessages(app: TestApp, conversationId: string): Promise<number> {
  const [row] = await app.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM messages WHERE conversation_id = ${conversationId}`;
  return row.n;
}
