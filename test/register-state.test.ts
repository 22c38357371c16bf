// The values of POST /register where the server has the feature: the user's
// permissions, the bots they administer, default channels, starred messages,
// recent direct message conversations, the organization's settings and the
// deprecated keys derived from them; and events keeping the lists a client
// holds equal to a fresh /register.
import { Role } from '../src/lib/constants';
import { applyEvents } from './support/apply-events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, register, sendDirect, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.owner, ['lounge'], {
    principals: [cast.member.id, cast.member2.id],
    is_default_stream: true,
  });
});
afterAll(() => server.stop());

test('realm_user gives the user their identity and what they may do', async () => {
  const member = await register(server, cast.member, { fetch_event_types: ['realm_user'] });
  expect(member).toMatchObject({
    user_id: cast.member.id,
    is_admin: false,
    is_guest: false,
    avatar_source: 'G',
    can_create_public_streams: true,
    can_create_private_streams: true,
    can_create_web_public_streams: false,
    can_create_streams: true,
    can_subscribe_other_users: true,
    can_invite_others_to_realm: true,
    cross_realm_bots: [],
  });
  expect(member.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);
  expect(member.avatar_url_medium).toBe(`${member.avatar_url}&s=500`);
  const guest = await register(server, cast.guest, { fetch_event_types: ['realm_user'] });
  expect(guest).toMatchObject({
    is_guest: true,
    can_create_public_streams: false,
    can_create_private_streams: false,
    can_create_streams: false,
    can_subscribe_other_users: false,
    can_invite_others_to_realm: false,
  });
  const owner = await register(server, cast.owner, { fetch_event_types: ['realm_user'] });
  expect(owner.can_create_web_public_streams).toBe(true);
});

test('realm_bots lists the bots an administrator administers, and a member only their own', async () => {
  const bot = await server.createUser(cast.realm, {
    email: 'helper-bot@example.com',
    fullName: 'Helper',
    isBot: true,
  });
  const admin = await register(server, cast.admin, { fetch_event_types: ['realm_bot'] });
  expect(admin.realm_bots).toEqual([
    {
      user_id: bot.id,
      email: 'helper-bot@example.com',
      full_name: 'Helper',
      bot_type: 1, // a bot created without a type is a generic bot
      is_active: true,
      api_key: bot.apiKey,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      avatar_url: expect.stringContaining('gravatar.com'),
      owner_id: null,
      services: [],
    },
  ]);
  const member = await register(server, cast.member, { fetch_event_types: ['realm_bot'] });
  expect(member.realm_bots).toEqual([]);
});

test('realm_default_streams lists the default channels, except to guests', async () => {
  const streams = await register(server, cast.member, { fetch_event_types: ['stream'] });
  const lounge = streams.streams.find((s: { name: string }) => s.name === 'lounge').stream_id;
  const member = await register(server, cast.member, { fetch_event_types: ['default_streams'] });
  expect(member.realm_default_streams).toEqual([lounge]);
  const guest = await register(server, cast.guest, { fetch_event_types: ['default_streams'] });
  expect(guest.realm_default_streams).toEqual([]);
});

test('the realm entry reports the stored settings and the deprecated keys derived from them', async () => {
  const before = await register(server, cast.owner, { fetch_event_types: ['realm'] });
  expect(before).toMatchObject({
    realm_name: 'Test organization',
    realm_allow_edit_history: true,
    realm_create_public_stream_policy: 1,
    realm_create_web_public_stream_policy: 7,
    realm_wildcard_mention_policy: 5,
    realm_bot_domain: 'chat.test',
    realm_new_stream_announcements_stream_id: -1,
    realm_video_chat_provider: 1,
    server_presence_offline_threshold_seconds: 140,
    max_file_upload_size_mib: 25,
  });
  const groups = await register(server, cast.owner, { fetch_event_types: ['realm_user_groups'] });
  const id = (name: string) =>
    groups.realm_user_groups.find((g: { name: string }) => g.name === name).id;
  expect(before.realm_can_summarize_topics_group).toBe(id('role:everyone'));
  expect(before.realm_create_multiuse_invite_group).toBe(id('role:administrators'));
  expect(before.server_supported_permission_settings.realm.can_create_groups).toEqual({
    require_system_group: false,
    allow_internet_group: false,
    allow_nobody_group: true,
    allow_everyone_group: false,
    default_group_name: 'role:members',
    default_for_system_groups: null,
    allowed_system_groups: [],
  });
  const res = await server.call('PATCH', '/realm', {
    as: cast.owner,
    params: {
      message_edit_history_visibility_policy: 'none',
      can_create_public_channel_group: JSON.stringify({ new: id('role:moderators') }),
    },
  });
  expect(res.status).toBe(200);
  const after = await register(server, cast.owner, { fetch_event_types: ['realm'] });
  expect(after).toMatchObject({
    realm_message_edit_history_visibility_policy: 'none',
    realm_allow_edit_history: false,
    realm_can_create_public_channel_group: id('role:moderators'),
    realm_create_public_stream_policy: 4,
  });
});

test('starred_messages follows the starred flag, and its events keep it equal to a fresh one', async () => {
  const first = await sendToChannel(server, cast.member, 'lounge', 'stars', 'one');
  const second = await sendToChannel(server, cast.member, 'lounge', 'stars', 'two');
  const star = (op: string, ids: number[]) =>
    server.call('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: ids, op, flag: 'starred' },
    });
  await star('add', [second]);
  const state = await register(server, cast.member2, {
    fetch_event_types: ['starred_messages'],
    event_types: ['update_message_flags'],
  });
  expect(state.starred_messages).toEqual([second]);
  await star('add', [first]);
  await star('remove', [second]);
  applyEvents(state, await eventsOf(server, cast.member2, state.queue_id));
  const fresh = await register(server, cast.member2, { fetch_event_types: ['starred_messages'] });
  expect(fresh.starred_messages).toEqual([first]);
  expect(state.starred_messages).toEqual(fresh.starred_messages);
});

test('recent_private_conversations lists conversations newest first, and message events keep it fresh', async () => {
  const solo = await server.createUser(cast.realm, {
    email: 'solo@example.com',
    role: Role.MEMBER,
  });
  const toSelf = await sendDirect(server, solo, [solo.id], 'a note to myself');
  const withMember = await sendDirect(server, cast.member, [solo.id], 'hello solo');
  const state = await register(server, solo, {
    fetch_event_types: ['recent_private_conversations', 'realm_user'],
    event_types: ['message'],
  });
  expect(state.recent_private_conversations).toEqual([
    { max_message_id: withMember, user_ids: [cast.member.id] },
    { max_message_id: toSelf, user_ids: [] },
  ]);
  const group = await sendDirect(server, solo, [cast.member.id, cast.member2.id], 'all three');
  const again = await sendDirect(server, solo, [solo.id], 'another note');
  applyEvents(state, await eventsOf(server, solo, state.queue_id));
  const fresh = await register(server, solo, {
    fetch_event_types: ['recent_private_conversations'],
  });
  expect(fresh.recent_private_conversations).toEqual([
    { max_message_id: again, user_ids: [] },
    { max_message_id: group, user_ids: [cast.member.id, cast.member2.id].sort((a, b) => a - b) },
    { max_message_id: withMember, user_ids: [cast.member.id] },
  ]);
  expect(state.recent_private_conversations).toEqual(fresh.recent_private_conversations);
});
