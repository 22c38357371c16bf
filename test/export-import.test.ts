// export-realm and import-realm: an organization built through the API (and
// 2,500 messages loaded in bulk) is exported with the admin command,
// imported into a fresh database, where every ID is kept, and into one that
// already has another organization, where IDs shift; a server on each
// answers the API as the original did: messages with flags, reactions and
// edit history, users, channels, subscriptions, groups, and the uploaded bytes
// (files, custom emoji and avatars).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { User } from '../generated/prisma/sqlite/client';
import { advanceIdSequences, insertRows } from '../src/actions/export/realm-import';
import { runManage } from '../src/cli/manage';
import { sendDirect, sendToChannel, streamId, subscribe } from './streams-fixtures';
import { createTestDatabase, type TestDatabase } from './support/database';
import { TestServer, type Cast } from './support/server';
import { TINY_PNG } from './support/example-fixture';

/**
 * Messages loaded in bulk: more than the export reads in one page (2,000
 * rows) and the import writes in one batch (1,000), and more than one page of
 * GET /messages below, so that every paging boundary is crossed.
 */
const BULK = 2_500;
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('a tiny emoji'),
]);

const work = mkdtempSync(join(tmpdir(), 'export-import-'));
const archive = join(work, 'realm.tar.gz');
let source: TestServer;
let cast: Cast;
const uploads: { path: string; bytes: Buffer }[] = [];

async function manage(env: Record<string, string>, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runManage(
    argv,
    { LOG_LEVEL: 'silent', ...env },
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err, json: code === 0 ? JSON.parse(out) : undefined };
}

