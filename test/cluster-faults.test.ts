// Two server processes lose Redis, then the database, for a few seconds under
// a steady load of sends, polls and registrations, through TCP proxies in
// front of the machine's services that the test cuts and restores (the
// services themselves keep running). While a dependency is down, a request
// that needs it is answered 503 SERVICE_UNAVAILABLE with Retry-After, never
// 500; /ready names the dependency and /health stays up; once it returns, the
// processes reconnect by themselves (the waiting polls' wake channel
// included) and serve again; no acknowledged message is missing from the
// database, and every polled queue received the events of every acknowledged
// message (those published during a Redis outage are delivered when it ends)
// or answers BAD_EVENT_QUEUE_ID (when the outage outlasts the retry bound).
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import { createTestDatabase, type TestDatabase } from './support/database';
import { FaultDrill, storedMessageIds, type DrillUser } from './support/faults';
import { TcpProxy } from './support/proxy';
import { dropRedisKeys, newKeyPrefix, testRedisUrl, usesRedis } from './support/redis';
import { TestServer, type Cast } from './support/server';
import { waitFor } from './support/wait';

const describeFaults = usesRedis() ? describe : describe.skip;

/** The status and body of GET `path` on `server`. */
async function operatorGet(
  server: TestServer,
  path: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: await res.json() };
}

