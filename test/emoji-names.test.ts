// Zulip's Unicode emoji names (src/lib/emoji/zulip-emoji-names.tsv) wherever a
// name meets a code: every name and alias of the file is accepted by reactions
// (found and checked as a reaction does, and every 20th emoji's names sent
// through the API) and Markdown; reactions and statuses are stored, read and sent in events
// under the canonical name; custom emoji named like a built-in one; the
// `zulip` extra emoji as zulip_extra_emoji; and the migration that brings
// rows written before to the same names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Client } from 'pg';
import type { User } from '../generated/prisma/sqlite/client';
import { migrate } from '../src/db/migrate';
import { storedEmojiName } from '../src/lib/emoji/emoji';
import { checkEmoji, emojiByName } from '../src/lib/emoji/lookup';
import { parseDatabaseUrl } from '../src/db/url';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, sendToChannel, subscribe } from './streams-fixtures';

/** The data file, read here independently of the server's parser. */
const table = readFileSync(join(__dirname, '../src/lib/emoji/zulip-emoji-names.tsv'), 'utf8')
  .split('\n')
  .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('name\t'))
  .map((line) => {
    const [name, code, aliases] = line.split('\t');
    return { name, code, aliases: aliases ? aliases.split(',') : [] };
  });

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['general'], {
    principals: [cast.member.id, cast.member2.id],
  });
});
afterAll(() => server.stop());

function react(as: User, id: number, params: Record<string, unknown>) {
  return server.call('POST', `/messages/${id}/reactions`, { as, params });
}

function unreact(as: User, id: number, params: Record<string, unknown>) {
  return server.call('DELETE', `/messages/${id}/reactions`, { as, params });
}

async function reactionsOf(id: number) {
  const res = await server.call('GET', `/messages/${id}`, { as: cast.member });
  expect(res.status).toBe(200);
  return res.body.message.reactions as {
    emoji_name: string;
    emoji_code: string;
    reaction_type: string;
    user_id: number;
  }[];
}

async function renderedOf(id: number): Promise<string> {
  const res = await server.call('GET', `/messages/${id}`, { as: cast.member });
  return res.body.message.content;
}

test('the data file holds 1,826 emoji and 1,061 aliases, every name once', () => {
  expect(table).toHaveLength(1826);
  const names = table.flatMap((e) => [e.name, ...e.aliases]);
  expect(names).toHaveLength(1826 + 1061);
  expect(new Set(names).size).toBe(names.length);
  expect(table.find((e) => e.name === '+1')).toEqual({
    name: '+1',
    code: '1f44d',
    aliases: ['thumbs_up', 'like'],
  });
  expect(table.find((e) => e.name === 'smile')?.code).toBe('1f642');
});

// Every 20th emoji, with its aliases.
const everyTwentieth = table.filter((_, i) => i % 20 === 0);
// The names are looked up in the data file, the same on either database: the
// PostgreSQL project looks up and renders a sample of them, and both send a
// sample through the API as reactions.
const sample = process.env.TEST_DATABASE === 'postgresql' ? everyTwentieth : table;

