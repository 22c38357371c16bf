// Welcome Bot: every new person (the organization's first owner, a user made
// by an administrator or a command, someone joining with an invitation) finds
// one unread direct message from welcome-bot@zulip.com, so that no account
// starts with an empty history; bots get none, and WELCOME_MESSAGES=0 turns
// the messages off. The other test files run with them off.
import type { User } from '../generated/prisma/sqlite/client';
import { loadConfig, ConfigError } from '../src/config';
import { Role } from '../src/lib/constants';
import { TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start({ WELCOME_MESSAGES: '1' });
});
afterAll(() => server.stop());

/** The direct messages `user` can read, oldest first. */
async function directMessages(user: Pick<User, 'email' | 'apiKey'>) {
  const res = await server.call('GET', '/messages', {
    as: user,
    params: {
      anchor: 'oldest',
      num_before: 0,
      num_after: 100,
      narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]),
    },
  });
  expect(res.status).toBe(200);
  return res.body.messages;
}

const fromWelcomeBot = (user: Pick<User, 'id'>, bot: number, realmName: string) => ({
  type: 'private',
  sender_id: bot,
  sender_email: 'welcome-bot@zulip.com',
  sender_full_name: 'Welcome Bot',
  display_recipient: expect.arrayContaining([
    expect.objectContaining({ id: bot, email: 'welcome-bot@zulip.com', is_mirror_dummy: false }),
    expect.objectContaining({ id: user.id }),
  ]),
  content: expect.stringContaining(
    `<strong>${realmName.replace('<', '&lt;').replace('>', '&gt;')}</strong>`,
  ),
  flags: [],
});

describe('a new organization', () => {
  test('its owner has one unread direct message from Welcome Bot, a bot of the organization', async () => {
    const { realm, owner } = await server.createRealm('Welcome Co', 'welcome');
    const users = await server.call('GET', '/users', { as: owner });
    const bot = users.body.members.find(
      (m: { email: string }) => m.email === 'welcome-bot@zulip.com',
    );
    expect(bot).toMatchObject({
      full_name: 'Welcome Bot',
      is_bot: true,
      bot_type: 1,
      bot_owner_id: null,
      is_active: true,
    });
    const messages = await directMessages(owner);
    expect(messages).toEqual([
      expect.objectContaining(fromWelcomeBot(owner, bot.user_id, realm.name)),
    ]);
    expect(messages[0].content).toContain('<code>**bold**</code>');

    const state = await server.call('POST', '/register', {
      as: owner,
      params: { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) },
    });
    // Besides the direct message, the first conversations of the organization's
    // channels (test/new-realm.test.ts) are unread: 12 messages.
    expect(state.body.unread_msgs).toMatchObject({
      count: 13,
      pms: [
        {
          other_user_id: bot.user_id,
          sender_id: bot.user_id,
          unread_message_ids: [messages[0].id],
        },
      ],
    });
  }, 90_000);
});

describe('people added later', () => {
  test('a user made by a command or an administrator gets their own welcome; others see nothing new', async () => {
    const { realm, owner } = await server.createRealm('Later *Co* @**all** <b>', 'later');
    const before = await directMessages(owner);
    const member = await server.createUser(realm, { email: 'newcomer@example.com' });
    const bot = before[0].sender_id;
    expect(await directMessages(member)).toEqual([
      expect.objectContaining(fromWelcomeBot(member, bot, realm.name)),
    ]);
    expect(await directMessages(owner)).toEqual(before);
    // The organization's name is shown as written, never read as Markdown.
    const [welcome] = await directMessages(member);
    expect(welcome.content).toContain('<strong>Later *Co* @**all** &lt;b&gt;</strong>');
    expect(welcome.flags).toEqual([]);
    // Welcome Bot is made once per organization.
    const bots = await server.services.db.read((db) =>
      db.user.count({ where: { realmId: realm.id, emailLower: 'welcome-bot@zulip.com' } }),
    );
    expect(bots).toBe(1);
  });

  test('someone joining with an invitation link is welcomed', async () => {
    const { realm, owner } = await server.createRealm('Invited Co');
    const created = await server.call('POST', '/invites/multiuse', {
      as: owner,
      params: { invite_as: Role.MEMBER, stream_ids: '[]' },
    });
    expect(created.status).toBe(200);
    const joinPath = new URL(created.body.invite_link).pathname;
    const joined = await fetch(`${server.url}${joinPath}`, {
      method: 'POST',
      body: new URLSearchParams({
        email: 'joiner@example.com',
        full_name: 'Jo Iner',
        password: 'joiner-password',
      }),
    });
    expect(joined.status).toBe(201);
    const login = await server.call('POST', '/fetch_api_key', {
      params: { username: 'joiner@example.com', password: 'joiner-password' },
    });
    expect(login.status).toBe(200);
    const joiner = {
      id: login.body.user_id,
      email: 'joiner@example.com',
      apiKey: login.body.api_key,
    };
    const [message] = await directMessages(joiner);
    expect(message).toMatchObject(fromWelcomeBot(joiner, message.sender_id, realm.name));
  });

  test('a bot gets no welcome', async () => {
    const { owner } = await server.createRealm('Bots Co', 'bots');
    const created = await server.call('POST', '/bots', {
      as: owner,
      params: { full_name: 'Helper', short_name: 'helper' },
    });
    expect(created.status).toBe(200);
    const bot = await server.services.db.read((db) =>
      db.user.findUniqueOrThrow({ where: { id: created.body.user_id } }),
    );
    expect(await directMessages(bot)).toEqual([]);
  });
});

