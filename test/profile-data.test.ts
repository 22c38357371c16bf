// A user's own custom profile field values: PATCH and DELETE
// /users/me/profile_data, form-encoded and JSON; the values read back on GET
// /users/me and GET /users/{user_id}; the realm_user update events everyone
// receives, applied to the /register state; fields only administrators may
// edit; each refusal, which changes nothing; and bots.
import { applyEvents } from './support/apply-events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectRefusal, register } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
/** Field IDs by name. */
const field: Record<string, number> = {};

type User = Cast['member'];

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  const fields: [string, Record<string, unknown>][] = [
    ['Phone', { field_type: 1 }],
    ['Bio', { field_type: 2 }],
    [
      'Team',
      {
        field_type: 3,
        field_data: {
          eng: { text: 'Engineering', order: '1' },
          ops: { text: 'Operations', order: '2' },
        },
      },
    ],
    ['Birthday', { field_type: 4 }],
    ['Website', { field_type: 5 }],
    ['Mentor', { field_type: 6 }],
    ['Pronouns', { field_type: 8 }],
    ['Employee ID', { field_type: 1, editable_by_user: false }],
  ];
  for (const [name, params] of fields) {
    const res = await server.call('POST', '/realm/profile_fields', {
      as: cast.admin,
      params: { name, ...params },
    });
    expect(res.status).toBe(200);
    field[name] = res.body.id;
  }
});
afterAll(() => server.stop());

const success = { result: 'success', msg: '' };

function patch(as: User, data: unknown, encoding: 'form' | 'json' = 'form') {
  return server.call('PATCH', '/users/me/profile_data', { as, params: { data }, encoding });
}

function remove(as: User, data: unknown, encoding: 'query' | 'form' | 'json' = 'query') {
  return server.call('DELETE', '/users/me/profile_data', { as, params: { data }, encoding });
}

/** A user's values as another user reads them. */
async function valuesOf(user: User, as: User = cast.owner) {
  const res = await server.call('GET', `/users/${user.id}`, {
    as,
    params: { include_custom_profile_fields: true },
  });
  expect(res.status).toBe(200);
  return res.body.user.profile_data;
}

/** A user's values as they read them on GET /users/me. */
async function ownValues(user: User) {
  const res = await server.call('GET', '/users/me', { as: user });
  expect(res.status).toBe(200);
  return res.body.profile_data;
}

/** The realm_user update event of one changed value. */
const valueEvent = (user: User, id: number, value: string | null, rendered?: string) => ({
  id: expect.any(Number),
  type: 'realm_user',
  op: 'update',
  person: {
    user_id: user.id,
    custom_profile_field: { id, value, ...(rendered ? { rendered_value: rendered } : {}) },
  },
});

let made = 0;
function freshMember(role?: number): Promise<User> {
  made += 1;
  return server.createUser(cast.realm, { email: `profile${made}@example.com`, role });
}

