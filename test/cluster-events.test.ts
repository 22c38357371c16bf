// Event queues across server processes sharing PostgreSQL and Redis: an event
// published by one process reaches a queue registered on another and wakes
// its waiting poll; any process serves any queue; and a queue outlives the
// process that registered it, killed with SIGKILL, losing no event.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import { usesRedis } from './support/redis';
import type { ApiClient, Cast } from './support/server';
import { TestCluster } from './support/cluster';
import { parkedPolls, waitFor, waitForParkedPolls, waitForParkedPollsAt } from './support/wait';

const describeCluster = usesRedis() ? describe : describe.skip;

describeCluster('event queues across processes', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(2);
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  const [a, b] = [0, 1].map((i) => () => cluster.servers[i]);

  async function register(on: ApiClient, user: Cast['member'], params: Record<string, unknown>) {
    const res = await on.call('POST', '/register', { as: user, params });
    expect(res.status).toBe(200);
    return res.body.queue_id as string;
  }

  async function sendDm(on: ApiClient, from: Cast['member'], to: Cast['member'], content: string) {
    const res = await on.call('POST', '/messages', {
      as: from,
      params: { type: 'direct', to: JSON.stringify([to.id]), content },
    });
    expect(res.status).toBe(200);
    return res.body.id as number;
  }

  test('a message sent through one process wakes a poll waiting on another', async () => {
    const queueId = await register(a(), cast.member, { event_types: ['message'] });
    const parked = await parkedPolls(a());
    const poll = a().call('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1 },
    });
    await waitForParkedPolls(a(), parked + 1);
    const id = await sendDm(b(), cast.owner, cast.member, 'across **processes**');
    const res = await poll;
    expect(res.body.events).toEqual([
      expect.objectContaining({
        id: expect.any(Number),
        type: 'message',
        flags: [],
        message: expect.objectContaining({ id, content: 'across **processes**' }),
      }),
    ]);
  });

  test("any process polls, acknowledges and deletes another process's queue", async () => {
    const queueId = await register(a(), cast.member2, {
      event_types: ['message'],
      apply_markdown: true,
    });
    const first = await sendDm(a(), cast.owner, cast.member2, 'one');
    const second = await sendDm(b(), cast.owner, cast.member2, 'two');
    const both = await b().call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: -1, dont_block: true },
    });
    const [one, two] = both.body.events as { id: number; message: { id: number } }[];
    expect([one.message.id, two.message.id]).toEqual([first, second]);
    expect(two.id).toBeGreaterThan(one.id);
    expect(both.body.events[0].message.content).toBe('<p>one</p>');
    // Acknowledged on A, the first event is gone for B too.
    const rest = await a().call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: one.id, dont_block: true },
    });
    expect(rest.body.events.map((e: { id: number }) => e.id)).toEqual([two.id]);
    // A poll waiting on B is woken by a send through A.
    const parkedOnB = await parkedPolls(b());
    const waiting = b().call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: two.id },
    });
    await waitForParkedPolls(b(), parkedOnB + 1);
    const third = await sendDm(a(), cast.owner, cast.member2, 'three');
    const woken = (await waiting).body.events as { id: number; message: { id: number } }[];
    expect(woken.map((e) => e.message.id)).toEqual([third]);
    // Deleted through B, the queue is gone for A, and a poll waiting on A is answered.
    const parkedOnA = await parkedPolls(a());
    const parked = a().call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: woken[0].id },
    });
    await waitForParkedPolls(a(), parkedOnA + 1);
    const del = await b().call('DELETE', '/events', {
      as: cast.member2,
      params: { queue_id: queueId },
    });
    expect(del.body).toEqual({ result: 'success', msg: '' });
    expect((await parked).body.events).toEqual([]);
    const gone = await a().call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, dont_block: true },
    });
    expect(gone.status).toBe(400);
    expect(gone.body).toEqual({
      result: 'error',
      msg: `Bad event queue ID: ${queueId}`,
      code: 'BAD_EVENT_QUEUE_ID',
      queue_id: queueId,
    });
  });

  test("another user's queue is not found on any process", async () => {
    const queueId = await register(a(), cast.admin, {});
    const res = await b().call('GET', '/events', {
      as: cast.moderator,
      params: { queue_id: queueId, dont_block: true },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_EVENT_QUEUE_ID');
  });

  test('a newer poll on one process answers the older one waiting on another', async () => {
    const queueId = await register(a(), cast.guest, { event_types: ['message'] });
    const parked = await parkedPolls(a());
    const older = a().call('GET', '/events', {
      as: cast.guest,
      params: { queue_id: queueId, last_event_id: -1 },
    });
    await waitForParkedPolls(a(), parked + 1);
    const newer = b().call('GET', '/events', {
      as: cast.guest,
      params: { queue_id: queueId, last_event_id: -1 },
    });
    expect((await older).body.events).toEqual([]);
    const id = await sendDm(a(), cast.owner, cast.guest, 'to the newer poll');
    expect((await newer).body.events.map((e: { message: { id: number } }) => e.message.id)).toEqual(
      [id],
    );
  });

  test('typing and presence events cross processes too', async () => {
    const queueId = await register(b(), cast.member, { event_types: ['typing', 'presence'] });
    await a().call('POST', '/typing', {
      as: cast.owner,
      params: { op: 'start', type: 'direct', to: JSON.stringify([cast.member.id]) },
    });
    await a().call('POST', '/users/me/presence', {
      as: cast.owner,
      params: { status: 'active' },
    });
    const res = await b().call('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1, dont_block: true },
    });
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['typing', 'presence']);
  });

  test("a user deactivated through one process leaves the other's next presence answer", async () => {
    const leaving = await a().createUser(cast.realm, { email: 'leaving@example.com' });
    const report = (on: ApiClient, user: Cast['member']) =>
      on.call('POST', '/users/me/presence', {
        as: user,
        params: { status: 'active', slim_presence: true },
      });
    await report(a(), leaving);
    expect((await report(b(), cast.member)).body.presences).toHaveProperty([String(leaving.id)]);
    const other = await a().createUser(cast.realm, { email: 'other@example.com' });
    await report(a(), other);
    // The other process reads the new report by its sequence number alone.
    const seen = await report(b(), cast.member);
    expect(seen.body.presences).toHaveProperty([String(other.id)]);
    const res = await a().call('DELETE', `/users/${leaving.id}`, { as: cast.admin });
    expect(res.status).toBe(200);
    // The broadcast of the change may take a moment to reach the other process.
    await waitFor("the deactivated user gone from the other process's answer", async () => {
      const answer = await report(b(), cast.member);
      return !(String(leaving.id) in answer.body.presences);
    });
  });
});

