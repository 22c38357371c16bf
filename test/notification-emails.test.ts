// Notification emails about messages missed while away, through HTTP: the
// periodic task's run is called directly with a chosen time (no waiting), and
// the recording after each send is awaited through the process's counter.
// Covers batching, cancelling by reading, the rules of who is told (muting,
// personal and channel settings, presence), the organization's content
// setting, unsubscribe links, a restart, and two servers sending once.
import {
  doSendDueEmailNotifications,
  emailNotificationStats,
} from '../src/actions/notifications/email-notifications';
import { readOutbox } from '../src/lib/mail/outbox';
import { createTestDatabase, type TestDatabase } from './support/database';
import { newKeyPrefix, redisEnv } from './support/redis';
import { TestServer, type Cast } from './support/server';
import { register, sendDirect, sendToChannel, streamId, subscribe } from './streams-fixtures';

type User = Cast['member'];
const env = { SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' };

/** Waits until `server` has recorded the notifications of `count` messages in all, or fails naming it. */
async function recorded(server: TestServer, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (emailNotificationStats(server.services).recorded < count) {
    if (Date.now() > deadline)
      throw new Error(
        `notifications of ${count} messages not recorded (${emailNotificationStats(server.services).recorded})`,
      );
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs `fn` (which sends `n` messages) and waits for their notifications to be recorded. */
async function sending<T>(server: TestServer, n: number, fn: () => Promise<T>): Promise<T> {
  const before = emailNotificationStats(server.services).recorded;
  const result = await fn();
  await recorded(server, before + n);
  return result;
}

/** Runs the sending task as at `seconds` from now; answers the emails sent. */
async function runAt(server: TestServer, seconds: number): Promise<number> {
  const at = new Date(Date.now() + seconds * 1000);
  const sent = await doSendDueEmailNotifications(server.services, at);
  // The positive signal that a run covered the due time.
  expect(emailNotificationStats(server.services).lastRunAt!.getTime()).toBe(at.getTime());
  return sent;
}

async function mailsTo(server: TestServer, user: User) {
  return server.services.db.read((db) => readOutbox(db, user.email));
}

async function pendingRows(server: TestServer, user: User) {
  return server.services.db.read((db) =>
    db.emailNotification.findMany({ where: { userId: user.id } }),
  );
}

async function setSettings(server: TestServer, user: User, params: Record<string, unknown>) {
  const res = await server.call('PATCH', '/settings', { as: user, params });
  expect(res.status).toBe(200);
}

/** Opens a page outside /api/v1 (an unsubscribe link) on `server`. */
async function openPage(server: TestServer, link: string) {
  const res = await fetch(link.replace('http://chat.test', server.url));
  return { status: res.status, html: await res.text(), type: res.headers.get('content-type') };
}

describe('one server', () => {
  let server: TestServer;
  let cast: Cast;
  let general: number;

  beforeAll(async () => {
    server = await TestServer.start(env);
    cast = await server.createCast();
    await subscribe(server, cast.member, ['general']);
    await subscribe(server, cast.member2, ['general']);
    general = await streamId(server, cast.member, 'general');
  }, 300_000);
  afterAll(() => server.stop());

  // Each test starts with an empty outbox and no pending rows.
  afterEach(async () => {
    await server.services.db.write(async (tx) => {
      await tx.outboxEmail.deleteMany({});
      await tx.emailNotification.deleteMany({});
    });
  });

  test('direct messages are gathered over the batching period and sent in one email', async () => {
    const first = await sending(server, 1, () =>
      sendDirect(server, cast.member, [cast.member2.id], 'Are you **there**?'),
    );
    const second = await sending(server, 1, () =>
      sendDirect(server, cast.member, [cast.member2.id], 'See /user_uploads/x and [a link](/help)'),
    );
    expect((await pendingRows(server, cast.member2)).map((r) => r.trigger)).toEqual([
      'private_message',
      'private_message',
    ]);
    // Not before the period (120 s by default) is over.
    expect(await runAt(server, 60)).toBe(0);
    expect(await mailsTo(server, cast.member2)).toEqual([]);
    expect(await runAt(server, 121)).toBe(1);
    const [mail, ...others] = await mailsTo(server, cast.member2);
    expect(others).toEqual([]);
    expect(mail.subject).toBe('DMs with King Hamlet');
    expect(mail.html).toContain('<p>Are you <strong>there</strong>?</p>');
    expect(mail.html).toContain('<a href="http://chat.test/help">a link</a>');
    expect(mail.html).toContain('You have 2 new messages in your direct messages with King Hamlet');
    expect(mail.html).toContain(
      `href="http://chat.test/#narrow/dm/${cast.member.id}-dm/near/${first}"`,
    );
    expect(mail.text).toContain('Are you **there**?');
    expect(mail.text).toContain('See /user_uploads/x');
    expect(mail.html).toMatch(
      /href="http:\/\/chat\.test\/accounts\/unsubscribe\/missed_messages\/[0-9]+-[A-Za-z0-9_-]{32}"/,
    );
    expect(second).toBeGreaterThan(first);
    // Sent once: nothing is left for a later run.
    expect(await pendingRows(server, cast.member2)).toEqual([]);
    expect(await runAt(server, 600)).toBe(0);
    // The sender is not told about their own message.
    expect(await mailsTo(server, cast.member)).toEqual([]);
  });

  test("a person's own batching period sets the time, and a later message joins the batch", async () => {
    await setSettings(server, cast.member2, { email_notifications_batching_period_seconds: 600 });
    try {
      await sending(server, 1, () => sendDirect(server, cast.member, [cast.member2.id], 'one'));
      expect(await runAt(server, 300)).toBe(0);
      await sending(server, 1, () =>
        sendToChannel(server, cast.member, general, 'plans', `@**Cordelia Lear** two`),
      );
      const rows = await pendingRows(server, cast.member2);
      expect(rows).toHaveLength(2);
      expect(rows[1].dueAt.getTime()).toBe(rows[0].dueAt.getTime());
      expect(await runAt(server, 540)).toBe(0);
      // One email per conversation.
      expect(await runAt(server, 601)).toBe(2);
      const subjects = (await mailsTo(server, cast.member2)).map((m) => m.subject).sort();
      expect(subjects).toEqual(['#general > plans', 'DMs with King Hamlet']);
    } finally {
      await setSettings(server, cast.member2, { email_notifications_batching_period_seconds: 120 });
    }
  });

  test('reading the messages before the period ends cancels the email', async () => {
    const id = await sending(server, 1, () =>
      sendDirect(server, cast.member, [cast.member2.id], 'read me soon'),
    );
    expect(await pendingRows(server, cast.member2)).toHaveLength(1);
    const read = await server.call('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: [id], op: 'add', flag: 'read' },
    });
    expect(read.status).toBe(200);
    expect(await runAt(server, 121)).toBe(0);
    expect(await mailsTo(server, cast.member2)).toEqual([]);
    expect(await pendingRows(server, cast.member2)).toEqual([]);
  });

  test('a group DM names the other participants, and only unread messages are sent', async () => {
    const kept = await sending(server, 1, () =>
      sendDirect(server, cast.member, [cast.member2.id, cast.admin.id], 'to both of you'),
    );
    const readOne = await sending(server, 1, () =>
      sendDirect(server, cast.member, [cast.member2.id, cast.admin.id], 'already seen'),
    );
    await server.call('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: [readOne], op: 'add', flag: 'read' },
    });
    expect(await runAt(server, 121)).toBe(2);
    const [mail] = await mailsTo(server, cast.member2);
    expect(mail.subject).toBe('Group DMs with Iago Admin and King Hamlet');
    expect(mail.html).toContain('to both of you');
    expect(mail.html).not.toContain('already seen');
    const ids = [cast.member.id, cast.admin.id].sort((a, b) => a - b);
    expect(mail.html).toContain(`#narrow/dm/${ids.join(',')}-group/near/${kept}`);
    const [adminMail] = await mailsTo(server, cast.admin);
    // Names in the order of the participants' IDs, as Zulip lists them.
    expect(adminMail.subject).toBe('Group DMs with King Hamlet and Cordelia Lear');
  });

  test('someone active (recent presence) is not emailed', async () => {
    const res = await server.call('POST', '/users/me/presence', {
      as: cast.admin,
      params: { status: 'active' },
    });
    expect(res.status).toBe(200);
    await sending(server, 1, () =>
      sendDirect(server, cast.member, [cast.admin.id], 'you are here'),
    );
    expect(await pendingRows(server, cast.admin)).toEqual([]);
    expect(await runAt(server, 121)).toBe(0);
    expect(await mailsTo(server, cast.admin)).toEqual([]);
    // Once the presence is older than the offline threshold, the person is away again.
    await server.services.db.write((tx) =>
      tx.userPresence.update({
        where: { userId: cast.admin.id },
        data: { lastActiveTime: new Date(0), lastConnectedTime: new Date(0) },
      }),
    );
    await sending(server, 1, () => sendDirect(server, cast.member, [cast.admin.id], 'gone now'));
    expect(await pendingRows(server, cast.admin)).toHaveLength(1);
  });

  test('personal settings turn direct message and mention emails off', async () => {
    await setSettings(server, cast.member2, { enable_offline_email_notifications: false });
    try {
      await sending(server, 1, () => sendDirect(server, cast.member, [cast.member2.id], 'quiet'));
      await sending(server, 1, () =>
        sendToChannel(server, cast.member, general, 'quiet', '@**Cordelia Lear** hello'),
      );
      expect(await runAt(server, 121)).toBe(0);
      expect(await pendingRows(server, cast.member2)).toEqual([]);
      expect(await mailsTo(server, cast.member2)).toEqual([]);
    } finally {
      await setSettings(server, cast.member2, { enable_offline_email_notifications: true });
    }
  });

  test('channel emails follow the subscription, then the personal default, and never a muted topic', async () => {
    const chatter = () =>
      sending(server, 1, () =>
        sendToChannel(server, cast.member, general, 'chatter', 'plain talk'),
      );
    // Off by default.
    await chatter();
    expect(await pendingRows(server, cast.member2)).toEqual([]);
    // On through the personal default.
    await setSettings(server, cast.member2, { enable_stream_email_notifications: true });
    await chatter();
    expect((await pendingRows(server, cast.member2)).map((r) => r.trigger)).toEqual(['stream']);
    expect(await runAt(server, 121)).toBe(1);
    const [mail] = await mailsTo(server, cast.member2);
    expect(mail.subject).toBe('#general > chatter');
    expect(mail.html).toMatch(/accounts\/unsubscribe\/channels\//);
    expect(mail.html).toContain(
      `http://chat.test/#narrow/channel/${general}-general/topic/chatter/near/`,
    );
    // The channel's own setting wins over the default.
    const property = (value: boolean) =>
      server.call('POST', '/users/me/subscriptions/properties', {
        as: cast.member2,
        params: {
          subscription_data: [{ stream_id: general, property: 'email_notifications', value }],
        },
      });
    expect((await property(false)).status).toBe(200);
    await chatter();
    expect(await pendingRows(server, cast.member2)).toEqual([]);
    expect((await property(true)).status).toBe(200);
    await setSettings(server, cast.member2, { enable_stream_email_notifications: false });
    // A muted topic sends nothing, but a personal mention there still does.
    const mute = await server.call('POST', '/user_topics', {
      as: cast.member2,
      params: { stream_id: general, topic: 'chatter', visibility_policy: 1 },
    });
    expect(mute.status).toBe(200);
    await chatter();
    expect(await pendingRows(server, cast.member2)).toEqual([]);
    await sending(server, 1, () =>
      sendToChannel(server, cast.member, general, 'chatter', '@**Cordelia Lear** look'),
    );
    expect((await pendingRows(server, cast.member2)).map((r) => r.trigger)).toEqual(['mentioned']);
    await server.call('POST', '/user_topics', {
      as: cast.member2,
      params: { stream_id: general, topic: 'chatter', visibility_policy: 0 },
    });
    expect((await property(false)).status).toBe(200);
  });

  test('a muted channel sends no channel or wildcard emails', async () => {
    const mute = (value: boolean) =>
      server.call('POST', '/users/me/subscriptions/properties', {
        as: cast.member2,
        params: {
          subscription_data: [
            { stream_id: general, property: 'is_muted', value },
            { stream_id: general, property: 'email_notifications', value: true },
          ],
        },
      });
    expect((await mute(true)).status).toBe(200);
    await sending(server, 1, () => sendToChannel(server, cast.member, general, 'muted', 'hi'));
    await sending(server, 1, () =>
      sendToChannel(server, cast.member, general, 'muted', '@**all** hi'),
    );
    expect(await runAt(server, 121)).toBe(0);
    expect(await pendingRows(server, cast.member2)).toEqual([]);
    expect(await mailsTo(server, cast.member2)).toEqual([]);
    expect((await mute(false)).status).toBe(200);
    await server.call('POST', '/users/me/subscriptions/properties', {
      as: cast.member2,
      params: {
        subscription_data: [{ stream_id: general, property: 'email_notifications', value: false }],
      },
    });
  });

  test('wildcard mentions notify when wildcard_mentions_notify is on; followed topics and groups too', async () => {
    await sending(server, 1, () =>
      sendToChannel(server, cast.member, general, 'w', '@**all** news'),
    );
    expect((await pendingRows(server, cast.member2)).map((r) => r.trigger)).toEqual([
      'wildcard_mentioned',
    ]);
    await server.services.db.write((tx) => tx.emailNotification.deleteMany({}));
    await setSettings(server, cast.member2, { wildcard_mentions_notify: false });
    await sending(server, 1, () =>
      sendToChannel(server, cast.member, general, 'w', '@**all** more'),
    );
    expect(await pendingRows(server, cast.member2)).toEqual([]);
    await setSettings(server, cast.member2, { wildcard_mentions_notify: true });
    // A followed topic.
    const follow = await server.call('POST', '/user_topics', {
      as: cast.member2,
      params: { stream_id: general, topic: 'followed', visibility_policy: 3 },
    });
    expect(follow.status).toBe(200);
    await sending(server, 1, () => sendToChannel(server, cast.member, general, 'followed', 'news'));
    expect((await pendingRows(server, cast.member2)).map((r) => r.trigger)).toEqual([
      'followed_topic',
    ]);
    expect(await runAt(server, 121)).toBe(1);
    expect((await mailsTo(server, cast.member2))[0].html).toMatch(
      /accounts\/unsubscribe\/followed_topics\//,
    );
    // A group the person belongs to.
    const group = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'readers', description: 'Readers', members: [cast.member2.id] },
    });
    expect(group.status).toBe(200);
    await sending(server, 1, () =>
      sendToChannel(server, cast.member, general, 'groups', '@*readers* please look'),
    );
    expect((await pendingRows(server, cast.member2)).map((r) => r.trigger)).toEqual(['mentioned']);
  });

  test("the organization's setting keeps message content out of emails", async () => {
    const patch = (value: boolean) =>
      server.call('PATCH', '/realm', {
        as: cast.admin,
        params: { message_content_allowed_in_email_notifications: value },
      });
    expect((await patch(false)).status).toBe(200);
    try {
      const state = await register(server, cast.member2, { fetch_event_types: ['realm'] });
      expect(state.realm_message_content_allowed_in_email_notifications).toBe(false);
      await sending(server, 1, () =>
        sendDirect(server, cast.member, [cast.member2.id], 'a secret plan'),
      );
      expect(await runAt(server, 121)).toBe(1);
      const [mail] = await mailsTo(server, cast.member2);
      expect(mail.subject).toBe('New message');
      expect(mail.html).not.toContain('secret');
      expect(mail.text).not.toContain('secret');
      expect(mail.html).toContain('You have 1 new message in Test organization.');
    } finally {
      expect((await patch(true)).status).toBe(200);
    }
  });

  test('the unsubscribe link turns the setting off, and a forged one does nothing', async () => {
    await sending(server, 1, () => sendDirect(server, cast.member, [cast.member2.id], 'bye'));
    expect(await runAt(server, 121)).toBe(1);
    const [mail] = await mailsTo(server, cast.member2);
    const link = /http:\/\/chat\.test\/accounts\/unsubscribe\/[^"\s]+/.exec(mail.html)![0];
    expect(mail.text).toContain(link);
    const forged = await openPage(
      server,
      link.replace(/-[A-Za-z0-9_-]{32}$/, `-${'A'.repeat(32)}`),
    );
    expect(forged.status).toBe(404);
    expect(forged.html).toContain('This link is not valid.');
    const other = await openPage(
      server,
      link.replace(`/${cast.member2.id}-`, `/${cast.member.id}-`),
    );
    expect(other.status).toBe(404);
    let settings = await register(server, cast.member2, { fetch_event_types: ['user_settings'] });
    expect(settings.user_settings.enable_offline_email_notifications).toBe(true);
    const page = await openPage(server, link);
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.html).toContain(
      'You will no longer get emails about direct messages and mentions from Test organization.',
    );
    settings = await register(server, cast.member2, { fetch_event_types: ['user_settings'] });
    expect(settings.user_settings.enable_offline_email_notifications).toBe(false);
    // And it holds: the next direct message is not emailed.
    await sending(server, 1, () => sendDirect(server, cast.member, [cast.member2.id], 'hello?'));
    expect(await pendingRows(server, cast.member2)).toEqual([]);
    await setSettings(server, cast.member2, { enable_offline_email_notifications: true });
  });
});