describe('setting values', () => {
  test('a JSON body sets values of every type; everyone sees them and gets events', async () => {
    const user = await freshMember();
    const watcher = await register(server, cast.member2, { event_types: ['realm_user'] });
    const res = await patch(
      user,
      [
        { id: field.Phone, value: '+1 555 0100' },
        { id: field.Bio, value: 'I like *tea*' },
        { id: field.Team, value: 'ops' },
        { id: field.Birthday, value: '1990-05-17' },
        { id: field.Website, value: 'https://example.com/me' },
        { id: field.Mentor, value: [cast.owner.id, cast.admin.id] },
        { id: field.Pronouns, value: 'they/them' },
      ],
      'json',
    );
    expect(res.body).toEqual(success);
    const expected = {
      [field.Phone]: { value: '+1 555 0100', rendered_value: '<p>+1 555 0100</p>' },
      [field.Bio]: { value: 'I like *tea*', rendered_value: '<p>I like <em>tea</em></p>' },
      [field.Team]: { value: 'ops' },
      [field.Birthday]: { value: '1990-05-17' },
      [field.Website]: { value: 'https://example.com/me' },
      [field.Mentor]: { value: JSON.stringify([cast.owner.id, cast.admin.id]) },
      [field.Pronouns]: { value: 'they/them' },
    };
    expect(await valuesOf(user, cast.member2)).toEqual(expected);
    expect(await ownValues(user)).toEqual(expected);
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([
      valueEvent(user, field.Phone, '+1 555 0100', '<p>+1 555 0100</p>'),
      valueEvent(user, field.Bio, 'I like *tea*', '<p>I like <em>tea</em></p>'),
      valueEvent(user, field.Team, 'ops'),
      valueEvent(user, field.Birthday, '1990-05-17'),
      valueEvent(user, field.Website, 'https://example.com/me'),
      valueEvent(user, field.Mentor, JSON.stringify([cast.owner.id, cast.admin.id])),
      valueEvent(user, field.Pronouns, 'they/them'),
    ]);
  });

  test('a form body carries the data as JSON text', async () => {
    const user = await freshMember();
    const watcher = await register(server, cast.guest, { event_types: ['realm_user'] });
    const res = await server.call('PATCH', '/users/me/profile_data', {
      as: user,
      params: {
        data: JSON.stringify([
          { id: field.Phone, value: '12345' },
          { id: field.Mentor, value: [cast.member.id] },
        ]),
      },
      encoding: 'form',
    });
    expect(res.body).toEqual(success);
    expect(await valuesOf(user)).toEqual({
      [field.Phone]: { value: '12345', rendered_value: '<p>12345</p>' },
      [field.Mentor]: { value: JSON.stringify([cast.member.id]) },
    });
    expect(await eventsOf(server, cast.guest, watcher.queue_id)).toEqual([
      valueEvent(user, field.Phone, '12345', '<p>12345</p>'),
      valueEvent(user, field.Mentor, JSON.stringify([cast.member.id])),
    ]);
  });

  test('a value that does not change sends no event; a changed one replaces the old', async () => {
    const user = await freshMember();
    expect((await patch(user, [{ id: field.Team, value: 'eng' }])).body).toEqual(success);
    const watcher = await register(server, cast.member2, { event_types: ['realm_user'] });
    expect((await patch(user, [{ id: field.Team, value: 'eng' }])).body).toEqual(success);
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([]);
    expect((await patch(user, [{ id: field.Team, value: 'ops' }])).body).toEqual(success);
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([
      valueEvent(user, field.Team, 'ops'),
    ]);
    expect(await valuesOf(user)).toEqual({ [field.Team]: { value: 'ops' } });
  });

  test('null, an empty text and an empty list remove values, with null events', async () => {
    const user = await freshMember();
    await patch(user, [
      { id: field.Phone, value: '1' },
      { id: field.Bio, value: 'b' },
      { id: field.Mentor, value: [cast.owner.id] },
      { id: field.Pronouns, value: 'she/her' },
    ]);
    const watcher = await register(server, cast.member2, { event_types: ['realm_user'] });
    const res = await patch(
      user,
      [
        { id: field.Phone, value: null },
        { id: field.Bio, value: '' },
        { id: field.Mentor, value: [] },
      ],
      'json',
    );
    expect(res.body).toEqual(success);
    expect(await valuesOf(user)).toEqual({ [field.Pronouns]: { value: 'she/her' } });
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([
      valueEvent(user, field.Phone, null),
      valueEvent(user, field.Bio, null),
      valueEvent(user, field.Mentor, null),
    ]);
    // null in a form body too; removing what is not there sends nothing.
    expect((await patch(user, [{ id: field.Pronouns, value: null }], 'form')).body).toEqual(
      success,
    );
    expect((await patch(user, [{ id: field.Phone, value: null }], 'form')).body).toEqual(success);
    expect(await valuesOf(user)).toEqual({});
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([
      valueEvent(user, field.Phone, null),
      valueEvent(user, field.Bio, null),
      valueEvent(user, field.Mentor, null),
      valueEvent(user, field.Pronouns, null),
    ]);
  });

  test('guests, moderators and owners change their own values', async () => {
    for (const user of [cast.guest, cast.moderator, cast.owner]) {
      expect((await patch(user, [{ id: field.Pronouns, value: 'ze/zir' }])).body).toEqual(success);
      expect((await ownValues(user))[field.Pronouns]).toEqual({ value: 'ze/zir' });
      expect((await remove(user, [field.Pronouns])).body).toEqual(success);
      expect(await ownValues(user)).toEqual({});
    }
  });

  test('the events applied to the /register state give what a fresh /register returns', async () => {
    const user = await freshMember();
    await patch(user, [{ id: field.Team, value: 'eng' }]);
    const initial = await register(server, cast.member2, {
      event_types: ['realm_user'],
      fetch_event_types: ['realm_user'],
    });
    await patch(user, [
      { id: field.Phone, value: '777' },
      { id: field.Team, value: 'ops' },
    ]);
    await remove(user, [field.Phone]);
    await patch(user, [{ id: field.Bio, value: '**bold**' }], 'json');
    const events = await eventsOf(server, cast.member2, initial.queue_id);
    expect(events).toHaveLength(4);
    const fresh = await register(server, cast.member2, {
      event_types: [],
      fetch_event_types: ['realm_user'],
    });
    const person = (state: { realm_users: { user_id: number }[] }) =>
      state.realm_users.find((p) => p.user_id === user.id);
    expect(person(fresh)).toMatchObject({
      profile_data: {
        [field.Team]: { value: 'ops' },
        [field.Bio]: { value: '**bold**', rendered_value: '<p><strong>bold</strong></p>' },
      },
    });
    expect(applyEvents(initial, events).realm_users).toEqual(fresh.realm_users);
  });
});

