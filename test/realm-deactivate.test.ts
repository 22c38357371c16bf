// POST /realm/deactivate through HTTP: only owners may deactivate, the delay
// before deletion is checked, users' clients learn of it and are refused
// afterwards, the reactivate-realm command undoes it, and once the deletion
// date has come the server's periodic task deletes the organization's rows and
// files, leaving other organizations as they were.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { doDeleteDueRealms } from '../src/actions/realm/realm-deactivation';
import { runManage } from '../src/cli/manage';
import { readOutbox } from '../src/lib/mail/outbox';
import { TestServer, type Cast } from './support/server';
import { TINY_PNG } from './support/example-fixture';
import { expectError, register } from './streams-fixtures';
import { parkedPolls, waitFor, waitForParkedPolls } from './support/wait';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  // The periodic task runs every second, so that a due deletion happens soon;
  // long-polls wait long enough to be answered by the deactivation.
  server = await TestServer.start({
    SCHEDULED_MESSAGES_INTERVAL_SECONDS: '1',
    EVENT_HEARTBEAT_SECONDS: '30',
  });
  cast = await server.createCast();
});
afterAll(() => server.stop());

const DAY_MS = 24 * 60 * 60 * 1000;

/** An organization of its own at `subdomain`, with a member. */
async function organization(subdomain: string) {
  const { realm, owner } = await server.createRealm(`Org ${subdomain}`, subdomain);
  const member = await server.createUser(realm, { email: `member@${subdomain}.example.com` });
  return { realm, owner, member };
}

function deactivate(as: Cast['owner'], params: Record<string, unknown> = {}) {
  return server.call('POST', '/realm/deactivate', { as, params });
}

async function realmRow(id: number) {
  return server.services.db.read((db) => db.realm.findUnique({ where: { id } }));
}

