// PATCH /messages/{id} topic and channel moves: propagate modes, resolving,
// permissions and time limits (MOVE_MESSAGES_TIME_LIMIT_EXCEEDED), and the
// events, including delete_message to users losing access.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  fetchNarrow,
  register,
  sendDirect,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let lobby: number;
let vault: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['lobby'], {
    principals: [cast.member.id, cast.member2.id, cast.moderator.id],
  });
  await subscribe(server, cast.member, ['vault'], {
    invite_only: true,
    principals: [cast.member.id, cast.moderator.id],
  });
  lobby = await streamId(server, cast.member, 'lobby');
  vault = await streamId(server, cast.member, 'vault');
});
afterAll(() => server.stop());

function edit(as: Cast['member'], id: number, params: Record<string, unknown>) {
  return server.call('PATCH', `/messages/${id}`, { as, params });
}

async function topicOf(id: number) {
  return (await server.call('GET', `/messages/${id}`, { as: cast.moderator })).body.message.subject;
}

async function backdate(id: number, seconds: number) {
  await server.services.db.write((tx) =>
    tx.message.update({ where: { id }, data: { dateSent: new Date(Date.now() - seconds * 1000) } }),
  );
}

async function threeIn(topic: string) {
  return [
    await sendToChannel(server, cast.member, 'lobby', topic, 'one'),
    await sendToChannel(server, cast.member2, 'lobby', topic.toUpperCase(), 'two'),
    await sendToChannel(server, cast.member, 'lobby', topic, 'three'),
  ];
}

test('change_one, change_later and change_all pick the messages of the topic, case-insensitively', async () => {
  const [a, b, c] = await threeIn('alpha');
  expect((await edit(cast.member, b, { topic: 'beta' })).status).toBe(200);
  expect([await topicOf(a), await topicOf(b), await topicOf(c)]).toEqual([
    'alpha',
    'beta',
    'alpha',
  ]);
  const [d, e, f] = await threeIn('gamma');
  expect(
    (await edit(cast.member, e, { topic: 'delta', propagate_mode: 'change_later' })).status,
  ).toBe(200);
  expect([await topicOf(d), await topicOf(e), await topicOf(f)]).toEqual([
    'gamma',
    'delta',
    'delta',
  ]);
  const q = await register(server, cast.member2, { event_types: ['update_message'] });
  const [g, h, i] = await threeIn('eps');
  expect(
    (
      await edit(cast.member2, h, {
        topic: 'zeta',
        propagate_mode: 'change_all',
        send_notification_to_old_thread: false,
      })
    ).status,
  ).toBe(200);
  expect([await topicOf(g), await topicOf(h), await topicOf(i)]).toEqual(['zeta', 'zeta', 'zeta']);
  const events = await eventsOf(server, cast.member2, q.queue_id);
  expect(events).toEqual([
    expect.objectContaining({
      type: 'update_message',
      user_id: cast.member2.id,
      message_id: h,
      message_ids: [g, h, i],
      stream_id: lobby,
      stream_name: 'lobby',
      propagate_mode: 'change_all',
      orig_subject: 'EPS',
      subject: 'zeta',
      topic_links: [],
      rendering_only: false,
    }),
  ]);
  expect(events[0]).not.toHaveProperty('content');
});

test('the event applied to the unread state gives a fresh /register', async () => {
  const a = await sendToChannel(server, cast.member, 'lobby', 'unread one', 'x');
  await sendToChannel(server, cast.member, 'lobby', 'unread one', 'y');
  const state = await register(server, cast.member2, {
    event_types: ['update_message'],
    fetch_event_types: ['message', 'update_message_flags'],
  });
  expect(
    (await edit(cast.member, a, { topic: 'unread two', propagate_mode: 'change_all' })).status,
  ).toBe(200);
  const [event] = await eventsOf(server, cast.member2, state.queue_id);
  // What a client does with the event: the moved IDs leave the old topic's entry for the new one.
  const streams = applyEvents(state, [event]).unread_msgs.streams;
  const fresh = (
    await register(server, cast.member2, { fetch_event_types: ['message', 'update_message_flags'] })
  ).unread_msgs;
  const key = (s: any) => `${s.stream_id}:${s.topic}`;
  expect(fresh.streams.sort((x: any, y: any) => key(x).localeCompare(key(y)))).toEqual(
    streams.sort((x: any, y: any) => key(x).localeCompare(key(y))),
  );
});