describe('DELETE /users/me/profile_data', () => {
  async function withValues(): Promise<User> {
    const user = await freshMember();
    const res = await patch(user, [
      { id: field.Phone, value: '1' },
      { id: field.Team, value: 'eng' },
      { id: field.Website, value: 'https://example.org' },
    ]);
    expect(res.body).toEqual(success);
    return user;
  }

  test('removes the values named in the query string, with events', async () => {
    const user = await withValues();
    const watcher = await register(server, cast.member2, { event_types: ['realm_user'] });
    expect((await remove(user, [field.Phone, field.Team])).body).toEqual(success);
    expect(await valuesOf(user)).toEqual({ [field.Website]: { value: 'https://example.org' } });
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([
      valueEvent(user, field.Phone, null),
      valueEvent(user, field.Team, null),
    ]);
  });

  test('takes the IDs as a repeated query parameter, or a lone one', async () => {
    const user = await withValues();
    const repeated = await server.call(
      'DELETE',
      `/users/me/profile_data?data=${field.Phone}&data=${field.Website}`,
      { as: user },
    );
    expect(repeated.body).toEqual(success);
    expect(await valuesOf(user)).toEqual({ [field.Team]: { value: 'eng' } });
    const lone = await server.call('DELETE', `/users/me/profile_data?data=${field.Team}`, {
      as: user,
    });
    expect(lone.body).toEqual(success);
    expect(await valuesOf(user)).toEqual({});
  });

  test('takes the IDs in a form body, or a JSON body', async () => {
    const user = await withValues();
    expect((await remove(user, [field.Phone], 'form')).body).toEqual(success);
    expect(await valuesOf(user)).not.toHaveProperty(String(field.Phone));
    expect((await remove(user, [field.Team], 'json')).body).toEqual(success);
    expect(await valuesOf(user)).toEqual({ [field.Website]: { value: 'https://example.org' } });
  });

  test('a value the user does not have: success, and no event', async () => {
    const user = await withValues();
    const watcher = await register(server, cast.member2, { event_types: ['realm_user'] });
    expect((await remove(user, [field.Bio, field.Birthday])).body).toEqual(success);
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([]);
    // Only the value that was there gives an event.
    expect((await remove(user, [field.Bio, field.Phone])).body).toEqual(success);
    expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([
      valueEvent(user, field.Phone, null),
    ]);
    expect(Object.keys(await valuesOf(user)).sort()).toEqual(
      [String(field.Team), String(field.Website)].sort(),
    );
  });

  test('an unknown field is refused, and nothing is removed', async () => {
    const user = await withValues();
    expectRefusal(await remove(user, [field.Phone, 999999]), 'Field id 999999 not found.');
    expect(Object.keys(await valuesOf(user))).toHaveLength(3);
  });

  test('data is required', async () => {
    const res = await server.call('DELETE', '/users/me/profile_data', { as: cast.member });
    expectRefusal(res, "Missing 'data' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'data',
    });
  });
});

