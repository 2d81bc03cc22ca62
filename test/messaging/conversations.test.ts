import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { collectPages, countMessages, createConversation, createGroup, expectRecentSeconds, postMessage, type TestApp } from './support.js';

let app: TestApp;
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
});
afterAll(() => app.close());

const ids = (body: { data: Array<{ id: string }> }) => body.data.map((c) => c.id);

describe('POST /v1/conversations', () => {
  it('creates a conversation with a contact', async () => {
    const res = await api(app, 'POST', '/v1/conversations', { key: team.key, body: { contact_id: 'user:42' } });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^conv_[0-9A-Z]{26}$/);
    expect(res.body).toMatchObject({
      contact_id: 'user:42',
      group_id: null,
      pinned_message_id: null,
      is_pinned: false,
      is_muted: false,
      last_active_at: null,
      last_opened_at: null,
      archived_at: null,
    });
    expectRecentSeconds(res.body.created_at);
  });

  it('creates a group conversation again after the group lost its own', async () => {
    const g = await createGroup(app, team);
    const taken = await api(app, 'POST', '/v1/conversations', { key: team.key, body: { group_id: g.id } });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ group_id: ['already has a conversation'] });

    expect((await api(app, 'DELETE', `/v1/conversations/${g.conversation_id}`, { key: team.key })).status).toBe(204);
    expect((await api(app, 'GET', `/v1/groups/${g.id}`, { key: team.key })).body.conversation_id).toBeNull();

    const res = await api(app, 'POST', '/v1/conversations', { key: team.key, body: { group_id: g.id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ group_id: g.id, contact_id: null });
    expect((await api(app, 'GET', `/v1/groups/${g.id}`, { key: team.key })).body.conversation_id).toBe(res.body.id);
  });

  it('requires exactly one of contact_id and group_id', async () => {
    const g = await createGroup(app, team);
    const neither = await api(app, 'POST', '/v1/conversations', { key: team.key, body: {} });
    expect(neither.status).toBe(422);
    expect(neither.body.errors).toEqual({
      contact_id: ['one of contact_id or group_id is required'],
      group_id: ['one of contact_id or group_id is required'],
    });
    const both = await api(app, 'POST', '/v1/conversations', { key: team.key, body: { contact_id: 'a', group_id: g.id } });
    expect(both.status).toBe(422);
    expect(both.body.errors).toEqual({
      contact_id: ['send contact_id or group_id, not both'],
      group_id: ['send contact_id or group_id, not both'],
    });
  });

  it("rejects an unknown group, another team's group and a malformed group id", async () => {
    const other = await makeTeam(app);
    const foreign = await createGroup(app, other);
    await api(app, 'DELETE', `/v1/conversations/${foreign.conversation_id}`, { key: other.key });
    // One that keeps its conversation: the answer must not tell that it exists elsewhere ("already has one").
    const foreignWithConversation = await createGroup(app, other);
    for (const groupId of ['grp_01J00000000000000000000000', foreign.id, foreignWithConversation.id, 'not-a-group']) {
      const res = await api(app, 'POST', '/v1/conversations', { key: team.key, body: { group_id: groupId } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ group_id: ['does not name a group of this team'] });
    }
  });

  it.each([
    [{ contact_id: 42 }, 'contact_id', 'must be a string'],
    [{ contact_id: '' }, 'contact_id', 'is required'],
    [{ contact_id: 'c'.repeat(101) }, 'contact_id', 'may not be longer than 100 characters'],
    [{ group_id: ['grp_x'] }, 'group_id', 'must be a string'],
    [{ contact_id: 'a', is_muted: true }, 'is_muted', 'is not an accepted field'],
  ])('rejects %j with 422 on %s', async (body, field, message) => {
    const res = await api(app, 'POST', '/v1/conversations', { key: team.key, body });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('accepts a contact_id of exactly 100 characters', async () => {
    const c = await createConversation(app, team, { contact_id: 'c'.repeat(100) });
    expect(c.contact_id).toHaveLength(100);
  });
});

