// POST /users/me/presence: recording status, the legacy and modern formats,
// incremental fetches by last_update_id, history_limit_days, invisible users,
// bots, and the presence event (not sent in organizations past a size).
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const presence = (user: Cast['member'], params: Record<string, unknown>) =>
  server.call('POST', '/users/me/presence', { as: user, params });

test('an active report is returned in the legacy format, keyed by email', async () => {
  const sentAt = Math.floor(Date.now() / 1000);
  const res = await presence(cast.member, { status: 'active' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    result: 'success',
    server_timestamp: expect.any(Number),
    presence_last_update_id: expect.any(Number),
  });
  const mine = res.body.presences[cast.member.email];
  expect(mine).toEqual({
    aggregated: { client: 'website', status: 'active', timestamp: expect.any(Number) },
    website: {
      client: 'website',
      status: 'active',
      timestamp: expect.any(Number),
      pushable: false,
    },
  });
  // Stamped by the server between the test's clock readings around the request.
  expect(mine.aggregated.timestamp).toBeGreaterThanOrEqual(sentAt);
  expect(mine.aggregated.timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
});

test('ping_only records the status and returns only the sequence number', async () => {
  const res = await presence(cast.member2, { status: 'idle', ping_only: true });
  expect(Object.keys(res.body).sort()).toEqual(['msg', 'presence_last_update_id', 'result']);
});

test('last_update_id selects the modern format and only newer changes', async () => {
  const first = await presence(cast.admin, { status: 'active', last_update_id: -1 });
  const ids = Object.keys(first.body.presences);
  expect(ids).toEqual(
    expect.arrayContaining([
      String(cast.member.id),
      String(cast.member2.id),
      String(cast.admin.id),
    ]),
  );
  expect(first.body.presences[String(cast.admin.id)]).toEqual({
    active_timestamp: expect.any(Number),
    idle_timestamp: expect.any(Number),
  });
  const seen = first.body.presence_last_update_id;

  // Nothing changed since (the admin's own repeat report is throttled).
  const again = await presence(cast.admin, { status: 'active', last_update_id: seen });
  expect(again.body.presences).toEqual({});
  expect(again.body.presence_last_update_id).toBe(seen);

  await presence(cast.moderator, { status: 'active', ping_only: true });
  const next = await presence(cast.admin, { status: 'active', last_update_id: seen });
  expect(Object.keys(next.body.presences)).toEqual([String(cast.moderator.id)]);
  expect(next.body.presence_last_update_id).toBeGreaterThan(seen);
});

test('slim_presence selects the modern format; history_limit_days=0 returns nothing', async () => {
  const slim = await presence(cast.owner, { status: 'idle', slim_presence: true });
  expect(slim.body.presences[String(cast.member.id)]).toEqual({
    active_timestamp: expect.any(Number),
    idle_timestamp: expect.any(Number),
  });
  const none = await presence(cast.owner, { status: 'idle', history_limit_days: 0 });
  expect(none.body.presences).toEqual({});
  expect(none.body.presence_last_update_id).toBe(-1);
});

test('an idle report marks the user idle', async () => {
  const user = await server.createUser(cast.realm, { email: 'dozy@example.com' });
  const res = await presence(user, { status: 'idle' });
  expect(res.body.presences[user.email].aggregated.status).toBe('idle');
});

test('invisible users are neither stored nor shown', async () => {
  const shy = await server.createUser(cast.realm, { email: 'shy@example.com' });
  await server.ok('PATCH', '/settings', { as: shy, params: { presence_enabled: false } });
  const res = await presence(shy, { status: 'active', last_update_id: -1 });
  expect(res.body.presences).not.toHaveProperty(String(shy.id));
});

test('bots cannot report presence', async () => {
  const bot = await server.createUser(cast.realm, { email: 'bot@example.com', isBot: true });
  const res = await presence(bot, { status: 'active' });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    result: 'error',
    msg: 'Presence is not supported for bots.',
    code: 'BAD_REQUEST',
  });
});

test('a bad status is refused', async () => {
  const res = await presence(cast.member, { status: 'asleep' });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: 'error', msg: 'Invalid status', code: 'BAD_REQUEST' });
});

