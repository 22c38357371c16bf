// The shared event log of processes on Redis: an event is published once,
// as one entry of the log, whatever the number of its queues and of the
// processes holding them; each process answers its own waiting polls from it,
// and the Redis commands per message do not grow with the number of queues.
// A heartbeat carries an ID above the poll's and skips no event.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import { connect } from 'node:net';
import Redis from 'ioredis';
import { testRedisUrl, usesRedis } from './support/redis';
import type { ApiClient, Cast, TestServer } from './support/server';
import { TestCluster } from './support/cluster';
import { parkedPolls, waitFor, waitForParkedPolls } from './support/wait';
import { sendDirect, sendToChannel, subscribe } from './streams-fixtures';

const describeCluster = usesRedis() ? describe : describe.skip;

/** Keys of the event queue store (not rate limits, liveness keys or marks). */
const QUEUE_KEYS = /(^|:)(log|q:\{|seen|u:|rp:|trimmed)/;

/**
 * Counts the commands Redis runs on the event queue store's keys under
 * `prefix`, through MONITOR on a plain socket (which shows the commands
 * scripts run too), leaving out the counts that /metrics and the tests' own
 * waits ask for (ZCARD, XLEN).
 */
async function countCommands(prefix: string) {
  const url = new URL(testRedisUrl());
  const socket = connect(Number(url.port || 6379), url.hostname);
  await new Promise<void>((done, fail) => socket.once('connect', done).once('error', fail));
  socket.write('MONITOR\r\n');
  let count = 0;
  const byName = new Map<string, number>();
  let rest = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\r\n');
    rest = lines.pop()!;
    for (const line of lines) {
      // +<time> [<db> <client>] "command" "arg" ...
      const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
      const name = args[0]?.toLowerCase();
      if (!name || name === 'zcard' || name === 'xlen') continue;
      const keys = args.slice(1).filter((arg) => arg.startsWith(prefix));
      if (keys.some((key) => QUEUE_KEYS.test(key.slice(prefix.length)))) {
        count++;
        byName.set(name, (byName.get(name) ?? 0) + 1);
      }
    }
  });
  return {
    take: () => {
      const taken = count;
      count = 0;
      byName.clear();
      return taken;
    },
    /** The calls of one command since the last take. */
    calls: (name: string) => byName.get(name) ?? 0,
    close: () => socket.destroy(),
  };
}

/**
 * Long-polls `queueIds` of `user` on `server` until stopped, each poll again
 * as soon as it is answered, collecting the message IDs each queue receives.
 */
function pollEach(server: ApiClient, user: Cast['member'], queueIds: string[]) {
  const received = new Map<string, number[]>(queueIds.map((id) => [id, []]));
  let running = true;
  const loops = queueIds.map(async (queueId) => {
    let last = -1;
    while (running) {
      const res = await server.call('GET', '/events', {
        as: user,
        params: { queue_id: queueId, last_event_id: last },
      });
      if (res.status !== 200) return;
      for (const event of res.body.events) {
        last = Math.max(last, event.id);
        if (event.type === 'message') received.get(queueId)!.push(event.message.id);
      }
    }
  });
  return {
    received,
    stop: async () => {
      running = false;
      for (const queueId of queueIds)
        await server.call('DELETE', '/events', { as: user, params: { queue_id: queueId } });
      await Promise.all(loops);
    },
  };
}

