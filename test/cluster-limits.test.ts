// What server processes sharing PostgreSQL and Redis must agree on besides
// event queues: one rate-limit budget per user, address and username, and
// cached credentials and organization settings forgotten everywhere within a
// second of a change made through any process.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import { Role } from '../src/lib/constants';
import { usesRedis } from './support/redis';
import type { ApiClient, Cast, Reply } from './support/server';
import { TestCluster } from './support/cluster';
import { waitFor } from './support/wait';

const describeCluster = usesRedis() ? describe : describe.skip;

/** Repeats `request` until `done` holds of its reply (`state`), within the bounded wait; answers that reply. */
async function replyOnceState(
  state: string,
  request: () => Promise<Reply>,
  done: (reply: Reply) => boolean,
): Promise<Reply> {
  return waitFor(state, async () => {
    const reply = await request();
    return done(reply) ? reply : undefined;
  });
}

describeCluster('rate limits across processes', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(2, {
      RATE_LIMIT_USER_REQUESTS: '5',
      RATE_LIMIT_IP_REQUESTS: '3',
    });
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  const on = (i: number): ApiClient => cluster.servers[i % 2];

  test("a user's requests through both processes spend one budget", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await on(i).call('GET', '/users/me', { as: cast.member });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(4 - i));
    }
    for (const i of [0, 1]) {
      const refused = await on(i).call('GET', '/users/me', { as: cast.member });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        result: 'error',
        msg: 'API usage exceeded rate limit',
        code: 'RATE_LIMIT_HIT',
        'retry-after': expect.any(Number),
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Another user's budget is their own.
    expect((await on(0).call('GET', '/users/me', { as: cast.member2 })).status).toBe(200);
  });

  test("an address's unauthenticated requests through both processes spend one budget", async () => {
    for (let i = 0; i < 3; i++)
      expect((await on(i).call('GET', '/server_settings')).status).toBe(200);
    const refused = await on(3).call('GET', '/server_settings');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMIT_HIT');
  });
});

describeCluster('rate limits leased in blocks across processes', () => {
  const limit = 64;
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(2, { RATE_LIMIT_USER_REQUESTS: String(limit) });
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test("both processes together let through exactly a user's budget, however they lease it", async () => {
    // Unevenly, so that the processes' leases differ: two requests through the first, one through the second.
    const refusedBy = new Set<number>();
    let allowed = 0;
    for (let i = 0; refusedBy.size < 2 && i < 4 * limit; i++) {
      const server = i % 3 === 2 ? 1 : 0;
      const res = await cluster.servers[server].call('GET', '/users/me', { as: cast.member });
      if (res.status === 429) {
        expect(res.body.code).toBe('RATE_LIMIT_HIT');
        refusedBy.add(server);
        continue;
      }
      expect(res.status).toBe(200);
      // Once a process has been refused, it refuses until the window ends.
      expect(refusedBy.has(server)).toBe(false);
      allowed++;
      const remaining = Number(res.headers.get('x-ratelimit-remaining'));
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThan(limit);
    }
    expect(refusedBy).toEqual(new Set([0, 1]));
    // Budgets of their own would let through twice as many; hits leased and
    // not spent would show as fewer: each process spent all it leased before
    // it was refused.
    expect(allowed).toBe(limit);
  });
});

describeCluster('failed logins across processes', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(2, { RATE_LIMIT_AUTH_ATTEMPTS: '2' });
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('failed logins through either process count against one username', async () => {
    for (const i of [0, 1]) {
      const res = await cluster.servers[i].call('POST', '/fetch_api_key', {
        params: { username: cast.owner.email, password: 'wrong' },
      });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('AUTHENTICATION_FAILED');
    }
    const blocked = await cluster.servers[0].call('POST', '/fetch_api_key', {
      params: { username: cast.owner.email, password: 'owner-password' },
    });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMIT_HIT');
  });
});

describeCluster('cached credentials and settings across processes', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(2);
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  const [a, b] = [0, 1].map((i) => () => cluster.servers[i]);

  test('a user deactivated through one process is refused by the other within a second', async () => {
    const user = await cluster.servers[0].createUser(cast.realm, { email: 'leaving@example.com' });
    // Both processes have the credentials cached.
    for (const server of [a(), b()])
      expect((await server.call('GET', '/users/me', { as: user })).status).toBe(200);
    const res = await a().call('DELETE', `/users/${user.id}`, { as: cast.admin });
    expect(res.status).toBe(200);
    const refused = await replyOnceState(
      'the other process to refuse the deactivated user',
      () => b().call('GET', '/users/me', { as: user }),
      (reply) => reply.status === 401,
    );
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      result: 'error',
      msg: 'Account is deactivated',
      code: 'UNAUTHORIZED',
    });
  });

  test('a role changed through one process applies on the other within a second', async () => {
    const user = await cluster.servers[0].createUser(cast.realm, { email: 'rising@example.com' });
    expect((await b().call('GET', '/users/me', { as: user })).body.role).toBe(Role.MEMBER);
    const res = await a().call('PATCH', `/users/${user.id}`, {
      as: cast.owner,
      params: { role: Role.ADMINISTRATOR },
    });
    expect(res.status).toBe(200);
    const me = await replyOnceState(
      'the other process to see the new role',
      () => b().call('GET', '/users/me', { as: user }),
      (reply) => reply.body.role === Role.ADMINISTRATOR,
    );
    expect(me.body).toMatchObject({ role: Role.ADMINISTRATOR, is_admin: true });
  });

  test('organization settings changed through one process apply on the other within a second', async () => {
    const before = await b().call('POST', '/register', {
      as: cast.member,
      params: { event_types: [], fetch_event_types: ['realm'] },
    });
    expect(before.body.realm_name).toBe('Test organization');
    const res = await a().call('PATCH', '/realm', {
      as: cast.owner,
      params: { name: 'Renamed organization' },
    });
    expect(res.status).toBe(200);
    const after = await replyOnceState(
      'the other process to see the new organization name',
      () =>
        b().call('POST', '/register', {
          as: cast.member,
          params: { event_types: [], fetch_event_types: ['realm'] },
        }),
      (reply) => reply.body.realm_name === 'Renamed organization',
    );
    expect(after.body.realm_name).toBe('Renamed organization');
  });
});
