// Restricted user visibility (can_access_all_users_group set to role:members):
// what a guest sees of the users they share no channel or conversation with,
// in GET /users, GET /users/{id} and /users/{email}, POST /register (with and
// without the user_list_incomplete capability), presence and realm_user events.
import type { User } from '../generated/prisma/sqlite/client';
import { Role } from '../src/lib/constants';
import { applyEvents } from './support/apply-events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectRefusal, register, sendDirect, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let bot: User;
/** A deactivated user who once wrote to the guest, and one who never did. */
let formerPartner: User;
let stranger: User;
let system: Record<string, number>;

const idsOf = (users: { user_id: number }[]) => users.map((u) => u.user_id).sort((a, b) => a - b);

/** The "Unknown user" a client without user_list_incomplete gets for `id`. */
const unknown = (id: number) => ({
  user_id: id,
  delivery_email: null,
  email: `user${id}@chat.test`,
  full_name: 'Unknown user',
  date_joined: '1970-01-01T00:00:00.000Z',
  is_active: true,
  is_owner: false,
  is_admin: false,
  is_guest: false,
  is_bot: false,
  bot_type: null,
  role: Role.MEMBER,
  timezone: '',
  avatar_url: '/static/images/unknown-user-avatar.png',
  avatar_version: 1,
  profile_data: {},
});

beforeAll(async () => {
  server = await TestServer.start({ LOG_LEVEL: 'error' });
  cast = await server.createCast();
  const groups = await server.services.db.read((db) =>
    db.userGroup.findMany({ where: { realmId: cast.realm.id, isSystemGroup: true } }),
  );
  system = Object.fromEntries(groups.map((g) => [g.name!, g.id]));
  // The guest starts with no channel: setup leaves the default channels they joined.
  await server.services.db.write((tx) =>
    tx.subscription.updateMany({ where: { userId: cast.guest.id }, data: { active: false } }),
  );
  bot = await server.createUser(cast.realm, { email: 'helper-bot@example.com', isBot: true });
  // The guest shares a channel with Hamlet and a conversation with Shiva.
  await subscribe(server, cast.member, ['guest room'], {
    principals: [cast.member.id, cast.guest.id],
  });
  await sendDirect(server, cast.moderator, [cast.guest.id], 'Welcome aboard');
  formerPartner = await server.createUser(cast.realm, { email: 'former@example.com' });
  await sendDirect(server, formerPartner, [cast.guest.id], 'I am leaving soon');
  stranger = await server.createUser(cast.realm, { email: 'stranger@example.com' });
  for (const gone of [formerPartner, stranger])
    await server.ok('DELETE', `/users/${gone.id}`, { as: cast.admin });
  await server.ok('PATCH', '/realm', {
    as: cast.owner,
    params: { can_access_all_users_group: { new: system['role:members'] } },
  });
});
afterAll(() => server.stop());

/** The users the guest may see, bots included. */
function visibleToGuest(): number[] {
  return [cast.guest.id, cast.member.id, cast.moderator.id, formerPartner.id, bot.id].sort(
    (a, b) => a - b,
  );
}

describe('the setting', () => {
  test('takes role:members or role:everyone, and no other group', async () => {
    const admins = await server.call('PATCH', '/realm', {
      as: cast.owner,
      params: { can_access_all_users_group: { new: system['role:administrators'] } },
    });
    expectRefusal(
      admins,
      "'can_access_all_users_group' setting cannot be set to 'role:administrators' group.",
    );
    const state = await register(server, cast.owner, { fetch_event_types: ['realm'] });
    expect(state.realm_can_access_all_users_group).toBe(system['role:members']);
  });
});

