// A new organization's first state, as Zulip creates one: the channels Zulip,
// sandbox and general, default for every newcomer, Welcome Bot's first
// conversations in them, and the same state for someone who joins through an
// invitation link. WELCOME_MESSAGES=0 (the other test files) leaves it all out.
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start({ WELCOME_MESSAGES: '1' });
}, 120_000);
afterAll(() => server.stop());

/** The names of the channels `user` is subscribed to, sorted. */
async function subscribedNames(user: User): Promise<string[]> {
  const res = await server.call('GET', '/users/me/subscriptions', { as: user });
  expect(res.status).toBe(200);
  return res.body.subscriptions.map((s: { name: string }) => s.name).sort();
}

/** The messages of a channel as `user` reads them, oldest first. */
async function channelMessages(user: User, channel: string) {
  const res = await server.call('GET', '/messages', {
    as: user,
    params: {
      anchor: 'oldest',
      num_before: 0,
      num_after: 100,
      apply_markdown: false,
      narrow: [{ operator: 'channel', operand: channel }],
    },
  });
  expect(res.status).toBe(200);
  return res.body.messages as {
    id: number;
    subject: string;
    content: string;
    sender_email: string;
    flags: string[];
  }[];
}

const topicsOf = (messages: { subject: string }[]) => [...new Set(messages.map((m) => m.subject))];

describe('a new organization', () => {
  let owner: User;
  beforeAll(async () => {
    ({ owner } = await server.createRealm('Acme', 'acme'));
  }, 60_000);

  test('starts with the public channels Zulip, sandbox and general, default for newcomers', async () => {
    expect(await subscribedNames(owner)).toEqual(['Zulip', 'general', 'sandbox']);
    const state = await server.call('POST', '/register', {
      as: owner,
      params: { fetch_event_types: ['default_streams', 'subscription'] },
    });
    const subscriptions = state.body.subscriptions as {
      stream_id: number;
      name: string;
      invite_only: boolean;
      description: string;
    }[];
    expect([...state.body.realm_default_streams].sort()).toEqual(
      subscriptions.map((s) => s.stream_id).sort(),
    );
    for (const s of subscriptions) expect([s.name, s.invite_only]).toEqual([s.name, false]);
    expect(subscriptions.find((s) => s.name === 'sandbox')!.description).toBe(
      'Try Zulip out here. :test_tube:',
    );
  });

  test("holds Welcome Bot's first conversations, the main welcome last", async () => {
    const zulip = await channelMessages(owner, 'Zulip');
    expect(topicsOf(zulip)).toEqual(['moving messages', 'welcome to Zulip!']);
    expect(topicsOf(await channelMessages(owner, 'sandbox'))).toEqual([
      'experiments',
      'start a conversation',
    ]);
    const general = await channelMessages(owner, 'general');
    expect(topicsOf(general)).toEqual(['greetings']);
    expect(general[0].content).toContain('say hello :wave:');
    const all = [...zulip, ...general];
    for (const m of all) expect(m.sender_email).toBe('welcome-bot@zulip.com');
    const newest = Math.max(...all.map((m) => m.id));
    expect(zulip.find((m) => m.id === newest)!.subject).toBe('welcome to Zulip!');
    // The owner joined before they were posted: they are unread.
    for (const m of zulip) expect(m.flags).not.toContain('read');
  });

  test('the welcome points newcomers to where to start', async () => {
    const welcome = (await channelMessages(owner, 'Zulip')).filter(
      (m) => m.subject === 'welcome to Zulip!',
    );
    expect(welcome).toHaveLength(3);
    expect(welcome[0].content).toContain('#**Zulip**');
    expect(welcome[2].content).toContain('[Inbox](/#inbox)');
    const dms = await server.call('GET', '/messages', {
      as: owner,
      params: {
        anchor: 'oldest',
        num_before: 0,
        num_after: 10,
        narrow: [{ operator: 'is', operand: 'dm' }],
      },
    });
    expect(dms.body.messages).toHaveLength(1);
    expect(dms.body.messages[0].sender_email).toBe('welcome-bot@zulip.com');
  });

  test('someone joining with an invitation link finds the same channels and conversations', async () => {
    const link = await server.call('POST', '/invites/multiuse', {
      as: owner,
      params: { invite_as: 400, include_realm_default_subscriptions: true, stream_ids: [] },
    });
    expect(link.status).toBe(200);
    const path = new URL(link.body.invite_link).pathname;
    const joined = await fetch(`${server.url}${path}`, {
      method: 'POST',
      body: new URLSearchParams({
        email: 'newcomer@example.com',
        full_name: 'New Comer',
        password: 'a long enough password',
      }),
    });
    expect(joined.status).toBe(201);
    const newcomer = await server.services.db.read((db) =>
      db.user.findFirstOrThrow({ where: { emailLower: 'newcomer@example.com' } }),
    );
    expect(await subscribedNames(newcomer)).toEqual(['Zulip', 'general', 'sandbox']);
    expect(topicsOf(await channelMessages(newcomer, 'general'))).toEqual(['greetings']);
    expect(topicsOf(await channelMessages(newcomer, 'Zulip'))).toEqual([
      'moving messages',
      'welcome to Zulip!',
    ]);
  });

  test('each new organization gets its own first channels, made without a creator', async () => {
    const { realm } = await server.createRealm('Beta', 'beta');
    const names = await server.services.db.read((db) =>
      db.stream.findMany({ where: { realmId: realm.id, isDefault: true }, orderBy: { id: 'asc' } }),
    );
    expect(names.map((s) => s.name)).toEqual(['Zulip', 'sandbox', 'general']);
    expect(names.map((s) => s.creatorId)).toEqual([null, null, null]);
  });
});

describe('with WELCOME_MESSAGES=0', () => {
  test('a new organization starts without channels or messages', async () => {
    await TestServer.using({ WELCOME_MESSAGES: '0' }, async (quiet) => {
      const { owner, realm } = await quiet.createRealm('Quiet', 'quiet');
      const res = await quiet.call('GET', '/users/me/subscriptions', { as: owner });
      expect(res.body.subscriptions).toEqual([]);
      const count = await quiet.services.db.read((db) =>
        db.message.count({ where: { realmId: realm.id } }),
      );
      expect(count).toBe(0);
    });
  });
});
