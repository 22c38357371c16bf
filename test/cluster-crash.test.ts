// A process killed between the commit of a write and the publication of its
// events: the write is in the database, and a queue it owed an event to,
// registered on another process, never goes on without it: its next polls
// answer BAD_EVENT_QUEUE_ID (the process that notices the dead one's
// in-flight mark drops the queues), so that its client registers again. A
// process stopped cleanly (SIGTERM) leaves no mark and drops no queue. The
// kill comes from the test-only setting CHAT_FAULT_KILL_AFTER_COMMIT=1, with
// which a process kills itself with SIGKILL right after its first commit
// that has events to publish.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import Redis from 'ioredis';
import { TestCluster } from './support/cluster';
import { testRedisUrl, usesRedis } from './support/redis';
import type { ApiClient, Cast } from './support/server';
import { waitFor } from './support/wait';

const describeCluster = usesRedis() ? describe : describe.skip;

describeCluster('a process dying between commit and publication', () => {
  let cluster: TestCluster;
  let cast: Cast;
  let redis: Redis;

  beforeAll(async () => {
    cluster = await TestCluster.start(1, { SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' });
    cast = await cluster.servers[0].createCast();
    redis = new Redis(testRedisUrl());
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  const live = () => cluster.servers[0];

  async function register(user: Cast['member']): Promise<string> {
    const res = await live().ok('POST', '/register', {
      as: user,
      params: { event_types: ['message'] },
    });
    return res.body.queue_id as string;
  }

  function poll(user: Cast['member'], queueId: string) {
    return live().call('GET', '/events', {
      as: user,
      params: { queue_id: queueId, last_event_id: -1, dont_block: true },
    });
  }

  function sendDm(on: ApiClient, to: Cast['member'], content: string) {
    return on.call('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([to.id]), content },
    });
  }

  /** The in-flight marks in Redis: mark name -> the process holding it. */
  function marks(): Promise<Record<string, string>> {
    return redis.hgetall(`${cluster.env.REDIS_KEY_PREFIX}marks`);
  }

  test('a clean stop leaves no mark and drops no queue', async () => {
    const queueId = await register(cast.member);
    const child = await cluster.spawn();
    const sent = await sendDm(child, cast.member, 'sent before a clean stop');
    expect(sent.status).toBe(200);
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    // The stopped process cleared its mark: only the live process may hold one.
    const self = live().services.redis!.processId;
    expect(Object.values(await marks()).filter((holder) => holder !== self)).toEqual([]);
    const res = await poll(cast.member, queueId);
    expect(res.status).toBe(200);
    expect(res.body.events).toEqual([
      expect.objectContaining({
        type: 'message',
        message: expect.objectContaining({ id: sent.body.id }),
      }),
    ]);
    expect(live().services.queues.publicationStats().queuesDroppedAfterCrash).toBe(0);
  }, 60_000);

  test('the queues it owed events to are dropped, so that they never go on without them', async () => {
    const queueId = await register(cast.member2);
    const child = await cluster.spawn({ CHAT_FAULT_KILL_AFTER_COMMIT: '1' });
    const content = 'committed, never published';
    // The process dies before answering: the request gets no answer.
    const sent = await sendDm(child, cast.member2, content).then(
      (res) => res.status,
      () => 'no answer',
    );
    expect(sent).toBe('no answer');
    expect(await child.exited).toBe('SIGKILL');

    // The message was committed.
    const stored = await live().ok('GET', '/messages', {
      as: cast.member2,
      params: { anchor: 'newest', num_before: 5, num_after: 0 },
    });
    expect(stored.body.messages.map((m: { content: string }) => m.content)).toContainEqual(
      expect.stringContaining(content),
    );

    // Until the dead process's mark is swept, the queue answers no event;
    // then it answers BAD_EVENT_QUEUE_ID, never an empty queue for good.
    const gone = await waitFor(
      'the queue the dead process owed an event to to be dropped',
      async () => {
        const res = await poll(cast.member2, queueId);
        if (res.status === 200) {
          expect(res.body.events).toEqual([]);
          return null;
        }
        return res;
      },
      30_000,
    );
    expect(gone.status).toBe(400);
    expect(gone.body).toEqual({
      result: 'error',
      msg: `Bad event queue ID: ${queueId}`,
      code: 'BAD_EVENT_QUEUE_ID',
      queue_id: queueId,
    });
    expect(live().services.queues.publicationStats().queuesDroppedAfterCrash).toBeGreaterThan(0);
    // The claim is done with: no mark is left but the live process's own.
    const self = live().services.redis!.processId;
    await waitFor('the dead process mark to be gone', async () =>
      Object.values(await marks()).every((holder) => holder === self),
    );

    // A queue registered now works as before.
    const again = await register(cast.member2);
    const next = await sendDm(live(), cast.member2, 'after the drop');
    expect(next.status).toBe(200);
    const res = await poll(cast.member2, again);
    expect(res.body.events).toEqual([
      expect.objectContaining({ message: expect.objectContaining({ id: next.body.id }) }),
    ]);
  }, 90_000);
});
