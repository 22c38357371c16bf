// PATCH /realm: the settings other areas consult and the group settings,
// with who may change them.
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
let system: Record<string, number>;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  const groups = await server.services.db.read((db) =>
    db.userGroup.findMany({ where: { realmId: cast.realm.id, isSystemGroup: true } }),
  );
  system = Object.fromEntries(groups.map((g) => [g.name!, g.id]));
});
afterAll(() => server.stop());

const error = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
const register = async () =>
  (
    await server.ok('POST', '/register', {
      as: cast.admin,
      params: { fetch_event_types: ['realm'], event_types: [] },
    })
  ).body;

describe('PATCH /realm', () => {
  test('changes plain settings, read back from /register', async () => {
    const res = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: {
        allow_message_editing: false,
        message_content_edit_limit_seconds: 'unlimited',
        move_messages_within_stream_limit_seconds: 3600,
        move_messages_between_streams_limit_seconds: null,
        message_edit_history_visibility_policy: 'moves',
        topics_policy: 'disable_empty_topic',
        email_address_visibility: 3,
      },
    });
    expect(res.status).toBe(200);
    expect(await register()).toMatchObject({
      realm_allow_message_editing: false,
      realm_message_content_edit_limit_seconds: null,
      realm_move_messages_within_stream_limit_seconds: 3600,
      realm_move_messages_between_streams_limit_seconds: null,
      realm_message_edit_history_visibility_policy: 'moves',
      realm_topics_policy: 'disable_empty_topic',
      realm_mandatory_topics: true,
      realm_email_address_visibility: 3,
    });
    const user = await server.createUser(cast.realm, { email: 'after-visibility@example.com' });
    const read = await server.call('GET', `/users/${user.id}`, { as: cast.member });
    expect(read.body.user.delivery_email).toBeNull();
  });

  test('group settings take {new, old}; some need an owner', async () => {
    const ok = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: {
        can_resolve_topics_group: { new: system['role:moderators'], old: system['role:everyone'] },
      },
    });
    expect(ok.status).toBe(200);
    const wrong = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: {
        can_resolve_topics_group: { new: system['role:members'], old: system['role:everyone'] },
      },
    });
    expect(wrong.body).toEqual(
      error("'old' value does not match the expected value.", 'EXPECTATION_MISMATCH'),
    );
    const ownerOnly = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: { can_create_groups: { new: system['role:moderators'] } },
    });
    expect(ownerOnly.body).toEqual(
      error('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'),
    );
    const anonymous = await server.call('PATCH', '/realm', {
      as: cast.owner,
      params: {
        can_create_groups: {
          new: { direct_members: [cast.member.id], direct_subgroups: [system['role:moderators']] },
        },
      },
    });
    expect(anonymous.status).toBe(200);
    expect(await register()).toMatchObject({
      realm_can_resolve_topics_group: system['role:moderators'],
      realm_can_create_groups: {
        direct_members: [cast.member.id],
        direct_subgroups: [system['role:moderators']],
      },
    });
  });

  test('setting restrictions: system groups where required, no role:everyone where guests may not hold it', async () => {
    const group = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'realm setting group', description: '', members: [] },
    });
    const system_required = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: { can_access_all_users_group: { new: group.body.group_id } },
    });
    expect(system_required.body).toEqual({
      ...error(
        "'can_access_all_users_group' must be a system user group.",
        'SYSTEM_GROUP_REQUIRED',
      ),
      setting_name: 'can_access_all_users_group',
    });
    const everyone = await server.call('PATCH', '/realm', {
      as: cast.admin,
      params: { can_add_custom_emoji_group: { new: system['role:everyone'] } },
    });
    expect(everyone.body).toEqual(
      error("'can_add_custom_emoji_group' setting cannot be set to 'role:everyone' group."),
    );
    const nobody = await server.call('PATCH', '/realm', {
      as: cast.owner,
      params: { can_manage_all_groups: { new: system['role:nobody'] } },
    });
    expect(nobody.body).toEqual(
      error("'can_manage_all_groups' setting cannot be set to 'role:nobody' group."),
    );
  });

  test('non-administrators are refused', async () => {
    for (const as of [cast.moderator, cast.member, cast.guest]) {
      const res = await server.call('PATCH', '/realm', {
        as,
        params: { allow_message_editing: true },
      });
      expect(res.body).toEqual(
        error('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'),
      );
    }
  });

  test('a waiting period moves new members out of role:fullmembers', async () => {
    await server.ok('PATCH', '/realm', {
      as: cast.admin,
      params: { waiting_period_threshold: 10 },
    });
    const groups = (await server.call('GET', '/user_groups', { as: cast.admin })).body.user_groups;
    expect(groups.find((g: { name: string }) => g.name === 'role:fullmembers').members).toEqual([]);
    await server.ok('PATCH', '/realm', {
      as: cast.admin,
      params: { waiting_period_threshold: 0 },
    });
    const after = (await server.call('GET', '/user_groups', { as: cast.admin })).body.user_groups;
    expect(after.find((g: { name: string }) => g.name === 'role:fullmembers').members).toEqual(
      expect.arrayContaining([cast.member.id, cast.member2.id]),
    );
  });
});
