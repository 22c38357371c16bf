// SIGTERM to one of two server processes under load loses nothing: while a
// steady stream of messages is sent through both, the stopping process stops
// accepting connections (senders then reach the other), finishes the sends in
// flight, and answers its waiting long-polls at once, so that clients poll
// again through the survivor. Every send is acknowledged, and every message
// reaches every recipient's queue exactly once.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import { usesRedis } from './support/redis';
import type { ApiClient, Cast } from './support/server';
import { TestCluster, type ChildServer } from './support/cluster';
import { waitFor, waitForParkedPollsAt } from './support/wait';

const describeCluster = usesRedis() ? describe : describe.skip;

/**
 * Whether `error` ended a connection to the stopping process without an
 * answer: refused once the process stopped listening, reset while it waited
 * in the backlog of the listening socket the process closed (Node names that
 * after `connect`, or after `read` when the request was written already), or
 * reset by the process closing it as idle before its request arrived. Such a
 * request is sent again to the survivor. Had the stopping process stored it
 * after all, its recipients would receive a message that no send
 * acknowledged, and the comparison at the end fails.
 */
function refused(error: unknown): boolean {
  const { code } = error as { code?: string };
  return code === 'ECONNREFUSED' || code === 'ECONNRESET';
}

describeCluster('SIGTERM to one of two processes under load', () => {
  let cluster: TestCluster;
  let cast: Cast;
  let victim: ChildServer;
  let survivor: ApiClient;

  beforeAll(async () => {
    cluster = await TestCluster.start(1);
    survivor = cluster.servers[0];
    cast = await cluster.servers[0].createCast();
    victim = await cluster.spawn();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('every send is acknowledged and every event delivered once, through the survivor', async () => {
    const recipients = [cast.member, cast.member2];
    const failures: string[] = [];

    // Each recipient long-polls on the process about to stop, and moves to
    // the survivor once that one refuses connections.
    let stopPolling = false;
    const receivedBy = recipients.map((): number[] => []);
    const queueIds: string[] = [];
    for (const user of recipients) {
      const registered = await victim.call('POST', '/register', {
        as: user,
        params: { event_types: ['message'] },
      });
      expect(registered.status).toBe(200);
      queueIds.push(registered.body.queue_id);
    }
    const pollers = recipients.map(async (user, i) => {
      const queueId = queueIds[i];
      let on: ApiClient = victim;
      let lastEventId = -1;
      const received = receivedBy[i];
      let pollsOnVictim = 0;
      while (!stopPolling) {
        let res;
        try {
          res = await on.call('GET', '/events', {
            as: user,
            params: { queue_id: queueId, last_event_id: lastEventId },
          });
        } catch (error) {
          if (on === victim && refused(error)) {
            on = survivor;
            continue;
          }
          failures.push(`poll: ${String(error)}`);
          break;
        }
        if (on === victim) pollsOnVictim++;
        if (res.status !== 200) {
          failures.push(`poll answered ${res.status}: ${JSON.stringify(res.body)}`);
          break;
        }
        for (const event of res.body.events as {
          id: number;
          type: string;
          message?: { id: number };
        }[]) {
          lastEventId = Math.max(lastEventId, event.id);
          if (event.type === 'message') received.push(event.message!.id);
        }
      }
      return { received, pollsOnVictim, endedOn: on };
    });
    await waitForParkedPollsAt(victim.url, recipients.length);

    // Senders alternate between the two processes, one new connection per
    // message (as a load balancer opens them); a connection the stopping
    // process refused or reset got no answer and is sent again to the survivor.
    const sent: number[] = [];
    const answeredBy = { victim: 0, survivor: 0 };
    let stopSending = false;
    let n = 0;
    const senders = Array.from({ length: 4 }, async () => {
      while (!stopSending) {
        const content = `steady ${n++}`;
        let target: ApiClient = n % 2 === 0 ? victim : survivor;
        for (;;) {
          try {
            const res = await target.call('POST', '/messages', {
              as: cast.owner,
              params: {
                type: 'direct',
                to: JSON.stringify(recipients.map((u) => u.id)),
                content,
              },
              headers: { connection: 'close' },
            });
            if (res.status === 200) {
              sent.push(res.body.id);
              answeredBy[target === victim ? 'victim' : 'survivor']++;
            } else failures.push(`send answered ${res.status}: ${JSON.stringify(res.body)}`);
            break;
          } catch (error) {
            if (target === victim && refused(error)) {
              target = survivor;
              continue;
            }
            failures.push(`send: ${String(error)}`);
            break;
          }
        }
      }
    });

    // SIGTERM once each process has answered a few sends.
    await waitFor(
      'each process to answer 5 sends',
      () => answeredBy.victim >= 5 && answeredBy.survivor >= 5,
      20_000,
    );
    const victimAnsweredBefore = answeredBy.victim;
    victim.kill('SIGTERM');
    expect(await victim.exited).toBe(0);
    // The senders go on, now all to the survivor, for a few more sends.
    const survivorBefore = answeredBy.survivor;
    await waitFor(
      'the survivor to answer 5 sends after the victim exited',
      () => answeredBy.survivor >= survivorBefore + 5 || failures.length > 0,
    );
    stopSending = true;
    await Promise.all(senders);

    // Every message reaches both queues. Then one last message: once it has
    // reached both, anything arriving twice would have arrived before it, in
    // the queue's order; then the pollers stop.
    await waitFor(
      'every message sent to reach both recipients',
      () => receivedBy.every((r) => r.length >= sent.length) || failures.length > 0,
    );
    const last = await survivor.ok('POST', '/messages', {
      as: cast.owner,
      params: { type: 'direct', to: JSON.stringify(recipients.map((u) => u.id)), content: 'last' },
    });
    sent.push(last.body.id);
    await waitFor(
      'the last message to reach both recipients',
      () => receivedBy.every((r) => r.includes(last.body.id)) || failures.length > 0,
    );
    stopPolling = true;
    const everyone = await Promise.all(pollers);

    expect(failures).toEqual([]);
    expect(victimAnsweredBefore).toBeGreaterThanOrEqual(5);
    expect(answeredBy.survivor).toBeGreaterThanOrEqual(5);
    const expected = [...sent].sort((a, b) => a - b);
    expect(new Set(sent).size).toBe(sent.length);
    for (const { received, pollsOnVictim, endedOn } of everyone) {
      expect(pollsOnVictim).toBeGreaterThan(0);
      expect(endedOn).toBe(survivor);
      // Once each: no message missing, none twice.
      expect([...received].sort((a, b) => a - b)).toEqual(expected);
    }
  }, 60_000);
});