describe('writing to Welcome Bot', () => {
  /**
   * The message events of `queue` after its `last` event, up to and including
   * the first one from `senderId`; `last` moves past the events read.
   */
  async function untilMessageFrom(as: User, queue: { id: string; last: number }, senderId: number) {
    const seen: Record<string, any>[] = [];
    for (let poll = 0; poll < 20; poll++) {
      const res = await server.call('GET', '/events', {
        as,
        params: { queue_id: queue.id, last_event_id: queue.last },
      });
      expect(res.status).toBe(200);
      for (const event of res.body.events) {
        queue.last = Math.max(queue.last, event.id);
        if (event.type !== 'message') continue;
        seen.push(event.message);
        if (event.message.sender_id === senderId) return seen;
      }
    }
    throw new Error(`no message from ${senderId}: ${JSON.stringify(seen)}`);
  }

  test('a direct message to it alone is answered, by keyword or with the keywords it knows', async () => {
    const { owner } = await server.createRealm('Answers Co', 'answers');
    const [welcome] = await directMessages(owner);
    const bot = welcome.sender_id;
    const registered = await server.call('POST', '/register', {
      as: owner,
      params: { event_types: JSON.stringify(['message']) },
    });
    const queue = { id: registered.body.queue_id as string, last: -1 };
    const ask = async (content: string) => {
      const sent = await server.call('POST', '/messages', {
        as: owner,
        params: { type: 'direct', to: JSON.stringify([bot]), content },
      });
      expect(sent.status).toBe(200);
      const seen = await untilMessageFrom(owner, queue, bot);
      expect(seen[0]).toMatchObject({ id: sent.body.id, sender_id: owner.id });
      const answer = seen[seen.length - 1];
      expect(answer).toMatchObject({ type: 'private', sender_email: 'welcome-bot@zulip.com' });
      expect(answer.id).toBeGreaterThan(sent.body.id);
      expect(answer.display_recipient.map((u: { id: number }) => u.id).sort()).toEqual(
        [owner.id, bot].sort((a, b) => a - b),
      );
      // The queue was registered without apply_markdown: contents come as sent.
      return answer.content as string;
    };
    expect(await ask('How do **Topics** work?')).toContain(
      'Each message in a channel carries a topic',
    );
    expect(await ask('hello there')).toContain(
      'I answer just a few words: `channels`, `topics`, `formatting`, `profile`.',
    );
  }, 90_000);

  test('a message to Welcome Bot and someone else gets no answer', async () => {
    const { realm, owner } = await server.createRealm('Group Co', 'group');
    const other = await server.createUser(realm, { email: 'other@example.com' });
    const [welcome] = await directMessages(owner);
    const sent = await server.call('POST', '/messages', {
      as: owner,
      params: {
        type: 'direct',
        to: JSON.stringify([welcome.sender_id, other.id]),
        content: 'topics?',
      },
    });
    expect(sent.status).toBe(200);
    // An answer would follow the commit at once; a message sent after it shows none came.
    const marker = await server.call('POST', '/messages', {
      as: owner,
      params: { type: 'direct', to: JSON.stringify([other.id]), content: 'marker' },
    });
    const newest = await server.call('GET', '/messages', {
      as: owner,
      params: {
        anchor: 'newest',
        num_before: 3,
        num_after: 0,
        narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]),
      },
    });
    expect(newest.body.messages.map((m: { id: number }) => m.id)).toEqual([
      welcome.id,
      sent.body.id,
      marker.body.id,
    ]);
  }, 90_000);
});

describe('WELCOME_MESSAGES=0', () => {
  test('no Welcome Bot and no message', async () => {
    await TestServer.using({ WELCOME_MESSAGES: '0' }, async (quiet) => {
      const { realm, owner } = await quiet.createRealm();
      const res = await quiet.call('GET', '/messages', {
        as: owner,
        params: { anchor: 'newest', num_before: 10, num_after: 0 },
      });
      expect(res.body.messages).toEqual([]);
      const bots = await quiet.services.db.read((db) =>
        db.user.count({ where: { realmId: realm.id, isBot: true } }),
      );
      expect(bots).toBe(0);
    });
  });

  test('any other value is refused when the server starts', () => {
    expect(() => loadConfig({ WELCOME_MESSAGES: 'yes' })).toThrow(
      new ConfigError('WELCOME_MESSAGES must be 1 (send them) or 0 (do not)'),
    );
  });
});
