// Scheduled messages with several server processes on one database: each due
// message is sent exactly once however many delivery runs meet, a run that
// dies holding a claim leaves its messages to another once the claim lapses,
// and a run whose claim was taken over sends nothing.
// The first part runs with two servers in this process (each with its own
// connections and services) on PostgreSQL, and with one on SQLite, which
// serves one process; the last starts two real processes whose timers
// deliver, on the PostgreSQL run with Redis.
import {
  DELIVERY_CLAIM_MS,
  doClaimDueScheduledMessages,
  doDeliverClaimedMessage,
  doDeliverScheduledMessages,
} from '../src/actions/messages/scheduled-messages';
import { TestCluster } from './support/cluster';
import { createTestDatabase, type TestDatabase } from './support/database';
import { newKeyPrefix, redisEnv, usesRedis } from './support/redis';
import { TestServer, type ApiClient, type Cast } from './support/server';
import { fetchNarrow, streamId, subscribe } from './streams-fixtures';
import { periodicTaskRuns, waitFor } from './support/wait';

type User = Cast['member'];

async function schedule(on: ApiClient, user: User, params: Record<string, unknown>) {
  const res = await on.call('POST', '/scheduled_messages', { as: user, params });
  expect(res.status).toBe(200);
  return res.body.scheduled_message_id as number;
}

/** The contents of the messages in `topic` of channel `channel`, as `user` reads them. */
async function topicContents(on: ApiClient, user: User, channel: number, topic: string) {
  const { messages } = await fetchNarrow(on as TestServer, user, [
    { operator: 'channel', operand: channel },
    { operator: 'topic', operand: topic },
  ]);
  return (messages as { content: string }[]).map((m) => m.content).sort();
}

/** `n` scheduled messages to `channel`'s `topic` for `at` (Unix seconds), numbered from 1; answers their IDs. */
async function scheduleMany(
  on: ApiClient,
  user: User,
  channel: number,
  topic: string,
  at: number,
  n: number,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 1; i <= n; i++)
    ids.push(
      await schedule(on, user, {
        type: 'stream',
        to: channel,
        topic,
        content: `number ${i}`,
        scheduled_delivery_timestamp: at,
      }),
    );
  return ids;
}

const expected = (n: number) =>
  Array.from({ length: n }, (_, i) => `<p>number ${i + 1}</p>`).sort();

