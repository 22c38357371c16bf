// DELETE /users/me: a user deactivates their own account (and their bots);
// others hear of it as of any deactivation, the register state follows, the
// credentials stop working, and the last user or owner cannot leave.
import { applyEvents } from './support/apply-events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

/** The parts of the register state a deactivation changes. */
const people = (state: Record<string, any>) => ({
  realm_users: state.realm_users.map((u: { user_id: number }) => u.user_id),
  realm_non_active_users: state.realm_non_active_users.map((u: { user_id: number }) => u.user_id),
  realm_user_groups: state.realm_user_groups,
});

test('a member deactivates themself and their bots; everyone hears of it', async () => {
  const leaver = await server.createUser(cast.realm, { email: 'leaving@example.com' });
  const bot = await server.createUser(cast.realm, {
    email: 'leaving-bot@example.com',
    isBot: true,
  });
  await server.services.db.write((tx) =>
    tx.user.update({ where: { id: bot.id }, data: { botOwnerId: leaver.id } }),
  );
  const state = await register(server, cast.member, {
    event_types: ['realm_user', 'user_group'],
    fetch_event_types: ['realm_user', 'realm_user_groups'],
  });

  const res = await server.call('DELETE', '/users/me', { as: leaver });
  expect(res.body).toEqual({ result: 'success', msg: '' });

  const events = await eventsOf(server, cast.member, state.queue_id);
  expect(events.filter((e) => e.type === 'realm_user')).toEqual(
    expect.arrayContaining(
      [bot.id, leaver.id].map((id) => ({
        id: expect.any(Number),
        type: 'realm_user',
        op: 'update',
        person: { user_id: id, is_active: false },
      })),
    ),
  );
  const fresh = await register(server, cast.member, {
    fetch_event_types: ['realm_user', 'realm_user_groups'],
  });
  expect(people(applyEvents(state, events))).toEqual(people(fresh));
  expect(people(fresh).realm_non_active_users).toEqual(expect.arrayContaining([leaver.id, bot.id]));

  // The credentials no longer work.
  const after = await server.call('GET', '/users/me', { as: leaver });
  expect([after.status, after.body.msg]).toEqual([401, 'Account is deactivated']);
});

test('the last owner cannot deactivate themself; with a second owner they can', async () => {
  expectError(
    await server.call('DELETE', '/users/me', { as: cast.owner }),
    400,
    'CANNOT_DEACTIVATE_LAST_USER',
    'Cannot deactivate the only organization owner.',
    { is_last_owner: true, entity: 'organization owner' },
  );
  const second = await server.createUser(cast.realm, {
    email: 'second-owner@example.com',
    role: 100,
  });
  expect((await server.call('DELETE', '/users/me', { as: second })).status).toBe(200);
  expectError(
    await server.call('DELETE', '/users/me', { as: cast.owner }),
    400,
    'CANNOT_DEACTIVATE_LAST_USER',
    'Cannot deactivate the only organization owner.',
    { is_last_owner: true, entity: 'organization owner' },
  );
});

test("the organization's only user cannot deactivate themself", async () => {
  const solo = await server.createRealm('Lonely', 'lonely');
  expectError(
    await server.call('DELETE', '/users/me', {
      as: solo.owner,
      headers: { host: 'lonely.chat.test' },
    }),
    400,
    'CANNOT_DEACTIVATE_LAST_USER',
    'Cannot deactivate the only user.',
    { is_last_owner: false, entity: 'user' },
  );
});
