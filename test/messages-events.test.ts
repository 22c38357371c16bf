// Message events: each recipient's queues get the message with their own
// flags after the commit; queues registered with a narrow keep only matching
// messages; the events keep the unread state of POST /register current.
import { usesRedis } from './support/redis';
import { applyEvents } from './support/apply-events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  register,
  sendDirect,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let room: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['room'], { principals: [cast.member.id, cast.member2.id] });
  room = await streamId(server, cast.member, 'room');
});
afterAll(() => server.stop());

test('every recipient gets the message with their flags; outsiders get nothing', async () => {
  const sender = await register(server, cast.member, {
    event_types: ['message'],
    apply_markdown: true,
  });
  const mentioned = await register(server, cast.member2, {
    event_types: ['message'],
    apply_markdown: true,
  });
  const outsider = await register(server, cast.moderator, { event_types: ['message'] });
  const res = await server.call('POST', '/messages', {
    as: cast.member,
    params: {
      type: 'stream',
      to: 'room',
      topic: 'news',
      content: 'hi @**Cordelia Lear**',
      queue_id: sender.queue_id,
      local_id: '12.01',
    },
  });
  const id = res.body.id;
  const fetched = (await server.call('GET', `/messages/${id}`, { as: cast.member2 })).body.message;
  const { flags: _flags, ...message } = fetched;
  expect(await eventsOf(server, cast.member2, mentioned.queue_id)).toEqual([
    { id: expect.any(Number), type: 'message', message, flags: ['mentioned'] },
  ]);
  expect(await eventsOf(server, cast.member, sender.queue_id)).toEqual([
    { id: expect.any(Number), type: 'message', message, flags: [], local_message_id: '12.01' },
  ]);
  expect(await eventsOf(server, cast.moderator, outsider.queue_id)).toEqual([]);
});

test('a refused message sends no event', async () => {
  const q = await register(server, cast.member2, { event_types: ['message'] });
  const res = await server.call('POST', '/messages', {
    as: cast.member,
    params: { type: 'stream', to: 'room', content: 'no topic' },
  });
  expect(res.status).toBe(400);
  expect(await eventsOf(server, cast.member2, q.queue_id)).toEqual([]);
});

test('queues registered with a narrow keep only matching messages', async () => {
  const byChannel = await register(server, cast.member2, {
    event_types: ['message'],
    narrow: [['channel', 'room']],
  });
  const byTopic = await register(server, cast.member2, {
    event_types: ['message'],
    narrow: [
      { operator: 'channel', operand: room },
      { operator: 'topic', operand: 'NEWS' },
    ],
  });
  const dms = await register(server, cast.member2, {
    event_types: ['message'],
    narrow: [{ operator: 'is', operand: 'dm' }],
  });
  const notFromMember = await register(server, cast.member2, {
    event_types: ['message'],
    narrow: [{ operator: 'sender', operand: cast.member.email, negated: true }],
  });
  const a = await sendToChannel(server, cast.member, 'room', 'news', 'channel message');
  const b = await sendToChannel(server, cast.member, 'room', 'other', 'other topic');
  const c = await sendDirect(server, cast.member, [cast.member2.id], 'a direct one');
  const d = await sendDirect(server, cast.moderator, [cast.member2.id], 'from the moderator');
  const ids = async (queueId: string) =>
    (await eventsOf(server, cast.member2, queueId)).map((e) => e.message.id);
  expect(await ids(byChannel.queue_id)).toEqual([a, b]);
  expect(await ids(byTopic.queue_id)).toEqual([a]);
  expect(await ids(dms.queue_id)).toEqual([c, d]);
  expect(await ids(notFromMember.queue_id)).toEqual([d]);
});

test('message events and flag events keep the unread state equal to a fresh one', async () => {
  const state = await register(server, cast.member2, {
    event_types: ['message', 'update_message_flags'],
  });
  const a = await sendToChannel(server, cast.member, 'room', 'later', 'one');
  const b = await sendDirect(server, cast.member, [cast.member2.id], 'two');
  await server.ok('POST', '/messages/flags', {
    as: cast.member2,
    params: { messages: [a], op: 'add', flag: 'read' },
  });
  applyEvents(state, await eventsOf(server, cast.member2, state.queue_id));
  const unread = state.unread_msgs;
  const fresh = await register(server, cast.member2, {
    event_types: ['message', 'update_message_flags'],
  });
  expect(state.max_message_id).toBe(b);
  expect(unread).toEqual(fresh.unread_msgs);
});

test('each queue gets message content as it registered for: HTML, or raw Markdown with client-side gravatars', async () => {
  const html = await register(server, cast.member2, {
    event_types: ['message'],
    apply_markdown: true,
  });
  const raw = await register(server, cast.member2, {
    event_types: ['message'],
    apply_markdown: false,
    client_gravatar: true,
  });
  await sendToChannel(server, cast.member, 'room', 'raw', 'some **bold** text');
  const [asHtml] = await eventsOf(server, cast.member2, html.queue_id);
  expect(asHtml.message).toMatchObject({
    content: '<p>some <strong>bold</strong> text</p>',
    content_type: 'text/html',
  });
  expect(asHtml.message.avatar_url).toEqual(expect.any(String));
  const [asRaw] = await eventsOf(server, cast.member2, raw.queue_id);
  expect(asRaw.message).toMatchObject({
    content: 'some **bold** text',
    content_type: 'text/x-markdown',
    avatar_url: null,
  });
});

test('queues of one kind share the message but keep their own event IDs and their user flags', async () => {
  const kind = { event_types: ['message'], apply_markdown: false, client_gravatar: true };
  const senderQueue = await register(server, cast.member, kind);
  const first = await register(server, cast.member2, kind);
  // The first queue gets one event more, so its IDs run one ahead of the second's.
  await sendDirect(server, cast.member, [cast.member2.id], 'before the second queue');
  const second = await register(server, cast.member2, kind);
  const id = await sendToChannel(server, cast.member, 'room', 'shared', `@**Cordelia Lear** hi`);
  const about = async (user: Cast['member'], queueId: string) =>
    (await eventsOf(server, user, queueId)).filter((e) => e.message.id === id);
  const [mine] = await about(cast.member, senderQueue.queue_id);
  const [inFirst] = await about(cast.member2, first.queue_id);
  const [inSecond] = await about(cast.member2, second.queue_id);
  expect(mine.flags).toEqual([]); // sent through the API: not marked read
  expect([inFirst.flags, inSecond.flags]).toEqual([['mentioned'], ['mentioned']]);
  // In memory each queue numbers its events; with Redis both see the shared log's entry ID.
  if (usesRedis()) expect(inFirst.id).toBe(inSecond.id);
  else expect([inFirst.id, inSecond.id]).toEqual([1, 0]);
  for (const event of [mine, inFirst, inSecond])
    expect(event.message).toMatchObject({
      content: '@**Cordelia Lear** hi',
      content_type: 'text/x-markdown',
      avatar_url: null,
    });
});
