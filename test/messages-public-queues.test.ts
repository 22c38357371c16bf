// Queues registered with all_public_streams receive the messages of every
// public channel, subscribed or not, and nothing of private channels; guests
// may not register such queues.
import { TestServer, type Cast } from './support/server';
import { eventsOf, register, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['town square']);
  await subscribe(server, cast.member, ['back room'], { invite_only: true });
});
afterAll(() => server.stop());

test("a public channel's messages reach all_public_streams queues of non-subscribers, once and without flags", async () => {
  const watching = await register(server, cast.member2, {
    event_types: ['message'],
    all_public_streams: true,
    apply_markdown: true,
  });
  const plain = await register(server, cast.member2, { event_types: ['message'] });
  const subscriber = await register(server, cast.member, {
    event_types: ['message'],
    all_public_streams: true,
  });
  const id = await sendToChannel(server, cast.member, 'town square', 'hello', 'anyone there?');
  const events = await eventsOf(server, cast.member2, watching.queue_id);
  expect(events).toEqual([
    {
      id: expect.any(Number),
      type: 'message',
      flags: [],
      message: expect.objectContaining({ id, display_recipient: 'town square', subject: 'hello' }),
    },
  ]);
  expect(await eventsOf(server, cast.member2, plain.queue_id)).toEqual([]);
  // The sender is a recipient: one event, with the sender's flags.
  const own = await eventsOf(server, cast.member, subscriber.queue_id);
  expect(own).toHaveLength(1);
  expect(own[0].flags).toEqual([]);
});

test('private channels stay private', async () => {
  const watching = await register(server, cast.member2, {
    event_types: ['message'],
    all_public_streams: true,
  });
  await sendToChannel(server, cast.member, 'back room', 'secret', 'shh');
  expect(await eventsOf(server, cast.member2, watching.queue_id)).toEqual([]);
});

test('guests may not register for all public channels', async () => {
  const res = await server.call('POST', '/register', {
    as: cast.guest,
    params: { all_public_streams: true },
  });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    result: 'error',
    msg: 'User not authorized for this query',
    code: 'BAD_REQUEST',
  });
});
