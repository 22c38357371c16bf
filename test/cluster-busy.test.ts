// A process whose main thread is busy for longer than the liveness period (a
// burst of work, a long garbage collection) is not taken for dead: a thread of
// its own keeps its liveness key, so its in-flight mark is not claimed and no
// queue of the deployment is dropped. A main thread stuck past the hang limit
// lets the key lapse, as a dead process's does. The busy spell comes from the
// test-only setting CHAT_TEST_BUSY_MS of test/support/child-server.ts (SIGUSR2).
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import Redis from 'ioredis';
import { TestCluster, type ChildServer } from './support/cluster';
import { testRedisUrl, usesRedis } from './support/redis';
import type { Cast } from './support/server';
import { waitFor } from './support/wait';

const describeCluster = usesRedis() ? describe : describe.skip;

describeCluster('a process too busy to renew its liveness from its main thread', () => {
  let cluster: TestCluster;
  let cast: Cast;
  let redis: Redis;

  beforeAll(async () => {
    cluster = await TestCluster.start(1, {
      SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0',
      EVENT_PROCESS_LIVENESS_SECONDS: '3',
    });
    cast = await cluster.servers[0].createCast();
    redis = new Redis(testRedisUrl());
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  const live = () => cluster.servers[0];
  const livenessKey = (child: ChildServer) =>
    `${cluster.env.REDIS_KEY_PREFIX}proc:${child.processId}`;
  const said = (child: ChildServer, busy: 'start' | 'end') =>
    child.lines.some((line) => line.busy === busy);

  /** Starts a busy spell of the child's main thread, once it has begun. */
  async function makeBusy(child: ChildServer): Promise<void> {
    child.kill('SIGUSR2');
    await waitFor('the busy spell to begin', () => said(child, 'start'));
  }

  test('keeps its key through the spell, and no queue is dropped', async () => {
    const queue = await live().ok('POST', '/register', {
      as: cast.member,
      params: { event_types: ['message'] },
    });
    const child = await cluster.spawn({
      CHAT_TEST_BUSY_MS: '8000',
      EVENT_PROCESS_HANG_SECONDS: '30',
    });
    expect(child.processId).toEqual(expect.any(String));
    // A write through the child sets its in-flight mark, which the others
    // would claim (dropping every queue) if its key lapsed.
    const sent = await child.ok('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: 'before a burst' },
    });
    await makeBusy(child);
    let lapses = 0;
    let checks = 0;
    await waitFor(
      'the busy spell to end',
      async () => {
        const ended = said(child, 'end');
        checks++;
        if ((await redis.exists(livenessKey(child))) === 0) lapses++;
        return ended;
      },
      30_000,
    );
    expect(checks).toBeGreaterThan(1);
    expect(lapses).toBe(0);
    const polled = await live().ok('GET', '/events', {
      as: cast.member,
      params: { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true },
    });
    expect(polled.body.events).toEqual([
      expect.objectContaining({
        type: 'message',
        message: expect.objectContaining({ id: sent.body.id }),
      }),
    ]);
    // The child serves again once the spell is over.
    await child.ok('GET', '/users/me', { as: cast.member });
  }, 60_000);

  test('lets its key lapse when its main thread is stuck past the hang limit', async () => {
    const child = await cluster.spawn({
      CHAT_TEST_BUSY_MS: '10000',
      EVENT_PROCESS_HANG_SECONDS: '2',
    });
    await makeBusy(child);
    let lapsedWhileStuck = false;
    await waitFor(
      'the liveness key to lapse',
      async () => {
        const ended = said(child, 'end');
        const gone = (await redis.exists(livenessKey(child))) === 0;
        if (gone) lapsedWhileStuck = !ended;
        return gone;
      },
      30_000,
    );
    expect(lapsedWhileStuck).toBe(true);
    // Once the main thread runs again, it renews the key itself.
    await waitFor(
      'the key to come back',
      async () => (await redis.exists(livenessKey(child))) === 1,
      30_000,
    );
  }, 60_000);
});
