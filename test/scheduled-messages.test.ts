// Scheduled messages: create, list, edit and delete through HTTP, with the
// checks of an immediate send and Zulip's exact errors; scheduled_messages
// events applied to the initial state.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let general: number;
let secret: number;
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' }));
  await subscribe(server, cast.member, ['general']);
  await subscribe(server, cast.owner, ['secret'], { invite_only: true });
  general = await streamId(server, cast.member, 'general');
  secret = await streamId(server, cast.owner, 'secret');
});
afterAll(() => server.stop());

type User = Cast['member'];

async function scheduled(user: User) {
  const res = await server.call('GET', '/scheduled_messages', { as: user });
  expect(res.status).toBe(200);
  return res.body.scheduled_messages;
}

async function schedule(user: User, params: Record<string, unknown>) {
  return server.call('POST', '/scheduled_messages', {
    as: user,
    params: { scheduled_delivery_timestamp: inAnHour(), ...params },
  });
}

test('channel and direct messages are scheduled, rendered and listed by delivery time', async () => {
  const user = cast.member;
  const at = inAnHour();
  const channel = await schedule(user, {
    type: 'channel',
    to: general,
    topic: 'plans',
    content: 'Ship **it**',
    scheduled_delivery_timestamp: at + 60,
  });
  expect(channel.body).toEqual({
    result: 'success',
    msg: '',
    scheduled_message_id: expect.any(Number),
  });
  const direct = await schedule(user, {
    type: 'direct',
    to: [cast.member2.id, user.id],
    content: 'hi',
    scheduled_delivery_timestamp: at,
  });
  const group = await schedule(user, {
    type: 'private',
    to: [cast.admin.id, cast.member2.id],
    content: 'all',
    scheduled_delivery_timestamp: at + 120,
  });
  expect(await scheduled(user)).toEqual([
    {
      scheduled_message_id: direct.body.scheduled_message_id,
      type: 'private',
      to: [cast.member2.id],
      content: 'hi',
      rendered_content: '<p>hi</p>',
      scheduled_delivery_timestamp: at,
      failed: false,
    },
    {
      scheduled_message_id: channel.body.scheduled_message_id,
      type: 'stream',
      to: general,
      topic: 'plans',
      content: 'Ship **it**',
      rendered_content: '<p>Ship <strong>it</strong></p>',
      scheduled_delivery_timestamp: at + 60,
      failed: false,
    },
    {
      scheduled_message_id: group.body.scheduled_message_id,
      type: 'private',
      to: [cast.admin.id, cast.member2.id].sort((a, b) => a - b),
      content: 'all',
      rendered_content: '<p>all</p>',
      scheduled_delivery_timestamp: at + 120,
      failed: false,
    },
  ]);
  expect(await scheduled(cast.member2)).toEqual([]);
});

test('(no topic) is read as the empty topic; multipart is accepted', async () => {
  const res = await server.call('POST', '/scheduled_messages', {
    as: cast.moderator,
    encoding: 'multipart',
    params: {
      type: 'stream',
      to: general,
      topic: '(no topic)',
      content: 'x',
      scheduled_delivery_timestamp: inAnHour(),
    },
  });
  expect(res.status).toBe(200);
  const [message] = await scheduled(cast.moderator);
  expect(message).toMatchObject({ type: 'stream', topic: '' });
  await server.ok('DELETE', `/scheduled_messages/${message.scheduled_message_id}`, {
    as: cast.moderator,
  });
});

test.each([
  [
    { type: 'stream', to: 999999, topic: 't', content: 'c' },
    'STREAM_DOES_NOT_EXIST',
    "Channel with ID '999999' does not exist",
    { stream_id: 999999 },
  ],
  [
    { type: 'stream', to: 0, topic: 't', content: 'c', scheduled_delivery_timestamp: 1000 },
    'BAD_REQUEST',
    'Scheduled delivery time must be in the future.',
    {},
  ],
  [{ type: 'direct', to: [999999], content: 'c' }, 'BAD_REQUEST', 'Invalid user ID 999999', {}],
  [{ type: 'stream', to: -1, content: 'c' }, 'BAD_REQUEST', 'Missing topic', {}],
])('scheduling %j fails with %s "%s"', async (params, code, msg, extra) => {
  const res = await schedule(cast.member2, {
    ...params,
    ...(params.to === -1 ? { to: general } : {}),
  });
  expectError(res, 400, code, msg, extra);
  expect(await scheduled(cast.member2)).toEqual([]);
});

test('a channel the sender may not post in is refused', async () => {
  const res = await schedule(cast.member2, {
    type: 'stream',
    to: secret,
    topic: 't',
    content: 'c',
  });
  expectError(res, 400, 'BAD_REQUEST', "Not authorized to send to channel 'secret'");
});

