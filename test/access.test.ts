// Nobody reads what they may not read. As a non-subscriber of a private
// channel (an administrator included), a late subscriber of a channel with
// protected history, a guest, and a user outside a direct-message
// conversation, every read path that can reveal a message (GET /messages with
// narrows and search, message_ids, GET /messages/{id}, matches_narrow, topics)
// finds nothing, and an inaccessible message answers as a nonexistent one.
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer, type Cast } from './support/server';
import { sendDirect, sendToChannel, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
const m: Record<string, number> = {};
const channel: Record<string, number> = {};

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  // vault: private, protected history; member2 joins after v1.
  await subscribe(server, cast.admin, ['vault'], {
    invite_only: true,
    principals: [cast.admin.id, cast.member.id],
  });
  m.v1 = await sendToChannel(server, cast.admin, 'vault', 'plans', 'early zebra secret');
  await subscribe(server, cast.admin, ['vault'], { principals: [cast.member2.id] });
  m.v2 = await sendToChannel(server, cast.admin, 'vault', 'after', 'later zebra news');
  // shared: private, shared history; the owner (an administrator) is not in it.
  await subscribe(server, cast.admin, ['shared'], {
    invite_only: true,
    history_public_to_subscribers: true,
    principals: [cast.admin.id, cast.member.id],
  });
  m.s1 = await sendToChannel(server, cast.admin, 'shared', 'talk', 'shared zebra talk');
  // lobby: public; the guest is not in it.
  await subscribe(server, cast.member, ['lobby']);
  m.p1 = await sendToChannel(server, cast.member, 'lobby', 'hello', 'public zebra hello');
  // A direct message between member and admin.
  m.d1 = await sendDirect(server, cast.member, [cast.admin.id], 'confidential zebra note');
  for (const name of ['vault', 'shared', 'lobby'])
    channel[name] = await streamId(server, cast.admin, name);
});
afterAll(() => server.stop());

/** Every message a user can find through the read paths, among the given IDs. */
async function everythingVisible(as: User, ids: number[]): Promise<number[]> {
  const seen = new Set<number>();
  const narrows: unknown[][] = [
    [],
    [{ operator: 'search', operand: 'zebra' }],
    [{ operator: 'channels', operand: 'public' }],
    ...Object.keys(channel).map((name) => [{ operator: 'channel', operand: name }]),
    ...Object.values(channel).map((id) => [
      { operator: 'channel', operand: id },
      { operator: 'search', operand: 'zebra' },
    ]),
    [{ operator: 'dm', operand: [cast.member.id] }],
    [{ operator: 'dm-including', operand: cast.admin.id }],
    [{ operator: 'is', operand: 'dm' }],
    ...ids.map((id) => [{ operator: 'with', operand: id }]),
    ...ids.map((id) => [{ operator: 'id', operand: id }]),
  ];
  for (const narrow of narrows) {
    for (const anchor of ['newest', 'oldest']) {
      const res = await server.call('GET', '/messages', {
        as,
        params: { anchor, num_before: 100, num_after: 100, narrow },
      });
      expect(res.status).toBe(200);
      for (const msg of res.body.messages) seen.add(msg.id);
    }
  }
  const byIds = await server.call('GET', '/messages', {
    as,
    params: { message_ids: ids, narrow: [] },
  });
  for (const msg of byIds.body.messages) seen.add(msg.id);
  for (const id of ids) {
    const one = await server.call('GET', `/messages/${id}`, { as });
    if (one.status === 200) seen.add(id);
    else
      expect(one.body).toEqual({ result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
  }
  for (const narrow of [[], [{ operator: 'search', operand: 'zebra' }]]) {
    const matches = await server.call('GET', '/messages/matches_narrow', {
      as,
      params: { msg_ids: ids, narrow },
    });
    for (const id of Object.keys(matches.body.messages)) seen.add(Number(id));
  }
  return ids.filter((id) => seen.has(id));
}

/** The topics of a channel a user can list, or the error they get. */
async function topics(as: User, name: string): Promise<string[] | string> {
  const res = await server.call('GET', `/users/me/${channel[name]}/topics`, { as });
  return res.status === 200 ? res.body.topics.map((t: { name: string }) => t.name) : res.body.msg;
}

const all = () => [m.v1, m.v2, m.s1, m.p1, m.d1];

test('subscribers with full access see what they received and the history they may read', async () => {
  expect(await everythingVisible(cast.member, all())).toEqual([m.v1, m.v2, m.s1, m.p1, m.d1]);
  expect(await topics(cast.member, 'vault')).toEqual(['after', 'plans']);
});

test('a late subscriber of a protected-history channel sees only what came after', async () => {
  expect(await everythingVisible(cast.member2, all())).toEqual([m.v2, m.p1]);
  expect(await topics(cast.member2, 'vault')).toEqual(['after']);
});

test('a non-subscriber of private channels sees none of their messages, administrators included', async () => {
  for (const outsider of [cast.moderator, cast.owner]) {
    expect(await everythingVisible(outsider, all())).toEqual([m.p1]);
    expect(await topics(outsider, 'vault')).toBe('Invalid channel ID');
    expect(await topics(outsider, 'shared')).toBe('Invalid channel ID');
    expect(await topics(outsider, 'lobby')).toEqual(['hello']);
  }
});

test('a guest sees only the channels they are in', async () => {
  expect(await everythingVisible(cast.guest, all())).toEqual([]);
  expect(await topics(cast.guest, 'lobby')).toBe('Invalid channel ID');
  await subscribe(server, cast.member, ['lobby'], { principals: [cast.guest.id] });
  // Joined later: the public history is readable from the channel.
  expect(await everythingVisible(cast.guest, all())).toEqual([m.p1]);
  expect(await topics(cast.guest, 'lobby')).toEqual(['hello']);
});

test('a user outside a direct-message conversation sees none of it', async () => {
  expect(await everythingVisible(cast.member2, [m.d1])).toEqual([]);
  expect(await everythingVisible(cast.admin, [m.d1])).toEqual([m.d1]);
});

test('an inaccessible message answers exactly as a nonexistent one', async () => {
  const missing = await server.call('GET', '/messages/99999999', { as: cast.moderator });
  const hidden = await server.call('GET', `/messages/${m.v1}`, { as: cast.moderator });
  expect({ status: hidden.status, body: hidden.body }).toEqual({
    status: missing.status,
    body: missing.body,
  });
  const flagMissing = await server.call('POST', '/messages/flags', {
    as: cast.moderator,
    params: { messages: [99999999], op: 'add', flag: 'starred' },
  });
  const flagHidden = await server.call('POST', '/messages/flags', {
    as: cast.moderator,
    params: { messages: [m.v1], op: 'add', flag: 'starred' },
  });
  expect(flagHidden.body).toEqual(flagMissing.body);
});