test('resolving adds "✔ ", unresolving removes it; the empty topic cannot be resolved', async () => {
  const id = await sendToChannel(server, cast.member, 'lobby', 'bug', 'broken');
  expect(
    (await edit(cast.member2, id, { topic: '✔ bug', propagate_mode: 'change_all' })).status,
  ).toBe(200);
  expect(await topicOf(id)).toBe('✔ bug');
  expect(
    (await edit(cast.member2, id, { topic: 'bug', propagate_mode: 'change_all' })).status,
  ).toBe(200);
  expect(await topicOf(id)).toBe('bug');
  const empty = await sendToChannel(server, cast.member, 'lobby', '', 'chat');
  expectError(
    await edit(cast.member, empty, { topic: '✔ ' }),
    400,
    'BAD_REQUEST',
    'General chat cannot be marked as resolved',
  );
});

test('renames need the topic-move permission; resolving needs the resolve permission', async () => {
  const id = await sendToChannel(server, cast.member, 'lobby', 'guarded', 'text');
  const nobody = await server.services.db.read((db) =>
    db.userGroup.findFirstOrThrow({
      where: { realmId: cast.realm.id, name: 'role:nobody', isSystemGroup: true },
    }),
  );
  const realm = await server.services.db.read((db) =>
    db.realm.findUniqueOrThrow({ where: { id: cast.realm.id } }),
  );
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: cast.realm.id },
      data: { canMoveMessagesBetweenTopicsGroupId: nobody.id, canResolveTopicsGroupId: nobody.id },
    }),
  );
  server.services.auth.forgetRealm(cast.realm.id);
  expectError(
    await edit(cast.member2, id, { topic: 'elsewhere' }),
    400,
    'BAD_REQUEST',
    "You don't have permission to edit this message",
  );
  expectError(
    await edit(cast.member2, id, { topic: '✔ guarded' }),
    400,
    'BAD_REQUEST',
    "You don't have permission to resolve topics.",
  );
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: cast.realm.id },
      data: {
        canMoveMessagesBetweenTopicsGroupId: realm.canMoveMessagesBetweenTopicsGroupId,
        canResolveTopicsGroupId: realm.canResolveTopicsGroupId,
      },
    }),
  );
  server.services.auth.forgetRealm(cast.realm.id);
  expect(await topicOf(id)).toBe('guarded');
});

test('time limits: per message, and MOVE_MESSAGES_TIME_LIMIT_EXCEEDED for a whole topic', async () => {
  const [a, b, c] = await threeIn('ancient');
  await backdate(a, 8 * 24 * 3600);
  expectError(
    await edit(cast.member2, a, { topic: 'newer' }),
    400,
    'BAD_REQUEST',
    "The time limit for editing this message's topic has passed.",
  );
  expectError(
    await edit(cast.member2, b, { topic: 'newer', propagate_mode: 'change_all' }),
    400,
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    'You only have permission to move the 2/3 most recent messages in this topic.',
    {
      first_message_id_allowed_to_move: b,
      total_messages_in_topic: 3,
      total_messages_allowed_to_move: 2,
    },
  );
  expect(
    (await edit(cast.member2, b, { topic: 'newer', propagate_mode: 'change_later' })).status,
  ).toBe(200);
  expect([await topicOf(a), await topicOf(c)]).toEqual(['ancient', 'newer']);
  expect(
    (await edit(cast.moderator, a, { topic: 'newer', propagate_mode: 'change_all' })).status,
  ).toBe(200);
  expect(await topicOf(a)).toBe('newer');
});

