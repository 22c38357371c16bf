// Weekly digest emails, through HTTP: the periodic task's digest run is
// called directly with a chosen time. A person away for several days, on the
// organization's digest weekday, gets the week's busiest conversations of
// the channels they follow (not muted ones) and the new channels, at most
// once a week; the personal and organization settings and the unsubscribe
// link turn it off.
import { digestWeekdayOf, doSendDigestEmails } from '../src/actions/notifications/digest-emails';
import { readOutbox } from '../src/lib/mail/outbox';
import { TestServer, type Cast } from './support/server';
import { register, sendToChannel, streamId, subscribe } from './streams-fixtures';

type User = Cast['member'];
const DAY = 86_400_000;

let server: TestServer;
let cast: Cast;
let now: Date;

/** Makes `user` an account of a month ago that has not been seen for `days` days. */
async function awayFor(user: User, days: number) {
  const seen = new Date(Date.now() - days * DAY);
  await server.services.db.write(async (tx) => {
    await tx.user.update({
      where: { id: user.id },
      data: { dateJoined: new Date(Date.now() - 30 * DAY) },
    });
    await tx.userPresence.upsert({
      where: { userId: user.id },
      create: {
        userId: user.id,
        realmId: user.realmId,
        lastActiveTime: seen,
        lastConnectedTime: seen,
      },
      update: { lastActiveTime: seen, lastConnectedTime: seen },
    });
  });
}

async function digestsTo(user: User) {
  return server.services.db.read((db) => readOutbox(db, user.email));
}

async function patchRealm(params: Record<string, unknown>) {
  const res = await server.call('PATCH', '/realm', { as: cast.admin, params });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' }));
  for (const user of [cast.member, cast.member2, cast.admin])
    await subscribe(server, user, ['general', 'quiet']);
  now = new Date(Date.now() + 60_000);
  await patchRealm({ digest_emails_enabled: true, digest_weekday: digestWeekdayOf(now) });
}, 120_000);
afterAll(() => server.stop());

test('the digest weekday is numbered from Monday, as in Zulip', () => {
  expect(digestWeekdayOf(new Date('2026-11-23T12:00:00Z'))).toBe(0);
  expect(digestWeekdayOf(new Date('2026-11-29T12:00:00Z'))).toBe(6);
});

test('the organization settings read back through register', async () => {
  const state = await register(server, cast.member, { fetch_event_types: ['realm'] });
  expect(state.realm_digest_emails_enabled).toBe(true);
  expect(state.realm_digest_weekday).toBe(digestWeekdayOf(now));
  const bad = await server.call('PATCH', '/realm', {
    as: cast.admin,
    params: { digest_weekday: 7 },
  });
  expect(bad.status).toBe(400);
  expect(bad.body.result).toBe('error');
});

test('someone away gets the busiest conversations and new channels once a week', async () => {
  const quiet = await streamId(server, cast.member2, 'quiet');
  const mute = await server.call('POST', '/users/me/subscriptions/properties', {
    as: cast.member2,
    params: { subscription_data: [{ stream_id: quiet, property: 'is_muted', value: true }] },
  });
  expect(mute.status).toBe(200);
  for (let i = 1; i <= 3; i++)
    await sendToChannel(server, cast.member, 'general', 'busy', `busy **number** ${i}`);
  await sendToChannel(server, cast.admin, 'general', 'calm', 'only one here');
  await sendToChannel(server, cast.member, 'quiet', 'hidden', 'in a muted channel');
  await subscribe(server, cast.admin, ['fresh']);
  // Away for six days; the active member and the admin who turned digests off get none.
  await awayFor(cast.member2, 6);
  await awayFor(cast.admin, 6);
  const off = await server.call('PATCH', '/settings', {
    as: cast.admin,
    params: { enable_digest_emails: false },
  });
  expect(off.status).toBe(200);
  await server.services.db.write((tx) =>
    tx.user.update({
      where: { id: cast.member.id },
      data: { dateJoined: new Date(Date.now() - 30 * DAY) },
    }),
  );
  await server.call('POST', '/users/me/presence', {
    as: cast.member,
    params: { status: 'active' },
  });

  // Not on another weekday.
  expect(await doSendDigestEmails(server.services, new Date(now.getTime() + DAY))).toBe(0);
  expect(await doSendDigestEmails(server.services, now)).toBe(1);
  const [mail, ...more] = await digestsTo(cast.member2);
  expect(more).toEqual([]);
  expect(mail.subject).toBe('Test organization digest');
  const busy = mail.html.indexOf('#general &gt; busy</a> (3 messages)');
  const calm = mail.html.indexOf('#general &gt; calm</a> (1 message)');
  expect(busy).toBeGreaterThan(0);
  expect(calm).toBeGreaterThan(busy);
  expect(mail.html).toContain('<p>busy <strong>number</strong> 1</p>');
  expect(mail.html).not.toContain('hidden');
  expect(mail.html).toContain('#fresh</a>');
  expect(mail.text).toContain('#general > busy (3 messages)');
  expect(await digestsTo(cast.member)).toEqual([]);
  expect(await digestsTo(cast.admin)).toEqual([]);

  // Once a week: a later run on the same day sends nothing.
  expect(await doSendDigestEmails(server.services, new Date(now.getTime() + 3_600_000))).toBe(0);

  // The unsubscribe link turns digests off.
  const link = /http:\/\/chat\.test\/accounts\/unsubscribe\/digest\/[^"\s]+/.exec(mail.html)![0];
  const page = await fetch(link.replace('http://chat.test', server.url));
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(
    'You will no longer get digest emails from Test organization.',
  );
  const state = await register(server, cast.member2, { fetch_event_types: ['user_settings'] });
  expect(state.user_settings.enable_digest_emails).toBe(false);
}, 120_000);

test('nothing goes out when the organization has digests off', async () => {
  const person = cast.moderator;
  await subscribe(server, person, ['general']);
  await awayFor(person, 10);
  await patchRealm({ digest_emails_enabled: false });
  expect(await doSendDigestEmails(server.services, now)).toBe(0);
  await patchRealm({ digest_emails_enabled: true });
  expect(await doSendDigestEmails(server.services, now)).toBe(1);
  expect((await digestsTo(person)).map((m) => m.subject)).toEqual(['Test organization digest']);
});
