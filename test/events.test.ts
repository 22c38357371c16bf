// Event queues: POST /register, GET /events (immediate answers, waiting
// polls, heartbeats, acknowledgements) and DELETE /events, queue expiry and
// size bounds, and events applied to the initial state.
import { ZULIP_FEATURE_LEVEL } from '../src/lib/constants';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { parkedPolls, waitFor, waitForParkedPolls } from './support/wait';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

async function register(user: Cast['member'], params: Record<string, unknown> = {}) {
  const res = await server.call('POST', '/register', { as: user, params });
  expect(res.status).toBe(200);
  return res.body;
}

describe('POST /register', () => {
  test('creates a queue and returns the realm and own-user state', async () => {
    const body = await register(cast.member);
    expect(body).toMatchObject({
      result: 'success',
      queue_id: expect.any(String),
      last_event_id: -1,
      zulip_version: expect.any(String),
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      max_topic_length: 60,
      max_message_length: 10000,
      realm_empty_topic_display_name: 'general chat',
      realm_name: 'Test organization',
      realm_allow_message_editing: true,
      realm_message_content_edit_limit_seconds: 600,
      user_id: cast.member.id,
      full_name: 'King Hamlet',
      is_admin: false,
      user_settings: expect.objectContaining({ enter_sends: false, presence_enabled: true }),
    });
    expect(typeof body.realm_can_create_groups).toBe('number');
    expect(body.realm_users.map((u: { user_id: number }) => u.user_id)).toEqual(
      expect.arrayContaining([cast.owner.id, cast.admin.id, cast.member.id, cast.guest.id]),
    );
  });

  test('returns only the state of fetch_event_types', async () => {
    const body = await register(cast.member, { fetch_event_types: ['realm'] });
    expect(body.realm_name).toBe('Test organization');
    expect(body).not.toHaveProperty('realm_users');
    expect(body).not.toHaveProperty('user_settings');
  });

  test('with event_types [] creates no queue', async () => {
    const body = await register(cast.member, { event_types: [] });
    expect(body.queue_id).toBeNull();
    expect(body.last_event_id).toBe(-1);
  });

  test('accepts a narrow as pairs or objects, and refuses anything else', async () => {
    expect((await register(cast.member, { narrow: [['channel', 'Denmark']] })).queue_id).toEqual(
      expect.any(String),
    );
    expect(
      (await register(cast.member, { narrow: [{ operator: 'is', operand: 'dm' }] })).queue_id,
    ).toEqual(expect.any(String));
    const bad = await server.call('POST', '/register', {
      as: cast.member,
      params: { narrow: [['channel']] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      result: 'error',
      msg: 'narrow[0] is not a valid narrow term',
      code: 'BAD_REQUEST',
    });
  });
});

describe('GET /events', () => {
  test('returns waiting events at once', async () => {
    const { queue_id } = await register(cast.member2, { event_types: ['user_settings'] });
    await server.ok('PATCH', '/settings', { as: cast.member2, params: { enter_sends: true } });
    const res = await server.call('GET', '/events', {
      as: cast.member2,
      params: { queue_id, last_event_id: -1 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', queue_id, events: expect.any(Array) });
    expect(withoutIds(res.body.events)).toEqual([
      { type: 'user_settings', op: 'update', property: 'enter_sends', value: true },
    ]);
  });

  test('waits for the next event when there is none', async () => {
    const { queue_id } = await register(cast.member2, { event_types: ['user_settings'] });
    const parked = await parkedPolls(server);
    const poll = server.call('GET', '/events', {
      as: cast.member2,
      params: { queue_id, last_event_id: -1 },
    });
    await waitForParkedPolls(server, parked + 1);
    await server.ok('PATCH', '/settings', {
      as: cast.member2,
      params: { timezone: 'Africa/Cairo' },
    });
    const res = await poll;
    expect(withoutIds(res.body.events)).toEqual([
      { type: 'user_settings', op: 'update', property: 'timezone', value: 'Africa/Cairo' },
    ]);
  });

  test('answers with a heartbeat when nothing happens', async () => {
    const { queue_id } = await register(cast.moderator, { event_types: ['user_settings'] });
    const res = await server.call('GET', '/events', {
      as: cast.moderator,
      params: { queue_id, last_event_id: -1 },
    });
    expect(res.body.events).toEqual([{ id: expect.any(Number), type: 'heartbeat' }]);
    expect(res.body.events[0].id).toBeGreaterThan(-1);
  });

  test('with dont_block answers at once even with nothing to say', async () => {
    const { queue_id } = await register(cast.moderator);
    const res = await server.call('GET', '/events', {
      as: cast.moderator,
      params: { queue_id, last_event_id: -1, dont_block: true },
    });
    expect(res.body.events).toEqual([]);
  });

  test('drops acknowledged events and keeps the rest', async () => {
    const { queue_id } = await register(cast.admin, { event_types: ['user_settings'] });
    await server.ok('PATCH', '/settings', { as: cast.admin, params: { enter_sends: true } });
    await server.ok('PATCH', '/settings', { as: cast.admin, params: { enter_sends: false } });
    const first = await server.call('GET', '/events', {
      as: cast.admin,
      params: { queue_id, last_event_id: -1 },
    });
    const [one, two] = first.body.events.map((e: { id: number }) => e.id);
    expect(withoutIds(first.body.events)).toHaveLength(2);
    const rest = await server.call('GET', '/events', {
      as: cast.admin,
      params: { queue_id, last_event_id: one, dont_block: true },
    });
    expect(rest.body.events).toEqual([
      { id: two, type: 'user_settings', op: 'update', property: 'enter_sends', value: false },
    ]);
    const none = await server.call('GET', '/events', {
      as: cast.admin,
      params: { queue_id, last_event_id: two, dont_block: true },
    });
    expect(none.body.events).toEqual([]);
  });

  test('keeps only the event types the queue asked for', async () => {
    const { queue_id } = await register(cast.owner, { event_types: ['realm_user'] });
    await server.ok('PATCH', '/settings', { as: cast.owner, params: { enter_sends: true } });
    await server.ok('PATCH', '/settings', {
      as: cast.owner,
      params: { full_name: 'Olivia Owner-Smith' },
    });
    const res = await server.call('GET', '/events', {
      as: cast.owner,
      params: { queue_id, last_event_id: -1, dont_block: true },
    });
    expect(withoutIds(res.body.events)).toEqual([
      {
        type: 'realm_user',
        op: 'update',
        person: { user_id: cast.owner.id, full_name: 'Olivia Owner-Smith' },
      },
    ]);
  });

  test('sends a name change to every user of the organization', async () => {
    const { queue_id } = await register(cast.guest, { event_types: ['realm_user'] });
    await server.ok('PATCH', '/settings', {
      as: cast.member,
      params: { full_name: 'Prince Hamlet' },
    });
    const res = await server.call('GET', '/events', {
      as: cast.guest,
      params: { queue_id, last_event_id: -1, dont_block: true },
    });
    expect(withoutIds(res.body.events)).toEqual([
      {
        type: 'realm_user',
        op: 'update',
        person: { user_id: cast.member.id, full_name: 'Prince Hamlet' },
      },
    ]);
  });

  test("an unknown queue, or another user's, answers BAD_EVENT_QUEUE_ID", async () => {
    const { queue_id } = await register(cast.owner);
    for (const [user, id] of [
      [cast.member, 'no-such-queue'],
      [cast.member, queue_id],
    ] as const) {
      const res = await server.call('GET', '/events', {
        as: user,
        params: { queue_id: id, dont_block: true },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: `Bad event queue ID: ${id}`,
        code: 'BAD_EVENT_QUEUE_ID',
        queue_id: id,
      });
    }
  });
});

describe('DELETE /events', () => {
  test('removes the queue, after which it answers BAD_EVENT_QUEUE_ID', async () => {
    const { queue_id } = await register(cast.member);
    const del = await server.call('DELETE', '/events', { as: cast.member, params: { queue_id } });
    expect(del.body).toEqual({ result: 'success', msg: '' });
    const res = await server.call('GET', '/events', { as: cast.member, params: { queue_id } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_EVENT_QUEUE_ID');
    const again = await server.call('DELETE', '/events', { as: cast.member, params: { queue_id } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      result: 'error',
      msg: `Bad event queue ID: ${queue_id}`,
      code: 'BAD_EVENT_QUEUE_ID',
      queue_id,
    });
  });

  test('answers a poll that was waiting on the queue', async () => {
    const { queue_id } = await register(cast.member);
    const parked = await parkedPolls(server);
    const poll = server.call('GET', '/events', { as: cast.member, params: { queue_id } });
    await waitForParkedPolls(server, parked + 1);
    await server.ok('DELETE', '/events', { as: cast.member, params: { queue_id } });
    expect((await poll).body.events).toEqual([]);
  });
});

describe('queue limits', () => {
  test('idle queues are collected and then answer BAD_EVENT_QUEUE_ID', async () => {
    await TestServer.using({ EVENT_QUEUE_TIMEOUT_SECONDS: '0.2' }, async (short) => {
      const { owner } = await short.createRealm();
      const { body } = await short.call('POST', '/register', { as: owner });
      await waitFor('the idle queue to be collected', async () => {
        short.services.queues.sweep();
        return (await short.services.queues.stats()).queues === 0;
      });
      const res = await short.call('GET', '/events', {
        as: owner,
        params: { queue_id: body.queue_id, dont_block: true },
      });
      expect(res.body.code).toBe('BAD_EVENT_QUEUE_ID');
    });
  });

  test('a queue keeps at most EVENT_QUEUE_MAX_EVENTS, dropping the oldest', async () => {
    await TestServer.using({ EVENT_QUEUE_MAX_EVENTS: '2' }, async (small) => {
      const { owner } = await small.createRealm();
      const { body } = await small.call('POST', '/register', {
        as: owner,
        params: { event_types: ['user_settings'] },
      });
      for (const zone of ['Asia/Tokyo', 'Asia/Seoul', 'Asia/Dubai'])
        await small.call('PATCH', '/settings', { as: owner, params: { timezone: zone } });
      const res = await small.call('GET', '/events', {
        as: owner,
        params: { queue_id: body.queue_id, dont_block: true },
      });
      expect(withoutIds(res.body.events).map((e: { value?: unknown }) => e.value)).toEqual([
        'Asia/Seoul',
        'Asia/Dubai',
      ]);
    });
  });
});

describe('events applied to the initial state', () => {
  test('user_settings and realm_user updates give what a fresh /register returns', async () => {
    const user = await server.createUser(cast.realm, {
      email: 'applier@example.com',
      fullName: 'Apply Er',
    });
    const state = await register(user, { event_types: ['user_settings', 'realm_user'] });
    await server.ok('PATCH', '/settings', {
      as: user,
      params: { enter_sends: true, timezone: 'Europe/Oslo', full_name: 'Apply Later' },
    });
    const { body } = await server.call('GET', '/events', {
      as: user,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    applyEvents(state, body.events);
    const fresh = await register(user, { event_types: ['user_settings', 'realm_user'] });
    expect(state.user_settings).toEqual(fresh.user_settings);
    expect(state.realm_users).toEqual(fresh.realm_users);
    expect(state.full_name).toBe(fresh.full_name);
  });
});