describe('reactions', () => {
  test('thumbs_up, like and +1 are one reaction, stored, read and sent as +1', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'names', 'thumbs');
    const queue = await register(server, cast.member2, { event_types: ['reaction'] });
    expect((await react(cast.member, id, { emoji_name: 'thumbs_up' })).status).toBe(200);
    expectError(
      await react(cast.member, id, { emoji_name: 'like' }),
      400,
      'REACTION_ALREADY_EXISTS',
      'Reaction already exists.',
    );
    expectError(
      await react(cast.member, id, {
        emoji_name: '+1',
        emoji_code: '1f44d',
        reaction_type: 'unicode_emoji',
      }),
      400,
      'REACTION_ALREADY_EXISTS',
      'Reaction already exists.',
    );
    // Another user's alias, with its code given, checks and stores as +1 too.
    const explicit = { emoji_name: 'like', emoji_code: '1f44d', reaction_type: 'unicode_emoji' };
    expect((await react(cast.member2, id, explicit)).status).toBe(200);
    const plusOne = { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' };
    expect(await reactionsOf(id)).toEqual([
      { ...plusOne, user_id: cast.member.id },
      { ...plusOne, user_id: cast.member2.id },
    ]);
    const list = await server.call('GET', '/messages', {
      as: cast.member2,
      params: { anchor: id, num_before: 0, num_after: 0 },
    });
    expect(list.body.messages[0].reactions).toEqual(await reactionsOf(id));

    // Removing by an alias finds the +1 reaction; the event names it +1.
    expect((await unreact(cast.member, id, { emoji_name: 'thumbs_up' })).status).toBe(200);
    expect(await reactionsOf(id)).toEqual([{ ...plusOne, user_id: cast.member2.id }]);
    const events = await eventsOf(server, cast.member2, queue.queue_id);
    expect(events.map((e) => [e.op, e.user_id, e.emoji_name, e.emoji_code])).toEqual([
      ['add', cast.member.id, '+1', '1f44d'],
      ['add', cast.member2.id, '+1', '1f44d'],
      ['remove', cast.member.id, '+1', '1f44d'],
    ]);
  });

  test('a name and a code of different emoji are refused, aliases included', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'names', 'mismatch');
    expectError(
      await react(cast.member, id, {
        emoji_name: 'thumbs_up',
        emoji_code: '1f44e',
        reaction_type: 'unicode_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid emoji name.',
    );
    // Codes are Zulip's exactly: the heart is 2764, not 2764-fe0f.
    expectError(
      await react(cast.member, id, {
        emoji_name: 'heart',
        emoji_code: '2764-fe0f',
        reaction_type: 'unicode_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid emoji code.',
    );
    // Names of other emoji sets are not Zulip's.
    expectError(
      await react(cast.member, id, { emoji_name: 'thumbsup' }),
      400,
      'BAD_REQUEST',
      "Emoji 'thumbsup' does not exist",
    );
    expect(await reactionsOf(id)).toEqual([]);
  });

  test('every name and alias of the data file is found as a reaction finds it, and stored under the canonical name', async () => {
    // What a reaction (and a status) does with a name, done here directly
    // for each name and alias (the 2,887 on SQLite), against the organization
    // in the database: look it up, check the name against the code found, and
    // take the name to store.
    const refused: string[] = [];
    await server.services.db.read(async (db) => {
      for (const emoji of sample)
        for (const name of [emoji.name, ...emoji.aliases]) {
          try {
            const found = await emojiByName(db, cast.realm.id, name);
            await checkEmoji(db, cast.realm.id, name, found);
            const stored = storedEmojiName(name, found);
            if (
              found.type !== 'unicode_emoji' ||
              found.code !== emoji.code ||
              stored !== emoji.name
            )
              refused.push(`${name}: ${stored} ${found.code} ${found.type}`);
          } catch (error) {
            refused.push(`${name}: ${(error as Error).message}`);
          }
        }
    });
    expect(refused).toEqual([]);
  });

  test('every 20th name of the data file, and its aliases, react through the API under the canonical name', async () => {
    const sample = everyTwentieth;
    const id = await sendToChannel(server, cast.member, 'general', 'names', 'all of them');
    // One user reacts with each canonical name; the k-th alias of an emoji is
    // the k-th voter's reaction, so each alias must find its emoji's reaction.
    const most = Math.max(...sample.map((e) => e.aliases.length));
    const voters = await Promise.all(
      Array.from({ length: most }, (_, k) =>
        server.createUser(cast.realm, { email: `voter${k}@example.com` }),
      ),
    );
    const refused: string[] = [];
    const reactWithAll = async (emoji: (typeof sample)[number]) => {
      const res = await react(cast.member, id, { emoji_name: emoji.name });
      if (res.status !== 200) refused.push(`${emoji.name}: ${res.body.msg}`);
      for (const [k, alias] of emoji.aliases.entries()) {
        const vote = await react(voters[k], id, { emoji_name: alias });
        if (vote.status !== 200) refused.push(`${alias}: ${vote.body.msg}`);
      }
    };
    // Eight emoji at a time: each request waits mostly on the server, and
    // none depends on another emoji's reactions.
    for (let start = 0; start < sample.length; start += 8)
      await Promise.all(sample.slice(start, start + 8).map(reactWithAll));
    expect(refused).toEqual([]);
    const key = (r: { name: string; code: string; user: number }) =>
      `${r.code} ${r.user} ${r.name}`;
    const expected = sample.flatMap((e) => [
      { name: e.name, code: e.code, user: cast.member.id },
      ...e.aliases.map((_, k) => ({ name: e.name, code: e.code, user: voters[k].id })),
    ]);
    const reactions = await reactionsOf(id);
    expect(reactions.every((r) => r.reaction_type === 'unicode_emoji')).toBe(true);
    expect(
      reactions.map((r) => key({ name: r.emoji_name, code: r.emoji_code, user: r.user_id })).sort(),
    ).toEqual(expected.map(key).sort());
  }, 300_000);

  test('the zulip emoji is zulip_extra_emoji; service_extra_emoji is read as it', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'names', 'zulip');
    expect(
      (
        await react(cast.member, id, {
          emoji_name: 'zulip',
          emoji_code: 'zulip',
          reaction_type: 'zulip_extra_emoji',
        })
      ).status,
    ).toBe(200);
    expect((await react(cast.member2, id, { emoji_name: 'zulip' })).status).toBe(200);
    const zulip = { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' };
    expect(await reactionsOf(id)).toEqual([
      { ...zulip, user_id: cast.member.id },
      { ...zulip, user_id: cast.member2.id },
    ]);
    expectError(
      await react(cast.member, id, {
        emoji_name: 'zulip',
        emoji_code: 'zulip',
        reaction_type: 'service_extra_emoji',
      }),
      400,
      'REACTION_ALREADY_EXISTS',
      'Reaction already exists.',
    );
    expect(
      (await unreact(cast.member, id, { emoji_name: 'zulip', reaction_type: 'zulip_extra_emoji' }))
        .status,
    ).toBe(200);
    expect(
      (
        await unreact(cast.member2, id, {
          emoji_code: 'zulip',
          reaction_type: 'service_extra_emoji',
        })
      ).status,
    ).toBe(200);
    expect(await reactionsOf(id)).toEqual([]);
  });
});