test('channel moves: permission to post in the target, rows and delete_message for users losing access', async () => {
  const [a, b] = [
    await sendToChannel(server, cast.member, 'lobby', 'to vault', 'one'),
    await sendToChannel(server, cast.member, 'lobby', 'to vault', 'two'),
  ];
  expectError(
    await edit(cast.member2, a, { stream_id: vault }),
    400,
    'BAD_REQUEST',
    'Invalid channel ID',
  );
  const loser = await register(server, cast.member2, {
    event_types: ['update_message', 'delete_message'],
    client_capabilities: { bulk_message_deletion: true },
  });
  const legacyLoser = await register(server, cast.member2, { event_types: ['delete_message'] });
  const mover = await register(server, cast.member, {
    event_types: ['update_message', 'delete_message'],
  });
  const res = await edit(cast.member, a, {
    stream_id: vault,
    topic: 'kept',
    propagate_mode: 'change_all',
  });
  expect(res.body).toEqual({ result: 'success', msg: '', detached_uploads: [] });
  expect(withoutIds(await eventsOf(server, cast.member2, loser.queue_id))).toEqual([
    {
      type: 'delete_message',
      message_ids: [a, b],
      message_type: 'stream',
      stream_id: lobby,
      topic: 'to vault',
    },
  ]);
  // Without bulk_message_deletion: one event per message.
  expect(withoutIds(await eventsOf(server, cast.member2, legacyLoser.queue_id))).toEqual(
    [a, b].map((id) => ({
      type: 'delete_message',
      message_id: id,
      message_type: 'stream',
      stream_id: lobby,
      topic: 'to vault',
    })),
  );
  expect(await eventsOf(server, cast.member, mover.queue_id)).toEqual([
    expect.objectContaining({
      type: 'update_message',
      message_ids: [a, b],
      stream_id: lobby,
      new_stream_id: vault,
      subject: 'kept',
      orig_subject: 'to vault',
    }),
  ]);
  expectError(
    await server.call('GET', `/messages/${a}`, { as: cast.member2 }),
    400,
    'BAD_REQUEST',
    'Invalid message(s)',
  );
  const seen = await fetchNarrow(server, cast.member, [
    { operator: 'channel', operand: vault },
    { operator: 'topic', operand: 'kept' },
  ]);
  expect(seen.messages.map((m: { id: number }) => m.id)).toEqual([a, b]);
  const dm = await sendDirect(server, cast.member, [cast.member2.id], 'dm');
  expectError(
    await edit(cast.member, dm, { stream_id: lobby }),
    400,
    'BAD_REQUEST',
    'Direct messages cannot be moved to channels.',
  );
});

test('the edit history records moves and content edits', async () => {
  const id = await sendToChannel(server, cast.member, 'lobby', 'storied', 'first');
  await edit(cast.member, id, { content: 'second' });
  await edit(cast.member, id, { topic: 'retold' });
  const res = await server.call('GET', `/messages/${id}/history`, { as: cast.member2 });
  expect(res.body.message_history).toEqual([
    {
      topic: 'storied',
      content: 'first',
      rendered_content: '<p>first</p>',
      timestamp: expect.any(Number),
      user_id: cast.member.id,
    },
    {
      topic: 'storied',
      content: 'second',
      rendered_content: '<p>second</p>',
      timestamp: expect.any(Number),
      user_id: cast.member.id,
      prev_content: 'first',
      prev_rendered_content: '<p>first</p>',
      content_html_diff: expect.any(String),
    },
    {
      topic: 'retold',
      content: 'second',
      rendered_content: '<p>second</p>',
      timestamp: expect.any(Number),
      user_id: cast.member.id,
      prev_topic: 'storied',
    },
  ]);
});

