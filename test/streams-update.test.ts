// PATCH /streams/{stream_id} for settings: retention, topic policy, folder and
// the `{new, old}` permission settings, with their refusals and events.
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  register,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let id: number;
const groups = new Map<string, number>();

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['tuned'], {
    principals: [cast.member.id, cast.member2.id],
  });
  id = await streamId(server, cast.member, 'tuned');
  for (const g of (await server.call('GET', '/user_groups', { as: cast.owner })).body.user_groups)
    groups.set(g.name, g.id);
});
afterAll(() => server.stop());

function patch(as: Cast['member'], params: Record<string, unknown>) {
  return server.call('PATCH', `/streams/${id}`, { as, params });
}

test('topics_policy changes with an event, and empty_topic_only needs an empty-topic-only channel', async () => {
  const q = await register(server, cast.member2, { event_types: ['stream'] });
  expect((await patch(cast.member, { topics_policy: 'disable_empty_topic' })).status).toBe(200);
  expect(withoutIds(await eventsOf(server, cast.member2, q.queue_id))).toEqual([
    {
      type: 'stream',
      op: 'update',
      stream_id: id,
      name: 'tuned',
      property: 'topics_policy',
      value: 'disable_empty_topic',
    },
  ]);
  await sendToChannel(server, cast.member, 'tuned', 'named', 'x');
  expectError(
    await patch(cast.member, { topics_policy: 'empty_topic_only' }),
    400,
    'BAD_REQUEST',
    'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.',
  );
});

test('message_retention_days is for organization owners', async () => {
  expectError(
    await patch(cast.member, { message_retention_days: 30 }),
    400,
    'UNAUTHORIZED_PRINCIPAL',
    'Must be an organization owner',
  );
  expect((await patch(cast.owner, { message_retention_days: 'unlimited' })).status).toBe(200);
  expect(
    (await server.call('GET', `/streams/${id}`, { as: cast.member })).body.stream
      .message_retention_days,
  ).toBe(-1);
  expect((await patch(cast.owner, { message_retention_days: 'realm_default' })).status).toBe(200);
  expect(
    (await server.call('GET', `/streams/${id}`, { as: cast.member })).body.stream
      .message_retention_days,
  ).toBeNull();
});

test('folder_id: no folders exist, so only null is accepted', async () => {
  expectError(
    await patch(cast.member, { folder_id: 5 }),
    400,
    'BAD_REQUEST',
    'Invalid channel folder ID',
  );
  expect((await patch(cast.member, { folder_id: null })).status).toBe(200);
});

test('permission settings take {new, old}, check old, and send the new value', async () => {
  const q = await register(server, cast.member2, { event_types: ['stream'] });
  const moderators = groups.get('role:moderators')!;
  const mismatch = await patch(cast.member, {
    can_send_message_group: { new: moderators, old: groups.get('role:members') },
  });
  expectError(
    mismatch,
    400,
    'EXPECTATION_MISMATCH',
    "'old' value does not match the expected value.",
  );
  expect(
    (
      await patch(cast.member, {
        can_send_message_group: { new: moderators, old: groups.get('role:everyone') },
      })
    ).status,
  ).toBe(200);
  const anonymous = { direct_members: [cast.member2.id], direct_subgroups: [moderators] };
  expect(
    (await patch(cast.member, { can_remove_subscribers_group: { new: anonymous } })).status,
  ).toBe(200);
  expect(withoutIds(await eventsOf(server, cast.member2, q.queue_id))).toEqual([
    {
      type: 'stream',
      op: 'update',
      stream_id: id,
      name: 'tuned',
      property: 'can_send_message_group',
      value: moderators,
    },
    {
      type: 'stream',
      op: 'update',
      stream_id: id,
      name: 'tuned',
      property: 'can_remove_subscribers_group',
      value: anonymous,
    },
  ]);
  const stream = (await server.call('GET', `/streams/${id}`, { as: cast.member })).body.stream;
  expect([
    stream.can_send_message_group,
    stream.stream_post_policy,
    stream.can_remove_subscribers_group,
  ]).toEqual([moderators, 4, anonymous]);
  expectError(
    await patch(cast.member, { can_subscribe_group: { new: groups.get('role:everyone') } }),
    400,
    'BAD_REQUEST',
    "'can_subscribe_group' setting cannot be set to 'role:everyone' group.",
  );
  expectError(
    await patch(cast.member2, { can_send_message_group: { new: moderators } }),
    400,
    'BAD_REQUEST',
    'You do not have permission to administer this channel.',
  );
});

test('settings that grant content access need content access to change', async () => {
  await subscribe(server, cast.member, ['closed'], { invite_only: true });
  const closed = await streamId(server, cast.member, 'closed');
  const res = await server.call('PATCH', `/streams/${closed}`, {
    as: cast.admin,
    params: { can_subscribe_group: { new: groups.get('role:members') } },
  });
  expectError(res, 400, 'BAD_REQUEST', 'Channel content access is required.');
  const ok = await server.call('PATCH', `/streams/${closed}`, {
    as: cast.admin,
    params: { can_send_message_group: { new: groups.get('role:members') } },
  });
  expect(ok.status).toBe(200);
});
