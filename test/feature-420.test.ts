// The operations Zulip added up to feature level 420, through HTTP: creating
// a channel with POST /channels/create, previewing Welcome Bot's custom
// message, and the end-to-end encrypted test notification of a server without
// the push notification service; and the level the server reports.
import { ZULIP_FEATURE_LEVEL } from '../src/lib/constants';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
}, 120_000);
afterAll(() => server.stop());

test('the server reports feature level 420 in /server_settings and /register', async () => {
  expect(ZULIP_FEATURE_LEVEL).toBe(420);
  const settings = await server.call('GET', '/server_settings');
  expect(settings.body.zulip_feature_level).toBe(420);
  const state = await register(server, cast.member, { fetch_event_types: ['message'] });
  expect(state.zulip_feature_level).toBe(420);
});

describe('POST /channels/create', () => {
  test('creates the channel with its subscribers, who are told; the creator only if listed', async () => {
    const queue = await register(server, cast.member2, {
      event_types: ['stream', 'subscription'],
    });
    const res = await server.call('POST', '/channels/create', {
      as: cast.member,
      params: {
        name: '  castle ',
        description: 'Walls and\ntowers',
        subscribers: [cast.member2.id, cast.admin.id],
      },
    });
    expect(res.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
    const id = res.body.id;
    const subscribers = await server.call('GET', `/streams/${id}/members`, { as: cast.admin });
    expect([...subscribers.body.subscribers].sort()).toEqual(
      [cast.admin.id, cast.member2.id].sort(),
    );
    const stream = await server.call('GET', `/streams/${id}`, { as: cast.member2 });
    expect(stream.body.stream).toMatchObject({
      name: 'castle',
      description: 'Walls and towers',
      invite_only: false,
      creator_id: cast.member.id,
    });
    const events = await eventsOf(server, cast.member2, queue.queue_id);
    expect(events.map((e) => [e.type, e.op])).toEqual(
      expect.arrayContaining([
        ['stream', 'create'],
        ['subscription', 'add'],
      ]),
    );
    expect(events.find((e) => e.type === 'subscription')!.subscriptions[0].stream_id).toBe(id);
  });

  test('private channels with settings, as creating through a subscription makes them', async () => {
    const res = await server.call('POST', '/channels/create', {
      as: cast.admin,
      encoding: 'json',
      params: {
        name: 'vault',
        subscribers: [cast.admin.id],
        invite_only: true,
        history_public_to_subscribers: false,
      },
    });
    expect(res.status).toBe(200);
    const stream = await server.call('GET', `/streams/${res.body.id}`, { as: cast.admin });
    expect(stream.body.stream).toMatchObject({
      name: 'vault',
      invite_only: true,
      history_public_to_subscribers: false,
    });
    // Hidden from a member who is not subscribed.
    expect((await server.call('GET', `/streams/${res.body.id}`, { as: cast.member })).status).toBe(
      400,
    );
  });

  test("a name in use, archived channels' included and in any case, is refused", async () => {
    const first = await server.call('POST', '/channels/create', {
      as: cast.admin,
      params: { name: 'Towers', subscribers: [] },
    });
    expect(first.status).toBe(200);
    expectError(
      await server.call('POST', '/channels/create', {
        as: cast.member,
        params: { name: 'towers', subscribers: [cast.member.id] },
      }),
      400,
      'CHANNEL_ALREADY_EXISTS',
      "Channel 'Towers' already exists",
    );
    expect(
      (await server.call('DELETE', `/streams/${first.body.id}`, { as: cast.admin })).status,
    ).toBe(200);
    expectError(
      await server.call('POST', '/channels/create', {
        as: cast.admin,
        params: { name: 'Towers', subscribers: [] },
      }),
      400,
      'CHANNEL_ALREADY_EXISTS',
      "Channel 'Towers' already exists",
    );
  });

  test('guests, unknown subscribers, empty names and missing subscribers are refused', async () => {
    expectError(
      await server.call('POST', '/channels/create', {
        as: cast.guest,
        params: { name: 'backstage', subscribers: [cast.guest.id] },
      }),
      400,
      'BAD_REQUEST',
      'Not allowed for guest users',
    );
    expectError(
      await server.call('POST', '/channels/create', {
        as: cast.member,
        params: { name: 'nobody-here', subscribers: [999999] },
      }),
      400,
      'BAD_REQUEST',
      'No such user',
    );
    expectError(
      await server.call('POST', '/channels/create', {
        as: cast.member,
        params: { name: '   ', subscribers: [] },
      }),
      400,
      'BAD_REQUEST',
      "Channel name can't be empty.",
    );
    expectError(
      await server.call('POST', '/channels/create', {
        as: cast.member,
        params: { name: 'no-subscribers' },
      }),
      400,
      'REQUEST_VARIABLE_MISSING',
      "Missing 'subscribers' argument",
      { var_name: 'subscribers' },
    );
    // Nothing was created by the refusals.
    const all = await server.call('GET', '/streams', {
      as: cast.admin,
      params: { include_all: true },
    });
    const names = all.body.streams.map((s: { name: string }) => s.name);
    for (const name of ['backstage', 'nobody-here', 'no-subscribers'])
      expect(names).not.toContain(name);
  });
});

describe('POST /realm/test_welcome_bot_custom_message', () => {
  test("an administrator receives Welcome Bot's welcome and then the custom text", async () => {
    const res = await server.call('POST', '/realm/test_welcome_bot_custom_message', {
      as: cast.admin,
      params: { welcome_message_custom_text: '  Say hello in **#design**!  ' },
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      welcome_message_ids: [expect.any(Number), expect.any(Number)],
    });
    const [first, second] = res.body.welcome_message_ids;
    expect(second).toBeGreaterThan(first);
    const messages = await server.call('GET', '/messages', {
      as: cast.admin,
      params: {
        anchor: first,
        num_before: 0,
        num_after: 1,
        apply_markdown: false,
        narrow: [{ operator: 'dm', operand: 'welcome-bot@zulip.com' }],
      },
    });
    expect(messages.body.messages.map((m: { id: number }) => m.id)).toEqual([first, second]);
    expect(messages.body.messages[0]).toMatchObject({
      sender_email: 'welcome-bot@zulip.com',
      type: 'private',
    });
    expect(messages.body.messages[0].content).toContain('I am Welcome Bot');
    expect(messages.body.messages[1].content).toBe('Say hello in **#design**!');
  });

  test('members, empty and overlong texts are refused', async () => {
    expectError(
      await server.call('POST', '/realm/test_welcome_bot_custom_message', {
        as: cast.member,
        params: { welcome_message_custom_text: 'Hi' },
      }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization administrator',
    );
    expectError(
      await server.call('POST', '/realm/test_welcome_bot_custom_message', {
        as: cast.admin,
        params: { welcome_message_custom_text: '   ' },
      }),
      400,
      'BAD_REQUEST',
      'Message must not be empty',
    );
    expectError(
      await server.call('POST', '/realm/test_welcome_bot_custom_message', {
        as: cast.admin,
        params: { welcome_message_custom_text: 'x'.repeat(8001) },
      }),
      400,
      'BAD_REQUEST',
      'welcome_message_custom_text is too long (limit: 8000 characters)',
    );
  });
});

describe('POST /mobile_push/e2ee/test_notification', () => {
  test('a person has no device registered for encrypted notifications; bots are refused', async () => {
    expectError(
      await server.call('POST', '/mobile_push/e2ee/test_notification', { as: cast.member }),
      400,
      'NO_ACTIVE_PUSH_DEVICE',
      'No active registered push device',
    );
    expectError(
      await server.call('POST', '/mobile_push/e2ee/test_notification', {
        as: cast.member,
        params: { push_account_id: 12345 },
      }),
      400,
      'NO_ACTIVE_PUSH_DEVICE',
      'No active registered push device',
    );
    const bot = await server.createUser(cast.realm, { email: 'e2ee-bot@example.com', isBot: true });
    expectError(
      await server.call('POST', '/mobile_push/e2ee/test_notification', { as: bot }),
      400,
      'BAD_REQUEST',
      'This endpoint does not accept bot requests.',
    );
  });
});
