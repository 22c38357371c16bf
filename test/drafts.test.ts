// Drafts: create, list, edit and delete through HTTP, each error with its
// exact code and message, the synchronization gate (and the deletion when it
// is turned off), and drafts events applied to the initial state.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let general: number;
let secret: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['general']);
  await subscribe(server, cast.owner, ['secret'], { invite_only: true });
  general = await streamId(server, cast.member, 'general');
  secret = await streamId(server, cast.owner, 'secret');
});
afterAll(() => server.stop());

type User = Cast['member'];

async function drafts(user: User) {
  const res = await server.call('GET', '/drafts', { as: user });
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(res.body.drafts.length);
  return res.body.drafts;
}

async function create(user: User, list: unknown[]) {
  return server.call('POST', '/drafts', { as: user, params: { drafts: list } });
}

test('drafts of each kind are created, listed oldest edit first, and private to their owner', async () => {
  const user = cast.member;
  const res = await create(user, [
    { type: 'stream', to: [general], topic: 'plans', content: 'Friday?', timestamp: 1700000200 },
    {
      type: 'private',
      to: [cast.member2.id, user.id],
      topic: 'ignored',
      content: 'hi',
      timestamp: 1700000100,
    },
    {
      type: 'private',
      to: [cast.admin.id, cast.member2.id],
      topic: '',
      content: 'group',
      timestamp: 1700000300,
    },
    { type: '', to: [5], topic: 'x', content: 'nowhere', timestamp: 1700000000 },
  ]);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    ids: [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)],
  });
  const [a, b, c, d] = res.body.ids;
  expect(await drafts(user)).toEqual([
    { id: d, type: '', to: [], topic: '', content: 'nowhere', timestamp: 1700000000 },
    {
      id: b,
      type: 'private',
      to: [cast.member2.id],
      topic: '',
      content: 'hi',
      timestamp: 1700000100,
    },
    {
      id: a,
      type: 'stream',
      to: [general],
      topic: 'plans',
      content: 'Friday?',
      timestamp: 1700000200,
    },
    {
      id: c,
      type: 'private',
      to: [cast.admin.id, cast.member2.id].sort((x, y) => x - y),
      topic: '',
      content: 'group',
      timestamp: 1700000300,
    },
  ]);
  expect(await drafts(cast.member2)).toEqual([]);
});

