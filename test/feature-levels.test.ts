// The fields and events Zulip changed between feature levels 409 and 419,
// through HTTP: the require_e2ee_push_notifications and
// welcome_message_custom_text organization settings (PATCH /realm, /register
// and their realm events), an invitation's own Welcome Bot text, partial
// subscriber lists (include_subscribers=partial), and presence events in the
// modern format for clients with the simplified_presence_events capability.
import { randomBytes } from 'node:crypto';
import { readOutbox } from '../src/lib/mail/outbox';
import { TestServer, type Cast } from './support/server';
import { eventsOf, register, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  // The organization grows past 100 users (a channel of 247 members below),
  // and presence events are checked too: they are sent in organizations up
  // to PRESENCE_EVENTS_MAX_USERS.
  ({ server, cast } = await TestServer.startWithCast({ PRESENCE_EVENTS_MAX_USERS: '1000' }));
}, 120_000);
afterAll(() => server.stop());

describe('organization settings of levels 409 and 416', () => {
  test('PATCH /realm stores both, /register reads them back, everyone is told', async () => {
    const before = await register(server, cast.member, { fetch_event_types: ['realm'] });
    expect(before).toMatchObject({
      realm_require_e2ee_push_notifications: false,
      realm_welcome_message_custom_text: '',
    });
    const queue = await register(server, cast.member, { event_types: ['realm'] });
    const res = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: {
        require_e2ee_push_notifications: true,
        welcome_message_custom_text: 'Say hello in #**general**.',
      },
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const after = await register(server, cast.member, { fetch_event_types: ['realm'] });
    expect(after).toMatchObject({
      realm_require_e2ee_push_notifications: true,
      realm_welcome_message_custom_text: 'Say hello in #**general**.',
    });
    const events = await eventsOf(server, cast.member, queue.queue_id);
    expect(events.map((e) => [e.type, e.op, e.data])).toEqual([
      ['realm', 'update_dict', { require_e2ee_push_notifications: true }],
      ['realm', 'update_dict', { welcome_message_custom_text: 'Say hello in #**general**.' }],
    ]);

    // Setting the same value again changes nothing and says nothing.
    const again = await register(server, cast.member, { event_types: ['realm'] });
    await server.ok('PATCH', '/realm', {
      as: cast.admin,
      params: { require_e2ee_push_notifications: true },
    });
    expect(await eventsOf(server, cast.member, again.queue_id)).toEqual([]);
  });

  test('members may not change them; a text over 8000 characters is refused', async () => {
    const member = await server.call('PATCH', '/realm', {
      as: cast.member,
      params: { require_e2ee_push_notifications: false },
    });
    expect(member.body).toEqual({
      result: 'error',
      msg: 'Must be an organization administrator',
      code: 'UNAUTHORIZED_PRINCIPAL',
    });
    const long = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: { welcome_message_custom_text: 'x'.repeat(8001) },
    });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({
      msg: 'welcome_message_custom_text is too long (limit: 8000 characters)',
    });
    const state = await register(server, cast.member, { fetch_event_types: ['realm'] });
    expect(state.realm_require_e2ee_push_notifications).toBe(true);
  });
});

