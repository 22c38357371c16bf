// GET /events/stream: a queue followed as server-sent events, each event with
// its ID as `id:`; heartbeats as comments; Last-Event-ID acknowledging and
// resuming exactly after the last event received; refusals as JSON before
// any stream; a client that does not read dropped at the bound; the /json
// mirror with the session cookie; and, on Redis, a stream resumed on the
// process that did not register the queue.
import { follow, openStream, type EventStreamReader } from './support/event-stream';
import { sample } from './support/metrics';
import { usesRedis } from './support/redis';
import { TestCluster } from './support/cluster';
import { TestServer, type ApiClient, type Cast } from './support/server';
import { parkedPolls, waitFor, waitForParkedPolls } from './support/wait';

type Member = Cast['member'];

async function register(on: ApiClient, user: Member): Promise<string> {
  const res = await on.ok('POST', '/register', {
    as: user,
    params: { event_types: JSON.stringify(['message']) },
  });
  return res.body.queue_id as string;
}

async function sendDm(on: ApiClient, from: Member, to: Member, content: string): Promise<number> {
  const res = await on.ok('POST', '/messages', {
    as: from,
    params: { type: 'direct', to: JSON.stringify([to.id]), content },
  });
  return res.body.id as number;
}

/** The IDs of a stream's events, as numbers, once checked to increase (consecutive only in memory). */
function increasingIds(events: { id: string }[]): number[] {
  const ids = events.map((e) => Number(e.id));
  for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]);
  return ids;
}

/** The contents of the message events of a stream, in order. */
function contents(stream: EventStreamReader): string[] {
  return stream.data.map((event) => event.message.content as string);
}