describeCluster('a queue outlives its process', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(1);
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('after SIGKILL of the process that registered a queue, the survivor delivers every event once', async () => {
    const survivor = cluster.servers[0];
    const doomed = await cluster.spawn();
    const reg = await doomed.call('POST', '/register', {
      as: cast.member,
      params: { event_types: ['message'] },
    });
    const queueId = reg.body.queue_id as string;
    // A poll waits on the doomed process when it dies.
    const lost = doomed
      .send('GET', '/events', { as: cast.member, params: { queue_id: queueId, last_event_id: -1 } })
      .then(
        () => 'answered',
        (error: Error) => error.message,
      );
    await waitForParkedPollsAt(doomed.url, 1);
    doomed.kill('SIGKILL');
    expect(await doomed.exited).toBe('SIGKILL');
    expect(await lost).not.toBe('answered');

    const sent: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await survivor.call('POST', '/messages', {
        as: cast.owner,
        params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: `after ${i}` },
      });
      expect(res.status).toBe(200);
      sent.push(res.body.id);
    }

    // The client polls the survivor as it would have the doomed process,
    // acknowledging as it goes, until it has seen all 20.
    const received: { id: number; messageId: number }[] = [];
    let last = -1;
    const deadline = Date.now() + 10_000;
    while (received.length < 20 && Date.now() < deadline) {
      const res = await survivor.call('GET', '/events', {
        as: cast.member,
        params: { queue_id: queueId, last_event_id: last },
      });
      expect(res.status).toBe(200);
      for (const event of res.body.events) {
        if (event.type === 'message') received.push({ id: event.id, messageId: event.message.id });
        last = event.id;
      }
    }
    expect(received.map((r) => r.messageId)).toEqual(sent);
    // Event IDs increase within the queue (they are positions in the shared log).
    for (let i = 1; i < 20; i++) expect(received[i].id).toBeGreaterThan(received[i - 1].id);
    const after = await survivor.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: last, dont_block: true },
    });
    expect(after.body.events).toEqual([]);
  }, 60_000);
});