test('a missing timestamp becomes the current time; a direct draft to nobody or only to oneself is kept as such', async () => {
  const before = Math.floor(Date.now() / 1000);
  const res = await create(cast.moderator, [
    { type: 'private', to: [], topic: '', content: 'later' },
    { type: 'private', to: [cast.moderator.id], topic: '', content: 'note to self' },
  ]);
  const list = await drafts(cast.moderator);
  const [empty, self] = res.body.ids.map((id: number) =>
    list.find((x: { id: number }) => x.id === id),
  );
  expect(empty).toMatchObject({ type: '', to: [], content: 'later' });
  expect(self).toMatchObject({ type: 'private', to: [cast.moderator.id], content: 'note to self' });
  expect(empty.timestamp).toBeGreaterThanOrEqual(before);
  expect(empty.timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
});

test('drafts are accepted as multipart and without any drafts', async () => {
  const none = await server.call('POST', '/drafts', { as: cast.admin });
  expect(none.body).toEqual({ result: 'success', msg: '', ids: [] });
  const multi = await server.call('POST', '/drafts', {
    as: cast.admin,
    encoding: 'multipart',
    params: { drafts: [{ type: 'stream', to: [general], topic: 't', content: 'c' }] },
  });
  expect(multi.body.ids).toHaveLength(1);
});

test.each([
  [
    [{ type: 'stream', to: [], topic: 't', content: 'c' }],
    'Must specify exactly 1 channel ID for channel messages',
  ],
  [
    [{ type: 'stream', to: [1, 2], topic: 't', content: 'c' }],
    'Must specify exactly 1 channel ID for channel messages',
  ],
  [[{ type: 'stream', to: [999999], topic: 't', content: 'c' }], 'Invalid channel ID'],
  [[{ type: 'private', to: [999999], topic: '', content: 'c' }], 'Invalid user ID 999999'],
  [
    [{ type: 'private', to: [], topic: '', content: 'c', timestamp: -5 }],
    'Timestamp must not be negative.',
  ],
])('creating %j fails with "%s" and saves nothing', async (list, msg) => {
  const before = await drafts(cast.member);
  const res = await create(cast.member, [
    { type: '', to: [], topic: '', content: 'first is fine' },
    ...list,
  ]);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
  expect(await drafts(cast.member)).toEqual(before);
});

test('a channel draft needs access to the channel', async () => {
  const res = await create(cast.member, [
    { type: 'stream', to: [secret], topic: 't', content: 'c' },
  ]);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  const owner = await create(cast.owner, [
    { type: 'stream', to: [secret], topic: 't', content: 'c' },
  ]);
  expect(owner.status).toBe(200);
});

test('a draft with an id, an unknown key or blank content is refused by validation', async () => {
  for (const draft of [
    { id: 3, type: '', to: [], topic: '', content: 'c' },
    { type: '', to: [], topic: '', content: 'c', extra: 1 },
    { type: '', to: [], topic: '', content: '   ' },
    { type: 'huddle', to: [], topic: '', content: 'c' },
  ]) {
    const res = await create(cast.member, [draft]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  }
});

test('PATCH replaces every field of the draft; DELETE removes it', async () => {
  const [id] = (
    await create(cast.member2, [
      { type: 'stream', to: [general], topic: 't', content: 'old', timestamp: 1700000000 },
    ])
  ).body.ids;
  const res = await server.call('PATCH', `/drafts/${id}`, {
    as: cast.member2,
    params: {
      draft: {
        type: 'private',
        to: [cast.member.id],
        topic: 'dropped',
        content: 'new',
        timestamp: 1700000500,
      },
    },
  });
  expect(res.body).toEqual({ result: 'success', msg: '' });
  expect(await drafts(cast.member2)).toEqual([
    { id, type: 'private', to: [cast.member.id], topic: '', content: 'new', timestamp: 1700000500 },
  ]);
  const query = await server.call('PATCH', `/drafts/${id}`, {
    as: cast.member2,
    encoding: 'query',
    params: { draft: { type: '', to: [], topic: '', content: 'via query', timestamp: 1700000600 } },
  });
  expect(query.status).toBe(200);
  expect((await drafts(cast.member2))[0].content).toBe('via query');
  const bad = await server.call('PATCH', `/drafts/${id}`, {
    as: cast.member2,
    params: { draft: { type: 'stream', to: [], topic: '', content: 'x' } },
  });
  expect(bad.body).toEqual({
    result: 'error',
    msg: 'Must specify exactly 1 channel ID for channel messages',
    code: 'BAD_REQUEST',
  });
  const del = await server.call('DELETE', `/drafts/${id}`, { as: cast.member2 });
  expect(del.body).toEqual({ result: 'success', msg: '' });
  expect(await drafts(cast.member2)).toEqual([]);
});

test('a missing draft, or another user\'s, answers 404 "Draft does not exist" with code BAD_REQUEST', async () => {
  const [id] = (await create(cast.member, [{ type: '', to: [], topic: '', content: 'mine' }])).body
    .ids;
  const draft = { type: '', to: [], topic: '', content: 'theirs' };
  for (const [method, path, user] of [
    ['PATCH', '/drafts/999999', cast.member],
    ['DELETE', '/drafts/999999', cast.member],
    ['PATCH', `/drafts/${id}`, cast.member2],
    ['DELETE', `/drafts/${id}`, cast.member2],
  ] as const) {
    const res = await server.call(method, path, {
      as: user,
      params: method === 'PATCH' ? { draft } : {},
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ result: 'error', msg: 'Draft does not exist', code: 'BAD_REQUEST' });
  }
  expect((await drafts(cast.member)).find((d: { id: number }) => d.id === id).content).toBe('mine');
});

test('with synchronization off every endpoint refuses, and turning it off deletes the stored drafts', async () => {
  const user = await server.createUser(cast.realm, { email: 'nosync@example.com' });
  const [id] = (await create(user, [{ type: '', to: [], topic: '', content: 'kept?' }])).body.ids;
  const off = await server.call('PATCH', '/settings', {
    as: user,
    params: { enable_drafts_synchronization: false },
  });
  expect(off.status).toBe(200);
  const refused = {
    result: 'error',
    msg: 'User has disabled synchronizing drafts.',
    code: 'BAD_REQUEST',
  };
  for (const [method, path, params] of [
    ['GET', '/drafts', {}],
    ['POST', '/drafts', { drafts: [] }],
    ['PATCH', `/drafts/${id}`, { draft: { type: '', to: [], topic: '', content: 'x' } }],
    ['DELETE', `/drafts/${id}`, {}],
  ] as const) {
    const res = await server.call(method, path, { as: user, params });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused);
  }
  const state = (
    await server.ok('POST', '/register', {
      as: user,
      params: { fetch_event_types: ['drafts'], event_types: [] },
    })
  ).body;
  expect(state.drafts).toEqual([]);
  await server.ok('PATCH', '/settings', {
    as: user,
    params: { enable_drafts_synchronization: true },
  });
  expect(await drafts(user)).toEqual([]);
});

test('drafts events applied to the initial state give what a fresh /register returns', async () => {
  const user = cast.admin;
  const state = (
    await server.ok('POST', '/register', {
      as: user,
      params: { event_types: ['drafts'], fetch_event_types: ['drafts'] },
    })
  ).body;
  expect(state.drafts).toEqual(await drafts(user));
  const [a, b] = (
    await create(user, [
      { type: 'stream', to: [general], topic: 'one', content: 'first', timestamp: 1800000000 },
      { type: 'private', to: [cast.guest.id], topic: '', content: 'second', timestamp: 1800000001 },
    ])
  ).body.ids;
  await server.ok('PATCH', `/drafts/${a}`, {
    as: user,
    params: {
      draft: {
        type: 'stream',
        to: [general],
        topic: 'two',
        content: 'edited',
        timestamp: 1800000002,
      },
    },
  });
  await server.ok('DELETE', `/drafts/${b}`, { as: user });
  const { body } = await server.call('GET', '/events', {
    as: user,
    params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
  });
  expect(withoutIds(body.events)).toEqual([
    {
      type: 'drafts',
      op: 'add',
      drafts: [
        {
          id: a,
          type: 'stream',
          to: [general],
          topic: 'one',
          content: 'first',
          timestamp: 1800000000,
        },
        {
          id: b,
          type: 'private',
          to: [cast.guest.id],
          topic: '',
          content: 'second',
          timestamp: 1800000001,
        },
      ],
    },
    {
      type: 'drafts',
      op: 'update',
      draft: {
        id: a,
        type: 'stream',
        to: [general],
        topic: 'two',
        content: 'edited',
        timestamp: 1800000002,
      },
    },
    { type: 'drafts', op: 'remove', draft_id: b },
  ]);
  const applied = applyEvents(state, body.events).drafts;
  const fresh = (
    await server.ok('POST', '/register', {
      as: user,
      params: { fetch_event_types: ['drafts'], event_types: [] },
    })
  ).body;
  expect(applied).toEqual(fresh.drafts);
});
