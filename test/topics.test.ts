// GET /users/me/{stream_id}/topics: topics with their latest message, newest
// first, merged case-insensitively under the latest casing; the empty topic's
// display name; protected history; missing and inaccessible channels.
import { TestServer, type Cast } from './support/server';
import { expectError, sendToChannel, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['talk']);
});
afterAll(() => server.stop());

async function topics(as: Cast['member'], id: number, params: Record<string, unknown> = {}) {
  const res = await server.call('GET', `/users/me/${id}/topics`, { as, params });
  expect(res.status).toBe(200);
  return res.body.topics;
}

test('lists topics newest first, merging case variants under the latest casing', async () => {
  const id = await streamId(server, cast.member, 'talk');
  expect(await topics(cast.member, id)).toEqual([]);
  await sendToChannel(server, cast.member, 'talk', 'Lunch', 'a');
  const b = await sendToChannel(server, cast.member, 'talk', 'Plans', 'b');
  const c = await sendToChannel(server, cast.member, 'talk', 'LUNCH', 'c');
  const d = await sendToChannel(server, cast.member, 'talk', '', 'd');
  const res = await server.call('GET', `/users/me/${id}/topics`, { as: cast.member2 });
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    topics: [
      { name: 'general chat', max_id: d },
      { name: 'LUNCH', max_id: c },
      { name: 'Plans', max_id: b },
    ],
  });
  expect((await topics(cast.member2, id, { allow_empty_topic_name: true }))[0]).toEqual({
    name: '',
    max_id: d,
  });
});

test('in a private channel with protected history, only topics of received messages', async () => {
  await subscribe(server, cast.admin, ['hush'], {
    invite_only: true,
    principals: [cast.admin.id, cast.member.id],
  });
  await sendToChannel(server, cast.admin, 'hush', 'before', 'x');
  await subscribe(server, cast.admin, ['hush'], { principals: [cast.member2.id] });
  const after = await sendToChannel(server, cast.admin, 'hush', 'after', 'y');
  const id = await streamId(server, cast.admin, 'hush');
  expect(await topics(cast.member2, id)).toEqual([{ name: 'after', max_id: after }]);
  expect((await topics(cast.member, id)).map((t: { name: string }) => t.name)).toEqual([
    'after',
    'before',
  ]);
});

test('a missing or inaccessible channel is "Invalid channel ID"', async () => {
  expectError(
    await server.call('GET', '/users/me/99999/topics', { as: cast.member }),
    400,
    'BAD_REQUEST',
    'Invalid channel ID',
  );
  const id = await streamId(server, cast.admin, 'hush');
  expectError(
    await server.call('GET', `/users/me/${id}/topics`, { as: cast.moderator }),
    400,
    'BAD_REQUEST',
    'Invalid channel ID',
  );
});
