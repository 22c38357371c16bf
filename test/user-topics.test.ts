// Topic visibility policies through HTTP: POST /user_topics and the legacy
// PATCH /users/me/subscriptions/muted_topics, their refusals, the user_topic
// and muted_topics events, and the user_topic and muted_topics register keys.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let alpha: number;
let secret: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['alpha']);
  await subscribe(server, cast.admin, ['secret'], { invite_only: true });
  alpha = await streamId(server, cast.member, 'alpha');
  secret = await streamId(server, cast.admin, 'secret');
});
afterAll(() => server.stop());

function setPolicy(topic: string, policy: number, stream = alpha, as = cast.member) {
  return server.call('POST', '/user_topics', {
    as,
    params: { stream_id: stream, topic, visibility_policy: policy },
  });
}

function muteTopic(params: Record<string, unknown>, as = cast.member) {
  return server.call('PATCH', '/users/me/subscriptions/muted_topics', { as, params });
}

async function userTopics(as = cast.member) {
  return (await register(server, as, { fetch_event_types: ['user_topic'], event_types: [] }))
    .user_topics;
}

const now = () => Math.floor(Date.now() / 1000);

describe('POST /user_topics', () => {
  test('sets, changes and removes policies, with events and register state', async () => {
    const user = cast.moderator;
    await subscribe(server, user, ['alpha']);
    const modern = await register(server, user, {
      event_types: ['user_topic', 'muted_topics'],
      fetch_event_types: ['user_topic', 'muted_topics'],
    });
    expect(modern.user_topics).toEqual([]);
    expect(modern).not.toHaveProperty('muted_topics');
    const legacy = await register(server, user, {
      event_types: ['muted_topics'],
      fetch_event_types: ['muted_topics'],
    });
    expect(legacy.muted_topics).toEqual([]);

    const before = now();
    expect((await setPolicy('Lunch', 1, alpha, user)).body).toEqual({ result: 'success', msg: '' });
    expect((await setPolicy('plans', 3, alpha, user)).body).toEqual({ result: 'success', msg: '' });
    // The same policy again changes nothing and sends nothing.
    expect((await setPolicy('lunch', 1, alpha, user)).status).toBe(200);
    // Topics match without regard to case; the stored name stays.
    expect((await setPolicy('PLANS', 2, alpha, user)).status).toBe(200);
    // Removing a policy the topic does not have succeeds quietly.
    expect((await setPolicy('nothing here', 0, alpha, user)).status).toBe(200);

    const rows = await userTopics(user);
    expect(rows).toEqual([
      {
        stream_id: alpha,
        topic_name: 'Lunch',
        last_updated: expect.any(Number),
        visibility_policy: 1,
      },
      {
        stream_id: alpha,
        topic_name: 'plans',
        last_updated: expect.any(Number),
        visibility_policy: 2,
      },
    ]);
    for (const row of rows) expect(row.last_updated).toBeGreaterThanOrEqual(before);
    const legacyState = await register(server, user, { fetch_event_types: ['muted_topics'] });
    expect(legacyState.muted_topics).toEqual([['alpha', 'Lunch', rows[0].last_updated]]);

    const events = await eventsOf(server, user, modern.queue_id);
    expect(withoutIds(events)).toEqual([
      {
        type: 'user_topic',
        stream_id: alpha,
        topic_name: 'Lunch',
        last_updated: rows[0].last_updated,
        visibility_policy: 1,
      },
      {
        type: 'user_topic',
        stream_id: alpha,
        topic_name: 'plans',
        last_updated: expect.any(Number),
        visibility_policy: 3,
      },
      {
        type: 'user_topic',
        stream_id: alpha,
        topic_name: 'PLANS',
        last_updated: rows[1].last_updated,
        visibility_policy: 2,
      },
    ]);
    // Clients that did not ask for user_topic get the whole muted list each time.
    const legacyEvents = await eventsOf(server, user, legacy.queue_id);
    expect(legacyEvents.map((e) => e.muted_topics)).toEqual([
      [['alpha', 'Lunch', rows[0].last_updated]],
      [['alpha', 'Lunch', rows[0].last_updated]],
      [['alpha', 'Lunch', rows[0].last_updated]],
    ]);

    expect((await setPolicy('LUNCH', 0, alpha, user)).status).toBe(200);
    const applied = applyEvents(modern, await eventsOf(server, user, modern.queue_id));
    expect(applied.user_topics).toEqual(await userTopics(user));
    expect(applied.user_topics).toEqual([rows[1]]);
    const legacyApplied = applyEvents(legacy, await eventsOf(server, user, legacy.queue_id));
    expect(legacyApplied.muted_topics).toEqual([]);
  });

  test('a queue of every event type gets both events', async () => {
    const user = cast.owner;
    await subscribe(server, user, ['alpha']);
    const all = await register(server, user);
    expect(all.user_topics).toEqual([]);
    expect(all.muted_topics).toEqual([]);
    await setPolicy('status', 1, alpha, user);
    const events = await eventsOf(server, user, all.queue_id);
    expect(events.map((e) => e.type)).toEqual(['muted_topics', 'user_topic']);
    const applied = applyEvents(all, events);
    const fresh = await register(server, user);
    expect(applied.user_topics).toEqual(fresh.user_topics);
    expect(applied.muted_topics).toEqual(fresh.muted_topics);
    await setPolicy('status', 0, alpha, user);
  });

  test('a public channel the user is not subscribed to takes a policy', async () => {
    expect((await setPolicy('visiting', 1, alpha, cast.member2)).status).toBe(200);
    expect(await userTopics(cast.member2)).toEqual([
      expect.objectContaining({ stream_id: alpha, topic_name: 'visiting', visibility_policy: 1 }),
    ]);
    await setPolicy('visiting', 0, alpha, cast.member2);
  });

  test.each([
    [
      'a channel that does not exist',
      { stream_id: 99999, topic: 'x', visibility_policy: 1 },
      'Invalid channel ID',
    ],
    [
      'a private channel the user cannot read',
      () => ({ stream_id: secret, topic: 'x', visibility_policy: 3 }),
      'Invalid channel ID',
    ],
    [
      'a channel that does not exist, removing',
      { stream_id: 99999, topic: 'x', visibility_policy: 0 },
      'Invalid channel ID',
    ],
    [
      'a topic of 61 characters',
      () => ({ stream_id: alpha, topic: 'x'.repeat(61), visibility_policy: 1 }),
      'topic is too long (limit: 60 characters)',
    ],
    [
      'policy 4',
      () => ({ stream_id: alpha, topic: 'x', visibility_policy: 4 }),
      'Invalid visibility_policy',
    ],
    ['no channel', { topic: 'x', visibility_policy: 1 }, "Missing 'stream_id' argument"],
  ])('%s is refused', async (_what, params, msg) => {
    const res = await server.call('POST', '/user_topics', {
      as: cast.member,
      params: typeof params === 'function' ? params() : params,
    });
    expectError(
      res,
      400,
      msg.startsWith('Missing') ? 'REQUEST_VARIABLE_MISSING' : 'BAD_REQUEST',
      msg,
      msg.startsWith('Missing') ? { var_name: 'stream_id' } : {},
    );
  });

  test('a policy can be removed in a channel the user can no longer read', async () => {
    const user = cast.member2;
    await subscribe(server, cast.admin, ['closing'], {
      invite_only: true,
      principals: [cast.admin.id, user.id],
    });
    const closing = await streamId(server, cast.admin, 'closing');
    expect((await setPolicy('wrap-up', 3, closing, user)).status).toBe(200);
    await server.ok('DELETE', '/users/me/subscriptions', {
      as: user,
      params: { subscriptions: ['closing'] },
    });
    expectError(
      await setPolicy('wrap-up', 1, closing, user),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    expect((await setPolicy('wrap-up', 0, closing, user)).status).toBe(200);
    expect(await userTopics(user)).toEqual([]);
  });

  test('topics of archived channels take no new policy and leave the register state', async () => {
    await subscribe(server, cast.admin, ['old'], { principals: [cast.admin.id, cast.member.id] });
    const old = await streamId(server, cast.admin, 'old');
    expect((await setPolicy('history', 1, old)).status).toBe(200);
    expect((await userTopics()).map((t: { topic_name: string }) => t.topic_name)).toContain(
      'history',
    );
    expect((await server.call('DELETE', `/streams/${old}`, { as: cast.admin })).status).toBe(200);
    expect((await userTopics()).map((t: { topic_name: string }) => t.topic_name)).not.toContain(
      'history',
    );
    expectError(await setPolicy('other', 1, old), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });
});

describe('PATCH /users/me/subscriptions/muted_topics', () => {
  test('mutes by channel name and unmutes by ID, with the same events', async () => {
    const user = cast.member;
    const queue = await register(server, user, {
      event_types: ['user_topic', 'muted_topics'],
      fetch_event_types: ['user_topic'],
    });
    expect((await muteTopic({ stream: 'alpha', topic: 'Noise', op: 'add' })).body).toEqual({
      result: 'success',
      msg: '',
    });
    // Muting again, as Zulip since feature level 170, is no error.
    expect((await muteTopic({ stream_id: alpha, topic: 'noise', op: 'add' })).status).toBe(200);
    const muted = await register(server, user, { fetch_event_types: ['muted_topics'] });
    expect(muted.muted_topics).toEqual([['alpha', 'Noise', expect.any(Number)]]);
    expect((await muteTopic({ stream_id: alpha, topic: 'NOISE', op: 'remove' })).status).toBe(200);
    expect((await muteTopic({ stream_id: alpha, topic: 'noise', op: 'remove' })).status).toBe(200);
    const events = await eventsOf(server, user, queue.queue_id);
    expect(withoutIds(events)).toEqual([
      {
        type: 'user_topic',
        stream_id: alpha,
        topic_name: 'Noise',
        last_updated: expect.any(Number),
        visibility_policy: 1,
      },
      {
        type: 'user_topic',
        stream_id: alpha,
        topic_name: 'NOISE',
        last_updated: expect.any(Number),
        visibility_policy: 0,
      },
    ]);
    expect(applyEvents(queue, events).user_topics).toEqual(await userTopics(user));
  });

  test('a JSON body is read as the form is', async () => {
    const json = await server.call('PATCH', '/users/me/subscriptions/muted_topics', {
      as: cast.member,
      params: { stream_id: alpha, topic: 'form', op: 'add' },
      encoding: 'json',
    });
    expect(json.status).toBe(200);
    await muteTopic({ stream_id: alpha, topic: 'form', op: 'remove' });
  });

  test.each([
    ['neither channel parameter', { topic: 'x', op: 'add' }, "Missing 'stream_id' argument", {}],
    [
      'both channel parameters',
      { stream: 'alpha', stream_id: 1, topic: 'x', op: 'add' },
      'Unsupported parameter combination: stream_id, stream',
      { parameters: 'stream_id, stream' },
    ],
    [
      'an unknown channel name',
      { stream: 'nowhere', topic: 'x', op: 'add' },
      "Invalid channel name 'nowhere'",
      {},
    ],
    [
      'an unknown channel ID',
      { stream_id: 99999, topic: 'x', op: 'add' },
      'Invalid channel ID',
      {},
    ],
    [
      'a private channel by name',
      { stream: 'secret', topic: 'x', op: 'add' },
      "Invalid channel name 'secret'",
      {},
    ],
    [
      'unmuting in an unknown channel',
      { stream_id: 99999, topic: 'x', op: 'remove' },
      'Topic is not muted',
      {},
    ],
    [
      'unmuting in an unknown channel by name',
      { stream: 'nowhere', topic: 'x', op: 'remove' },
      'Topic is not muted',
      {},
    ],
    ['an unknown op', { stream: 'alpha', topic: 'x', op: 'mute' }, 'Invalid op', {}],
    [
      'a topic of 61 characters',
      { stream: 'alpha', topic: 'y'.repeat(61), op: 'add' },
      'topic is too long (limit: 60 characters)',
      {},
    ],
  ])('%s is refused', async (_what, params, msg, extra) => {
    expectError(await muteTopic(params), 400, 'BAD_REQUEST', msg, extra);
  });
});
