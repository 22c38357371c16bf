// Notification emails with two real server processes on one database (the
// PostgreSQL run, with Redis), each sending from its own periodic task: every
// email goes out once. Each child's GET /metrics tells when its last run
// took place, the signal that both ran after the emails were due.
import { readOutbox } from '../src/lib/mail/outbox';
import { TestCluster, type ChildServer } from './support/cluster';
import { sample } from './support/metrics';
import { usesRedis } from './support/redis';
import { type Cast } from './support/server';
import type { TestServer } from './support/server';
import { waitFor } from './support/wait';

const describeCluster = usesRedis() ? describe : describe.skip;

/** The time (Unix seconds) of `child`'s last notification email run. */
async function lastRun(child: ChildServer): Promise<number> {
  const res = await fetch(`${child.url}/metrics`);
  return sample(await res.text(), 'chat_notification_email_last_run_seconds') ?? 0;
}

describeCluster('two server processes sending on their own timers', () => {
  let cluster: TestCluster;
  let cast: Cast;
  let server: TestServer;

  beforeAll(async () => {
    // The in-process server only sets up; the two child processes send.
    cluster = await TestCluster.start(1, { SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' });
    server = cluster.servers[0];
    cast = await server.createCast();
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('each email is sent exactly once', async () => {
    const children = await Promise.all([
      cluster.spawn({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '1' }),
      cluster.spawn({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '1' }),
    ]);
    const people = [cast.member2, cast.admin, cast.moderator, cast.owner, cast.guest];
    for (const person of people) {
      const sent = await children[0].call('POST', '/messages', {
        as: cast.member,
        params: { type: 'direct', to: [person.id], content: 'ping' },
      });
      expect(sent.status).toBe(200);
    }
    const rows = () => server.services.db.read((db) => db.emailNotification.count());
    await waitFor(
      'the pending notifications recorded by the child',
      async () => (await rows()) === 5,
      60_000,
    );
    // The time comes for all of them at once; both timers find them due.
    const due = new Date();
    await server.services.db.write((tx) =>
      tx.emailNotification.updateMany({ data: { dueAt: due } }),
    );
    await waitFor('the pending notifications sent', async () => (await rows()) === 0, 60_000);
    // Both processes have run since the emails were due, and found nothing more to send.
    for (const child of children)
      await waitFor(
        'a run of each process after the due time',
        async () => (await lastRun(child)) > due.getTime() / 1000 + 1,
        60_000,
      );
    for (const person of people) {
      const mails = await server.services.db.read((db) => readOutbox(db, person.email));
      expect(mails.map((m) => m.subject)).toEqual(['DMs with King Hamlet']);
    }
  }, 300_000);
});
