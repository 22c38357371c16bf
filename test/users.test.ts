// Users: GET /users, GET /users/{user_id}, GET /users/{email}, POST /users,
// PATCH /users/{user_id} and /users/{email}, DELETE /users/{user_id} and
// POST /users/{user_id}/reactivate, through HTTP, with Zulip's messages.
import { Role } from '../src/lib/constants';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

/** Changes a user row directly (for setup), and drops the cached credentials. */
async function setUser(id: number, data: Record<string, unknown>) {
  await server.services.db.write((tx) => tx.user.update({ where: { id }, data }));
  server.services.auth.forgetUser(id);
}

const error = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

describe('GET /users', () => {
  test('lists every account with the fields of Part 2.4, deactivated ones and bots included', async () => {
    const bot = await server.createUser(cast.realm, { email: 'bot-list@example.com', isBot: true });
    const gone = await server.createUser(cast.realm, { email: 'gone-list@example.com' });
    await setUser(gone.id, { isActive: false });
    const res = await server.call('GET', '/users', { as: cast.member });
    expect(res.status).toBe(200);
    const ids = res.body.members.map((u: { user_id: number }) => u.user_id);
    expect(ids).toEqual(expect.arrayContaining([cast.owner.id, cast.guest.id, bot.id, gone.id]));
    const owner = res.body.members.find((u: { user_id: number }) => u.user_id === cast.owner.id);
    expect(owner).toEqual({
      user_id: cast.owner.id,
      delivery_email: cast.owner.email,
      email: cast.owner.email,
      full_name: 'Olivia Owner',
      date_joined: cast.owner.dateJoined.toISOString(),
      is_active: true,
      is_owner: true,
      is_admin: true,
      is_guest: false,
      is_bot: false,
      bot_type: null,
      role: Role.OWNER,
      timezone: '',
      avatar_url: null,
      avatar_version: 1,
    });
    expect(owner).not.toHaveProperty('is_billing_admin');
    expect(res.body.members.find((u: { user_id: number }) => u.user_id === gone.id).is_active).toBe(
      false,
    );
  });

  test('client_gravatar=false gives gravatar URLs, and profile data only when asked for', async () => {
    const res = await server.call('GET', '/users', {
      as: cast.member,
      params: { client_gravatar: false, include_custom_profile_fields: true },
    });
    const member = res.body.members.find((u: { user_id: number }) => u.user_id === cast.member.id);
    expect(member.avatar_url).toMatch(
      /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/,
    );
    expect(member.profile_data).toEqual({});
    const bot = res.body.members.find((u: { is_bot: boolean }) => u.is_bot);
    expect(bot).not.toHaveProperty('profile_data');
  });
});

describe('email visibility', () => {
  test('a hidden address reads as null with the placeholder email, and bots always show theirs', async () => {
    const shy = await server.createUser(cast.realm, { email: 'shy@example.com' });
    await setUser(shy.id, { emailAddressVisibility: 3 }); // administrators only
    const asMember = await server.call('GET', `/users/${shy.id}`, { as: cast.member });
    expect(asMember.body.user.delivery_email).toBeNull();
    expect(asMember.body.user.email).toBe(`user${shy.id}@chat.test`);
    // With the address hidden, client_gravatar cannot apply: the URL is sent.
    expect(asMember.body.user.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com/);
    const asAdmin = await server.call('GET', `/users/${shy.id}`, { as: cast.admin });
    expect(asAdmin.body.user.delivery_email).toBe('shy@example.com');
    expect(asAdmin.body.user.email).toBe(`user${shy.id}@chat.test`);
    const asSelf = await server.call('GET', `/users/${shy.id}`, { as: shy });
    expect(asSelf.body.user.delivery_email).toBe('shy@example.com');

    const bot = await server.createUser(cast.realm, {
      email: 'bot-visible@example.com',
      isBot: true,
    });
    const botRes = await server.call('GET', `/users/${bot.id}`, { as: cast.guest });
    expect(botRes.body.user).toMatchObject({
      delivery_email: 'bot-visible@example.com',
      email: 'bot-visible@example.com',
      is_bot: true,
      bot_owner_id: null,
    });
  });

  test('members-only visibility hides the address from guests', async () => {
    const user = await server.createUser(cast.realm, { email: 'members-only@example.com' });
    await setUser(user.id, { emailAddressVisibility: 2 });
    expect(
      (await server.call('GET', `/users/${user.id}`, { as: cast.guest })).body.user.delivery_email,
    ).toBeNull();
    expect(
      (await server.call('GET', `/users/${user.id}`, { as: cast.member2 })).body.user
        .delivery_email,
    ).toBe('members-only@example.com');
  });
});