describeCluster('one log for every queue', () => {
  let cluster: TestCluster;
  let cast: Cast;
  let redis: Redis;

  beforeAll(async () => {
    // No heartbeat during the test: each message's commands are its own.
    cluster = await TestCluster.start(2, { EVENT_HEARTBEAT_SECONDS: '600' });
    cast = await cluster.servers[0].createCast();
    redis = new Redis(testRedisUrl());
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  const prefix = () => cluster.env.REDIS_KEY_PREFIX;
  const logLength = () => redis.xlen(`${prefix()}log`);

  async function register(on: TestServer, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await on.ok('POST', '/register', {
        as: cast.member,
        params: { event_types: JSON.stringify(['message']), fetch_event_types: '[]' },
      });
      ids.push(res.body.queue_id as string);
    }
    return ids;
  }

  /**
   * With `perProcess` queues of one user long-polled on each process, sends
   * `rounds` messages one at a time: the Redis commands on the queue store's
   * keys over each message's cycle (its publication, the answers, the polls
   * that follow), and the entries it added to the log.
   */
  async function measure(perProcess: number, rounds: number) {
    const [a, b] = cluster.servers;
    const queues = [await register(a, perProcess), await register(b, perProcess)];
    const before = [await parkedPolls(a), await parkedPolls(b)];
    const polls = [pollEach(a, cast.member, queues[0]), pollEach(b, cast.member, queues[1])];
    const allWaiting = async () => {
      await waitForParkedPolls(a, before[0] + perProcess);
      await waitForParkedPolls(b, before[1] + perProcess);
    };
    const counter = await countCommands(prefix());
    const commands: number[] = [];
    const entries: number[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        await allWaiting();
        const length = await logLength();
        counter.take();
        const sent = await a.ok('POST', '/messages', {
          as: cast.owner,
          params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: `r${round}` },
        });
        const id = sent.body.id as number;
        await waitFor('every queue to receive the message', () =>
          polls.every((p) => [...p.received.values()].every((ids) => ids.includes(id))),
        );
        await allWaiting();
        commands.push(counter.take());
        entries.push((await logLength()) - length);
      }
    } finally {
      counter.close();
      await Promise.all(polls.map((p) => p.stop()));
    }
    for (const p of polls)
      for (const ids of p.received.values()) expect(new Set(ids).size).toBe(ids.length);
    return { commands, entries };
  }

  const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1];

  test('a message is one entry of the log, and its Redis commands do not grow with the queues', async () => {
    const few = await measure(2, 5);
    const many = await measure(20, 5);
    // One entry per publication, whatever the queues: a direct message is two,
    // the recipients' event and the sender's own (with its local_message_id).
    expect({ few: few.entries, many: many.entries }).toEqual({
      few: [2, 2, 2, 2, 2],
      many: [2, 2, 2, 2, 2],
    });
    // The append (one script, one XADD per entry) and one XREAD per process.
    expect({ few: median(few.commands), many: median(many.commands) }).toEqual({ few: 5, many: 5 });
  }, 120_000);

  test("a new user is announced in entries of the same size whatever the organization's, each viewer seeing what they may", async () => {
    const [a, b] = cluster.servers;
    await a.ok('PATCH', '/realm', { as: cast.owner, params: { email_address_visibility: 3 } });
    const realm = await a.services.db.read((db) =>
      db.realm.findUniqueOrThrow({ where: { id: cast.realm.id } }),
    );
    const log = `${prefix()}log`;
    /** The entries a new user's creation wrote, and how many user IDs they list. */
    const newcomer = async (email: string) => {
      const [last] = await redis.xrevrange(log, '+', '-', 'COUNT', 1);
      const user = await a.createUser(realm, { email });
      const written = await redis.xrange(log, last ? `(${last[0]}` : '-', '+');
      let listed = 0;
      for (const [, fields] of written) {
        const data = JSON.parse(fields[fields.indexOf('e') + 1]);
        listed += (data.u?.length ?? 0) + (data.x?.length ?? 0);
      }
      return { user, entries: written.length, listed };
    };
    const first = await newcomer('first-newcomer@example.com');
    for (let i = 0; i < 20; i++) await a.createUser(realm, { email: `crowd${i}@example.com` });
    const admin = await b.ok('POST', '/register', {
      as: cast.admin,
      params: { event_types: JSON.stringify(['realm_user']), fetch_event_types: '[]' },
    });
    const member = await b.ok('POST', '/register', {
      as: cast.member,
      params: { event_types: JSON.stringify(['realm_user']), fetch_event_types: '[]' },
    });
    const second = await newcomer('second-newcomer@example.com');
    // Twenty more members, and not one entry more (the admins' and the
    // others'), nor one user ID more in them: those who see the address are
    // listed, and everyone else is the organization but them.
    expect(second.entries).toBe(first.entries);
    expect(second.listed).toBe(first.listed);
    const added = async (as: Cast['member'], queueId: string) => {
      const res = await b.ok('GET', '/events', {
        as,
        params: { queue_id: queueId, last_event_id: -1, dont_block: true },
      });
      return res.body.events.filter(
        (e: { op: string; person: { user_id: number } }) =>
          e.op === 'add' && e.person.user_id === second.user.id,
      );
    };
    expect(await added(cast.admin, admin.body.queue_id)).toEqual([
      expect.objectContaining({
        person: expect.objectContaining({ delivery_email: 'second-newcomer@example.com' }),
      }),
    ]);
    expect(await added(cast.member, member.body.queue_id)).toEqual([
      expect.objectContaining({ person: expect.objectContaining({ delivery_email: null }) }),
    ]);
  }, 120_000);
});