describe('statuses', () => {
  test('an alias is stored and reported under the canonical name, in reads, events and /register', async () => {
    const state = await register(server, cast.member2, {
      event_types: ['user_status'],
      fetch_event_types: ['user_status'],
    });
    expect(
      (
        await server.call('POST', '/users/me/status', {
          as: cast.member,
          params: { status_text: 'Agreed', emoji_name: 'thumbs_up' },
        })
      ).status,
    ).toBe(200);
    const plusOne = { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' };
    const read = await server.call('GET', `/users/${cast.member.id}/status`, { as: cast.member2 });
    expect(read.body.status).toEqual({ status_text: 'Agreed', ...plusOne });
    // The same with the code given: the alias is checked, the canonical name kept.
    await server.ok('POST', '/users/me/status', {
      as: cast.member,
      params: { emoji_name: 'like', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
    });
    const events = await eventsOf(server, cast.member2, state.queue_id);
    expect(withoutIds(events)).toEqual([
      {
        type: 'user_status',
        user_id: cast.member.id,
        status_text: 'Agreed',
        ...plusOne,
      },
      { type: 'user_status', user_id: cast.member.id, ...plusOne },
    ]);
    applyEvents(state, events);
    const fresh = await register(server, cast.member2, {
      event_types: [],
      fetch_event_types: ['user_status'],
    });
    expect(state.user_status).toEqual(fresh.user_status);
    expect(fresh.user_status[String(cast.member.id)]).toEqual({
      status_text: 'Agreed',
      ...plusOne,
    });
  });
});

describe('Markdown', () => {
  test(':thumbs_up: renders Zulip span with the code of +1 and the name as typed', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'names', ':thumbs_up: :+1:');
    expect(await renderedOf(id)).toBe(
      '<p><span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span> ' +
        '<span aria-label="+1" class="emoji emoji-1f44d" role="img" title="+1">:+1:</span></p>',
    );
  });

  test('every name and alias of the data file renders as its emoji', async () => {
    const all = sample.flatMap((e) => [e.name, ...e.aliases].map((name) => ({ ...e, name })));
    for (let start = 0; start < all.length; start += 400) {
      const chunk = all.slice(start, start + 400);
      const content = chunk.map((e) => `:${e.name}:`).join(' ');
      const id = await sendToChannel(server, cast.member, 'general', 'all names', content);
      const html = await renderedOf(id);
      const spans = [...html.matchAll(/class="emoji emoji-([0-9a-f-]+)"[^>]*>:([^<]+):<\/span>/g)];
      expect(spans.map((m) => [m[2], m[1]])).toEqual(chunk.map((e) => [e.name, e.code]));
    }
  }, 120_000);
});