test('channel moves need can_move_messages_between_channels_group and are time-limited', async () => {
  const id = await sendToChannel(server, cast.member, 'lobby', 'stay', 'here');
  await subscribe(server, cast.member, ['annex'], {
    principals: [cast.member.id, cast.member2.id],
  });
  const annex = await streamId(server, cast.member, 'annex');
  const nobody = await server.services.db.read((db) =>
    db.userGroup.findFirstOrThrow({
      where: { realmId: cast.realm.id, name: 'role:nobody', isSystemGroup: true },
    }),
  );
  const realm = await server.services.db.read((db) =>
    db.realm.findUniqueOrThrow({ where: { id: cast.realm.id } }),
  );
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: cast.realm.id },
      data: { canMoveMessagesBetweenChannelsGroupId: nobody.id },
    }),
  );
  server.services.auth.forgetRealm(cast.realm.id);
  expectError(
    await edit(cast.member2, id, { stream_id: annex }),
    400,
    'BAD_REQUEST',
    "You don't have permission to move this message",
  );
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: cast.realm.id },
      data: { canMoveMessagesBetweenChannelsGroupId: realm.canMoveMessagesBetweenChannelsGroupId },
    }),
  );
  server.services.auth.forgetRealm(cast.realm.id);
  await backdate(id, 8 * 24 * 3600);
  expectError(
    await edit(cast.member2, id, { stream_id: annex }),
    400,
    'BAD_REQUEST',
    "The time limit for editing this message's channel has passed.",
  );
  expect((await edit(cast.moderator, id, { stream_id: annex })).status).toBe(200);
  const history = (await server.call('GET', `/messages/${id}/history`, { as: cast.member })).body
    .message_history;
  expect(history[1]).toEqual({
    topic: 'stay',
    content: 'here',
    rendered_content: '<p>here</p>',
    timestamp: expect.any(Number),
    user_id: cast.moderator.id,
    stream: annex,
    prev_stream: lobby,
  });
});

test("the new topic must satisfy the channel's topics policy", async () => {
  const id = await sendToChannel(server, cast.member, 'lobby', 'named', 'text');
  await server.services.db.write((tx) =>
    tx.stream.update({ where: { id: lobby }, data: { topicsPolicy: 'disable_empty_topic' } }),
  );
  expectError(
    await edit(cast.member, id, { topic: '' }),
    400,
    'BAD_REQUEST',
    'Sending messages to the general chat topic is not allowed in this channel.',
  );
  await server.services.db.write((tx) =>
    tx.stream.update({ where: { id: lobby }, data: { topicsPolicy: 'inherit' } }),
  );
});

test('a move sets last_moved_timestamp, not last_edit_timestamp; resolving sets neither', async () => {
  const stamps = async (id: number) => {
    const { message } = (await server.call('GET', `/messages/${id}`, { as: cast.member2 })).body;
    return {
      edited: message.last_edit_timestamp !== undefined,
      moved: message.last_moved_timestamp !== undefined,
    };
  };
  const [first, second] = [
    await sendToChannel(server, cast.member, 'lobby', 'stamps', 'one'),
    await sendToChannel(server, cast.member, 'lobby', 'stamps', 'two'),
  ];
  expect(
    (await edit(cast.member, first, { topic: '✔ stamps', propagate_mode: 'change_all' })).status,
  ).toBe(200);
  expect(await stamps(first)).toEqual({ edited: false, moved: false });
  expect(
    (await edit(cast.member, first, { topic: 'stamps', propagate_mode: 'change_all' })).status,
  ).toBe(200);
  expect(await stamps(second)).toEqual({ edited: false, moved: false });
  expect(
    (await edit(cast.member, first, { topic: 'stamped', propagate_mode: 'change_all' })).status,
  ).toBe(200);
  expect(await stamps(first)).toEqual({ edited: false, moved: true });
  expect(await stamps(second)).toEqual({ edited: false, moved: true });
  expect((await edit(cast.member, second, { content: 'two, edited' })).status).toBe(200);
  expect(await stamps(second)).toEqual({ edited: true, moved: true });
  const third = await sendToChannel(server, cast.member, 'lobby', 'stamps', 'three');
  expect((await edit(cast.member, third, { content: 'three, edited' })).status).toBe(200);
  expect(await stamps(third)).toEqual({ edited: true, moved: false });
});