describe('GET /users/{user_id} and /users/{email}', () => {
  test('an unknown ID answers "No such user"', async () => {
    const res = await server.call('GET', '/users/999999', { as: cast.member });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error('No such user'));
  });

  test('finds a user by real address (any case) and by placeholder address', async () => {
    const byEmail = await server.call('GET', '/users/HAMLET@example.com', { as: cast.member2 });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.user.user_id).toBe(cast.member.id);
    const byPlaceholder = await server.call('GET', `/users/user${cast.member.id}@chat.test`, {
      as: cast.member2,
    });
    expect(byPlaceholder.body.user.user_id).toBe(cast.member.id);
  });

  test('a hidden real address does not find the user; an unknown one answers "No such user"', async () => {
    const hidden = await server.createUser(cast.realm, { email: 'hidden-lookup@example.com' });
    await setUser(hidden.id, { emailAddressVisibility: 4 });
    const res = await server.call('GET', '/users/hidden-lookup@example.com', { as: cast.member });
    expect(res.body).toEqual(error('No such user'));
    expect(
      (await server.call('GET', '/users/nobody@example.com', { as: cast.member })).body,
    ).toEqual(error('No such user'));
  });
});

describe('POST /users', () => {
  test('an administrator with can_create_users creates an account', async () => {
    await setUser(cast.admin.id, { canCreateUsers: true });
    const res = await server.call('POST', '/users', {
      as: cast.admin,
      params: {
        email: 'newbie@example.com',
        password: 'a-strong-password',
        full_name: '  New Person ',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', user_id: expect.any(Number) });
    const read = await server.call('GET', `/users/${res.body.user_id}`, { as: cast.admin });
    expect(read.body.user).toMatchObject({
      full_name: 'New Person',
      role: Role.MEMBER,
      delivery_email: 'newbie@example.com',
    });
    const login = await server.call('POST', '/fetch_api_key', {
      params: { username: 'newbie@example.com', password: 'a-strong-password' },
    });
    expect(login.status).toBe(200);
  });

  test('an address in use is refused', async () => {
    await setUser(cast.admin.id, { canCreateUsers: true });
    const res = await server.call('POST', '/users', {
      as: cast.admin,
      params: { email: 'Hamlet@example.com', password: 'pw-123456', full_name: 'Another' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error("Email 'Hamlet@example.com' already in use"));
  });

  test('needs an administrator, and the can_create_users permission', async () => {
    const asMember = await server.call('POST', '/users', {
      as: cast.member,
      params: { email: 'x1@example.com', password: 'pw', full_name: 'X' },
    });
    expect(asMember.body).toEqual(
      error('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'),
    );
    const asOwner = await server.call('POST', '/users', {
      as: cast.owner,
      params: { email: 'x2@example.com', password: 'pw', full_name: 'X' },
    });
    expect(asOwner.body).toEqual(error('User not authorized to create users'));
  });

  test('refuses bad names and addresses, and reports missing arguments', async () => {
    await setUser(cast.admin.id, { canCreateUsers: true });
    const blank = await server.call('POST', '/users', {
      as: cast.admin,
      params: { email: 'x3@example.com', password: 'pw', full_name: '   ' },
    });
    expect(blank.body).toEqual(error('Name too short!'));
    const badEmail = await server.call('POST', '/users', {
      as: cast.admin,
      params: { email: 'not-an-address', password: 'pw', full_name: 'X' },
    });
    expect(badEmail.body).toEqual(error('Bad name or username'));
    const missing = await server.call('POST', '/users', {
      as: cast.admin,
      params: { email: 'x4@example.com', full_name: 'X' },
    });
    expect(missing.body).toEqual({
      result: 'error',
      msg: "Missing 'password' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'password',
    });
  });
});

describe('PATCH /users/{user_id}', () => {
  test('changes the name; a blank name is ignored', async () => {
    const user = await server.createUser(cast.realm, {
      email: 'rename@example.com',
      fullName: 'Old Name',
    });
    expect(
      (
        await server.call('PATCH', `/users/${user.id}`, {
          as: cast.admin,
          params: { full_name: 'New Name' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('PATCH', `/users/${user.id}`, {
          as: cast.admin,
          params: { full_name: '   ' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await server.call('GET', `/users/${user.id}`, { as: cast.admin })).body.user.full_name,
    ).toBe('New Name');
    const bad = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.admin,
      params: { full_name: 'Bad @name' },
    });
    expect(bad.body).toEqual(error('Invalid characters in name!'));
  });

  test('zulip-js style: parameters in the query string', async () => {
    const user = await server.createUser(cast.realm, {
      email: 'query-patch@example.com',
      fullName: 'Query',
    });
    const res = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.admin,
      params: { role: Role.MODERATOR },
      encoding: 'query',
    });
    expect(res.status).toBe(200);
    expect((await server.call('GET', `/users/${user.id}`, { as: cast.admin })).body.user.role).toBe(
      Role.MODERATOR,
    );
  });

  test('roles: administrators change non-owner roles; only owners grant or remove the owner role', async () => {
    const user = await server.createUser(cast.realm, { email: 'roles@example.com' });
    const guestToAdmin = await server.call('PATCH', `/users/${cast.guest.id}`, {
      as: cast.owner,
      params: { role: Role.ADMINISTRATOR },
    });
    expect(guestToAdmin.status).toBe(400);
    expect(guestToAdmin.body).toEqual(error('Guests cannot be organization administrators'));
    for (const role of [Role.MODERATOR, Role.ADMINISTRATOR, Role.GUEST, Role.MEMBER]) {
      const res = await server.call('PATCH', `/users/${user.id}`, {
        as: cast.admin,
        params: { role },
      });
      expect(res.status).toBe(200);
      const read = await server.call('GET', `/users/${user.id}`, { as: cast.admin });
      expect(read.body.user).toMatchObject({
        role,
        is_admin: role <= Role.ADMINISTRATOR,
        is_guest: role === Role.GUEST,
        is_owner: false,
      });
    }
    const grant = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.admin,
      params: { role: Role.OWNER },
    });
    expect(grant.body).toEqual(error('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'));
    const remove = await server.call('PATCH', `/users/${cast.owner.id}`, {
      as: cast.admin,
      params: { role: Role.MEMBER },
    });
    expect(remove.body).toEqual(error('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'));
    expect(
      (
        await server.call('PATCH', `/users/${user.id}`, {
          as: cast.owner,
          params: { role: Role.OWNER },
        })
      ).status,
    ).toBe(200);
    expect(
      (await server.call('GET', `/users/${user.id}`, { as: cast.admin })).body.user.is_owner,
    ).toBe(true);
    expect(
      (
        await server.call('PATCH', `/users/${user.id}`, {
          as: cast.owner,
          params: { role: Role.MEMBER },
        })
      ).status,
    ).toBe(200);
  });

  test('the last owner keeps the owner role', async () => {
    const { realm, owner } = await server.createRealm('Solo', 'solo');
    void realm;
    const res = await server.call('PATCH', `/users/${owner.id}`, {
      as: owner,
      params: { role: Role.ADMINISTRATOR },
      headers: { host: 'solo.chat.test' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      error('The owner permission cannot be removed from the only organization owner.'),
    );
  });

  test('an invalid role, a non-administrator and an unknown user are refused', async () => {
    const badRole = await server.call('PATCH', `/users/${cast.member2.id}`, {
      as: cast.admin,
      params: { role: 250 },
    });
    expect(badRole.status).toBe(400);
    expect(badRole.body.code).toBe('BAD_REQUEST');
    const asMember = await server.call('PATCH', `/users/${cast.member2.id}`, {
      as: cast.member,
      params: { full_name: 'Nope' },
    });
    expect(asMember.body).toEqual(error('Insufficient permission'));
    expect(
      (
        await server.call('PATCH', '/users/999999', {
          as: cast.admin,
          params: { full_name: 'Nope' },
        })
      ).body,
    ).toEqual(error('No such user'));
  });

  test('new_email needs an owner holding can_change_user_emails', async () => {
    const user = await server.createUser(cast.realm, { email: 'old-address@example.com' });
    const asAdmin = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.admin,
      params: { new_email: 'new-address@example.com' },
    });
    expect(asAdmin.body).toEqual(error('User not authorized to change user emails'));
    const asOwner = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.owner,
      params: { new_email: 'new-address@example.com' },
    });
    expect(asOwner.body).toEqual(error('User not authorized to change user emails'));
    await setUser(cast.owner.id, { canChangeUserEmails: true });
    const taken = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.owner,
      params: { new_email: 'hamlet@example.com' },
    });
    expect(taken.body).toEqual(error('Email is already in use.'));
    const ok = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.owner,
      params: { new_email: 'new-address@example.com' },
    });
    expect(ok.status).toBe(200);
    expect(
      (await server.call('GET', `/users/${user.id}`, { as: cast.admin })).body.user.delivery_email,
    ).toBe('new-address@example.com');
  });
});