describeCluster("polls reaching back past a new process's entries in memory", () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(1, { EVENT_HEARTBEAT_SECONDS: '600' });
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('share one read of the log, and each gets its events', async () => {
    const [a] = cluster.servers;
    const queueIds: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await a.ok('POST', '/register', {
        as: cast.member,
        params: { event_types: JSON.stringify(['message']), fetch_event_types: '[]' },
      });
      queueIds.push(res.body.queue_id as string);
    }
    const sent: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await a.ok('POST', '/messages', {
        as: cast.owner,
        params: { type: 'direct', to: JSON.stringify([cast.member.id]), content: `old ${i}` },
      });
      sent.push(res.body.id as number);
    }
    // A process started now holds none of these entries in memory.
    const b = await cluster.spawn();
    const counter = await countCommands(cluster.env.REDIS_KEY_PREFIX);
    try {
      const answers = await Promise.all(
        queueIds.map((queueId) =>
          b.call('GET', '/events', {
            as: cast.member,
            params: { queue_id: queueId, last_event_id: -1 },
          }),
        ),
      );
      for (const res of answers)
        expect(
          res.body.events
            .filter((e: { type: string }) => e.type === 'message')
            .map((e: { message: { id: number } }) => e.message.id),
        ).toEqual(sent);
      // One range read for the twelve polls (each queue's options are read once, apart).
      expect(counter.calls('xrange')).toBe(1);
    } finally {
      counter.close();
    }
  }, 60_000);

  test('over many entries, each gets its own, on the new process and on the old', async () => {
    const [a] = cluster.servers;
    const { member, member2, moderator, owner } = cast;
    await subscribe(a, member, ['reaching back']);
    await subscribe(a, member2, ['reaching back']);
    const watchers = [
      { as: member, params: {} },
      { as: member2, params: {} },
      { as: moderator, params: { all_public_streams: true } },
      { as: moderator, params: {} },
      { as: owner, params: {} },
    ];
    const queues: string[] = [];
    for (const { as, params } of watchers) {
      const res = await a.ok('POST', '/register', {
        as,
        params: {
          event_types: JSON.stringify(['message', 'realm']),
          fetch_event_types: '[]',
          ...params,
        },
      });
      queues.push(res.body.queue_id as string);
    }
    // Direct messages to one user or another, channel messages (to its
    // subscribers, and to queues following every public channel), and changes
    // of the organization for everyone: entries of every kind, more than a
    // short stretch scanned.
    const expected: number[][] = watchers.map(() => []);
    let realmChanges = 0;
    for (let i = 0; i < 120; i++) {
      if (i % 10 === 9) {
        await a.ok('PATCH', '/realm', { as: owner, params: { description: `Round ${i}` } });
        realmChanges++;
        continue;
      }
      const to = i % 3 === 0 ? member : i % 3 === 1 ? member2 : null;
      const id = to
        ? await sendDirect(a, owner, [to.id], `direct ${i}`)
        : await sendToChannel(a, member, 'reaching back', 'many', `channel ${i}`);
      watchers.forEach((watcher, w) => {
        const reached = to
          ? watcher.as === to || watcher.as === owner
          : watcher.as === member ||
            watcher.as === member2 ||
            'all_public_streams' in watcher.params;
        if (reached) expected[w].push(id);
      });
    }
    const got = (res: { body: { events: { type: string; message?: { id: number } }[] } }) => ({
      messages: res.body.events.flatMap((e) => (e.message ? [e.message.id] : [])),
      realm: res.body.events.filter((e) => e.type === 'realm').length,
    });
    const want = expected.map((messages) => ({ messages, realm: realmChanges }));
    // A process started now reads them all from the log; the one that wrote them holds them.
    const b = await cluster.spawn();
    for (const server of [b, a]) {
      const answers = await Promise.all(
        queues.map((queueId, w) =>
          server.ok('GET', '/events', {
            as: watchers[w].as,
            params: { queue_id: queueId, last_event_id: -1, dont_block: true },
          }),
        ),
      );
      expect(answers.map(got)).toEqual(want);
    }
  }, 60_000);
});

describeCluster('heartbeats from the log', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(2);
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test("a heartbeat carries an ID above the poll's, and the next event comes after it", async () => {
    const [a, b] = cluster.servers;
    const reg = await a.ok('POST', '/register', {
      as: cast.member2,
      params: { event_types: JSON.stringify(['message']) },
    });
    const queueId = reg.body.queue_id as string;
    const sent = await b.ok('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([cast.member2.id]), content: 'before' },
    });
    const first = await b.ok('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: -1 },
    });
    const [message] = first.body.events;
    expect(message.message.id).toBe(sent.body.id);
    // Nothing more comes: the heartbeat (every second here) answers, with an ID above the message's.
    const beat = await b.ok('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: message.id },
    });
    expect(beat.body.events).toEqual([{ id: expect.any(Number), type: 'heartbeat' }]);
    expect(beat.body.events[0].id).toBeGreaterThan(message.id);
    // Acknowledging the heartbeat skips no event: the next one comes after it, on either process.
    const after = await a.ok('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify([cast.member2.id]), content: 'after' },
    });
    const next = await a.ok('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: beat.body.events[0].id },
    });
    expect(next.body.events.map((e: { message: { id: number } }) => e.message.id)).toEqual([
      after.body.id,
    ]);
    expect(next.body.events[0].id).toBeGreaterThan(beat.body.events[0].id);
  });
});