describe('GET /v1/conversations/{id}', () => {
  it('sets last_opened_at when retrieved by id, not when listed', async () => {
    const t = await makeTeam(app);
    const c = await createConversation(app, t);
    await api(app, 'GET', '/v1/conversations', { key: t.key });
    const [row] = await app.sql<{ last_opened_at: bigint | null }[]>`SELECT last_opened_at FROM conversations WHERE id = ${c.id}`;
    expect(row.last_opened_at).toBeNull();

    const res = await api(app, 'GET', `/v1/conversations/${c.id}`, { key: t.key });
    expect(res.status).toBe(200);
    expectRecentSeconds(res.body.last_opened_at);
    expect(res.body).toMatchObject({ id: c.id, contact_id: 'c-1', last_active_at: null });
    const listed = await api(app, 'GET', '/v1/conversations', { key: t.key });
    expect(listed.body.data[0].last_opened_at).toBe(res.body.last_opened_at);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of ['conv_01J00000000000000000000000', 'grp_01J00000000000000000000000', 'x']) {
      const res = await api(app, 'GET', `/v1/conversations/${id}`, { key: team.key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Conversation not found.' });
    }
  });
});

describe('PUT /v1/conversations/{id}', () => {
  it('pins a message of the conversation and unpins with null', async () => {
    const c = await createConversation(app, team);
    const m = await postMessage(app, team, c.id, 'pin me');
    const pinned = await api(app, 'PUT', `/v1/conversations/${c.id}`, { key: team.key, body: { pinned_message_id: m.id } });
    expect(pinned.status).toBe(200);
    expect(pinned.body.pinned_message_id).toBe(m.id);

    const muted = await api(app, 'PUT', `/v1/conversations/${c.id}`, { key: team.key, body: { is_muted: true } });
    expect(muted.body).toMatchObject({ pinned_message_id: m.id, is_muted: true, is_pinned: false });

    const unpinned = await api(app, 'PUT', `/v1/conversations/${c.id}`, { key: team.key, body: { pinned_message_id: null } });
    expect(unpinned.status).toBe(200);
    expect(unpinned.body).toMatchObject({ pinned_message_id: null, is_muted: true });
  });

  it('rejects a pinned_message_id that is not a message of this conversation', async () => {
    const c = await createConversation(app, team);
    const elsewhere = await postMessage(app, team, (await createConversation(app, team)).id, 'not here');
    for (const id of [elsewhere.id, 'msg_01J00000000000000000000000', 'hello']) {
      const res = await api(app, 'PUT', `/v1/conversations/${c.id}`, { key: team.key, body: { pinned_message_id: id } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ pinned_message_id: ['does not name a message of this conversation'] });
    }
    expect((await api(app, 'GET', `/v1/conversations/${c.id}`, { key: team.key })).body.pinned_message_id).toBeNull();
  });

  it('sets the flags and archives and restores', async () => {
    const c = await createConversation(app, team);
    const res = await api(app, 'PUT', `/v1/conversations/${c.id}`, {
      key: team.key,
      body: { is_pinned: true, is_muted: true, archived_at: 1_700_000_123 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_pinned: true, is_muted: true, archived_at: 1_700_000_123 });
    const restored = await api(app, 'PUT', `/v1/conversations/${c.id}`, { key: team.key, body: { archived_at: null, is_pinned: false } });
    expect(restored.body).toMatchObject({ is_pinned: false, is_muted: true, archived_at: null });
  });

  it.each([
    [{ is_muted: 'yes' }, 'is_muted', 'must be a boolean'],
    [{ is_pinned: 1 }, 'is_pinned', 'must be a boolean'],
    [{ archived_at: '1700000000' }, 'archived_at', 'must be an integer (Unix epoch seconds)'],
    [{ pinned_message_id: 7 }, 'pinned_message_id', 'must be a string'],
    [{ contact_id: 'other' }, 'contact_id', 'is not an accepted field'],
  ])('rejects %j with 422 on %s', async (body, field, message) => {
    const c = await createConversation(app, team);
    const res = await api(app, 'PUT', `/v1/conversations/${c.id}`, { key: team.key, body });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });
});

describe('GET /v1/conversations', () => {
  it('filters by muted, pinned, archived and group_id', async () => {
    const t = await makeTeam(app);
    const plain = await createConversation(app, t);
    const muted = await createConversation(app, t);
    const pinned = await createConversation(app, t);
    const archived = await createConversation(app, t);
    const g = await createGroup(app, t);
    const put = (id: string, body: object) => api(app, 'PUT', `/v1/conversations/${id}`, { key: t.key, body });
    await put(muted.id, { is_muted: true });
    await put(pinned.id, { is_pinned: true });
    await put(archived.id, { archived_at: 1_700_000_000, is_muted: true });
    const list = async (query: string) => {
      const res = await api(app, 'GET', `/v1/conversations${query}`, { key: t.key });
      expect(res.status).toBe(200);
      return ids(res.body);
    };
    expect(await list('')).toEqual([g.conversation_id, pinned.id, muted.id, plain.id]);
    expect(await list('?muted=true')).toEqual([muted.id]);
    expect(await list('?muted=false')).toEqual([g.conversation_id, pinned.id, plain.id]);
    expect(await list('?pinned=true')).toEqual([pinned.id]);
    expect(await list('?pinned=false')).toEqual([g.conversation_id, muted.id, plain.id]);
    expect(await list('?archived=true')).toEqual([archived.id]);
    expect(await list('?archived=false')).toEqual(await list(''));
    expect(await list('?archived=true&muted=true')).toEqual([archived.id]);
    expect(await list('?archived=true&muted=false')).toEqual([]);
    expect(await list(`?group_id=${g.id}`)).toEqual([g.conversation_id]);
    expect(await list(`?group_id=${g.id}&pinned=true`)).toEqual([]);
  });

  it('pages newest first with starting_after', async () => {
    const t = await makeTeam(app);
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await createConversation(app, t, { contact_id: `c${i}` })).id);
    const first = await api(app, 'GET', '/v1/conversations', { key: t.key });
    expect(first.body.has_more).toBe(true);
    expect(ids(first.body)).toEqual([...made].reverse().slice(0, 10));
    const { ids: all, sizes } = await collectPages(app, t.key, '/v1/conversations', 4);
    expect(all).toEqual([...made].reverse());
    expect(sizes).toEqual([4, 4, 4]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=500', 'limit'],
    ['limit=-1', 'limit'],
    ['starting_after=grp_01J00000000000000000000000', 'starting_after'],
    ['muted=yes', 'muted'],
    ['pinned=2', 'pinned'],
    ['archived=', 'archived'],
    ['group_id=grp_01J00000000000000000000000', 'group_id'],
    ['group_id=abc', 'group_id'],
  ])('rejects %s with 422', async (query, field) => {
    const res = await api(app, 'GET', `/v1/conversations?${query}`, { key: team.key });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });
});

describe('DELETE /v1/conversations/{id}', () => {
  it('deletes the conversation and all its messages', async () => {
    const c = await createConversation(app, team);
    const keep = await createConversation(app, team);
    for (const text of ['a', 'b', 'c']) await postMessage(app, team, c.id, text);
    await postMessage(app, team, keep.id, 'stays');
    const res = await api(app, 'DELETE', `/v1/conversations/${c.id}`, { key: team.key });
    expect(res.status).toBe(204);
    expect(await countMessages(app, c.id)).toBe(0);
    expect(await countMessages(app, keep.id)).toBe(1);
    expect((await api(app, 'GET', `/v1/conversations/${c.id}`, { key: team.key })).status).toBe(404);
    expect((await api(app, 'GET', `/v1/conversations/${c.id}/messages`, { key: team.key })).status).toBe(404);
    expect((await api(app, 'DELETE', `/v1/conversations/${c.id}`, { key: team.key })).status).toBe(404);
  });
});

describe('team scoping and permissions', () => {
  it("answers 404 for another team's conversation on every route", async () => {
    const other = await makeTeam(app);
    const c = await createConversation(app, team);
    await postMessage(app, team, c.id, 'secret');
    const path = `/v1/conversations/${c.id}`;
    for (const [method, p, body] of [
      ['GET', path, undefined],
      ['PUT', path, { is_muted: true }],
      ['DELETE', path, undefined],
      ['GET', `${path}/messages`, undefined],
      ['POST', `${path}/messages`, { text: 'hi' }],
    ] as const) {
      const res = await api(app, method, p, { key: other.key, body });
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(res.body).toEqual({ message: 'Conversation not found.' });
    }
    expect((await api(app, 'GET', '/v1/conversations', { key: other.key })).body).toEqual({ has_more: false, data: [] });
    const mine = await api(app, 'GET', path, { key: team.key });
    expect(mine.body.is_muted).toBe(false);
    expect(await countMessages(app, c.id)).toBe(1);
  });

  it('needs read-conversations to read and write-conversations to change', async () => {
    const c = await createConversation(app, team);
    const readOnly = await team.keyWith('read-conversations');
    const writeOnly = await team.keyWith('write-conversations,read-pois');
    const path = `/v1/conversations/${c.id}`;
    for (const [method, p, body] of [
      ['POST', '/v1/conversations', { contact_id: 'x' }],
      ['PUT', path, { is_muted: true }],
      ['DELETE', path, undefined],
      ['POST', `${path}/messages`, { text: 'hi' }],
    ] as const) {
      const res = await api(app, method, p, { key: readOnly, body });
      expect(res.status, `${method} ${p}`).toBe(403);
      expect(res.body).toEqual({ message: "This API key lacks the 'write-conversations' permission." });
    }
    for (const p of ['/v1/conversations', path, `${path}/messages`]) {
      const res = await api(app, 'GET', p, { key: writeOnly });
      expect(res.status, p).toBe(403);
      expect(res.body).toEqual({ message: "This API key lacks the 'read-conversations' permission." });
    }
    expect((await api(app, 'GET', path, { key: readOnly })).status).toBe(200);
    expect(await countMessages(app, c.id)).toBe(0);
  });
});
