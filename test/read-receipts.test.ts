// GET /messages/{message_id}/read_receipts: who has read a message, honouring
// send_read_receipts, the organization's enable_read_receipts, deactivated
// users, and message access.
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer, type Cast } from './support/server';
import { expectError, sendDirect, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['lounge'], {
    principals: [cast.member.id, cast.member2.id, cast.admin.id, cast.moderator.id],
  });
  await subscribe(server, cast.member, ['vault'], { invite_only: true });
});
afterAll(() => server.stop());

function receipts(as: User, id: number) {
  return server.call('GET', `/messages/${id}/read_receipts`, { as });
}

function markRead(as: User, ids: number[], op: 'add' | 'remove' = 'add') {
  return server.call('POST', '/messages/flags', {
    as,
    params: { messages: ids, op, flag: 'read' },
  });
}

function setSendReadReceipts(as: User, value: boolean) {
  return server.call('PATCH', '/settings', { as, params: { send_read_receipts: value } });
}

test('lists readers in ascending order, never the sender, and follows unread marks', async () => {
  const id = await sendToChannel(server, cast.member, 'lounge', 'news', 'read me');
  expect((await receipts(cast.member, id)).body).toEqual({
    result: 'success',
    msg: '',
    user_ids: [],
  });
  await markRead(cast.moderator, [id]);
  await markRead(cast.member2, [id]);
  // The sender's own row is read; they are not listed.
  expect((await receipts(cast.member2, id)).body.user_ids).toEqual(
    [cast.moderator.id, cast.member2.id].sort((a, b) => a - b),
  );
  await markRead(cast.moderator, [id], 'remove');
  expect((await receipts(cast.member, id)).body.user_ids).toEqual([cast.member2.id]);
});

test('users who turned off send_read_receipts are left out', async () => {
  const id = await sendToChannel(server, cast.member, 'lounge', 'privacy', 'shh');
  await markRead(cast.admin, [id]);
  await markRead(cast.member2, [id]);
  expect((await setSendReadReceipts(cast.admin, false)).status).toBe(200);
  try {
    expect((await receipts(cast.member, id)).body.user_ids).toEqual([cast.member2.id]);
  } finally {
    await setSendReadReceipts(cast.admin, true);
  }
  expect((await receipts(cast.member, id)).body.user_ids).toEqual(
    [cast.admin.id, cast.member2.id].sort((a, b) => a - b),
  );
});

test('deactivated users are left out', async () => {
  const leaver = await server.createUser(cast.realm, { email: 'leaver@example.com' });
  const id = await sendDirect(server, cast.member, [leaver.id], 'bye');
  await markRead(leaver, [id]);
  expect((await receipts(cast.member, id)).body.user_ids).toEqual([leaver.id]);
  expect((await server.call('DELETE', `/users/${leaver.id}`, { as: cast.admin })).status).toBe(200);
  expect((await receipts(cast.member, id)).body.user_ids).toEqual([]);
});

test('a message the requester cannot read answers as a missing one', async () => {
  const secret = await sendToChannel(server, cast.member, 'vault', 'x', 'hidden');
  expectError(await receipts(cast.member2, secret), 400, 'BAD_REQUEST', 'Invalid message(s)');
  const dm = await sendDirect(server, cast.member, [cast.member2.id], 'between us');
  expectError(await receipts(cast.moderator, dm), 400, 'BAD_REQUEST', 'Invalid message(s)');
  expectError(await receipts(cast.member, 99999999), 400, 'BAD_REQUEST', 'Invalid message(s)');
});

test('an organization without read receipts refuses', async () => {
  const id = await sendToChannel(server, cast.member, 'lounge', 'off', 'no receipts');
  const setReceipts = async (enableReadReceipts: boolean) => {
    await server.services.db.write((tx) =>
      tx.realm.update({ where: { id: cast.realm.id }, data: { enableReadReceipts } }),
    );
    server.services.auth.forgetRealm(cast.realm.id);
  };
  await setReceipts(false);
  try {
    expectError(
      await receipts(cast.member, id),
      400,
      'BAD_REQUEST',
      'Read receipts are disabled in this organization.',
    );
  } finally {
    await setReceipts(true);
  }
  expect((await receipts(cast.member, id)).status).toBe(200);
});
