// GET /messages/{id}/history: snapshots oldest first, the organization's
// visibility policy, the empty topic's display name, and inaccessible messages.
import { TestServer, type Cast } from './support/server';
import { expectError, sendDirect, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['annals'], {
    principals: [cast.member.id, cast.member2.id],
  });
});
afterAll(() => server.stop());

function history(as: Cast['member'], id: number, params: Record<string, unknown> = {}) {
  return server.call('GET', `/messages/${id}/history`, { as, params });
}

async function setPolicy(policy: number) {
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: cast.realm.id },
      data: { messageEditHistoryVisibilityPolicy: policy },
    }),
  );
  server.services.auth.forgetRealm(cast.realm.id);
}

test('a message never edited has one snapshot: itself as sent', async () => {
  const id = await sendToChannel(server, cast.member, 'annals', 'plain', 'just *this*');
  const sent = (await server.call('GET', `/messages/${id}`, { as: cast.member })).body.message;
  const res = await history(cast.member2, id);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    message_history: [
      {
        topic: 'plain',
        content: 'just *this*',
        rendered_content: '<p>just <em>this</em></p>',
        timestamp: sent.timestamp,
        user_id: cast.member.id,
      },
    ],
  });
});

test('the empty topic shows as its display name unless allow_empty_topic_name', async () => {
  const id = await sendToChannel(server, cast.member, 'annals', '', 'general');
  await server.ok('PATCH', `/messages/${id}`, { as: cast.member, params: { topic: 'named' } });
  const shown = (await history(cast.member, id)).body.message_history;
  expect(shown.map((s: { topic: string }) => s.topic)).toEqual(['general chat', 'named']);
  expect(shown[1].prev_topic).toBe('general chat');
  const raw = (await history(cast.member, id, { allow_empty_topic_name: true })).body
    .message_history;
  expect(raw[1].prev_topic).toBe('');
});

test('policy "moves" hides content edits and content fields; "none" refuses', async () => {
  const id = await sendToChannel(server, cast.member, 'annals', 'policy', 'v1');
  await server.ok('PATCH', `/messages/${id}`, { as: cast.member, params: { content: 'v2' } });
  await server.ok('PATCH', `/messages/${id}`, {
    as: cast.member,
    params: { topic: 'policy moved' },
  });
  await setPolicy(2);
  expect((await history(cast.member, id)).body.message_history).toEqual([
    { topic: 'policy', timestamp: expect.any(Number), user_id: cast.member.id },
    {
      topic: 'policy moved',
      prev_topic: 'policy',
      timestamp: expect.any(Number),
      user_id: cast.member.id,
    },
  ]);
  await setPolicy(3);
  expectError(
    await history(cast.member, id),
    400,
    'BAD_REQUEST',
    'Message edit history is disabled in this organization',
  );
  await setPolicy(1);
  expect((await history(cast.member, id)).body.message_history).toHaveLength(3);
});

test('a missing or inaccessible message', async () => {
  const dm = await sendDirect(server, cast.member, [cast.member2.id], 'private');
  expectError(await history(cast.moderator, dm), 400, 'BAD_REQUEST', 'Invalid message(s)');
  expectError(await history(cast.member, 999999), 400, 'BAD_REQUEST', 'Invalid message(s)');
});
