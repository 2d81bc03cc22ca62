import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { collectPages, countMessages, createGroup, expectRecentSeconds, postMessage, type TestApp } from './support.js';

let app: TestApp;
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
});
afterAll(() => app.close());

describe('POST /v1/groups', () => {
  it('creates the group with its conversation and answers the bare object', async () => {
    const res = await api(app, 'POST', '/v1/groups', {
      key: team.key,
      body: {
        name: '  Night shift ',
        description: 'Drivers after 22:00',
        avatar_url: 'https://example.com/a.png',
        contacts: [{ username: 'ann' }, { username: 'bob', display_name: 'Bob B.', avatar_url: 'https://example.com/b.png' }],
      },
    });
    expect(res.status).toBe(201);
    const g = res.body;
    expect(g.data).toBeUndefined();
    expect(g.id).toMatch(/^grp_[0-9A-Z]{26}$/);
    expect(g).toMatchObject({
      name: 'Night shift',
      description: 'Drivers after 22:00',
      avatar_url: 'https://example.com/a.png',
      archived_at: null,
      contacts: [
        { username: 'ann', display_name: null, avatar_url: null },
        { username: 'bob', display_name: 'Bob B.', avatar_url: 'https://example.com/b.png' },
      ],
    });
    expectRecentSeconds(g.created_at);
    expect(g.conversation_id).toMatch(/^conv_[0-9A-Z]{26}$/);

    const conv = await api(app, 'GET', `/v1/conversations/${g.conversation_id}`, { key: team.key });
    expect(conv.status).toBe(200);
    expect(conv.body).toMatchObject({ id: g.conversation_id, group_id: g.id, contact_id: null });
  });

  it('defaults the optional fields', async () => {
    const g = await createGroup(app, team, { name: 'Plain' });
    expect(g).toMatchObject({ name: 'Plain', description: null, avatar_url: null, contacts: [], archived_at: null });
  });

  it.each([
    [{}, 'name', 'is required'],
    [{ name: '' }, 'name', 'is required'],
    [{ name: 12 }, 'name', 'must be a string'],
    [{ name: 'x'.repeat(256) }, 'name', 'may not be longer than 255 characters'],
    [{ name: 'g', colour: 'red' }, 'colour', 'is not an accepted field'],
    [{ name: 'g', avatar_url: 'ftp://x/y' }, 'avatar_url', 'must be an http or https URL'],
    [{ name: 'g', contacts: 'ann' }, 'contacts', 'must be an array of contact objects'],
    [{ name: 'g', contacts: [{}] }, 'contacts.0.username', 'is required'],
    [{ name: 'g', contacts: [{ username: 'u'.repeat(65) }] }, 'contacts.0.username', 'may not be longer than 64 characters'],
    [{ name: 'g', contacts: [{ username: 'a', nick: 'b' }] }, 'contacts.0.nick', 'is not an accepted field'],
    [{ name: 'g', contacts: [{ username: 'a' }, { username: 'a' }] }, 'contacts.1.username', 'is listed twice'],
    [{ name: 'g', contacts: [{ username: 'a' }, 'b'] }, 'contacts.1', 'must be a contact object ({username, display_name?, avatar_url?})'],
  ])('rejects %j with 422 on %s', async (body, field, message) => {
    const res = await api(app, 'POST', '/v1/groups', { key: team.key, body });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await api(app, 'POST', '/v1/groups', { key: team.key, body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/not valid JSON/);
  });
});

describe('GET /v1/groups', () => {
  it('lists newest first, ten by default, and pages with starting_after', async () => {
    const t = await makeTeam(app);
    const made: string[] = [];
    for (let i = 0; i < 13; i++) made.push((await createGroup(app, t, { name: `g${i}` })).id);
    const newestFirst = [...made].reverse();

    const first = await api(app, 'GET', '/v1/groups', { key: t.key });
    expect(first.status).toBe(200);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data.map((g: { id: string }) => g.id)).toEqual(newestFirst.slice(0, 10));
    expect(first.body.data[0].name).toBe('g12');

    const { ids, sizes } = await collectPages(app, t.key, '/v1/groups', 5);
    expect(ids).toEqual(newestFirst);
    expect(sizes).toEqual([5, 5, 3]);

    const exact = await api(app, 'GET', '/v1/groups?limit=13', { key: t.key });
    expect(exact.body.has_more).toBe(false);
    expect(exact.body.data).toHaveLength(13);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=2.5', 'limit'],
    ['starting_after=abc', 'starting_after'],
    ['starting_after=conv_01J0000000000000000000000A', 'starting_after'],
    ['archived=maybe', 'archived'],
  ])('rejects %s with 422', async (query, field) => {
    const res = await api(app, 'GET', `/v1/groups?${query}`, { key: team.key });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it('hides archived groups unless archived=true, and restores them', async () => {
    const t = await makeTeam(app);
    const a = await createGroup(app, t, { name: 'a' });
    const b = await createGroup(app, t, { name: 'b' });
    const archivedAt = 1_700_000_000;
    const put = await api(app, 'PUT', `/v1/groups/${a.id}`, { key: t.key, body: { archived_at: archivedAt } });
    expect(put.status).toBe(200);
    expect(put.body.archived_at).toBe(archivedAt);

    const ids = async (query: string) => (await api(app, 'GET', `/v1/groups${query}`, { key: t.key })).body.data.map((g: { id: string }) => g.id);
    expect(await ids('')).toEqual([b.id]);
    expect(await ids('?archived=false')).toEqual([b.id]);
    expect(await ids('?archived=true')).toEqual([a.id]);

    const restored = await api(app, 'PUT', `/v1/groups/${a.id}`, { key: t.key, body: { archived_at: null } });
    expect(restored.body.archived_at).toBeNull();
    expect(await ids('')).toEqual([b.id, a.id]);
    expect(await ids('?archived=true')).toEqual([]);
  });
});

describe('GET, PUT, DELETE /v1/groups/{id}', () => {
  it('retrieves a group', async () => {
    const g = await createGroup(app, team, { name: 'Fetch me' });
    const res = await api(app, 'GET', `/v1/groups/${g.id}`, { key: team.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(g);
  });

  it('updates only the fields sent; null clears optional ones; contacts replace the member list', async () => {
    const g = await createGroup(app, team, { name: 'Old', description: 'd', avatar_url: 'http://x.org/a', contacts: [{ username: 'ann' }] });
    const res = await api(app, 'PUT', `/v1/groups/${g.id}`, {
      key: team.key,
      body: { name: 'New', description: null, contacts: [{ username: 'cat', display_name: 'Cat' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...g,
      name: 'New',
      description: null,
      contacts: [{ username: 'cat', display_name: 'Cat', avatar_url: null }],
    });
    const again = await api(app, 'PUT', `/v1/groups/${g.id}`, { key: team.key, body: {} });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it.each([
    [{ name: null }, 'name', 'must be a string'],
    [{ archived_at: '2024-01-01' }, 'archived_at', 'must be an integer (Unix epoch seconds)'],
    [{ archived_at: 1.5 }, 'archived_at', 'must be an integer (Unix epoch seconds)'],
    [{ archived_at: -1 }, 'archived_at', 'must not be negative'],
    [{ archived_at: 1_700_000_000_000 }, 'archived_at', 'must be a Unix timestamp in seconds'],
    [{ contacts: [{ username: 5 }] }, 'contacts.0.username', 'must be a string'],
    [{ conversation_id: 'conv_x' }, 'conversation_id', 'is not an accepted field'],
  ])('rejects %j with 422 on %s', async (body, field, message) => {
    const g = await createGroup(app, team);
    const res = await api(app, 'PUT', `/v1/groups/${g.id}`, { key: team.key, body });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('deletes the group, its conversation and its messages', async () => {
    const g = await createGroup(app, team);
    await postMessage(app, team, g.conversation_id, 'one');
    await postMessage(app, team, g.conversation_id, 'two');
    expect(await countMessages(app, g.conversation_id)).toBe(2);

    const res = await api(app, 'DELETE', `/v1/groups/${g.id}`, { key: team.key });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await api(app, 'GET', `/v1/groups/${g.id}`, { key: team.key })).status).toBe(404);
    expect((await api(app, 'GET', `/v1/conversations/${g.conversation_id}`, { key: team.key })).status).toBe(404);
    expect(await countMessages(app, g.conversation_id)).toBe(0);
    expect((await api(app, 'DELETE', `/v1/groups/${g.id}`, { key: team.key })).status).toBe(404);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of ['grp_01J00000000000000000000000', 'nope', 'conv_01J00000000000000000000000']) {
      const res = await api(app, 'GET', `/v1/groups/${id}`, { key: team.key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Group not found.' });
    }
  });
});

describe('team scoping and permissions', () => {
  it("answers 404 for another team's group and never lists it", async () => {
    const other = await makeTeam(app);
    const g = await createGroup(app, team, { name: 'Private' });
    expect((await api(app, 'GET', `/v1/groups/${g.id}`, { key: other.key })).status).toBe(404);
    expect((await api(app, 'PUT', `/v1/groups/${g.id}`, { key: other.key, body: { name: 'Mine' } })).status).toBe(404);
    expect((await api(app, 'DELETE', `/v1/groups/${g.id}`, { key: other.key })).status).toBe(404);
    expect((await api(app, 'GET', '/v1/groups', { key: other.key })).body).toEqual({ has_more: false, data: [] });
    expect((await api(app, 'GET', `/v1/groups/${g.id}`, { key: team.key })).body.name).toBe('Private');
  });

  it('needs read-conversations to read and write-conversations to change', async () => {
    const g = await createGroup(app, team);
    const readOnly = await team.keyWith('read-conversations');
    const writeOnly = await team.keyWith('write-conversations');
    const lacksWrite = { message: "This API key lacks the 'write-conversations' permission." };
    const lacksRead = { message: "This API key lacks the 'read-conversations' permission." };

    expect((await api(app, 'GET', '/v1/groups', { key: readOnly })).status).toBe(200);
    expect((await api(app, 'GET', `/v1/groups/${g.id}`, { key: readOnly })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/v1/groups', { name: 'x' }],
      ['PUT', `/v1/groups/${g.id}`, { name: 'x' }],
      ['DELETE', `/v1/groups/${g.id}`, undefined],
    ] as const) {
      const res = await api(app, method, path, { key: readOnly, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(lacksWrite);
    }
    for (const path of ['/v1/groups', `/v1/groups/${g.id}`]) {
      const res = await api(app, 'GET', path, { key: writeOnly });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(lacksRead);
    }
    expect((await api(app, 'GET', `/v1/groups/${g.id}`, { key: team.key })).body.name).toBe('Crew');
  });
});