describe('custom emoji named like a built-in one', () => {
  const PNG = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from('a tiny png'),
  ]);
  const upload = (as: User, name: string) =>
    server.call('POST', `/realm/emoji/${encodeURIComponent(name)}`, {
      as,
      encoding: 'multipart',
      files: { f: { name: 'e.png', content: PNG, type: 'image/png' } },
    });

  test('an alias is a built-in name: only administrators may override it, and then it wins', async () => {
    expectError(
      await upload(cast.member, 'like'),
      400,
      'BAD_REQUEST',
      'Only administrators can override built-in emoji.',
    );
    expect((await upload(cast.admin, 'like')).status).toBe(200);
    const id = await sendToChannel(server, cast.member, 'general', 'names', ':like: :thumbs_up:');
    expect(await renderedOf(id)).toMatch(
      /^<p><img alt=":like:" class="emoji" src="\/user_avatars\/\d+\/emoji\/images\/[0-9a-f]+\.png" title="like"> <span aria-label="thumbs up" class="emoji emoji-1f44d"/,
    );
    expect((await react(cast.member, id, { emoji_name: 'like' })).status).toBe(200);
    expect((await react(cast.member, id, { emoji_name: 'thumbs_up' })).status).toBe(200);
    expect((await reactionsOf(id)).map((r) => [r.emoji_name, r.reaction_type])).toEqual([
      ['like', 'realm_emoji'],
      ['+1', 'unicode_emoji'],
    ]);
  });
});

describe('the migration to Zulip names', () => {
  const name = '20261125100000_zulip_emoji_names';

  /** Runs `sql` on the test database through its own driver, outside the server. */
  async function runSql(sql: string): Promise<void> {
    const target = parseDatabaseUrl(server.services.config.databaseUrl);
    if (target.provider === 'sqlite') {
      const db = new BetterSqlite3(target.file);
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
      return;
    }
    const client = new Client({ connectionString: target.connectionString });
    await client.connect();
    try {
      if (target.schema) await client.query(`SET search_path TO "${target.schema}"`);
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  test('rewrites the extra namespace and the names of rows written before', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'names', 'old rows');
    await server.services.db.write(async (tx) => {
      await tx.reaction.createMany({
        data: [
          // Names of the emoji set used before, and a code Zulip does not know.
          { emojiName: 'thumbsup', emojiCode: '1f44d', reactionType: 'unicode_emoji' },
          { emojiName: 'slightly_smiling_face', emojiCode: '1f642', reactionType: 'unicode_emoji' },
          { emojiName: 'mystery', emojiCode: 'e000', reactionType: 'unicode_emoji' },
          { emojiName: 'zulip', emojiCode: 'zulip', reactionType: 'service_extra_emoji' },
        ].map((r) => ({ ...r, messageId: id, userId: cast.moderator.id })),
      });
      await tx.userStatus.upsert({
        where: { userId: cast.guest.id },
        create: {
          userId: cast.guest.id,
          emojiName: 'thumbsup',
          emojiCode: '1f44d',
          reactionType: 'unicode_emoji',
        },
        update: { emojiName: 'thumbsup', emojiCode: '1f44d', reactionType: 'unicode_emoji' },
      });
    });
    await runSql(`DELETE FROM "_prisma_migrations" WHERE "migration_name" = '${name}'`);
    expect(await migrate(server.services.config.databaseUrl)).toEqual([name]);

    expect(
      (await reactionsOf(id)).map((r) => [r.emoji_name, r.emoji_code, r.reaction_type]),
    ).toEqual([
      ['+1', '1f44d', 'unicode_emoji'],
      ['smile', '1f642', 'unicode_emoji'],
      ['mystery', 'e000', 'unicode_emoji'],
      ['zulip', 'zulip', 'zulip_extra_emoji'],
    ]);
    const status = await server.call('GET', `/users/${cast.guest.id}/status`, { as: cast.member });
    expect(status.body.status).toEqual({
      emoji_name: '+1',
      emoji_code: '1f44d',
      reaction_type: 'unicode_emoji',
    });
  });
});
