// POST /streams/{stream_id}/delete_topic: administrators only, every message of
// the topic (regardless of case) that they can read, in batches, with
// delete_message events shaped per queue and the channel's first_message_id
// kept right.
import type { User } from '../generated/prisma/sqlite/client';
import { doDeleteTopic } from '../src/actions/messages/message-delete';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  idsOf,
  register,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['garden'], {
    principals: [cast.member.id, cast.member2.id, cast.admin.id],
  });
});
afterAll(() => server.stop());

function deleteTopic(as: User, stream: number, topicName: string) {
  return server.call('POST', `/streams/${stream}/delete_topic`, {
    as,
    params: { topic_name: topicName },
  });
}

const topicNarrow = (channel: string, topic: string) => [
  { operator: 'channel', operand: channel },
  { operator: 'topic', operand: topic },
];

test('deletes every message of the topic, whatever its case; other topics stay', async () => {
  const garden = await streamId(server, cast.member, 'garden');
  const ids = [
    await sendToChannel(server, cast.member, 'garden', 'Weeds', 'one'),
    await sendToChannel(server, cast.member2, 'garden', 'weeds', 'two'),
    await sendToChannel(server, cast.member, 'garden', 'WEEDS', 'three'),
  ];
  const kept = await sendToChannel(server, cast.member, 'garden', 'roses', 'stays');
  const bulk = await register(server, cast.member2, {
    event_types: ['delete_message'],
    client_capabilities: { bulk_message_deletion: true },
  });
  const single = await register(server, cast.member2, { event_types: ['delete_message'] });

  const res = await deleteTopic(cast.admin, garden, 'weeds');
  expect(res.body).toEqual({ result: 'success', msg: '', complete: true });
  expect(await idsOf(server, cast.member, topicNarrow('garden', 'weeds'))).toEqual([]);
  expect(await idsOf(server, cast.member, topicNarrow('garden', 'roses'))).toEqual([kept]);

  const where = { message_type: 'stream', stream_id: garden, topic: 'weeds' };
  expect(withoutIds(await eventsOf(server, cast.member2, bulk.queue_id))).toEqual([
    { type: 'delete_message', message_ids: ids, ...where },
  ]);
  expect(withoutIds(await eventsOf(server, cast.member2, single.queue_id))).toEqual(
    ids.map((id) => ({ type: 'delete_message', message_id: id, ...where })),
  );
  // Deleting it again finds nothing and still succeeds.
  expect((await deleteTopic(cast.admin, garden, 'weeds')).body.complete).toBe(true);
});

test('large topics go in batches of 100, newest first, one bulk event per batch', async () => {
  await subscribe(server, cast.member, ['flood']);
  const flood = await streamId(server, cast.member, 'flood');
  const ids: number[] = [];
  for (let i = 0; i < 103; i++)
    ids.push(await sendToChannel(server, cast.member, 'flood', 'spam', `message ${i}`));
  const q = await register(server, cast.member, {
    event_types: ['delete_message'],
    client_capabilities: { bulk_message_deletion: true },
  });
  expect((await deleteTopic(cast.owner, flood, 'spam')).body.complete).toBe(true);
  const events = await eventsOf(server, cast.member, q.queue_id);
  expect(events.map((e) => e.message_ids)).toEqual([ids.slice(3), ids.slice(0, 3)]);
});

test('when time runs out, the answer is complete: false and the rest stays', async () => {
  await subscribe(server, cast.member, ['slow']);
  const slow = await streamId(server, cast.member, 'slow');
  const id = await sendToChannel(server, cast.member, 'slow', 'later', 'still here');
  expect(await doDeleteTopic(server.services, cast.admin, slow, 'later', 0)).toBe(false);
  expect(await idsOf(server, cast.member, topicNarrow('slow', 'later'))).toEqual([id]);
});

test("the channel's first_message_id follows, as applying the events shows", async () => {
  await subscribe(server, cast.member, ['orchard'], {
    principals: [cast.member.id, cast.member2.id],
  });
  const orchard = await streamId(server, cast.member, 'orchard');
  await sendToChannel(server, cast.member, 'orchard', 'apples', 'first');
  const second = await sendToChannel(server, cast.member, 'orchard', 'pears', 'second');
  const state = await register(server, cast.member2, {
    event_types: ['stream', 'delete_message'],
    fetch_event_types: ['subscription', 'message'],
  });
  const before = state.subscriptions.find((s: { stream_id: number }) => s.stream_id === orchard);
  expect(before.first_message_id).toBeLessThan(second);

  expect((await deleteTopic(cast.admin, orchard, 'apples')).body.complete).toBe(true);
  const events = await eventsOf(server, cast.member2, state.queue_id);
  expect(withoutIds(events)[0]).toEqual({
    type: 'stream',
    op: 'update',
    property: 'first_message_id',
    value: second,
    stream_id: orchard,
    name: 'orchard',
  });
  const fresh = await register(server, cast.member2, {
    fetch_event_types: ['subscription', 'message'],
  });
  const applied = applyEvents(state, events);
  expect(applied.subscriptions).toEqual(fresh.subscriptions);
  expect(applied.unread_msgs).toEqual(fresh.unread_msgs);
});

test('the empty topic may be named by its display name', async () => {
  await subscribe(server, cast.member, ['meadow']);
  const meadow = await streamId(server, cast.member, 'meadow');
  await sendToChannel(server, cast.member, 'meadow', '', 'no topic');
  expect((await deleteTopic(cast.admin, meadow, 'general chat')).body.complete).toBe(true);
  expect(await idsOf(server, cast.member, topicNarrow('meadow', ''))).toEqual([]);
});

test('in a channel with protected history, only what the administrator received goes', async () => {
  await subscribe(server, cast.member, ['diary'], {
    invite_only: true,
    history_public_to_subscribers: false,
  });
  const diary = await streamId(server, cast.member, 'diary');
  const old = await sendToChannel(server, cast.member, 'diary', 'notes', 'before the admin came');
  await subscribe(server, cast.member, ['diary'], { principals: [cast.admin.id] });
  await sendToChannel(server, cast.member, 'diary', 'notes', 'after');
  expect((await deleteTopic(cast.admin, diary, 'notes')).body.complete).toBe(true);
  expect(await idsOf(server, cast.member, topicNarrow('diary', 'notes'))).toEqual([old]);
});

test('refusals: not an administrator, unknown or unreadable channels, missing topic_name', async () => {
  const garden = await streamId(server, cast.member, 'garden');
  await sendToChannel(server, cast.member, 'garden', 'mine', 'keep');
  for (const as of [cast.moderator, cast.member])
    expectError(
      await deleteTopic(as, garden, 'mine'),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization administrator',
    );
  expect(await idsOf(server, cast.member, topicNarrow('garden', 'mine'))).toHaveLength(1);
  expectError(
    await deleteTopic(cast.admin, 999999, 'mine'),
    400,
    'BAD_REQUEST',
    'Invalid channel ID',
  );
  await subscribe(server, cast.member, ['locked'], { invite_only: true });
  const locked = await streamId(server, cast.member, 'locked');
  expectError(await deleteTopic(cast.admin, locked, 'x'), 400, 'BAD_REQUEST', 'Invalid channel ID');
  expectError(
    await server.call('POST', `/streams/${garden}/delete_topic`, { as: cast.admin, params: {} }),
    400,
    'REQUEST_VARIABLE_MISSING',
    "Missing 'topic_name' argument",
    { var_name: 'topic_name' },
  );
});