describe('GET /users', () => {
  test('a restricted guest gets only the users they may see, bots included', async () => {
    const res = await server.ok('GET', '/users', { as: cast.guest });
    expect(idsOf(res.body.members)).toEqual(expect.arrayContaining(visibleToGuest()));
    const ids = idsOf(res.body.members);
    for (const hidden of [cast.owner.id, cast.admin.id, cast.member2.id, stranger.id])
      expect(ids).not.toContain(hidden);
    const bots = res.body.members.filter((u: { is_bot: boolean }) => u.is_bot);
    const humans = res.body.members.filter((u: { is_bot: boolean }) => !u.is_bot);
    expect(idsOf(humans)).toEqual(
      [cast.guest.id, cast.member.id, cast.moderator.id, formerPartner.id].sort((a, b) => a - b),
    );
    expect(bots.map((b: { user_id: number }) => b.user_id)).toContain(bot.id);
  });

  test('members still see everyone', async () => {
    const res = await server.ok('GET', '/users', { as: cast.member });
    expect(idsOf(res.body.members)).toEqual(
      expect.arrayContaining([cast.owner.id, cast.member2.id, stranger.id, cast.guest.id]),
    );
  });
});

describe('GET /users/{user_id} and /users/{email}', () => {
  test('a hidden user is "Insufficient permission"; a visible one, a bot and oneself are not', async () => {
    expectRefusal(
      await server.call('GET', `/users/${cast.member2.id}`, { as: cast.guest }),
      'Insufficient permission',
    );
    expectRefusal(
      await server.call('GET', `/users/${stranger.id}`, { as: cast.guest }),
      'Insufficient permission',
    );
    expectRefusal(
      await server.call('GET', `/users/user${cast.member2.id}@chat.test`, { as: cast.guest }),
      'Insufficient permission',
    );
    for (const id of [cast.member.id, cast.moderator.id, formerPartner.id, bot.id, cast.guest.id]) {
      const res = await server.ok('GET', `/users/${id}`, { as: cast.guest });
      expect(res.body.user.user_id).toBe(id);
    }
    const byEmail = await server.ok('GET', `/users/user${cast.member.id}@chat.test`, {
      as: cast.guest,
    });
    expect(byEmail.body.user.full_name).toBe('King Hamlet');
    const asMember = await server.ok('GET', `/users/${cast.member2.id}`, { as: cast.member });
    expect(asMember.body.user.full_name).toBe('Cordelia Lear');
  });

  test('a missing user is still "No such user"', async () => {
    expectRefusal(await server.call('GET', '/users/999999', { as: cast.guest }), 'No such user');
  });
});

describe('POST /register', () => {
  test('with user_list_incomplete, only the users the guest may see', async () => {
    const state = await register(server, cast.guest, {
      fetch_event_types: ['realm_user'],
      client_capabilities: { user_list_incomplete: true },
    });
    const active = visibleToGuest().filter((id) => id !== formerPartner.id);
    expect(idsOf(state.realm_users)).toEqual(expect.arrayContaining(active));
    for (const hidden of [cast.owner.id, cast.admin.id, cast.member2.id])
      expect(idsOf(state.realm_users)).not.toContain(hidden);
    expect(idsOf(state.realm_non_active_users)).toEqual([formerPartner.id]);
    expect(
      state.realm_users.some((u: { full_name: string }) => u.full_name === 'Unknown user'),
    ).toBe(false);
  });

  test('without it, an "Unknown user" for each hidden user, deactivated ones too', async () => {
    const state = await register(server, cast.guest, { fetch_event_types: ['realm_user'] });
    for (const hidden of [cast.owner, cast.admin, cast.member2, stranger])
      expect(state.realm_users.find((u: { user_id: number }) => u.user_id === hidden.id)).toEqual(
        unknown(hidden.id),
      );
    const hamlet = state.realm_users.find((u: { user_id: number }) => u.user_id === cast.member.id);
    expect(hamlet.full_name).toBe('King Hamlet');
    expect(idsOf(state.realm_non_active_users)).toEqual([formerPartner.id]);
  });

  test('members get every user', async () => {
    const state = await register(server, cast.member, { fetch_event_types: ['realm_user'] });
    expect(idsOf(state.realm_users)).toEqual(
      expect.arrayContaining([cast.owner.id, cast.member2.id, cast.guest.id]),
    );
    expect(idsOf(state.realm_non_active_users)).toEqual([formerPartner.id, stranger.id]);
  });
});