describe('PATCH /users/{email}', () => {
  test('behaves like PATCH /users/{user_id}, finding the user by address', async () => {
    const user = await server.createUser(cast.realm, {
      email: 'by-email@example.com',
      fullName: 'By Email',
    });
    const res = await server.call('PATCH', '/users/by-email@example.com', {
      as: cast.admin,
      params: { full_name: 'Renamed By Email', role: Role.GUEST },
    });
    expect(res.status).toBe(200);
    const read = await server.call('GET', `/users/${user.id}`, { as: cast.admin });
    expect(read.body.user).toMatchObject({ full_name: 'Renamed By Email', role: Role.GUEST });
    const placeholder = await server.call('PATCH', `/users/user${user.id}@chat.test`, {
      as: cast.admin,
      params: { role: Role.MEMBER },
    });
    expect(placeholder.status).toBe(200);
    expect(
      (
        await server.call('PATCH', '/users/unknown@example.com', {
          as: cast.admin,
          params: { role: Role.MEMBER },
        })
      ).body,
    ).toEqual(error('No such user'));
    expect(
      (
        await server.call('PATCH', '/users/by-email@example.com', {
          as: cast.member,
          params: { full_name: 'X' },
        })
      ).body,
    ).toEqual(error('Insufficient permission'));
  });
});

