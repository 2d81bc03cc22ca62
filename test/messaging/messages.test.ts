import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { collectPages, createConversation, createGroup, expectRecentSeconds, postMessage, type TestApp } from './support.js';

let app: TestApp;
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
});
afterAll(() => app.close());

describe('POST /v1/conversations/{id}/messages', () => {
  it('stores the message and moves last_active_at', async () => {
    const c = await createConversation(app, team);
    const res = await api(app, 'POST', `/v1/conversations/${c.id}/messages`, { key: team.key, body: { text: '  Hello, crew  ' } });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^msg_[0-9A-Z]{26}$/);
    expect(res.body).toMatchObject({ conversation_id: c.id, text: '  Hello, crew  ' });
    expectRecentSeconds(res.body.created_at);
    const conv = await api(app, 'GET', `/v1/conversations/${c.id}`, { key: team.key });
    expect(conv.body.last_active_at).toBe(res.body.created_at);
  });

  it("posts into a group's conversation", async () => {
    const g = await createGroup(app, team);
    const m = await postMessage(app, team, g.conversation_id, 'to the group');
    expect(m.conversation_id).toBe(g.conversation_id);
  });

  it('counts characters, not UTF-16 units, up to 4000', async () => {
    const c = await createConversation(app, team);
    const m = await postMessage(app, team, c.id, '🚚'.repeat(4000));
    expect([...m.text]).toHaveLength(4000);
  });

  it.each([
    [{}, 'text', 'is required'],
    [{ text: '' }, 'text', 'is required'],
    [{ text: '   ' }, 'text', 'is required'],
    [{ text: 'x'.repeat(4001) }, 'text', 'may not be longer than 4000 characters'],
    [{ text: 12 }, 'text', 'must be a string'],
    [{ text: 'hi', sender: 'me' }, 'sender', 'is not an accepted field'],
  ])('rejects %j with 422 on %s', async (body, field, message) => {
    const c = await createConversation(app, team);
    const res = await api(app, 'POST', `/v1/conversations/${c.id}/messages`, { key: team.key, body });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
    expect((await api(app, 'GET', `/v1/conversations/${c.id}`, { key: team.key })).body.last_active_at).toBeNull();
  });

  it('answers 404 for an unknown conversation', async () => {
    const res = await api(app, 'POST', '/v1/conversations/conv_01J00000000000000000000000/messages', { key: team.key, body: { text: 'hi' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Conversation not found.' });
  });
});

describe('GET /v1/conversations/{id}/messages', () => {
  it('lists newest first, ten by default, and pages with starting_after', async () => {
    const c = await createConversation(app, team);
    const other = await createConversation(app, team);
    await postMessage(app, team, other.id, 'elsewhere');
    const made: string[] = [];
    for (let i = 0; i < 11; i++) made.push((await postMessage(app, team, c.id, `m${i}`)).id);
    const newestFirst = [...made].reverse();

    const first = await api(app, 'GET', `/v1/conversations/${c.id}/messages`, { key: team.key });
    expect(first.status).toBe(200);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data.map((m: { id: string }) => m.id)).toEqual(newestFirst.slice(0, 10));
    expect(first.body.data[0].text).toBe('m10');

    const { ids, sizes } = await collectPages(app, team.key, `/v1/conversations/${c.id}/messages`, 3);
    expect(ids).toEqual(newestFirst);
    expect(sizes).toEqual([3, 3, 3, 2]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['starting_after=conv_01J00000000000000000000000', 'starting_after'],
  ])('rejects %s with 422', async (query, field) => {
    const c = await createConversation(app, team);
    const res = await api(app, 'GET', `/v1/conversations/${c.id}/messages?${query}`, { key: team.key });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it('answers an empty list for a conversation without messages', async () => {
    const c = await createConversation(app, team);
    const res = await api(app, 'GET', `/v1/conversations/${c.id}/messages`, { key: team.key });
    expect(res.body).toEqual({ has_more: false, data: [] });
  });
});