test('a user appearing is announced to the organization, and the state matches a fresh fetch', async () => {
  const newcomer = await server.createUser(cast.realm, { email: 'newcomer@example.com' });
  const watcher = await server.createUser(cast.realm, { email: 'watcher@example.com' });
  const state = (
    await server.ok('POST', '/register', {
      as: watcher,
      params: { event_types: ['presence'], fetch_event_types: ['presence'] },
    })
  ).body;
  expect(state.presences).not.toHaveProperty(newcomer.email);
  await presence(newcomer, { status: 'active', ping_only: true });
  const { body } = await server.call('GET', '/events', {
    as: watcher,
    params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
  });
  expect(withoutIds(body.events)).toEqual([
    {
      type: 'presence',
      user_id: newcomer.id,
      email: newcomer.email,
      server_timestamp: expect.any(Number),
      presence: {
        website: {
          client: 'website',
          status: 'active',
          timestamp: expect.any(Number),
          pushable: false,
        },
      },
    },
  ]);
  const event = body.events[0];
  applyEvents(state, [event]);
  const fresh = (
    await server.ok('POST', '/register', {
      as: watcher,
      params: { event_types: [], fetch_event_types: ['presence'] },
    })
  ).body;
  expect(state.presences[newcomer.email]).toEqual(fresh.presences[newcomer.email]);
});

test('in an organization with more active users than PRESENCE_EVENTS_MAX_USERS, a user appearing is recorded, not announced', async () => {
  const big = await TestServer.startWithCast({ PRESENCE_EVENTS_MAX_USERS: '2' });
  try {
    const newcomer = await big.server.createUser(big.cast.realm, { email: 'newcomer@example.com' });
    const queue = (
      await big.server.ok('POST', '/register', {
        as: big.cast.member,
        params: { event_types: ['presence', 'realm'], fetch_event_types: [] },
      })
    ).body.queue_id;
    await big.server.ok('POST', '/users/me/presence', {
      as: newcomer,
      params: { status: 'active', ping_only: true },
    });
    // A change of the organization after it: a queue gets its events in
    // order, so a presence event would come first.
    await big.server.ok('PATCH', '/realm', {
      as: big.cast.owner,
      params: { description: 'After the newcomer came online' },
    });
    const { body } = await big.server.call('GET', '/events', {
      as: big.cast.member,
      params: { queue_id: queue, last_event_id: -1, dont_block: true },
    });
    expect(body.events.map((e: { type: string }) => e.type)).toEqual(['realm']);
    // Recorded all the same: the others' next presence request has it.
    const seen = await big.server.ok('POST', '/users/me/presence', {
      as: big.cast.member,
      params: { status: 'active', slim_presence: true },
    });
    expect(seen.body.presences).toHaveProperty(String(newcomer.id));
  } finally {
    await big.server.stop();
  }
});

test('a user reporting every minute is announced only when coming back from offline or idle', async () => {
  const regular = await server.createUser(cast.realm, { email: 'regular@example.com' });
  const watcher = await server.createUser(cast.realm, { email: 'watcher2@example.com' });
  const queue = (
    await server.ok('POST', '/register', {
      as: watcher,
      params: { event_types: ['presence'], fetch_event_types: [] },
    })
  ).body.queue_id;
  let seen = -1;
  /** The presence events the watcher got since the last look, by user. */
  const announced = async () => {
    const { body } = await server.call('GET', '/events', {
      as: watcher,
      params: { queue_id: queue, last_event_id: seen, dont_block: true },
    });
    for (const e of body.events) seen = Math.max(seen, e.id);
    return body.events
      .filter((e: { type: string }) => e.type === 'presence')
      .map((e: { user_id: number }) => e.user_id);
  };
  /** Sets the regular user's last reports to these many seconds ago. */
  const reportedAgo = (connected: number, active: number) =>
    server.services.db.write((tx) =>
      tx.userPresence.update({
        where: { userId: regular.id },
        data: {
          lastConnectedTime: new Date(Date.now() - connected * 1000),
          lastActiveTime: new Date(Date.now() - active * 1000),
        },
      }),
    );
  const sequence = async () =>
    (await presence(regular, { status: 'active', ping_only: true })).body.presence_last_update_id;

  await sequence();
  expect(await announced()).toEqual([regular.id]); // appearing
  await reportedAgo(60, 60);
  const before = await sequence();
  expect(await announced()).toEqual([]); // a minute later, still online: recorded, not announced
  await reportedAgo(60, 60);
  expect(await sequence()).toBeGreaterThan(before);
  expect(await announced()).toEqual([]);
  await reportedAgo(200, 200);
  await sequence();
  expect(await announced()).toEqual([regular.id]); // back from offline
  await reportedAgo(60, 300);
  await sequence();
  expect(await announced()).toEqual([regular.id]); // back from idle
  await reportedAgo(60, 60);
  await presence(regular, { status: 'idle', ping_only: true });
  expect(await announced()).toEqual([]); // going idle is not announced
});