describe('two servers delivering the same due messages', () => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let cast: Cast;
  let general: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { ...redisEnv(newKeyPrefix()), SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' };
    a = await TestServer.startOn(database, env);
    b = await TestServer.startOn(database, env);
    cast = await a.createCast();
    await subscribe(a, cast.member, ['general']);
    general = await streamId(a, cast.member, 'general');
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
  const at = (unixSeconds: number, ms = 0) => new Date(unixSeconds * 1000 + ms);

  test('runs of both at the same moment send each message once', async () => {
    const when = inAnHour();
    const ids = await scheduleMany(a, cast.member, general, 'together', when, 45);
    // SQLite serves one process, so there the runs meet within one server.
    const servers = database.provider === 'postgresql' ? [a, b, a, b, b, a] : [a, a, a, a, a, a];
    const runs = await Promise.all(
      servers.map((server) => doDeliverScheduledMessages(server.services, at(when))),
    );
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(45);
    expect(await topicContents(b, cast.member, general, 'together')).toEqual(expected(45));
    const rows = await a.services.db.read((db) =>
      db.scheduledMessage.findMany({ where: { id: { in: ids } } }),
    );
    expect(rows.every((r) => r.delivered && r.deliveredMessageId !== null)).toBe(true);
    expect(new Set(rows.map((r) => r.deliveredMessageId)).size).toBe(45);
    expect(rows.every((r) => r.claimToken === null && r.claimedUntil === null)).toBe(true);
    // Nothing is left for a later run.
    expect(await doDeliverScheduledMessages(b.services, at(when, 1000))).toBe(0);
  });

  test('a run that dies holding claims leaves them to another once they lapse', async () => {
    const when = inAnHour() + 60;
    const ids = await scheduleMany(a, cast.member, general, 'orphaned', when, 3);
    // A claims them, then never delivers (as a process killed mid-delivery).
    const claimed = await doClaimDueScheduledMessages(a.services, at(when), 'dead-run');
    expect(claimed).toEqual(ids);
    // While the claim holds, nobody else sends them.
    expect(await doDeliverScheduledMessages(b.services, at(when, DELIVERY_CLAIM_MS - 1))).toBe(0);
    expect(await topicContents(b, cast.member, general, 'orphaned')).toEqual([]);
    // Once it lapses, B sends each once.
    expect(await doDeliverScheduledMessages(b.services, at(when, DELIVERY_CLAIM_MS))).toBe(3);
    expect(await topicContents(b, cast.member, general, 'orphaned')).toEqual(expected(3));
    // The dead run's claim no longer holds: were it to resume, it would send nothing.
    for (const id of ids)
      expect(await doDeliverClaimedMessage(a.services, id, 'dead-run', at(when, 1))).toBe(false);
    expect(await topicContents(a, cast.member, general, 'orphaned')).toHaveLength(3);
  });

  test('a claim taken over after lapsing is lost to the first run, which sends nothing', async () => {
    const when = inAnHour() + 120;
    const [id] = await scheduleMany(a, cast.member, general, 'taken over', when, 1);
    expect(await doClaimDueScheduledMessages(a.services, at(when), 'slow-run')).toEqual([id]);
    expect(
      await doClaimDueScheduledMessages(b.services, at(when, DELIVERY_CLAIM_MS), 'new-run'),
    ).toEqual([id]);
    // The slow run wakes up first: its claim is gone, so it leaves the message alone.
    expect(await doDeliverClaimedMessage(a.services, id, 'slow-run', at(when, 1))).toBe(false);
    expect(await topicContents(a, cast.member, general, 'taken over')).toEqual([]);
    expect(
      await doDeliverClaimedMessage(b.services, id, 'new-run', at(when, DELIVERY_CLAIM_MS)),
    ).toBe(true);
    expect(await topicContents(a, cast.member, general, 'taken over')).toEqual(expected(1));
  });

  test('an edit cancels a claim, and the next run sends the edited message', async () => {
    const when = inAnHour() + 180;
    const [id] = await scheduleMany(a, cast.member, general, 'edited', when, 1);
    expect(await doClaimDueScheduledMessages(a.services, at(when), 'a-run')).toEqual([id]);
    const edit = await b.call('PATCH', `/scheduled_messages/${id}`, {
      as: cast.member,
      params: { content: 'second thoughts' },
    });
    expect(edit.body).toEqual({ result: 'success', msg: '' });
    expect(await doDeliverClaimedMessage(a.services, id, 'a-run', at(when))).toBe(false);
    expect(await doDeliverScheduledMessages(b.services, at(when, 1))).toBe(1);
    expect(await topicContents(a, cast.member, general, 'edited')).toEqual([
      '<p>second thoughts</p>',
    ]);
  });
});

const describeCluster = usesRedis() ? describe : describe.skip;

describeCluster('two server processes delivering on their own timers', () => {
  let cluster: TestCluster;
  let cast: Cast;

  beforeAll(async () => {
    // The in-process server only sets up; the two child processes deliver.
    cluster = await TestCluster.start(1, { SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' });
    cast = await cluster.servers[0].createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('each due message is sent exactly once', async () => {
    const server = cluster.servers[0];
    const children = await Promise.all([
      cluster.spawn({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '1' }),
      cluster.spawn({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '1' }),
    ]);
    await subscribe(server, cast.member, ['general']);
    const general = await streamId(server, cast.member, 'general');
    const later = Math.floor(Date.now() / 1000) + 3600;
    const ids = await scheduleMany(children[0], cast.member, general, 'timers', later, 60);
    // The time comes for all of them at once; both timers find them due.
    await server.services.db.write((tx) =>
      tx.scheduledMessage.updateMany({
        where: { id: { in: ids } },
        data: { scheduledTimestamp: new Date() },
      }),
    );
    await waitFor(
      'the 60 due messages to be sent',
      async () => (await topicContents(children[1], cast.member, general, 'timers')).length >= 60,
      20_000,
    );
    // Two more finished runs of each timer (so at least one begun after the
    // last send), which must find nothing left to send.
    const runs = () => Promise.all(children.map((child) => periodicTaskRuns(child.url)));
    const before = await runs();
    await waitFor('two more runs of the periodic task in each process', async () =>
      (await runs()).every((n, i) => n >= before[i] + 2),
    );
    expect(await topicContents(server, cast.member, general, 'timers')).toEqual(expected(60));
    const rows = await server.services.db.read((db) =>
      db.scheduledMessage.findMany({ where: { id: { in: ids } } }),
    );
    expect(rows.filter((r) => r.delivered)).toHaveLength(60);
  }, 40_000);
});