function ok<T extends { status: number; body: unknown }>(res: T): T {
  if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

/** Loads `count` channel messages to #general in bulk, as a send would store them. */
async function bulkMessages(channel: number, senders: User[], readers: User[], count: number) {
  const start = new Date('2026-01-01T00:00:00Z').getTime();
  await source.services.db.write(
    async (tx) => {
      const { _max } = await tx.message.aggregate({ _max: { id: true } });
      const first = (_max.id ?? 0) + 1;
      const messages = [];
      for (let i = 0; i < count; i++) {
        const topic = `bulk ${i % 50}`;
        messages.push({
          id: first + i,
          realmId: cast.realm.id,
          senderId: senders[i % senders.length].id,
          streamId: channel,
          topic,
          topicLower: topic,
          content: `bulk message **${i}**`,
          renderedContent: `<p>bulk message <strong>${i}</strong></p>`,
          dateSent: new Date(start + i * 1000),
          sendingClient: 'test',
        });
      }
      await insertRows(tx, source.services.db.provider, 'Message', messages);
      const rows = [];
      for (const message of messages)
        for (const reader of readers)
          rows.push({
            userId: reader.id,
            messageId: message.id,
            read: reader.id === message.senderId || message.id % 3 === 0,
            starred: message.id % 97 === 0,
          });
      await insertRows(tx, source.services.db.provider, 'UserMessage', rows);
      if (source.services.db.provider === 'postgresql')
        await advanceIdSequences(tx, ['Message', 'UserMessage']);
    },
    { timeoutMs: 120_000 },
  );
}

beforeAll(async () => {
  source = await TestServer.start({ UPLOADS_DIR: join(work, 'uploads-source') });
  cast = await source.createCast();
  const { owner, admin, member, member2, guest } = cast;
  await subscribe(source, member, ['general'], {
    principals: [owner.id, admin.id, member.id, member2.id],
  });
  await subscribe(source, member, ['hideout'], { invite_only: true, principals: [member2.id] });
  const general = await streamId(source, member, 'general');
  const hideout = await streamId(source, member, 'hideout');

  // Uploads, claimed by a message.
  for (const [name, bytes] of [
    ['notes.txt', Buffer.from('some notes\n')],
    ['data.bin', Buffer.from([0, 1, 2, 250, 251, 252])],
  ] as const) {
    const res = ok(
      await source.call('POST', '/user_uploads', {
        as: member,
        encoding: 'multipart',
        files: { f: { name, content: bytes } },
      }),
    );
    uploads.push({ path: res.body.url as string, bytes });
  }
  const withFiles = await sendToChannel(
    source,
    member,
    'general',
    'files',
    uploads.map((u, i) => `[file ${i}](${u.path})`).join(' '),
  );

  // An uploaded avatar (its two images).
  ok(
    await source.call('POST', '/users/me/avatar', {
      as: member,
      encoding: 'multipart',
      files: { f: { name: 'me.png', content: TINY_PNG, type: 'image/png' } },
    }),
  );

  // Custom emoji, reactions, edits, flags, through HTTP.
  ok(
    await source.call('POST', '/realm/emoji/party', {
      as: owner,
      encoding: 'multipart',
      files: { f: { name: 'party.png', content: PNG, type: 'image/png' } },
    }),
  );
  const hello = await sendToChannel(
    source,
    owner,
    'general',
    'greetings',
    'Hello @**King Hamlet**',
  );
  const secret = await sendToChannel(source, member2, hideout, 'plans', 'a *secret* plan');
  const dm = await sendDirect(source, member, [member2.id, guest.id], 'a group DM');
  ok(
    await source.call('PATCH', `/messages/${hello}`, {
      as: owner,
      params: { content: 'Hello again @**King Hamlet**', topic: 'welcome' },
    }),
  );
  ok(
    await source.call('PATCH', `/messages/${secret}`, {
      as: member2,
      params: { content: 'a *better* plan' },
    }),
  );
  for (const [as, message, emoji] of [
    [member, hello, 'smile'],
    [member2, hello, 'smile'],
    [owner, withFiles, 'party'],
    [guest, dm, 'heart'],
  ] as const)
    ok(
      await source.call('POST', `/messages/${message}/reactions`, {
        as,
        params: { emoji_name: emoji },
      }),
    );
  ok(
    await source.call('POST', '/messages/flags', {
      as: member,
      params: { messages: [hello, dm], op: 'add', flag: 'starred' },
    }),
  );

  // Groups, profile fields, linkifiers, drafts, scheduled messages, a bot, stored data.
  ok(
    await source.call('POST', '/user_groups/create', {
      as: admin,
      params: { name: 'readers', description: 'They read', members: [member.id, member2.id] },
    }),
  );
  const mentor = ok(
    await source.call('POST', '/realm/profile_fields', {
      as: admin,
      params: { name: 'Mentor', field_type: 6 },
    }),
  ).body.id;
  const bio = ok(
    await source.call('POST', '/realm/profile_fields', {
      as: admin,
      params: { name: 'Bio', field_type: 2 },
    }),
  ).body.id;
  ok(
    await source.call('PATCH', `/users/${member.id}`, {
      as: admin,
      params: {
        profile_data: [
          { id: mentor, value: [owner.id, member2.id] },
          { id: bio, value: 'I like *tea*' },
        ],
      },
    }),
  );
  ok(
    await source.call('POST', '/realm/filters', {
      as: admin,
      params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.test/{id}' },
    }),
  );
  ok(
    await source.call('POST', '/drafts', {
      as: member,
      params: {
        drafts: [
          { type: 'stream', to: [general], topic: 'later', content: 'draft', timestamp: 1.7e9 },
          { type: 'private', to: [member2.id], topic: '', content: 'psst', timestamp: 1.7e9 },
        ],
      },
    }),
  );
  ok(
    await source.call('POST', '/scheduled_messages', {
      as: member,
      params: {
        type: 'direct',
        to: [member2.id],
        content: 'in a day',
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400,
      },
    }),
  );
  ok(
    await source.call('POST', '/bots', {
      as: member,
      params: { full_name: 'Weather Bot', short_name: 'weather' },
    }),
  );
  ok(
    await source.call('PUT', '/bot_storage', {
      as: member,
      params: { storage: { city: 'Elsinore', 'last run': '2026-11-26' } },
    }),
  );

  await bulkMessages(general, [owner, member, member2], [owner, admin, member, member2], BULK);
  await sendToChannel(source, member2, 'general', 'after', 'the last one');
});

afterAll(async () => {
  await source?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Every message `as` can fetch, oldest first, in pages. */
async function allMessages(server: TestServer, as: User) {
  const out: Record<string, unknown>[] = [];
  let anchor: number | string = 'oldest';
  for (;;) {
    const res: { body: any } = ok(
      await server.call('GET', '/messages', {
        as,
        params: {
          anchor,
          num_before: 0,
          num_after: 2000,
          include_anchor: anchor === 'oldest',
          apply_markdown: true,
        },
      }),
    );
    out.push(...res.body.messages);
    if (res.body.found_newest || res.body.messages.length === 0) return out;
    anchor = res.body.messages[res.body.messages.length - 1].id;
  }
}

const sourceMessages = new Map<number, Promise<Record<string, unknown>[]>>();

/**
 * Every message `as` can fetch from the source server, fetched once: nothing
 * changes the source's messages after beforeAll, and the tests compare with
 * them several times.
 */
function messagesOfSource(as: User): Promise<Record<string, unknown>[]> {
  let messages = sourceMessages.get(as.id);
  if (!messages) sourceMessages.set(as.id, (messages = allMessages(source, as)));
  return messages;
}

/** What a user sees of the organization, besides messages. */
async function organizationView(server: TestServer, as: User) {
  const get = async (path: string, params: Record<string, unknown> = {}) => {
    const {
      result: _r,
      msg: _m,
      ...body
    } = ok(await server.call('GET', path, { as, params })).body as Record<string, unknown>;
    return body;
  };
  return {
    users: await get('/users', { include_custom_profile_fields: true }),
    me: await get('/users/me'),
    streams: await get('/streams', { include_all: true, exclude_archived: false }),
    subscriptions: await get('/users/me/subscriptions', { include_subscribers: true }),
    groups: await get('/user_groups'),
    emoji: await get('/realm/emoji'),
    fields: await get('/realm/profile_fields'),
    linkifiers: await get('/realm/linkifiers'),
    drafts: await get('/drafts'),
    scheduled: await get('/scheduled_messages'),
    attachments: await get('/attachments'),
    storage: await get('/bot_storage'),
  };
}

/** The bytes at a path of the server (an upload, an emoji image), as `as`. */
async function bytesAt(server: TestServer, path: string, as?: User): Promise<Buffer> {
  const headers: Record<string, string> = as
    ? { authorization: `Basic ${Buffer.from(`${as.email}:${as.apiKey}`).toString('base64')}` }
    : {};
  const res = await fetch(`${server.url}${path}`, { headers });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

let exported: Record<string, any>;

test('export-realm writes the whole organization into one archive', async () => {
  const res = await manage(
    { DATABASE_URL: source.services.config.databaseUrl, UPLOADS_DIR: join(work, 'uploads-source') },
    'export-realm',
    '--realm',
    String(cast.realm.id),
    '--output',
    archive,
  );
  expect(res.err).toBe('');
  expect(res.code).toBe(0);
  exported = res.json;
  expect(exported).toMatchObject({
    output: archive,
    realm_id: cast.realm.id,
    string_id: '',
    files: 5,
    missing_files: [],
  });
  expect(exported.rows.Message).toBe(BULK + 5);
  expect(exported.rows.UserMessage).toBeGreaterThan(BULK * 4);
  expect(exported.rows.Reaction).toBe(4);
  expect(exported.size).toBeGreaterThan(0);
});

/** Imports the archive into `database` and starts a server on it. */
async function importInto(database: TestDatabase, name: string) {
  const env = { DATABASE_URL: database.url, UPLOADS_DIR: join(work, `uploads-${name}`) };
  const res = await manage(env, 'import-realm', '--input', archive);
  expect(res.err).toBe('');
  expect(res.code).toBe(0);
  const server = await TestServer.startOn(database, { UPLOADS_DIR: env.UPLOADS_DIR });
  return { summary: res.json, server, env };
}

test('import-realm into a fresh database keeps every ID, and the API answers the same', async () => {
  const database = await createTestDatabase();
  const { summary, server, env } = await importInto(database, 'fresh');
  try {
    expect(summary).toMatchObject({
      realm_id: cast.realm.id,
      string_id: '',
      rows: exported.rows,
      files: 5,
      id_shifts: {},
    });
    const imported = new Map<number, Record<string, unknown>[]>();
    for (const user of [cast.owner, cast.member, cast.guest]) {
      const [before, after] = [await messagesOfSource(user), await allMessages(server, user)];
      expect(after.length).toBe(before.length);
      expect(after).toEqual(before);
      imported.set(user.id, after);
    }
    expect(imported.get(cast.member.id)!.length).toBeGreaterThan(BULK);
    const edited = imported.get(cast.owner.id)!.find((m) => m.subject === 'welcome')!;
    for (const s of [source, server])
      expect(
        ok(await s.call('GET', `/messages/${edited.id}/history`, { as: cast.member })).body,
      ).toEqual(
        ok(await source.call('GET', `/messages/${edited.id}/history`, { as: cast.member })).body,
      );
    const views = new Map<number, Awaited<ReturnType<typeof organizationView>>>();
    for (const user of [cast.owner, cast.member]) {
      views.set(user.id, await organizationView(server, user));
      expect(views.get(user.id)).toEqual(await organizationView(source, user));
    }
    for (const upload of uploads)
      expect(await bytesAt(server, upload.path, cast.member)).toEqual(upload.bytes);
    const emoji = views.get(cast.member.id)!.emoji as {
      emoji: Record<string, { source_url: string }>;
    };
    const [party] = Object.values(emoji.emoji);
    expect(await bytesAt(server, party.source_url)).toEqual(PNG);
    const avatar = views.get(cast.member.id)!.me.avatar_url as string;
    expect(avatar).toMatch(/^\/user_avatars\/\d+\/[0-9a-f]{40}\.png\?version=2$/);
    expect(await bytesAt(server, avatar)).toEqual(await bytesAt(source, avatar));

    // The organization is there now: a second import is refused.
    const again = await manage(env, 'import-realm', '--input', archive);
    expect(again.code).toBe(2);
    expect(again.err).toBe(
      'import-realm: an organization at the root domain already exists in this database\n',
    );

    // New rows get new IDs past the imported ones.
    const next = await sendToChannel(server, cast.member, 'general', 'new', 'after the import');
    expect(next).toBeGreaterThan(
      Math.max(...(await messagesOfSource(cast.member)).map((m) => m.id as number)),
    );
  } finally {
    await server.stop();
    await database.drop();
  }
});

test('import-realm next to another organization shifts IDs consistently', async () => {
  const database = await createTestDatabase();
  const env = { DATABASE_URL: database.url, UPLOADS_DIR: join(work, 'uploads-shifted') };
  const other = await manage(
    env,
    'create-realm',
    '--name',
    'Other',
    '--subdomain',
    'other',
    '--owner-email',
    'boss@other.test',
    '--owner-password',
    'a long password',
  );
  expect(other.code).toBe(0);
  const { summary, server } = await importInto(database, 'shifted');
  try {
    expect(summary.realm_id).not.toBe(cast.realm.id);
    expect(summary.id_shifts.User).toBeGreaterThan(0);
    expect(summary.id_shifts.UserGroup).toBeGreaterThan(0);
    // The same users (same API keys), under new IDs.
    const users = ok(await server.call('GET', '/users', { as: cast.owner })).body.members as {
      user_id: number;
      email: string;
    }[];
    const oldUsers = ok(await source.call('GET', '/users', { as: cast.owner })).body.members as {
      user_id: number;
      email: string;
    }[];
    const newId = new Map(
      oldUsers.map((u) => [u.user_id, users.find((n) => n.email === u.email)!.user_id]),
    );
    expect(newId.size).toBe(oldUsers.length);
    expect([...newId.entries()].every(([a, b]) => a !== b)).toBe(true);

    const project = (m: Record<string, any>, ids: (id: number) => number) => ({
      content: m.content,
      subject: m.subject,
      sender_id: ids(m.sender_id),
      flags: m.flags,
      reactions: m.reactions.map((r: Record<string, any>) => [
        r.emoji_name,
        r.reaction_type,
        ids(r.user_id),
      ]),
      recipients: Array.isArray(m.display_recipient)
        ? m.display_recipient.map((r: { id: number }) => ids(r.id)).sort()
        : m.display_recipient,
      edits: (m.edit_history ?? []).map((e: Record<string, any>) => ids(e.user_id)),
    });
    for (const user of [cast.member, cast.guest]) {
      const before = await messagesOfSource(user);
      const after = await allMessages(server, user);
      expect(after.map((m) => project(m, (id) => id))).toEqual(
        before.map((m) => project(m, (id) => newId.get(id)!)),
      );
    }
    const member = users.find((u) => u.email === cast.member.email)! as Record<string, any>;
    const groups = ok(await server.call('GET', '/user_groups', { as: cast.member })).body
      .user_groups as { name: string; members: number[] }[];
    expect(groups.find((g) => g.name === 'readers')!.members.sort()).toEqual(
      [member.user_id, newId.get(cast.member2.id)].sort(),
    );
    const profile = ok(
      await server.call('GET', `/users/${member.user_id}`, {
        as: cast.owner,
        params: { include_custom_profile_fields: true },
      }),
    ).body.user.profile_data as Record<string, { value: string }>;
    expect(Object.values(profile).map((v) => v.value)).toContainEqual(
      JSON.stringify([newId.get(cast.owner.id), newId.get(cast.member2.id)]),
    );
    // The avatar's images moved with the organization, under its new ID.
    const avatar = member.avatar_url as string;
    expect(avatar).toMatch(new RegExp(`^/user_avatars/${summary.realm_id}/[0-9a-f]{40}\\.png`));
    const original = ok(await source.call('GET', '/users/me', { as: cast.member })).body.avatar_url;
    expect(await bytesAt(server, avatar)).toEqual(await bytesAt(source, original));
    for (const upload of uploads)
      expect(await bytesAt(server, upload.path, cast.member)).toEqual(upload.bytes);
  } finally {
    await server.stop();
    await database.drop();
  }
});

test('bad input gets one line and status 2', async () => {
  const env = { DATABASE_URL: source.services.config.databaseUrl };
  expect(await manage(env, 'export-realm', '--output', join(work, 'x.tar.gz'))).toMatchObject({
    code: 2,
    err: 'export-realm: --realm is required\n',
  });
  expect(
    await manage(env, 'export-realm', '--realm', 'nowhere', '--output', join(work, 'x.tar.gz')),
  ).toMatchObject({
    code: 2,
    err: "export-realm: no organization with the ID or subdomain 'nowhere'\n",
  });
  const missing = join(work, 'missing.tar.gz');
  const res = await manage(env, 'import-realm', '--input', missing);
  expect(res.code).toBe(2);
  expect(res.err).toMatch(/^import-realm: .*missing\.tar\.gz is not a readable archive: /);
});