describe("Welcome Bot's custom text for newcomers (level 416)", () => {
  /** The join link (a path) of a reusable invitation made by `as` with `params`. */
  async function inviteLink(
    other: TestServer,
    as: Cast['admin'],
    params: Record<string, unknown>,
  ): Promise<string> {
    const res = await other.ok('POST', '/invites/multiuse', { as, params });
    return new URL(res.body.invite_link).pathname;
  }

  /** Joins through `path` as `email`, then returns the contents of their messages from Welcome Bot. */
  async function joinAndReadWelcome(other: TestServer, path: string, email: string) {
    const res = await fetch(`${other.url}${path}`, {
      method: 'POST',
      body: new URLSearchParams({ email, full_name: 'New Person', password: 'new-password' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(201);
    const user = await other.services.db.read((db) =>
      db.user.findFirstOrThrow({ where: { emailLower: email } }),
    );
    const messages = await other.ok('GET', '/messages', {
      as: user,
      params: { anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: false },
    });
    return messages.body.messages
      .filter((m: { sender_email: string }) => m.sender_email.startsWith('welcome-bot@'))
      .map((m: { content: string }) => m.content);
  }

  test("the invitation's text, the organization's, or none", async () => {
    await TestServer.using({ WELCOME_MESSAGES: '1' }, async (other) => {
      const people = await other.createCast();
      await other.ok('PATCH', '/realm', {
        as: people.admin,
        params: { welcome_message_custom_text: '  Read #**general** first.  ' },
      });

      // No text in the invitation: the organization's, trimmed, after the welcome message.
      const plain = await joinAndReadWelcome(
        other,
        await inviteLink(other, people.admin, {}),
        'plain@example.org',
      );
      expect(plain).toHaveLength(2);
      expect(plain[0]).toContain('I am Welcome Bot');
      expect(plain[1]).toBe('Read #**general** first.');

      // The invitation's own text replaces it.
      const own = await joinAndReadWelcome(
        other,
        await inviteLink(other, people.admin, {
          welcome_message_custom_text: 'Welcome to the design team!',
        }),
        'own@example.org',
      );
      expect(own).toEqual([own[0], 'Welcome to the design team!']);

      // An empty text in the invitation sends none.
      const none = await joinAndReadWelcome(
        other,
        await inviteLink(other, people.admin, { welcome_message_custom_text: '' }),
        'none@example.org',
      );
      expect(none).toHaveLength(1);

      // A member's text (in an email invitation) is ignored: the organization's applies.
      await other.ok('POST', '/invites', {
        as: people.member,
        params: { invitee_emails: 'bymember@example.org', welcome_message_custom_text: 'Mine!' },
      });
      const [mail] = await other.services.db.read((db) => readOutbox(db, 'bymember@example.org'));
      const emailed = /http:\/\/chat\.test(\/join\/[A-Za-z0-9_-]+)/.exec(mail.text)![1];
      const byMember = await joinAndReadWelcome(other, emailed, 'bymember@example.org');
      expect(byMember[1]).toBe('Read #**general** first.');

      const tooLong = await other.call('POST', '/invites/multiuse', {
        as: people.admin,
        params: { welcome_message_custom_text: 'y'.repeat(8001) },
      });
      expect(tooLong.body).toMatchObject({
        result: 'error',
        msg: 'welcome_message_custom_text is too long (limit: 8000 characters)',
      });
    });
  });
});

describe('include_subscribers=partial (level 412)', () => {
  let crowd: number;
  let small: number;
  let bot: { id: number };
  let recent: number;

  beforeAll(async () => {
    await subscribe(server, cast.admin, ['crowd', 'small'], {
      principals: [cast.admin.id, cast.member.id],
    });
    crowd = await streamId(server, cast.admin, 'crowd');
    small = await streamId(server, cast.admin, 'small');
    // 250 subscribers in all: the two above, a bot, and 247 people who have
    // not been active lately (stored directly: creating them one by one through
    // the API would take most of the test's time).
    const created = await server.ok('POST', '/bots', {
      as: cast.member,
      params: { full_name: 'Crowd Bot', short_name: 'crowd', bot_type: 1 },
    });
    bot = { id: created.body.user_id };
    await server.ok('POST', '/users/me/subscriptions', {
      as: cast.admin,
      params: { subscriptions: [{ name: 'crowd' }], principals: [bot.id] },
    });
    await server.services.db.write(async (tx) => {
      await tx.user.createMany({
        data: Array.from({ length: 247 }, (_, i) => ({
          realmId: cast.realm.id,
          email: `quiet${i}@example.com`,
          emailLower: `quiet${i}@example.com`,
          fullName: `Quiet ${i}`,
          apiKey: randomBytes(16).toString('hex'),
        })),
      });
      const quiet = await tx.user.findMany({
        where: { realmId: cast.realm.id, email: { startsWith: 'quiet' } },
        orderBy: { id: 'asc' },
      });
      await tx.subscription.createMany({
        data: quiet.map((u) => ({ userId: u.id, streamId: crowd, color: '#76ce90' })),
      });
      // One of them was last active three weeks ago; another one today.
      await tx.userPresence.create({
        data: {
          userId: quiet[0].id,
          realmId: cast.realm.id,
          lastActiveTime: new Date(Date.now() - 21 * 86_400_000),
          lastConnectedTime: new Date(Date.now() - 21 * 86_400_000),
        },
      });
      recent = quiet[1].id;
    });
    const recentUser = await server.services.db.read((db) =>
      db.user.findUniqueOrThrow({ where: { id: recent } }),
    );
    await server.ok('POST', '/users/me/presence', {
      as: recentUser,
      params: { status: 'active' },
    });
    await server.ok('POST', '/users/me/presence', {
      as: cast.member,
      params: { status: 'active' },
    });
  });

  test('GET /users/me/subscriptions: large channels list their bots and recently active people', async () => {
    const res = await server.call('GET', '/users/me/subscriptions', {
      as: cast.member,
      params: { include_subscribers: 'partial' },
    });
    expect(res.status).toBe(200);
    const byId = new Map(res.body.subscriptions.map((s: any) => [s.stream_id, s]));
    const large: any = byId.get(crowd);
    expect(large.subscriber_count).toBe(250);
    expect(large.subscribers).toBeUndefined();
    expect([...large.partial_subscribers].sort((a, b) => a - b)).toEqual(
      [cast.member.id, bot.id, recent].sort((a, b) => a - b),
    );
    const few: any = byId.get(small);
    expect(few.partial_subscribers).toBeUndefined();
    expect([...few.subscribers].sort()).toEqual([cast.admin.id, cast.member.id].sort());

    // The value may also come as JSON text; true still lists everyone.
    const json = await server.call('GET', '/users/me/subscriptions', {
      as: cast.member,
      params: { include_subscribers: '"partial"' },
    });
    expect(
      json.body.subscriptions.find((s: any) => s.stream_id === crowd).partial_subscribers,
    ).toHaveLength(3);
    const all = await server.call('GET', '/users/me/subscriptions', {
      as: cast.member,
      params: { include_subscribers: true },
    });
    const whole = all.body.subscriptions.find((s: any) => s.stream_id === crowd);
    expect(whole.subscribers).toHaveLength(250);
    expect(whole.partial_subscribers).toBeUndefined();

    const none = await server.call('GET', '/users/me/subscriptions', {
      as: cast.member,
      params: { include_subscribers: false },
    });
    const without = none.body.subscriptions.find((s: any) => s.stream_id === crowd);
    expect(without.subscribers).toBeUndefined();
    expect(without.partial_subscribers).toBeUndefined();

    const bad = await server.call('GET', '/users/me/subscriptions', {
      as: cast.member,
      params: { include_subscribers: 'some' },
    });
    expect(bad.status).toBe(400);
  });

  test('POST /register: the same in subscriptions and never_subscribed', async () => {
    const plain = await register(server, cast.member, {
      fetch_event_types: ['subscription'],
      include_subscribers: false,
    });
    expect(plain.subscriptions.find((s: any) => s.stream_id === crowd).subscribers).toBeUndefined();
    const member = await register(server, cast.member, {
      fetch_event_types: ['subscription'],
      include_subscribers: 'partial',
    });
    const mine = member.subscriptions.find((s: any) => s.stream_id === crowd);
    expect(mine.partial_subscribers).toHaveLength(3);
    expect(mine.subscribers).toBeUndefined();
    expect(member.subscriptions.find((s: any) => s.stream_id === small).subscribers).toHaveLength(
      2,
    );
    const other = await register(server, cast.member2, {
      fetch_event_types: ['subscription'],
      include_subscribers: 'partial',
    });
    const never = other.never_subscribed.find((s: any) => s.stream_id === crowd);
    expect(never.partial_subscribers).toHaveLength(3);
    expect(never.subscribers).toBeUndefined();
  });
});

describe('simplified_presence_events (level 419)', () => {
  test('clients with the capability get the modern map, others the legacy fields', async () => {
    const modern = await register(server, cast.admin, {
      event_types: ['presence'],
      client_capabilities: { simplified_presence_events: true },
    });
    const legacy = await register(server, cast.admin, { event_types: ['presence'] });
    await server.ok('POST', '/users/me/presence', {
      as: cast.member2,
      params: { status: 'active' },
    });
    const [newer] = await eventsOf(server, cast.admin, modern.queue_id);
    expect(newer).toEqual({
      id: expect.any(Number),
      type: 'presence',
      presences: {
        [String(cast.member2.id)]: {
          active_timestamp: expect.any(Number),
          idle_timestamp: expect.any(Number),
        },
      },
    });
    const entry = newer.presences[String(cast.member2.id)];
    expect(Math.abs(entry.active_timestamp - Date.now() / 1000)).toBeLessThan(60);
    const [older] = await eventsOf(server, cast.admin, legacy.queue_id);
    expect(older).toMatchObject({
      type: 'presence',
      user_id: cast.member2.id,
      email: cast.member2.email,
      presence: { website: { client: 'website', status: 'active' } },
    });
    expect(older.presences).toBeUndefined();
  });
});