describe('fields only administrators may edit', () => {
  test('a member may neither set nor clear them; nothing of the request is done', async () => {
    const user = await freshMember();
    const refusal =
      'You are not allowed to change this field. Contact an administrator to update it.';
    for (const encoding of ['form', 'json'] as const)
      expectRefusal(
        await patch(
          user,
          [
            { id: field.Phone, value: 'mine' },
            { id: field['Employee ID'], value: 'E-1' },
          ],
          encoding,
        ),
        refusal,
      );
    expect(await valuesOf(user)).toEqual({});
    // Set by an administrator, the member cannot clear it either.
    const set = await server.call('PATCH', `/users/${user.id}`, {
      as: cast.admin,
      params: { profile_data: [{ id: field['Employee ID'], value: 'E-7' }] },
    });
    expect(set.status).toBe(200);
    expectRefusal(await remove(user, [field['Employee ID']]), refusal);
    expectRefusal(await patch(user, [{ id: field['Employee ID'], value: null }]), refusal);
    expect(await valuesOf(user)).toEqual({
      [field['Employee ID']]: { value: 'E-7', rendered_value: '<p>E-7</p>' },
    });
  });

  test.each([
    ['a moderator', 300, false],
    ['a guest', 600, false],
    ['an administrator', 200, true],
    ['an owner', 100, true],
  ])('%s: allowed %s', async (_label, role, allowed) => {
    const user = await freshMember(role);
    const set = await patch(user, [{ id: field['Employee ID'], value: 'E-42' }], 'json');
    const cleared = await remove(user, [field['Employee ID']]);
    if (!allowed) {
      for (const res of [set, cleared])
        expectRefusal(
          res,
          'You are not allowed to change this field. Contact an administrator to update it.',
        );
      return;
    }
    expect(set.body).toEqual(success);
    expect(cleared.body).toEqual(success);
    expect(await valuesOf(user)).toEqual({});
  });

  test("an administrator's own change of such a field is announced", async () => {
    const watcher = await register(server, cast.member, { event_types: ['realm_user'] });
    expect((await patch(cast.admin, [{ id: field['Employee ID'], value: 'A-1' }])).body).toEqual(
      success,
    );
    expect((await ownValues(cast.admin))[field['Employee ID']]).toEqual({
      value: 'A-1',
      rendered_value: '<p>A-1</p>',
    });
    expect(await eventsOf(server, cast.member, watcher.queue_id)).toEqual([
      valueEvent(cast.admin, field['Employee ID'], 'A-1', '<p>A-1</p>'),
    ]);
    expect((await remove(cast.admin, [field['Employee ID']])).body).toEqual(success);
  });
});