test('PATCH changes content, topic, recipients, type and time, re-checking the message', async () => {
  const user = cast.member2;
  const id = (await schedule(user, { type: 'stream', to: general, topic: 'a', content: 'one' }))
    .body.scheduled_message_id;
  const patch = (params: Record<string, unknown>, encoding?: 'query') =>
    server.call('PATCH', `/scheduled_messages/${id}`, { as: user, params, encoding });
  expect((await patch({ content: '*two*', topic: 'b' })).body).toEqual({
    result: 'success',
    msg: '',
  });
  expect((await scheduled(user))[0]).toMatchObject({
    type: 'stream',
    to: general,
    topic: 'b',
    content: '*two*',
    rendered_content: '<p><em>two</em></p>',
  });
  const at = inAnHour() + 500;
  expect((await patch({ scheduled_delivery_timestamp: at }, 'query')).status).toBe(200);
  expect((await scheduled(user))[0].scheduled_delivery_timestamp).toBe(at);
  expect((await patch({ type: 'direct', to: [cast.member.id] })).status).toBe(200);
  expect((await scheduled(user))[0]).toEqual({
    scheduled_message_id: id,
    type: 'private',
    to: [cast.member.id],
    content: '*two*',
    rendered_content: '<p><em>two</em></p>',
    scheduled_delivery_timestamp: at,
    failed: false,
  });
  expect((await patch({ topic: 'ignored for direct' })).status).toBe(200);
  expect((await scheduled(user))[0]).not.toHaveProperty('topic');
  expect((await patch({ type: 'channel', to: general, topic: 'back' })).status).toBe(200);
  expect((await scheduled(user))[0]).toMatchObject({ type: 'stream', to: general, topic: 'back' });

  expectError(await patch({}), 400, 'BAD_REQUEST', 'Nothing to change');
  expectError(
    await patch({ type: 'direct' }),
    400,
    'BAD_REQUEST',
    'Recipient required when updating type of scheduled message.',
  );
  expectError(
    await patch({ type: 'stream', to: general }),
    400,
    'BAD_REQUEST',
    'Topic required when updating scheduled message type to channel.',
  );
  expectError(
    await patch({ scheduled_delivery_timestamp: 1000 }),
    400,
    'BAD_REQUEST',
    'Scheduled delivery time must be in the future.',
  );
  expectError(
    await patch({ to: 999999 }),
    400,
    'STREAM_DOES_NOT_EXIST',
    "Channel with ID '999999' does not exist",
    { stream_id: 999999 },
  );
  expectError(
    await patch({ to: secret }),
    400,
    'BAD_REQUEST',
    "Not authorized to send to channel 'secret'",
  );
  expectError(
    await patch({ type: 'private', to: [999999] }),
    400,
    'BAD_REQUEST',
    'Invalid user ID 999999',
  );
  expect((await scheduled(user))[0]).toMatchObject({
    type: 'stream',
    to: general,
    topic: 'back',
    content: '*two*',
  });
  await server.ok('DELETE', `/scheduled_messages/${id}`, { as: user });
});

test('a missing scheduled message, or another user\'s, answers 404 "Scheduled message does not exist"', async () => {
  const id = (
    await schedule(cast.member, { type: 'direct', to: [cast.member.id], content: 'mine' })
  ).body.scheduled_message_id;
  for (const [method, path, user] of [
    ['PATCH', '/scheduled_messages/999999', cast.member],
    ['DELETE', '/scheduled_messages/999999', cast.member],
    ['PATCH', `/scheduled_messages/${id}`, cast.member2],
    ['DELETE', `/scheduled_messages/${id}`, cast.member2],
  ] as const) {
    const res = await server.call(method, path, {
      as: user,
      params: method === 'PATCH' ? { content: 'theirs' } : {},
    });
    expectError(res, 404, 'BAD_REQUEST', 'Scheduled message does not exist');
  }
  const del = await server.call('DELETE', `/scheduled_messages/${id}`, { as: cast.member });
  expect(del.body).toEqual({ result: 'success', msg: '' });
  expect(
    (await scheduled(cast.member)).map(
      (m: { scheduled_message_id: number }) => m.scheduled_message_id,
    ),
  ).not.toContain(id);
});

test('scheduled_messages events applied to the initial state give what a fresh /register returns', async () => {
  const user = cast.admin;
  const state = await register(server, user, {
    event_types: ['scheduled_messages'],
    fetch_event_types: ['scheduled_messages'],
  });
  expect(state.scheduled_messages).toEqual([]);
  const at = inAnHour();
  const a = (
    await schedule(user, {
      type: 'stream',
      to: general,
      topic: 't',
      content: 'first',
      scheduled_delivery_timestamp: at,
    })
  ).body.scheduled_message_id;
  const b = (
    await schedule(user, {
      type: 'direct',
      to: [cast.guest.id],
      content: 'second',
      scheduled_delivery_timestamp: at + 1,
    })
  ).body.scheduled_message_id;
  await server.ok('PATCH', `/scheduled_messages/${a}`, {
    as: user,
    params: { content: 'edited' },
  });
  await server.ok('DELETE', `/scheduled_messages/${b}`, { as: user });
  const events = await eventsOf(server, user, state.queue_id);
  const first = {
    scheduled_message_id: a,
    type: 'stream',
    to: general,
    topic: 't',
    content: 'first',
    rendered_content: '<p>first</p>',
    scheduled_delivery_timestamp: at,
    failed: false,
  };
  expect(withoutIds(events)).toEqual([
    { type: 'scheduled_messages', op: 'add', scheduled_messages: [first] },
    {
      type: 'scheduled_messages',
      op: 'add',
      scheduled_messages: [
        {
          scheduled_message_id: b,
          type: 'private',
          to: [cast.guest.id],
          content: 'second',
          rendered_content: '<p>second</p>',
          scheduled_delivery_timestamp: at + 1,
          failed: false,
        },
      ],
    },
    {
      type: 'scheduled_messages',
      op: 'update',
      scheduled_message: { ...first, content: 'edited', rendered_content: '<p>edited</p>' },
    },
    { type: 'scheduled_messages', op: 'remove', scheduled_message_id: b },
  ]);
  const fresh = await register(server, user, {
    fetch_event_types: ['scheduled_messages'],
    event_types: [],
  });
  expect(applyEvents(state, events).scheduled_messages).toEqual(fresh.scheduled_messages);
  await server.ok('DELETE', `/scheduled_messages/${a}`, { as: user });
});
