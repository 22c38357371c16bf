// Reactions and typing through Zulip's own JavaScript client (zulip-js):
// multipart POSTs, DELETE parameters (message_id included) in the query
// string, and `to` sent bare for one typing recipient, JSON for several.
import zulipInit from 'zulip-js';
import { TestServer, type Cast } from './support/server';
import { eventsOf, register, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['general'], {
    principals: [cast.member.id, cast.member2.id],
  });
});
afterAll(() => server.stop());

test('reactions.add, reactions.remove and messages.deleteReactionById', async () => {
  const client = await zulipInit({
    username: cast.member.email,
    apiKey: cast.member.apiKey,
    realm: server.url,
  });
  const id = await sendToChannel(server, cast.member2, 'general', 'js', 'react here');
  expect(await client.reactions.add({ message_id: id, emoji_name: 'smile' })).toEqual({
    result: 'success',
    msg: '',
  });
  expect(await client.reactions.add({ message_id: id, emoji_name: 'octopus' })).toEqual({
    result: 'success',
    msg: '',
  });
  expect(await client.reactions.add({ message_id: id, emoji_name: 'smile' })).toEqual({
    result: 'error',
    msg: 'Reaction already exists.',
    code: 'REACTION_ALREADY_EXISTS',
  });
  expect(await client.reactions.remove({ message_id: id, emoji_name: 'smile' })).toEqual({
    result: 'success',
    msg: '',
  });
  expect(
    await client.messages.deleteReactionById({
      message_id: id,
      emoji_code: '1f419',
      reaction_type: 'unicode_emoji',
    }),
  ).toEqual({
    result: 'success',
    msg: '',
    // This wrapper repeats the path's message_id in the query string.
    ignored_parameters_unsupported: ['message_id'],
  });
  expect(
    await client.messages.deleteReactionById({ message_id: id, emoji_name: 'octopus' }),
  ).toEqual({ result: 'error', msg: "Reaction doesn't exist.", code: 'REACTION_DOES_NOT_EXIST' });
  expect(
    (await server.call('GET', `/messages/${id}`, { as: cast.member })).body.message.reactions,
  ).toEqual([]);
});

test('typing.send with one recipient (sent bare) and with several (sent as JSON)', async () => {
  const client = await zulipInit({
    username: cast.member.email,
    apiKey: cast.member.apiKey,
    realm: server.url,
  });
  const q = await register(server, cast.member2, { event_types: ['typing'] });
  expect(await client.typing.send({ op: 'start', to: [cast.member2.id] })).toEqual({
    result: 'success',
    msg: '',
  });
  expect(
    await client.typing.send({ op: 'stop', to: [cast.member2.id, cast.moderator.id] }),
  ).toEqual({ result: 'success', msg: '' });
  const events = await eventsOf(server, cast.member2, q.queue_id);
  expect(
    events.map((e) => [e.op, e.recipients.map((r: { user_id: number }) => r.user_id)]),
  ).toEqual([
    ['start', [cast.member2.id, cast.member.id]],
    ['stop', [cast.member2.id, cast.moderator.id, cast.member.id]],
  ]);
});