test('history_limit_days leaves out users last connected before it', async () => {
  const away = await server.createUser(cast.realm, { email: 'away@example.com' });
  await presence(away, { status: 'active', ping_only: true });
  const longAgo = new Date(Date.now() - 20 * 86_400_000);
  await server.services.db.write((tx) =>
    tx.userPresence.update({
      where: { userId: away.id },
      data: { lastConnectedTime: longAgo, lastActiveTime: longAgo },
    }),
  );
  // Written behind the server's back: tell it, as the actions that change users do.
  server.services.auth.forgetUser(away.id);
  const recent = await presence(cast.member, { status: 'active', slim_presence: true });
  expect(recent.body.presences).not.toHaveProperty(String(away.id));
  expect(recent.body.presences).toHaveProperty(String(cast.member.id));
  const month = await presence(cast.member, {
    status: 'active',
    slim_presence: true,
    history_limit_days: 30,
  });
  expect(month.body.presences[String(away.id)]).toEqual({
    active_timestamp: Math.floor(longAgo.getTime() / 1000),
    idle_timestamp: Math.floor(longAgo.getTime() / 1000),
  });
});

test('a delta after another member reports holds exactly that member', async () => {
  const reader = await server.createUser(cast.realm, { email: 'reader@example.com' });
  const other = await server.createUser(cast.realm, { email: 'other@example.com' });
  const first = await presence(reader, { status: 'active', last_update_id: -1 });
  await presence(other, { status: 'active', ping_only: true });
  // The reader's own report is within the throttle: nothing of theirs changed.
  const delta = await presence(reader, {
    status: 'active',
    last_update_id: first.body.presence_last_update_id,
  });
  expect(Object.keys(delta.body.presences)).toEqual([String(other.id)]);
  expect(delta.body.presence_last_update_id).toBeGreaterThan(first.body.presence_last_update_id);
  const again = await presence(reader, {
    status: 'active',
    last_update_id: delta.body.presence_last_update_id,
  });
  expect(again.body.presences).toEqual({});
  expect(again.body.presence_last_update_id).toBe(delta.body.presence_last_update_id);
});

test('a deactivated user leaves the next answer at once', async () => {
  const leaving = await server.createUser(cast.realm, { email: 'leaving@example.com' });
  await presence(leaving, { status: 'active', ping_only: true });
  const before = await presence(cast.member, { status: 'active', slim_presence: true });
  expect(before.body.presences).toHaveProperty(String(leaving.id));
  await server.ok('DELETE', `/users/${leaving.id}`, { as: cast.admin });
  const after = await presence(cast.member, { status: 'active', slim_presence: true });
  expect(after.body.presences).not.toHaveProperty(String(leaving.id));
  const legacy = await server.ok('GET', '/realm/presence', { as: cast.member });
  expect(legacy.body.presences).toHaveProperty([cast.member.email]);
  expect(legacy.body.presences).not.toHaveProperty([leaving.email]);
});

test('a user turning presence off leaves the next answer at once, and comes back turning it on', async () => {
  const shy = await server.createUser(cast.realm, { email: 'toggling@example.com' });
  await presence(shy, { status: 'active', ping_only: true });
  const shown = await presence(cast.member, { status: 'active' });
  expect(shown.body.presences).toHaveProperty([shy.email]);
  await server.ok('PATCH', '/settings', { as: shy, params: { presence_enabled: false } });
  const hidden = await presence(cast.member, { status: 'active' });
  expect(hidden.body.presences).not.toHaveProperty([shy.email]);
  await server.ok('PATCH', '/settings', { as: shy, params: { presence_enabled: true } });
  const back = await presence(cast.member, { status: 'active' });
  expect(back.body.presences[shy.email]).toEqual(shown.body.presences[shy.email]);
});
