// DELETE /messages/{id}: who may delete (the organization's and the channel's
// delete groups), the delete_message event applied to the unread state, and
// refusals.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  register,
  sendDirect,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let bin: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['bin'], {
    principals: [cast.member.id, cast.member2.id, cast.admin.id],
  });
  bin = await streamId(server, cast.member, 'bin');
});
afterAll(() => server.stop());

function remove(as: Cast['member'], id: number) {
  return server.call('DELETE', `/messages/${id}`, { as });
}

async function systemGroup(name: string) {
  return server.services.db.read((db) =>
    db.userGroup.findFirstOrThrow({ where: { realmId: cast.realm.id, name, isSystemGroup: true } }),
  );
}

test('an administrator deletes any message; recipients get delete_message and the unread state follows', async () => {
  const id = await sendToChannel(server, cast.member, 'bin', 'Trash', 'gone soon');
  const q = await register(server, cast.member2, {
    event_types: ['delete_message'],
    fetch_event_types: ['message', 'update_message_flags'],
  });
  const bulk = await register(server, cast.member2, {
    event_types: ['delete_message'],
    client_capabilities: { bulk_message_deletion: true },
  });
  expect(
    q.unread_msgs.streams.some((s: { unread_message_ids: number[] }) =>
      s.unread_message_ids.includes(id),
    ),
  ).toBe(true);
  const res = await remove(cast.admin, id);
  expect(res.body).toEqual({ result: 'success', msg: '' });
  // The topic is named in lower case, as deletions are grouped by topic regardless of case.
  const where = { message_type: 'stream', stream_id: bin, topic: 'trash' };
  const events = await eventsOf(server, cast.member2, q.queue_id);
  expect(withoutIds(events)).toEqual([{ type: 'delete_message', message_id: id, ...where }]);
  expect(withoutIds(await eventsOf(server, cast.member2, bulk.queue_id))).toEqual([
    { type: 'delete_message', message_ids: [id], ...where },
  ]);
  // Applying it: the deleted ID leaves the unread state, as a fresh /register shows.
  const applied = applyEvents(q, events).unread_msgs.streams;
  const fresh = await register(server, cast.member2, {
    fetch_event_types: ['message', 'update_message_flags'],
  });
  expect(fresh.unread_msgs.streams).toEqual(applied);
  expectError(
    await server.call('GET', `/messages/${id}`, { as: cast.member }),
    400,
    'BAD_REQUEST',
    'Invalid message(s)',
  );
});

test('a direct message: the event says "private"', async () => {
  const id = await sendDirect(server, cast.member, [cast.member2.id], 'oops');
  const q = await register(server, cast.member2, { event_types: ['delete_message'] });
  expect((await remove(cast.member, id)).status).toBe(200);
  expect(withoutIds(await eventsOf(server, cast.member2, q.queue_id))).toEqual([
    { type: 'delete_message', message_id: id, message_type: 'private' },
  ]);
});

test('who hears of it: subscribers, and those who kept a row of a public channel message', async () => {
  await subscribe(server, cast.member, ['porch'], {
    principals: [cast.member.id, cast.member2.id, cast.guest.id],
  });
  const id = await sendToChannel(server, cast.member, 'porch', 'leaving', 'soon gone');
  // Both leave the channel but keep their rows for the message.
  for (const as of [cast.member2, cast.guest])
    expect(
      (
        await server.call('DELETE', '/users/me/subscriptions', {
          as,
          params: { subscriptions: ['porch'] },
        })
      ).status,
    ).toBe(200);
  const queues = await Promise.all(
    [cast.member2, cast.guest, cast.moderator].map((as) =>
      register(server, as, { event_types: ['delete_message'] }),
    ),
  );
  expect((await remove(cast.admin, id)).status).toBe(200);
  const heard = await Promise.all(
    [cast.member2, cast.guest, cast.moderator].map(async (as, i) =>
      (await eventsOf(server, as, queues[i].queue_id)).map((e) => e.message_id),
    ),
  );
  // A guest may no longer read a channel they left; a moderator never had the message.
  expect(heard).toEqual([[id], [], []]);
});

test('messages of archived channels cannot be deleted', async () => {
  await subscribe(server, cast.member, ['attic']);
  const attic = await streamId(server, cast.member, 'attic');
  const id = await sendToChannel(server, cast.member, 'attic', 'old', 'dusty');
  expect((await server.call('DELETE', `/streams/${attic}`, { as: cast.admin })).status).toBe(200);
  expectError(await remove(cast.admin, id), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('others may not delete; the sender only with can_delete_own_message_group', async () => {
  const id = await sendToChannel(server, cast.member, 'bin', 'keep', 'stays');
  expectError(
    await remove(cast.member2, id),
    400,
    'BAD_REQUEST',
    "You don't have permission to delete this message",
  );
  const nobody = await systemGroup('role:nobody');
  const realm = await server.services.db.read((db) =>
    db.realm.findUniqueOrThrow({ where: { id: cast.realm.id } }),
  );
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: cast.realm.id },
      data: { canDeleteOwnMessageGroupId: nobody.id },
    }),
  );
  server.services.auth.forgetRealm(cast.realm.id);
  expectError(
    await remove(cast.member, id),
    400,
    'BAD_REQUEST',
    "You don't have permission to delete this message",
  );
  // The channel's own setting grants it too.
  const members = await systemGroup('role:members');
  await server.services.db.write((tx) =>
    tx.stream.update({ where: { id: bin }, data: { canDeleteOwnMessageGroupId: members.id } }),
  );
  expect((await remove(cast.member, id)).status).toBe(200);
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: cast.realm.id },
      data: { canDeleteOwnMessageGroupId: realm.canDeleteOwnMessageGroupId },
    }),
  );
  server.services.auth.forgetRealm(cast.realm.id);
});

test("the channel can_delete_any_message_group lets a member delete others' messages", async () => {
  const id = await sendToChannel(server, cast.member, 'bin', 'mod', 'someone else');
  const members = await systemGroup('role:members');
  await server.services.db.write((tx) =>
    tx.stream.update({ where: { id: bin }, data: { canDeleteAnyMessageGroupId: members.id } }),
  );
  expect((await remove(cast.member2, id)).status).toBe(200);
});

test('missing and inaccessible messages', async () => {
  const dm = await sendDirect(server, cast.member, [cast.member2.id], 'private');
  expectError(await remove(cast.owner, dm), 400, 'BAD_REQUEST', 'Invalid message(s)');
  expectError(await remove(cast.owner, 999999), 400, 'BAD_REQUEST', 'Invalid message(s)');
});