describeFaults('two processes losing a dependency under load', () => {
  let database: TestDatabase;
  let prefix: string;
  let postgres: TcpProxy;
  let redis: TcpProxy;
  let servers: TestServer[];
  let cast: Cast;

  beforeAll(async () => {
    const real = await createTestDatabase();
    postgres = await TcpProxy.start('127.0.0.1', Number(new URL(real.url).port || 5432));
    redis = await TcpProxy.start('127.0.0.1', Number(new URL(testRedisUrl()).port || 6379));
    database = { ...real, url: postgres.rewrite(real.url) };
    prefix = newKeyPrefix();
    // A long heartbeat: a waiting poll is answered by a wake-up or not at
    // all, so that a wake channel lost with the connection would show.
    const env = {
      REDIS_URL: redis.rewrite(testRedisUrl()),
      REDIS_KEY_PREFIX: prefix,
      EVENT_HEARTBEAT_SECONDS: '60',
      SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0',
    };
    servers = [await TestServer.startOn(database, env)];
    servers.push(await TestServer.startOn(database, env));
    cast = await servers[0].createCast();
    // The test's own reads of the database go around the proxy.
    database.url = real.url;
  }, 60_000);
  afterAll(async () => {
    postgres?.restore();
    redis?.restore();
    await Promise.all((servers ?? []).map((s) => s.stop()));
    await database?.drop();
    await dropRedisKeys(testRedisUrl(), prefix);
    await postgres?.close();
    await redis?.close();
  });

  /**
   * Runs the drill around a cut of `proxy`: warm up, cut, wait until the
   * processes answer 503 and /ready names `dependency`, restore, wait until
   * both serve again, and go on a little; answers what happened.
   */
  async function cutUnderLoad(proxy: TcpProxy, dependency: RegExp) {
    const users: DrillUser[] = [cast.member, cast.member2];
    // Polls and registrations on the first process, sends on the second: the
    // wake-ups of the polls cross processes through Redis.
    const drill = new FaultDrill({
      clients: servers,
      sender: cast.owner,
      recipients: users,
      checkContract: true,
    });
    await drill.start();
    await drill.until(
      '20 messages acknowledged and received before the cut',
      () => drill.acknowledged.length >= 20 && drill.queues.every((q) => q.received.size >= 1),
      60_000,
    );
    const cutAt = Date.now();
    proxy.cutOff();
    for (const server of servers)
      await drill.until(`/ready to name the dependency cut`, async () => {
        const ready = await operatorGet(server, '/ready');
        return ready.status === 503 && dependency.test(ready.body.reason);
      });
    await drill.until(
      'three requests answered 503 during the cut',
      () => drill.answersBetween(cutAt, Infinity).filter((a) => a.status === 503).length >= 3,
    );
    const health = await Promise.all(servers.map((s) => operatorGet(s, '/health')));
    expect(health.map((h) => h.status)).toEqual([200, 200]);

    const restoredAt = Date.now();
    proxy.restore();
    // Serving again within five seconds: both processes ready, and a
    // registration (on the first) and a send (on the second) started after
    // the return succeed.
    await drill.until(
      'both processes to serve again',
      async () =>
        drill.answersBetween(restoredAt, Infinity, 'register').some((a) => a.status === 200) &&
        drill.acknowledged.some((m) => m.startedAt >= restoredAt) &&
        (await Promise.all(servers.map((s) => operatorGet(s, '/ready')))).every(
          (ready) => ready.status === 200,
        ),
      5000,
    );
    const recoveredAt = Date.now();
    await drill.until(
      '10 messages acknowledged after the return',
      () => drill.acknowledged.filter((m) => m.startedAt >= recoveredAt).length >= 10,
      60_000,
    );
    await drill.stopSending();
    return { drill, cutAt, restoredAt, recoveredAt };
  }

  /** The checks every fault shares; `required` are the messages every queue must have received. */
  async function checkOutcome(drill: FaultDrill, required: { id: number }[]): Promise<void> {
    expect(drill.problems).toEqual([]);
    expect(
      drill.answers.filter(
        (a) => a.status !== 200 && a.status !== 503 && a.code !== 'BAD_EVENT_QUEUE_ID',
      ),
    ).toEqual([]);
    const acknowledged = drill.acknowledged.map((m) => m.id);
    const stored = await storedMessageIds(database.url, acknowledged);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    const ids = new Set(required.map((m) => m.id));
    const among = drill.acknowledged.filter((m) => ids.has(m.id));
    await drill.until(
      'every queue to receive the required messages, or to be lost',
      () => drill.queues.every((q) => q.lost || drill.missing(q, among).length === 0),
      30_000,
    );
    await drill.stop();
    for (const queue of drill.queues)
      expect({
        queue: queue.queueId,
        missing: queue.lost ? [] : drill.missing(queue, among),
      }).toEqual({
        queue: queue.queueId,
        missing: [],
      });
  }

  test('Redis cut for a few seconds during sends and polls, then restored', async () => {
    const { drill, cutAt, recoveredAt } = await cutUnderLoad(redis, /Redis cannot be reached/);
    // Registrations and polls needed Redis: they were refused with 503 (sends
    // committed in the database and were acknowledged).
    expect(drill.answersBetween(cutAt, recoveredAt, 'register').some((a) => a.status === 503)).toBe(
      true,
    );
    // The events of messages acknowledged during the cut waited in the
    // sending process and were delivered once Redis returned, in order: every
    // queue received every acknowledged message.
    const stats = servers[1].services.queues.publicationStats();
    expect(stats.delayed).toBeGreaterThan(0);
    expect({ abandoned: stats.abandoned, backlog: stats.backlog }).toEqual({
      abandoned: 0,
      backlog: 0,
    });
    await checkOutcome(drill, drill.acknowledged);
  }, 240_000);

  test('the database cut for a few seconds during sends and polls, then restored', async () => {
    const { drill, cutAt, recoveredAt } = await cutUnderLoad(postgres, /the database/);
    // Sends needed the database: some were refused with 503, none half-written.
    expect(drill.answersBetween(cutAt, recoveredAt, 'send').some((a) => a.status === 503)).toBe(
      true,
    );
    // Redis stayed up: every acknowledged message reached every queue.
    await checkOutcome(drill, drill.acknowledged);
  }, 240_000);
});

