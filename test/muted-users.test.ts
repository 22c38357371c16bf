// Muted users through HTTP: muting and unmuting, Zulip's refusals, the
// muted_users event and register key, and messages from a muted user
// arriving read (and earlier ones marked read when muting).
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  fetchNarrow,
  register,
  sendDirect,
  sendToChannel,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['hall'], {
    principals: [cast.member.id, cast.member2.id, cast.moderator.id],
  });
});
afterAll(() => server.stop());

const mute = (id: number, as = cast.member) =>
  server.call('POST', `/users/me/muted_users/${id}`, { as });
const unmute = (id: number, as = cast.member) =>
  server.call('DELETE', `/users/me/muted_users/${id}`, { as });

async function flagsOf(as: Cast['member'], messageId: number): Promise<string[]> {
  const body = await fetchNarrow(server, as, [{ operator: 'id', operand: messageId }]);
  return body.messages[0].flags;
}

test('muting marks earlier messages read, later ones arrive read, and unmuting keeps them', async () => {
  const user = cast.member;
  const earlierChannel = await sendToChannel(server, cast.member2, 'hall', 'news', 'first');
  const earlierDirect = await sendDirect(server, cast.member2, [user.id], 'hello');
  const other = await sendToChannel(server, cast.moderator, 'hall', 'news', 'not muted');
  const queue = await register(server, user, {
    event_types: ['muted_users', 'update_message_flags', 'message'],
    fetch_event_types: ['muted_users'],
  });
  expect(queue.muted_users).toEqual([]);

  const before = Math.floor(Date.now() / 1000);
  expect((await mute(cast.member2.id)).body).toEqual({ result: 'success', msg: '' });
  const state = await register(server, user, { fetch_event_types: ['muted_users'] });
  expect(state.muted_users).toEqual([{ id: cast.member2.id, timestamp: expect.any(Number) }]);
  expect(state.muted_users[0].timestamp).toBeGreaterThanOrEqual(before);
  expect(await flagsOf(user, earlierChannel)).toContain('read');
  expect(await flagsOf(user, earlierDirect)).toContain('read');
  expect(await flagsOf(user, other)).not.toContain('read');

  const later = await sendToChannel(server, cast.member2, 'hall', 'news', 'second');
  expect(await flagsOf(user, later)).toContain('read');
  // Only the muter's copy is read.
  expect(await flagsOf(cast.moderator, later)).not.toContain('read');

  const events = await eventsOf(server, user, queue.queue_id);
  expect(withoutIds(events.slice(0, 2))).toEqual([
    {
      type: 'update_message_flags',
      op: 'add',
      operation: 'add',
      flag: 'read',
      messages: [earlierChannel, earlierDirect],
      all: false,
    },
    { type: 'muted_users', muted_users: state.muted_users },
  ]);
  expect(events[2]).toMatchObject({ type: 'message', message: { id: later }, flags: ['read'] });

  expect((await unmute(cast.member2.id)).body).toEqual({ result: 'success', msg: '' });
  expect(await flagsOf(user, later)).toContain('read');
  const after = await sendToChannel(server, cast.member2, 'hall', 'news', 'third');
  expect(await flagsOf(user, after)).not.toContain('read');
  const all = await eventsOf(server, user, queue.queue_id);
  // The events since the first look: the unmuting among them.
  const since = withoutIds(all).slice(events.length);
  expect(since.find((e) => e.type === 'muted_users')).toEqual({
    type: 'muted_users',
    muted_users: [],
  });
  const applied = applyEvents(queue, all);
  expect(applied.muted_users).toEqual(
    (await register(server, user, { fetch_event_types: ['muted_users'] })).muted_users,
  );
});

test('the list keeps the order users were muted in; bots and deactivated users can be muted', async () => {
  const user = cast.moderator;
  const bot = await server.call('POST', '/bots', {
    as: cast.owner,
    params: { full_name: 'Helper', short_name: 'helper' },
  });
  expect(bot.status).toBe(200);
  const gone = await server.createUser(cast.realm, {
    email: 'gone@example.com',
    fullName: 'Gone',
    password: 'a long password here',
  });
  await server.ok('DELETE', `/users/${gone.id}`, { as: cast.owner });
  expect((await mute(cast.guest.id, user)).status).toBe(200);
  expect((await mute(bot.body.user_id, user)).status).toBe(200);
  expect((await mute(gone.id, user)).status).toBe(200);
  const state = await register(server, user, { fetch_event_types: ['muted_users'] });
  expect(state.muted_users.map((m: { id: number }) => m.id)).toEqual([
    cast.guest.id,
    bot.body.user_id,
    gone.id,
  ]);
});

test.each([
  ['oneself', () => mute(cast.member.id), 'Cannot mute self'],
  [
    'a user twice',
    async () => (await mute(cast.admin.id), mute(cast.admin.id)),
    'User already muted',
  ],
  ['a user ID nobody has', () => mute(99999), 'No such user'],
  ['unmuting a user never muted', () => unmute(cast.owner.id), 'User is not muted'],
  ['unmuting a user ID nobody has', () => unmute(99999), 'No such user'],
])('%s is refused', async (_what, call, msg) => {
  expectError(await call(), 400, 'BAD_REQUEST', msg);
});

test('a user of another organization is no such user', async () => {
  const other = await server.createRealm('Elsewhere', 'elsewhere');
  expectError(await mute(other.owner.id), 400, 'BAD_REQUEST', 'No such user');
});