describe('a pending email survives a restart', () => {
  test('the server started again on the same database sends it', async () => {
    const database = await createTestDatabase();
    const shared = { ...redisEnv(newKeyPrefix()), ...env };
    let first: TestServer | undefined = await TestServer.startOn(database, shared);
    let second: TestServer | undefined;
    try {
      const cast = await first.createCast();
      await sending(first, 1, () =>
        sendDirect(first!, cast.member, [cast.member2.id], 'before the restart'),
      );
      await first.stop();
      first = undefined;
      second = await TestServer.startOn(database, shared);
      expect(await runAt(second, 121)).toBe(1);
      const [mail] = await mailsTo(second, cast.member2);
      expect(mail.html).toContain('before the restart');
    } finally {
      await first?.stop();
      await second?.stop();
      await database.drop();
    }
  }, 300_000);
});

describe('two servers on one database', () => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    database = await createTestDatabase();
    const shared = { ...redisEnv(newKeyPrefix()), ...env };
    a = await TestServer.startOn(database, shared);
    b = await TestServer.startOn(database, shared);
    cast = await a.createCast();
  }, 300_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  test('runs of both at the same moment send each email once', async () => {
    const people = [cast.member2, cast.admin, cast.moderator, cast.owner, cast.guest];
    for (const person of people)
      await sending(a, 1, () => sendDirect(a, cast.member, [person.id], `for ${person.fullName}`));
    // SQLite serves one process, so there the runs meet within one server.
    const servers = database.provider === 'postgresql' ? [a, b, a, b] : [a, a, a, a];
    const at = new Date(Date.now() + 121_000);
    const runs = await Promise.all(
      servers.map((server) => doSendDueEmailNotifications(server.services, at)),
    );
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(people.length);
    for (const person of people) {
      const mails = await mailsTo(b, person);
      expect(mails.map((m) => m.subject)).toEqual(['DMs with King Hamlet']);
      expect(mails[0].html).toContain(`for ${person.fullName}`);
    }
    expect(await b.services.db.read((db) => db.emailNotification.count())).toBe(0);
  });
});
