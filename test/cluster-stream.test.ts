// The shared event log on Redis: an event is appended once whatever the
// number of queues and processes; an event that cannot reach the log marks
// its queues lost instead of passing them by; and a process killed with -9
// while messages are sent costs no queue an event, nor repeats one.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import Redis from 'ioredis';
import { TestCluster, type ChildServer } from './support/cluster';
import { testRedisUrl, usesRedis } from './support/redis';
import type { ApiClient, Cast } from './support/server';
import { TcpProxy } from './support/tcp-proxy';

const describeCluster = usesRedis() ? describe : describe.skip;

type Member = Cast['member'];

async function register(on: ApiClient, user: Member): Promise<string> {
  const res = await on.call('POST', '/register', {
    as: user,
    params: { event_types: ['message'] },
  });
  expect(res.status).toBe(200);
  return res.body.queue_id as string;
}

/** Polls a queue until `done` holds of the message IDs received, or it answers BAD_EVENT_QUEUE_ID. */
async function follow(
  on: ApiClient,
  user: Member,
  queueId: string,
  done: (ids: number[]) => boolean,
  what: string,
): Promise<{ ids: number[]; eventIds: number[]; lost: boolean }> {
  const ids: number[] = [];
  const eventIds: number[] = [];
  let last = -1;
  const deadline = Date.now() + 60_000;
  while (!done(ids)) {
    if (Date.now() > deadline) throw new Error(`${what}: got ${ids.length} messages`);
    const res = await on.call('GET', '/events', {
      as: user,
      params: { queue_id: queueId, last_event_id: last },
    });
    if (res.status === 400 && res.body.code === 'BAD_EVENT_QUEUE_ID')
      return { ids, eventIds, lost: true };
    expect(res.status).toBe(200);
    for (const event of res.body.events) {
      eventIds.push(event.id);
      if (event.type === 'message') ids.push(event.message.id);
      last = event.id;
    }
  }
  return { ids, eventIds, lost: false };
}

describeCluster('the shared event log', () => {
  let cluster: TestCluster;
  let cast: Cast;
  let redis: Redis;
  const logKey = () => `${cluster.env.REDIS_KEY_PREFIX}log`;

  beforeAll(async () => {
    cluster = await TestCluster.start(2);
    cast = await cluster.servers[0].createCast();
    redis = new Redis(testRedisUrl());
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  test('an event is appended once and reaches queues on both processes', async () => {
    const [a, b] = cluster.servers;
    const onA = await register(a, cast.member);
    const onB = await register(b, cast.member2);
    const alsoOnB = await register(b, cast.member);
    const before = await redis.xlen(logKey());
    const sent = await a.call('POST', '/messages', {
      as: cast.owner,
      params: {
        type: 'direct',
        to: JSON.stringify([cast.member.id, cast.member2.id]),
        content: 'once for all',
      },
    });
    expect(sent.status).toBe(200);
    expect(await redis.xlen(logKey())).toBe(before + 1);
    for (const [on, user, queueId] of [
      [a, cast.member, onA],
      [b, cast.member2, onB],
      [b, cast.member, alsoOnB],
    ] as const) {
      const res = await on.call('GET', '/events', {
        as: user,
        params: { queue_id: queueId, last_event_id: -1, dont_block: true },
      });
      expect(res.body.events).toEqual([
        expect.objectContaining({
          id: 0,
          type: 'message',
          message: expect.objectContaining({ id: sent.body.id }),
        }),
      ]);
    }
  });
});

describeCluster('an event Redis does not take', () => {
  let cluster: TestCluster;
  let cast: Cast;
  let proxy: TcpProxy;
  let cutOff: ChildServer;

  beforeAll(async () => {
    cluster = await TestCluster.start(1);
    cast = await cluster.servers[0].createCast();
    const redis = new URL(testRedisUrl());
    proxy = await TcpProxy.start(redis.hostname, Number(redis.port || 6379));
    redis.port = String(proxy.port);
    cutOff = await cluster.spawn({ REDIS_URL: redis.toString() });
  }, 60_000);
  afterAll(async () => {
    await proxy?.restore();
    await cluster?.stop();
    await proxy?.stop();
  });

  test('marks its queues lost, here at once and on every process once Redis answers', async () => {
    const other = cluster.servers[0];
    const queueId = await register(cutOff, cast.member);
    await proxy.cut();
    const sent = await cutOff.call('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: 'while cut off' },
    });
    // The message is kept, and its event is never silently missed.
    expect(sent.status).toBe(200);
    const here = await cutOff.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1, dont_block: true },
    });
    expect(here.status).toBe(400);
    expect(here.body).toEqual({
      result: 'error',
      msg: `Bad event queue ID: ${queueId}`,
      code: 'BAD_EVENT_QUEUE_ID',
      queue_id: queueId,
    });
    const metrics = await (await fetch(`${cutOff.url}/metrics`)).text();
    const unpublished = /^chat_event_publications_unpublished_total (\d+)$/m.exec(metrics);
    expect(Number(unpublished?.[1])).toBeGreaterThanOrEqual(1);

    await proxy.restore();
    // The other process learns it from the log once the cut-off one can write again.
    const elsewhere = await follow(
      other,
      cast.member,
      queueId,
      () => false,
      'lost queue on the other process',
    );
    expect(elsewhere).toEqual({ ids: [], eventIds: [], lost: true });
    const stored = await other.call('GET', `/messages/${sent.body.id}`, { as: cast.member });
    expect(stored.body.message.content).toBe('<p>while cut off</p>');

    // A queue registered afterwards receives events again.
    const fresh = await register(cutOff, cast.member);
    const again = await other.call('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: 'back' },
    });
    const got = await follow(cutOff, cast.member, fresh, (ids) => ids.length > 0, 'fresh queue');
    expect(got.ids).toEqual([again.body.id]);
  }, 60_000);
});

describeCluster('a process killed while messages are sent', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(1);
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('every queue gets every acknowledged message once, or answers BAD_EVENT_QUEUE_ID', async () => {
    const survivor = cluster.servers[0];
    const doomed = await cluster.spawn();
    const queues: [ApiClient, string][] = [
      [survivor, await register(survivor, cast.member)],
      [survivor, await register(doomed, cast.member)],
    ];
    const acknowledged: number[] = [];
    let next = 0;
    const total = 2000;
    const sender = async () => {
      while (next < total) {
        const i = next++;
        if (i === 600) doomed.kill('SIGKILL');
        const via = i % 2 === 0 ? survivor : doomed;
        const res = await via
          .send('POST', '/messages', {
            as: cast.owner,
            params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: `n${i}` },
          })
          .catch(() => null);
        if (res?.status === 200) acknowledged.push(res.body.id as number);
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    expect(await doomed.exited).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(total / 2);
    const wanted = new Set(acknowledged);
    for (const [on, queueId] of queues) {
      const got = await follow(
        on,
        cast.member,
        queueId,
        (ids) => ids.filter((id) => wanted.has(id)).length === wanted.size,
        `queue ${queueId}`,
      );
      // Nothing twice, in increasing order of event ID.
      expect(new Set(got.ids).size).toBe(got.ids.length);
      expect(got.eventIds).toEqual([...got.eventIds].sort((x, y) => x - y));
      if (!got.lost) expect(got.ids.filter((id) => wanted.has(id)).length).toBe(wanted.size);
    }
  }, 300_000);
});