describe('refusals', () => {
  test('an unknown field, or one of another organization, refuses the whole request', async () => {
    const user = await freshMember();
    const other = await server.createRealm('Elsewhere', 'elsewhere');
    const theirs = await server.call('POST', '/realm/profile_fields', {
      as: other.owner,
      params: { name: 'Theirs', field_type: 1 },
    });
    expect(theirs.status).toBe(200);
    for (const missing of [999999, theirs.body.id])
      expectRefusal(
        await patch(user, [
          { id: field.Phone, value: 'x' },
          { id: missing, value: 'y' },
        ]),
        `Field id ${missing} not found.`,
      );
    expect(await valuesOf(user)).toEqual({});
  });

  test.each([
    ['Birthday', 'not a date', 'Birthday is not a date'],
    ['Birthday', '2023-02-30', 'Birthday is not a date'],
    ['Team', 'sales', "'sales' is not a valid choice for 'Team'."],
    ['Team', 'toString', "'toString' is not a valid choice for 'Team'."],
    ['Team', 'constructor', "'constructor' is not a valid choice for 'Team'."],
    ['Website', 'not a url', 'Website is not a URL'],
    ['Website', 'ftp://example.com', 'Website is not a URL'],
    ['Phone', 'x'.repeat(51), 'Phone is too long (limit: 50 characters)'],
    ['Bio', 'x'.repeat(501), 'Bio is too long (limit: 500 characters)'],
    ['Mentor', [999999], 'Invalid user ID: 999999'],
    ['Mentor', 'someone', 'Mentor is not a list'],
    ['Phone', [1, 2], 'Phone is not a string'],
  ])(
    '%s = a bad value (case %#) is refused, and the request changes nothing',
    async (name, value, msg) => {
      const user = await freshMember();
      await patch(user, [{ id: field.Pronouns, value: 'he/him' }]);
      const watcher = await register(server, cast.member2, { event_types: ['realm_user'] });
      for (const encoding of ['form', 'json'] as const)
        expectRefusal(
          await patch(
            user,
            [
              { id: field.Pronouns, value: null },
              { id: field.Phone === field[name] ? field.Bio : field.Phone, value: 'ok' },
              { id: field[name], value },
            ],
            encoding,
          ),
          msg,
        );
      expect(await valuesOf(user)).toEqual({ [field.Pronouns]: { value: 'he/him' } });
      expect(await eventsOf(server, cast.member2, watcher.queue_id)).toEqual([]);
    },
  );

  test('a deactivated user is not a valid person value', async () => {
    const gone = await freshMember();
    await server.services.db.write((tx) =>
      tx.user.update({ where: { id: gone.id }, data: { isActive: false } }),
    );
    const user = await freshMember();
    expectRefusal(
      await patch(user, [{ id: field.Mentor, value: [cast.owner.id, gone.id] }]),
      `Invalid user ID: ${gone.id}`,
    );
  });

  test('malformed data is refused with the name of what is wrong', async () => {
    const user = await freshMember();
    expectRefusal(
      await server.call('PATCH', '/users/me/profile_data', { as: user, params: {} }),
      "Missing 'data' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'data' },
    );
    expectRefusal(
      await patch(user, [{ id: field.Phone }], 'json'),
      'data[0]["value"] field is missing',
    );
    expectRefusal(await patch(user, [{ value: 'x' }], 'json'), 'data[0]["id"] field is missing');
    expectRefusal(
      await patch(user, [{ id: 'Phone', value: 'x' }], 'json'),
      'data[0]["id"] is not an integer',
    );
    expectRefusal(await patch(user, { id: field.Phone, value: 'x' }, 'json'), 'data is not a list');
    expectRefusal(
      await server.call('PATCH', '/users/me/profile_data', {
        as: user,
        params: { data: 'not json' },
      }),
      'data is not valid JSON',
    );
    expect(await valuesOf(user)).toEqual({});
  });

  test('bots are refused, whatever they ask', async () => {
    const bot = await server.createUser(cast.realm, {
      email: 'profile-bot@example.com',
      isBot: true,
    });
    const refusal = 'This endpoint does not accept bot requests.';
    expectRefusal(await patch(bot, [{ id: field.Phone, value: '1' }]), refusal);
    expectRefusal(await patch(bot, [{ id: 999999, value: '1' }], 'json'), refusal);
    expectRefusal(await remove(bot, [field.Phone]), refusal);
    const stored = await server.services.db.read((db) =>
      db.customProfileFieldValue.findMany({ where: { userId: bot.id } }),
    );
    expect(stored).toEqual([]);
  });
});