describe('event streams on one server', () => {
  let server: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    ({ server, cast } = await TestServer.startWithCast({ EVENT_STREAM_MAX_UNSENT_BYTES: '16384' }));
  });
  afterAll(() => server?.stop());

  /** Follows `queueId` and waits until its stream waits for events. */
  async function followWaiting(
    queueId: string,
    headers: Record<string, string> = {},
  ): Promise<EventStreamReader> {
    const parked = await parkedPolls(server);
    const stream = await follow(server, {
      as: cast.member,
      params: { queue_id: queueId },
      headers,
    });
    await waitForParkedPolls(server, parked + 1);
    return stream;
  }

  test('a stream receives each event as it comes, with its ID', async () => {
    const queueId = await register(server, cast.member);
    const stream = await followWaiting(queueId);
    await sendDm(server, cast.owner, cast.member, 'first');
    await stream.waitForEvents(1);
    await sendDm(server, cast.member2, cast.member, 'second');
    const events = await stream.waitForEvents(2);
    const ids = increasingIds(events);
    expect(stream.data).toEqual([
      expect.objectContaining({ id: ids[0], type: 'message', flags: [] }),
      expect.objectContaining({ id: ids[1], type: 'message', flags: [] }),
    ]);
    expect(contents(stream)).toEqual(['first', 'second']);
    stream.close();
  });

  test('heartbeats are comments and take no event ID', async () => {
    const queueId = await register(server, cast.member);
    const stream = await followWaiting(queueId);
    // One comment opens the stream; the heartbeat interval is 1 s here.
    await stream.waitForComments(3);
    expect(stream.events).toEqual([]);
    await sendDm(server, cast.owner, cast.member, 'after the heartbeats');
    const [event] = await stream.waitForEvents(1);
    stream.close();
    // The queue holds that one event and no heartbeat.
    await waitFor('the stream gone', async () => (await parkedPolls(server)) === 0);
    const poll = await server.ok('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1, dont_block: true },
    });
    expect(poll.body.events.map((e: { id: number }) => e.id)).toEqual([Number(event.id)]);
  });

  test('Last-Event-ID acknowledges and resumes exactly after the last event received', async () => {
    const queueId = await register(server, cast.member);
    const first = await followWaiting(queueId);
    for (const content of ['m0', 'm1', 'm2'])
      await sendDm(server, cast.owner, cast.member, content);
    const sent = increasingIds(await first.waitForEvents(3));
    first.close();
    await waitFor('the stream gone', async () => (await parkedPolls(server)) === 0);
    // Sent while no stream is open; the client had received only up to event 1.
    for (const content of ['m3', 'm4']) await sendDm(server, cast.owner, cast.member, content);
    const resumed = await follow(server, {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1 },
      headers: { 'Last-Event-ID': String(sent[1]) },
    });
    const backlog = increasingIds(await resumed.waitForEvents(3));
    expect(backlog[0]).toBe(sent[2]);
    expect(contents(resumed)).toEqual(['m2', 'm3', 'm4']);
    // Live events follow the backlog, on the same connection.
    await waitForParkedPolls(server, 1);
    await sendDm(server, cast.owner, cast.member, 'm5');
    const all = increasingIds(await resumed.waitForEvents(4));
    expect(all.slice(0, 3)).toEqual(backlog);
    resumed.close();
    // The events sent since the one acknowledged are kept for the client to acknowledge.
    await waitFor('the stream gone', async () => (await parkedPolls(server)) === 0);
    const poll = await server.ok('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: sent[1], dont_block: true },
    });
    expect(poll.body.events.map((e: { id: number }) => e.id)).toEqual(all);
  });

  test('last_event_id stands in for the header', async () => {
    const queueId = await register(server, cast.member);
    for (const content of ['a', 'b']) await sendDm(server, cast.owner, cast.member, content);
    const waiting = await server.ok('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1, dont_block: true },
    });
    const [a, b] = waiting.body.events.map((e: { id: number }) => e.id);
    const stream = await follow(server, {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: a },
    });
    await stream.waitForEvents(1);
    expect(stream.events.map((e) => e.id)).toEqual([String(b)]);
    stream.close();
  });

  test('an unknown queue, or one of another user, answers BAD_EVENT_QUEUE_ID before any stream', async () => {
    const queueId = await register(server, cast.member2);
    for (const [as, id] of [
      [cast.member, 'no-such-queue'],
      [cast.member, queueId],
    ] as const) {
      const opening = await openStream(server, { as, params: { queue_id: id } });
      expect('refused' in opening && opening.refused).toEqual(
        expect.objectContaining({
          status: 400,
          body: {
            result: 'error',
            msg: `Bad event queue ID: ${id}`,
            code: 'BAD_EVENT_QUEUE_ID',
            queue_id: id,
          },
        }),
      );
    }
  });

  test('a Last-Event-ID that is not an event ID is refused', async () => {
    const queueId = await register(server, cast.member);
    const opening = await openStream(server, {
      as: cast.member,
      params: { queue_id: queueId },
      headers: { 'Last-Event-ID': 'seven' },
    });
    expect('refused' in opening && opening.refused.body).toEqual({
      result: 'error',
      msg: 'Invalid Last-Event-ID',
      code: 'BAD_REQUEST',
    });
  });

  test('credentials are required', async () => {
    const queueId = await register(server, cast.member);
    const opening = await openStream(server, { params: { queue_id: queueId } });
    expect('refused' in opening && opening.refused.status).toBe(401);
  });

  test('a newer stream of the same queue ends the older one', async () => {
    const queueId = await register(server, cast.member);
    const older = await followWaiting(queueId);
    const newer = await follow(server, { as: cast.member, params: { queue_id: queueId } });
    expect(await older.ended).toBe('end');
    await waitForParkedPolls(server, 1);
    await sendDm(server, cast.owner, cast.member, 'to the newer');
    await newer.waitForEvents(1);
    expect(older.events).toEqual([]);
    newer.close();
  });

  test('the /json mirror streams with the session cookie', async () => {
    const login = await fetch(`${server.url}/json/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: cast.member.email, password: 'password' }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('sessionid='))!
      .split(';')[0];
    const queueId = await register(server, cast.member);
    const refused = await openStream(server, { prefix: '/json', params: { queue_id: queueId } });
    expect('refused' in refused && refused.refused.body.code).toBe('UNAUTHORIZED');
    const parked = await parkedPolls(server);
    const stream = await follow(server, {
      prefix: '/json',
      params: { queue_id: queueId },
      headers: { cookie },
    });
    await waitForParkedPolls(server, parked + 1);
    await sendDm(server, cast.owner, cast.member, 'through the session');
    await stream.waitForEvents(1);
    expect(contents(stream)).toEqual(['through the session']);
    stream.close();
  });

  test('a client that does not read is dropped at the bound, and resumes with nothing lost', async () => {
    // Rendered, each :smile: grows to a span of about 90 bytes: a message event of about 100 kB.
    const res = await server.ok('POST', '/register', {
      as: cast.member,
      params: { event_types: JSON.stringify(['message']), apply_markdown: true },
    });
    const queueId = res.body.queue_id as string;
    const stream = await followWaiting(queueId);
    stream.stopReading();
    const dropped = async () =>
      sample(
        await (await fetch(`${server.url}/metrics`)).text(),
        'chat_event_streams_dropped_total',
      ) ?? 0;
    const before = await dropped();
    // Until the sockets' buffers (a few MB on loopback) and then the bound are full.
    const content = ':smile: '.repeat(1200);
    let sent = 0;
    while ((await dropped()) === before) {
      if (sent >= 400) throw new Error(`${sent} messages sent and the reader was never dropped`);
      for (let i = 0; i < 10; i++) await sendDm(server, cast.owner, cast.member, content);
      sent += 10;
    }
    // Read again, the client gets what reached its socket, then the end of a cut connection.
    stream.resumeReading();
    expect(await stream.ended).toBe('cut');
    const received = increasingIds(stream.events);
    expect(received.length).toBeLessThan(sent);
    // The queue kept the rest: resumed after the last event received, the client gets them all.
    const resumed = await follow(server, {
      as: cast.member,
      params: { queue_id: queueId },
      headers: { 'Last-Event-ID': String(received[received.length - 1]) },
    });
    const rest = increasingIds(await resumed.waitForEvents(sent - received.length));
    expect(rest).toHaveLength(sent - received.length);
    expect(rest[0]).toBeGreaterThan(received[received.length - 1]);
    resumed.close();
    // Some forty messages of 100 kB each, rendered, before the sockets' buffers are full.
  }, 120_000);
});

const describeCluster = usesRedis() ? describe : describe.skip;

describeCluster('event streams across processes', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    cluster = await TestCluster.start(2);
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('a stream resumed on the other process loses and repeats nothing', async () => {
    const [a, b] = cluster.servers;
    const queueId = await register(a, cast.member);
    const parked = await parkedPolls(a);
    const first = await follow(a, { as: cast.member, params: { queue_id: queueId } });
    await waitForParkedPolls(a, parked + 1);
    // Published by either process, received live on the stream of a.
    await sendDm(b, cast.owner, cast.member, 'e0');
    await sendDm(a, cast.owner, cast.member, 'e1');
    const live = increasingIds(await first.waitForEvents(2));
    first.close();
    await sendDm(a, cast.owner, cast.member, 'e2');
    // Resumed on b, which did not register the queue, after event 1.
    const parkedB = await parkedPolls(b);
    const resumed = await follow(b, {
      as: cast.member,
      params: { queue_id: queueId },
      headers: { 'Last-Event-ID': String(live[1]) },
    });
    await resumed.waitForEvents(1);
    await waitForParkedPolls(b, parkedB + 1);
    await sendDm(a, cast.owner, cast.member, 'e3');
    await resumed.waitForEvents(2);
    expect(contents(first)).toEqual(['e0', 'e1']);
    const later = increasingIds(resumed.events);
    expect(later[0]).toBeGreaterThan(live[1]);
    expect(contents(resumed)).toEqual(['e2', 'e3']);
    resumed.close();
  });
});
