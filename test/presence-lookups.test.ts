// GET /realm/presence and GET /users/{user_id_or_email}/presence: the legacy
// form keyed by email, one user by ID or email, offline after 140 seconds,
// and Zulip's refusals (unknown, deactivated, bots, never reported).
import { expectError } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const report = (user: Cast['member'], status: 'active' | 'idle') =>
  server.call('POST', '/users/me/presence', { as: user, params: { status } });

test('GET /realm/presence: everyone who reported, keyed by email, bots included as callers', async () => {
  await report(cast.member, 'active');
  await report(cast.member2, 'idle');
  const bot = await server.createUser(cast.realm, {
    email: 'watcher-bot@example.com',
    isBot: true,
  });
  const res = await server.call('GET', '/realm/presence', { as: bot });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['msg', 'presences', 'result', 'server_timestamp']);
  expect(Math.abs(res.body.server_timestamp - Date.now() / 1000)).toBeLessThan(5);
  expect(Object.keys(res.body.presences).sort()).toEqual(
    [cast.member.email, cast.member2.email].sort(),
  );
  expect(res.body.presences[cast.member.email]).toEqual({
    aggregated: { client: 'website', status: 'active', timestamp: expect.any(Number) },
    website: {
      client: 'website',
      status: 'active',
      timestamp: expect.any(Number),
      pushable: false,
    },
  });
  expect(res.body.presences[cast.member2.email].aggregated.status).toBe('idle');
});

test('GET /realm/presence uses the placeholder address of users who hide their email', async () => {
  await server.ok('PATCH', '/settings', {
    as: cast.moderator,
    params: { email_address_visibility: 4 },
  });
  await report(cast.moderator, 'active');
  const res = await server.call('GET', '/realm/presence', { as: cast.member });
  expect(res.body.presences[`user${cast.moderator.id}@chat.test`]).toBeDefined();
  expect(res.body.presences[cast.moderator.email]).toBeUndefined();
});

describe('GET /users/{user_id_or_email}/presence', () => {
  const get = (as: Cast['member'], who: string | number) =>
    server.call('GET', `/users/${encodeURIComponent(String(who))}/presence`, { as });

  test('by ID and by email: status and time, without client or pushable', async () => {
    await report(cast.admin, 'active');
    for (const who of [cast.admin.id, cast.admin.email]) {
      const res = await get(cast.member, who);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        presence: {
          aggregated: { status: 'active', timestamp: expect.any(Number) },
          website: { status: 'active', timestamp: expect.any(Number) },
        },
      });
    }
  });

  test('after 140 silent seconds the aggregate reads offline', async () => {
    await report(cast.owner, 'active');
    const old = new Date(Date.now() - 200_000);
    await server.services.db.write((tx) =>
      tx.userPresence.update({
        where: { userId: cast.owner.id },
        data: { lastActiveTime: old, lastConnectedTime: old },
      }),
    );
    const res = await get(cast.member, cast.owner.id);
    expect(res.body.presence).toEqual({
      aggregated: { status: 'offline', timestamp: Math.floor(old.getTime() / 1000) },
      website: { status: 'active', timestamp: Math.floor(old.getTime() / 1000) },
    });
  });

  test('refusals', async () => {
    const bot = await server.createUser(cast.realm, {
      email: 'presence-bot@example.com',
      isBot: true,
    });
    const gone = await server.createUser(cast.realm, { email: 'gone-away@example.com' });
    await server.ok('DELETE', `/users/${gone.id}`, { as: cast.admin });
    const silent = await server.createUser(cast.realm, { email: 'silent@example.com' });
    expectError(await get(cast.member, 987654), 400, 'BAD_REQUEST', 'No such user');
    expectError(await get(cast.member, 'nobody@example.com'), 400, 'BAD_REQUEST', 'No such user');
    expectError(await get(cast.member, gone.id), 400, 'BAD_REQUEST', 'No such user');
    expectError(
      await get(cast.member, bot.id),
      400,
      'BAD_REQUEST',
      'Presence is not supported for bot users.',
    );
    expectError(
      await get(cast.member, silent.email),
      400,
      'BAD_REQUEST',
      `No presence data for ${silent.email}`,
    );
  });

  test('users who hide their presence have no presence data', async () => {
    await report(cast.member2, 'active');
    await server.ok('PATCH', '/settings', {
      as: cast.member2,
      params: { presence_enabled: false },
    });
    expectError(
      await get(cast.member, cast.member2.id),
      400,
      'BAD_REQUEST',
      `No presence data for ${cast.member2.id}`,
    );
    const all = await server.call('GET', '/realm/presence', { as: cast.member });
    expect(all.body.presences[cast.member2.email]).toBeUndefined();
  });
});