describeFaults('events Redis could not take for longer than the retry bound', () => {
  let redis: TcpProxy;
  let server: TestServer;
  let cast: Cast;
  let prefix: string;

  beforeAll(async () => {
    redis = await TcpProxy.start('127.0.0.1', Number(new URL(testRedisUrl()).port || 6379));
    prefix = newKeyPrefix();
    server = await TestServer.start({
      REDIS_URL: redis.rewrite(testRedisUrl()),
      REDIS_KEY_PREFIX: prefix,
      EVENT_PUBLISH_RETRY_SECONDS: '0.5',
      SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0',
    });
    cast = await server.createCast();
  }, 60_000);
  afterAll(async () => {
    redis?.restore();
    await server?.stop();
    await dropRedisKeys(testRedisUrl(), prefix);
    await redis?.close();
  });

  test('drop the queues they were for, which then answer BAD_EVENT_QUEUE_ID', async () => {
    const { queues } = server.services;
    const register = (as: typeof cast.member) =>
      server.ok('POST', '/register', { as, params: { event_types: JSON.stringify(['message']) } });
    const recipient = (await register(cast.member)).body;
    const bystander = (await register(cast.member2)).body;

    redis.cutOff();
    const sent = await server.call('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: 'during the cut' },
    });
    // The message is in the database and acknowledged; its event could not be delivered.
    expect(sent.status).toBe(200);
    await waitFor(
      'the undelivered event to be given up',
      () => queues.publicationStats().abandoned >= 1,
    );
    redis.restore();
    await waitFor(
      'the queue that missed it to be dropped',
      () => queues.publicationStats().queuesDropped >= 1,
    );

    const poll = (as: typeof cast.member, queue: { queue_id: string; last_event_id: number }) =>
      server.call('GET', '/events', {
        as,
        params: {
          queue_id: queue.queue_id,
          last_event_id: queue.last_event_id,
          dont_block: 'true',
        },
      });
    const missed = await poll(cast.member, recipient);
    expect(missed.status).toBe(400);
    expect(missed.body.code).toBe('BAD_EVENT_QUEUE_ID');
    // A queue the event was not for goes on, and a new queue gets what follows.
    expect((await poll(cast.member2, bystander)).status).toBe(200);
    const again = (await register(cast.member)).body;
    await server.ok('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: 'after the return' },
    });
    const events = (await poll(cast.member, again)).body.events;
    expect(events.map((e: any) => e.message?.content)).toEqual(['after the return']);
  }, 60_000);

  test("an event for everyone in the organization given up drops all the organization's queues, and no other", async () => {
    const { queues } = server.services;
    const { realm: otherRealm } = await server.createRealm('Elsewhere', 'elsewhere');
    const outsider = await server.createUser(otherRealm, { email: 'outsider@example.com' });
    const register = (as: typeof cast.member) =>
      server.ok('POST', '/register', { as, params: { event_types: JSON.stringify(['realm']) } });
    const member = (await register(cast.member)).body;
    const admin = (await register(cast.admin)).body;
    const other = (await register(outsider)).body;
    const before = queues.publicationStats();

    redis.cutOff();
    const renamed = await server.call('PATCH', '/realm', {
      as: cast.owner,
      params: { name: 'Renamed during the cut' },
    });
    expect(renamed.status).toBe(200);
    await waitFor(
      'the undelivered event to be given up',
      () => queues.publicationStats().abandoned > before.abandoned,
    );
    redis.restore();
    await waitFor(
      "the organization's queues to be dropped",
      () => queues.publicationStats().queuesDropped >= before.queuesDropped + 2,
    );

    const poll = (as: typeof cast.member, queue: { queue_id: string; last_event_id: number }) =>
      server.call('GET', '/events', {
        as,
        params: { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true },
      });
    for (const [as, queue] of [
      [cast.member, member],
      [cast.admin, admin],
    ] as const)
      expect((await poll(as, queue)).body.code).toBe('BAD_EVENT_QUEUE_ID');
    // Another organization's queue owed nothing, and goes on.
    expect((await poll(outsider, other)).status).toBe(200);
  }, 60_000);
});