test('only an owner may deactivate, and never with a deletion sooner than 14 days', async () => {
  const { realm, owner, member } = await organization('guarded');
  const admin = await server.createUser(realm, { email: 'admin@guarded.example.com', role: 200 });
  for (const as of [admin, member])
    expectError(
      await deactivate(as, { deletion_delay_days: 30 }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization owner',
    );
  for (const days of [0, 13])
    expectError(
      await deactivate(owner, { deletion_delay_days: days }),
      400,
      'BAD_REQUEST',
      'Data deletion time must be at least 14 days in the future.',
    );
  expectError(
    await deactivate(owner, { deletion_delay_days: -1 }),
    400,
    'BAD_REQUEST',
    'deletion_delay_days is too small',
  );
  expect(await realmRow(realm.id)).toMatchObject({
    deactivated: false,
    scheduledDeletionDate: null,
  });
  // The cast's organization was never touched.
  expect((await server.call('GET', '/users/me', { as: cast.member })).status).toBe(200);
});

test('users learn of the deactivation, are refused afterwards, and a reactivation lets them back', async () => {
  const { realm, owner, member } = await organization('closing');
  const second = await server.createUser(realm, { email: 'owner2@closing.example.com', role: 100 });
  const queue = await register(server, member, { event_types: ['realm'] });
  // The member's client is waiting for events when it happens.
  const parked = await parkedPolls(server);
  const waiting = server.call('GET', '/events', {
    as: member,
    params: { queue_id: queue.queue_id, last_event_id: queue.last_event_id },
  });
  await waitForParkedPolls(server, parked + 1);
  const before = Date.now();
  // As a form, as Zulip's clients send it.
  const res = await server.call('POST', '/realm/deactivate', {
    as: owner,
    params: { deletion_delay_days: '20' },
    encoding: 'form',
  });
  expect(res.body).toEqual({ result: 'success', msg: '' });
  const row = await realmRow(realm.id);
  expect(row?.deactivated).toBe(true);
  const due = row!.scheduledDeletionDate!.getTime();
  expect(due).toBeGreaterThanOrEqual(before + 20 * DAY_MS);
  expect(due).toBeLessThanOrEqual(Date.now() + 20 * DAY_MS);

  // Each owner is told by mail (kept in the outbox, as no SMTP server is set).
  const mails = await server.services.db.read((db) =>
    readOutbox(db).then((all) =>
      all.filter((m) => m.subject === 'Org closing has been deactivated'),
    ),
  );
  expect(mails.map((m) => m.to).sort()).toEqual([owner.email, second.email].sort());
  expect(mails[0].text).toContain('Olivia Owner deactivated the organization Org closing.');
  expect(mails[0].text).toContain(
    `Its data will be deleted for good on ${row!.scheduledDeletionDate!.toUTCString()}.`,
  );

  // The waiting poll is answered with the event; then every request is refused.
  const answer = await waiting;
  expect(answer.status).toBe(200);
  expect(answer.body.events).toEqual([
    { id: expect.any(Number), type: 'realm', op: 'deactivated', realm_id: realm.id },
  ]);
  for (const as of [owner, member])
    expectError(
      await server.call('GET', '/users/me', { as }),
      401,
      'UNAUTHORIZED',
      'This organization has been deactivated',
    );
  expectError(
    await server.call('POST', '/fetch_api_key', {
      params: { username: member.email, password: 'password' },
      headers: { host: 'closing.chat.test' },
    }),
    401,
    'REALM_DEACTIVATED',
    'This organization has been deactivated',
  );

  // The reactivate-realm command lets them log in again, and cancels the deletion.
  let out = '';
  const code = await runManage(
    ['reactivate-realm', '--realm', 'closing'],
    { DATABASE_URL: server.services.config.databaseUrl, LOG_LEVEL: 'silent' },
    (text) => (out += text),
    () => {},
  );
  expect(code).toBe(0);
  expect(JSON.parse(out)).toEqual({ realm_id: realm.id, string_id: 'closing', deactivated: false });
  expect(await realmRow(realm.id)).toMatchObject({
    deactivated: false,
    scheduledDeletionDate: null,
  });
  const login = await server.call('POST', '/fetch_api_key', {
    params: { username: member.email, password: 'password' },
    headers: { host: 'closing.chat.test' },
  });
  expect(login.status).toBe(200);
  // A second time, there is nothing to reactivate.
  let err = '';
  expect(
    await runManage(
      ['reactivate-realm', '--realm', 'closing'],
      { DATABASE_URL: server.services.config.databaseUrl, LOG_LEVEL: 'silent' },
      () => {},
      (text) => (err += text),
    ),
  ).toBe(2);
  expect(err).toContain('the organization is not deactivated');
});

test('without a delay the data is kept: no deletion date, nothing deleted', async () => {
  const { realm, owner } = await organization('archived');
  expect((await deactivate(owner)).body).toEqual({ result: 'success', msg: '' });
  expect(await realmRow(realm.id)).toMatchObject({
    deactivated: true,
    scheduledDeletionDate: null,
  });
  expect(await doDeleteDueRealms(server.services, new Date(Date.now() + 10_000 * DAY_MS))).toEqual(
    [],
  );
  expect(await realmRow(realm.id)).not.toBeNull();
});

/** Rows of the organization `realmId` in a few of its tables. */
async function counts(realmId: number) {
  return server.services.db.read(async (db) => ({
    users: await db.user.count({ where: { realmId } }),
    streams: await db.stream.count({ where: { realmId } }),
    messages: await db.message.count({ where: { realmId } }),
    userMessages: await db.userMessage.count({ where: { message: { realmId } } }),
    groups: await db.userGroup.count({ where: { realmId } }),
    attachments: await db.attachment.count({ where: { realmId } }),
    emoji: await db.realmEmoji.count({ where: { realmId } }),
  }));
}

test('once due, the periodic task deletes the organization, its rows and its files', async () => {
  const { realm, owner, member } = await organization('doomed');
  // Some of everything: a channel with messages and a reaction, an upload, a
  // custom emoji, a draft, a bot with storage.
  const ok = async (method: string, path: string, params: Record<string, unknown>, as = owner) => {
    const res = await server.call(method, path, { as, params });
    expect(res.status).toBe(200);
    return res.body;
  };
  await ok('POST', '/users/me/subscriptions', {
    subscriptions: [{ name: 'plans' }],
    principals: [owner.id, member.id],
  });
  const upload = await server.call('POST', '/user_uploads', {
    as: owner,
    encoding: 'multipart',
    files: { filename: { name: 'plan.png', content: TINY_PNG, type: 'image/png' } },
  });
  expect(upload.status).toBe(200);
  const sent = await ok('POST', '/messages', {
    type: 'channel',
    to: 'plans',
    topic: 'q1',
    content: `See [plan.png](${upload.body.url})`,
  });
  await ok('POST', `/messages/${sent.id}/reactions`, { emoji_name: 'tada' }, member);
  const emoji = await server.call('POST', '/realm/emoji/doomed_logo', {
    as: owner,
    encoding: 'multipart',
    files: { filename: { name: 'logo.png', content: TINY_PNG, type: 'image/png' } },
  });
  expect(emoji.status).toBe(200);
  await ok('PUT', '/bot_storage', { storage: { key: 'value' } }, member);
  const files = await server.services.db.read(async (db) => [
    ...(await db.attachment.findMany({ where: { realmId: realm.id } })).map((a) => a.pathId),
    ...(await db.realmEmoji.findMany({ where: { realmId: realm.id } })).map(
      (e) => `${realm.id}/emoji/images/${e.fileName}`,
    ),
  ]);
  const uploadsDir = server.services.config.uploadsDir;
  expect(files).toHaveLength(2);
  for (const key of files) expect(existsSync(join(uploadsDir, key))).toBe(true);
  const castBefore = await counts(cast.realm.id);
  expect(await counts(realm.id)).toMatchObject({ users: 2, messages: 1, attachments: 1, emoji: 1 });

  expect((await deactivate(owner, { deletion_delay_days: 14 })).status).toBe(200);
  // Fourteen days pass.
  await server.services.db.write((tx) =>
    tx.realm.update({
      where: { id: realm.id },
      data: { scheduledDeletionDate: new Date(Date.now() - 1000) },
    }),
  );
  // The periodic task, every second, finds it due: the rows go, then the files.
  const gone = async () =>
    (await realmRow(realm.id)) === null && files.every((key) => !existsSync(join(uploadsDir, key)));
  await waitFor("the periodic task to delete the organization's rows and files", gone);
  expect(await realmRow(realm.id)).toBeNull();
  expect(await counts(realm.id)).toEqual({
    users: 0,
    streams: 0,
    messages: 0,
    userMessages: 0,
    groups: 0,
    attachments: 0,
    emoji: 0,
  });
  expect(
    await server.services.db.read((db) =>
      db.botStorageData.count({ where: { userId: { in: [owner.id, member.id] } } }),
    ),
  ).toBe(0);
  for (const key of files) expect(existsSync(join(uploadsDir, key))).toBe(false);
  // Its address answers like any unknown one, and the other organization is whole.
  const settings = await server.call('GET', '/server_settings', {
    headers: { host: 'doomed.chat.test' },
  });
  expect(settings.status).toBe(404);
  expect(await counts(cast.realm.id)).toEqual(castBefore);
  expect((await server.call('GET', '/users/me', { as: cast.member })).status).toBe(200);
  // The subdomain can be used again.
  const again = await server.createRealm('Doomed again', 'doomed');
  expect(again.realm.id).not.toBe(realm.id);
});