describe('presence', () => {
  test("a guest still reads a hidden user's availability, as Zulip allows", async () => {
    await server.ok('POST', '/users/me/presence', {
      as: cast.member2,
      params: { status: 'active' },
    });
    const res = await server.ok('GET', `/users/${cast.member2.id}/presence`, { as: cast.guest });
    expect(res.body.presence.aggregated.status).toBe('active');
  });
});

describe('realm_user events', () => {
  /** Registers the guest's and a member's queues, and returns a function reading all three. */
  async function queues() {
    const capable = await register(server, cast.guest, {
      fetch_event_types: ['realm_user'],
      event_types: ['realm_user'],
      client_capabilities: { user_list_incomplete: true },
    });
    const legacy = await register(server, cast.guest, {
      fetch_event_types: ['realm_user'],
      event_types: ['realm_user'],
    });
    const member = await register(server, cast.member, {
      fetch_event_types: ['realm_user'],
      event_types: ['realm_user'],
    });
    return {
      capable,
      legacy,
      member,
      read: async () => ({
        capable: await eventsOf(server, cast.guest, capable.queue_id),
        legacy: await eventsOf(server, cast.guest, legacy.queue_id),
        member: await eventsOf(server, cast.member, member.queue_id),
      }),
    };
  }

  test('a new user: a hidden one is an "Unknown user" to old clients, nothing to new ones', async () => {
    const q = await queues();
    const newcomer = await server.createUser(cast.realm, { email: 'newcomer@example.com' });
    const events = await q.read();
    expect(events.capable).toEqual([]);
    expect(events.legacy).toEqual([
      { id: expect.any(Number), type: 'realm_user', op: 'add', person: unknown(newcomer.id) },
    ]);
    expect(events.member).toEqual([
      expect.objectContaining({
        type: 'realm_user',
        op: 'add',
        person: expect.objectContaining({ user_id: newcomer.id, full_name: 'newcomer' }),
      }),
    ]);
    // Applying the events gives what a fresh register returns.
    for (const [state, capable] of [
      [q.capable, true],
      [q.legacy, false],
    ] as const) {
      const applied = applyEvents(state, capable ? events.capable : events.legacy);
      const fresh = await register(server, cast.guest, {
        fetch_event_types: ['realm_user'],
        client_capabilities: capable ? { user_list_incomplete: true } : {},
      });
      expect(idsOf(applied.realm_users)).toEqual(idsOf(fresh.realm_users));
    }
  });

  test("joining the guest's channel makes a user visible: a realm_user add with the real user", async () => {
    const q = await queues();
    await server.ok('POST', '/users/me/subscriptions', {
      as: cast.member,
      params: { subscriptions: [{ name: 'guest room' }], principals: [cast.member2.id] },
    });
    const events = await q.read();
    for (const received of [events.capable, events.legacy])
      expect(received).toEqual([
        {
          id: expect.any(Number),
          type: 'realm_user',
          op: 'add',
          person: expect.objectContaining({
            user_id: cast.member2.id,
            full_name: 'Cordelia Lear',
            email: cast.member2.email,
          }),
        },
      ]);
    expect(events.member).toEqual([]);
    const fresh = await register(server, cast.guest, {
      fetch_event_types: ['realm_user'],
      client_capabilities: { user_list_incomplete: true },
    });
    const applied = applyEvents(q.capable, events.capable);
    const byId = (s: Record<string, any>) =>
      [...s.realm_users].sort((a, b) => a.user_id - b.user_id);
    expect(byId(applied)).toEqual(byId(fresh));
    const legacyApplied = applyEvents(q.legacy, events.legacy);
    expect(
      legacyApplied.realm_users.find((u: { user_id: number }) => u.user_id === cast.member2.id)
        .full_name,
    ).toBe('Cordelia Lear');
    // Leave the guest's channel again for the tests that follow.
    await server.ok('DELETE', '/users/me/subscriptions', {
      as: cast.member,
      params: { subscriptions: ['guest room'], principals: [cast.member2.id] },
    });
  });

  test('changes to a hidden user reach only those who may see them', async () => {
    const q = await queues();
    await server.ok('PATCH', '/settings', {
      as: cast.admin,
      params: { full_name: 'Iago the Admin' },
    });
    await server.ok('PATCH', '/settings', {
      as: cast.member,
      params: { full_name: 'Hamlet, Prince' },
    });
    const events = await q.read();
    const renamed = (e: Record<string, any>) => [e.person.user_id, e.person.full_name];
    expect(events.capable.map(renamed)).toEqual([[cast.member.id, 'Hamlet, Prince']]);
    expect(events.legacy.map(renamed)).toEqual([[cast.member.id, 'Hamlet, Prince']]);
    expect(events.member.map(renamed)).toEqual([
      [cast.admin.id, 'Iago the Admin'],
      [cast.member.id, 'Hamlet, Prince'],
    ]);
    await server.ok('PATCH', `/users/${cast.admin.id}`, {
      as: cast.owner,
      params: { role: Role.MODERATOR },
    });
    const roles = await q.read();
    const roleEvents = (list: Record<string, any>[]) =>
      list.filter((e) => e.type === 'realm_user' && e.op === 'update' && 'role' in e.person);
    expect(roleEvents(roles.capable)).toEqual([]);
    expect(roleEvents(roles.member)).toHaveLength(1);
    await server.ok('PATCH', `/users/${cast.admin.id}`, {
      as: cast.owner,
      params: { role: Role.ADMINISTRATOR },
    });
  });

  test('with role:everyone again, the guest sees everyone', async () => {
    await server.ok('PATCH', '/realm', {
      as: cast.owner,
      params: { can_access_all_users_group: { new: system['role:everyone'] } },
    });
    const res = await server.ok('GET', `/users/${cast.member2.id}`, { as: cast.guest });
    expect(res.body.user.full_name).toBe('Cordelia Lear');
    const state = await register(server, cast.guest, { fetch_event_types: ['realm_user'] });
    expect(
      state.realm_users.some((u: { full_name: string }) => u.full_name === 'Unknown user'),
    ).toBe(false);
    await server.ok('PATCH', '/realm', {
      as: cast.owner,
      params: { can_access_all_users_group: { new: system['role:members'] } },
    });
  });
});