describe('DELETE /users/{user_id} and reactivation', () => {
  test('deactivates and reactivates a user; their credentials stop and start working', async () => {
    const user = await server.createUser(cast.realm, { email: 'cycle@example.com' });
    expect((await server.call('DELETE', `/users/${user.id}`, { as: cast.admin })).status).toBe(200);
    expect((await server.call('GET', '/users/me', { as: user })).body).toEqual({
      result: 'error',
      msg: 'Account is deactivated',
      code: 'UNAUTHORIZED',
    });
    expect(
      (await server.call('GET', `/users/${user.id}`, { as: cast.member })).body.user.is_active,
    ).toBe(false);
    expect((await server.call('DELETE', `/users/${user.id}`, { as: cast.admin })).body).toEqual(
      error('User is deactivated'),
    );
    expect(
      (await server.call('POST', `/users/${user.id}/reactivate`, { as: cast.admin })).status,
    ).toBe(200);
    expect((await server.call('GET', '/users/me', { as: user })).status).toBe(200);
    expect(
      (await server.call('POST', `/users/${user.id}/reactivate`, { as: cast.admin })).body,
    ).toEqual(error('User is already active.'));
  });

  test('deactivating a user deactivates the bots they own', async () => {
    const user = await server.createUser(cast.realm, { email: 'bot-owner@example.com' });
    const bot = await server.createUser(cast.realm, {
      email: 'owned-bot@example.com',
      isBot: true,
    });
    await setUser(bot.id, { botOwnerId: user.id });
    await server.ok('DELETE', `/users/${user.id}`, { as: cast.admin });
    expect(
      (await server.call('GET', `/users/${bot.id}`, { as: cast.admin })).body.user.is_active,
    ).toBe(false);
  });

  test('the only owner cannot be deactivated, administrators cannot deactivate owners, members cannot deactivate anyone', async () => {
    const solo = await server.createRealm('Lonely', 'lonely');
    const res = await server.call('DELETE', `/users/${solo.owner.id}`, {
      as: solo.owner,
      headers: { host: 'lonely.chat.test' },
    });
    expect(res.body).toEqual(error('Cannot deactivate the only organization owner'));
    expect(
      (await server.call('DELETE', `/users/${cast.owner.id}`, { as: cast.admin })).body,
    ).toEqual(error('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'));
    expect(
      (await server.call('DELETE', `/users/${cast.member2.id}`, { as: cast.member })).body,
    ).toEqual(error('Insufficient permission'));
    const bot = await server.createUser(cast.realm, {
      email: 'not-via-users@example.com',
      isBot: true,
    });
    expect((await server.call('DELETE', `/users/${bot.id}`, { as: cast.admin })).body).toEqual(
      error('No such user'),
    );
  });
});
