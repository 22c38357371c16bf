// The `client` of a message comes from the sender's User-Agent, named as
// Zulip names it, and decides whether a message is read for its sender when
// `read_by_sender` is left out: interactive clients (the terminal client, the
// apps) mark their own messages read, API clients (bots, the Python library)
// do not. Scheduled messages keep the client that scheduled them.
import zulipInit from 'zulip-js';
import { doDeliverScheduledMessages } from '../src/actions/messages/scheduled-messages';
import type { User } from '../generated/prisma/sqlite/client';
import { eventsOf, register, streamId, subscribe } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['clients'], { principals: [cast.member.id] });
});
afterAll(() => server.stop());

async function send(as: User, userAgent: string | undefined, extra: Record<string, unknown> = {}) {
  const res = await server.call('POST', '/messages', {
    as,
    params: { type: 'stream', to: 'clients', topic: 'ua', content: 'hi', ...extra },
    headers: userAgent === undefined ? {} : { 'user-agent': userAgent },
  });
  expect(res.status).toBe(200);
  const read = await server.call('GET', `/messages/${res.body.id}`, { as });
  return read.body.message as { client: string; flags: string[] };
}

test.each([
  ['ZulipTerminal/0.7.0 Linux-6.1.0-x86_64-with-glibc2.36', 'ZulipTerminal', true],
  ['ZulipPython/0.9.1 (Debian GNU/Linux; 12)', 'ZulipPython', false],
  ['ZulipMobile/27.200 (Android 13)', 'ZulipMobile', true],
  ['ZulipElectron/5.11.0', 'ZulipElectron', true],
  ['Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0', 'Mozilla', false],
  ['curl/8.5.0', 'curl', false],
  ['My Nightly Bot 1.0', 'My Nightly Bot', false],
  ['', '', false],
  ['A-very-long-client-name-that-goes-on-and-on/1.0', 'A-very-long-client-name-that-g', false],
])('User-Agent %j records client %j (read for the sender: %s)', async (ua, client, read) => {
  const message = await send(cast.member, ua);
  expect(message.client).toBe(client);
  expect(message.flags.includes('read')).toBe(read);
});

test('without a User-Agent the client is "Unspecified"', async () => {
  const message = await send(cast.member, undefined);
  expect(message.client).toBe('Unspecified');
  expect(message.flags).not.toContain('read');
});

test('read_by_sender, when given, wins over the client', async () => {
  const unread = await send(cast.member, 'ZulipTerminal/0.7.0', { read_by_sender: false });
  expect(unread.flags).not.toContain('read');
  const read = await send(cast.member, 'ZulipPython/0.9.1', { read_by_sender: true });
  expect(read.flags).toContain('read');
});

test('message events carry the client', async () => {
  const q = await register(server, cast.member, { event_types: ['message'] });
  await send(cast.member, 'ZulipTerminal/0.7.0 Linux');
  const [event] = await eventsOf(server, cast.member, q.queue_id);
  expect(event.message.client).toBe('ZulipTerminal');
  expect(event.flags).toContain('read');
});

test('zulip-js records what its fetch library calls itself', async () => {
  const js = await zulipInit({
    username: cast.member.email,
    apiKey: cast.member.apiKey,
    realm: server.url,
  });
  const sent = await js.messages.send({
    type: 'stream',
    to: 'clients',
    topic: 'js',
    content: 'from js',
  });
  expect(sent.result).toBe('success');
  const read = await server.call('GET', `/messages/${sent.id}`, { as: cast.member });
  expect(read.body.message.client).toBe('node-fetch');
});

test('a scheduled message is sent with the client that scheduled it', async () => {
  const res = await server.call('POST', '/scheduled_messages', {
    as: cast.member,
    params: {
      type: 'stream',
      to: await streamId(server, cast.member, 'clients'),
      topic: 'later',
      content: 'scheduled',
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 60,
    },
    headers: { 'user-agent': 'ZulipTerminal/0.7.0' },
  });
  expect(res.status).toBe(200);
  const row = await server.services.db.read((db) =>
    db.scheduledMessage.findUniqueOrThrow({ where: { id: res.body.scheduled_message_id } }),
  );
  expect(row.sendingClient).toBe('ZulipTerminal');
  expect(row.readBySender).toBe(true);
  const toSelf = await server.call('POST', '/scheduled_messages', {
    as: cast.member,
    params: {
      type: 'direct',
      to: [cast.member.id],
      content: 'remind me',
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 60,
    },
    headers: { 'user-agent': 'ZulipTerminal/0.7.0' },
  });
  const self = await server.services.db.read((db) =>
    db.scheduledMessage.findUniqueOrThrow({ where: { id: toSelf.body.scheduled_message_id } }),
  );
  expect(self.readBySender).toBe(false);
  // Delivered a minute later, the message records the scheduling client and is read.
  await doDeliverScheduledMessages(server.services, new Date(Date.now() + 61_000));
  const delivered = await server.services.db.read((db) =>
    db.scheduledMessage.findUniqueOrThrow({ where: { id: res.body.scheduled_message_id } }),
  );
  const message = await server.call('GET', `/messages/${delivered.deliveredMessageId}`, {
    as: cast.member,
  });
  expect(message.body.message.client).toBe('ZulipTerminal');
  expect(message.body.message.flags).toContain('read');
});