describe('direct messages', () => {
  test('a guest may not write to a user hidden from them', async () => {
    const res = await server.call('POST', '/messages', {
      as: cast.guest,
      params: { type: 'direct', to: [cast.owner.id], content: 'Hello?' },
    });
    expectRefusal(res, 'You do not have permission to access some of the recipients.');
    await server.ok('POST', '/messages', {
      as: cast.guest,
      params: { type: 'direct', to: [bot.id, cast.member.id], content: 'Hello, both' },
    });
  });

  test('a hidden user writing to the guest becomes visible: a realm_user add before the message', async () => {
    const queue = await register(server, cast.guest, {
      fetch_event_types: ['realm_user'],
      event_types: ['realm_user', 'message'],
      client_capabilities: { user_list_incomplete: true },
    });
    await sendDirect(server, cast.member2, [cast.guest.id], 'Nice to meet you');
    const events = await eventsOf(server, cast.guest, queue.queue_id);
    expect(events.map((e) => [e.type, e.op])).toEqual([
      ['realm_user', 'add'],
      ['message', undefined],
    ]);
    expect(events[0].person).toEqual(
      expect.objectContaining({ user_id: cast.member2.id, full_name: 'Cordelia Lear' }),
    );
    expect(events[1].message.sender_full_name).toBe('Cordelia Lear');
    const res = await server.ok('GET', `/users/${cast.member2.id}`, { as: cast.guest });
    expect(res.body.user.full_name).toBe('Cordelia Lear');
  });
});
