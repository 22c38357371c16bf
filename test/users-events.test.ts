// Events of the users and groups area: their shapes, and the rule that
// applying them to a /register initial state gives what a fresh /register
// returns (realm_users, realm_user_groups, user_status, custom_profile_fields,
// realm settings), for clients with and without include_deactivated_groups.
import type { User } from '../generated/prisma/sqlite/client';
import { Role } from '../src/lib/constants';
import { applyEvents, type Event, type State } from './support/apply-events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
let system: Record<string, number>;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await server.services.db.write((tx) =>
    tx.user.update({
      where: { id: cast.owner.id },
      data: { canCreateUsers: true, canChangeUserEmails: true },
    }),
  );
  server.services.auth.forgetUser(cast.owner.id);
  const groups = await server.services.db.read((db) =>
    db.userGroup.findMany({ where: { realmId: cast.realm.id, isSystemGroup: true } }),
  );
  system = Object.fromEntries(groups.map((g) => [g.name!, g.id]));
});
afterAll(() => server.stop());

async function register(as: User, capable: boolean): Promise<State> {
  const res = await server.call('POST', '/register', {
    as,
    params: {
      client_gravatar: false,
      client_capabilities: capable ? { include_deactivated_groups: true } : {},
    },
  });
  expect(res.status).toBe(200);
  return res.body;
}

async function events(as: User, queueId: string): Promise<Event[]> {
  const res = await server.call('GET', '/events', {
    as,
    params: { queue_id: queueId, last_event_id: -1, dont_block: true },
  });
  return res.body.events;
}

const byId = (a: { user_id?: number; id?: number }, b: { user_id?: number; id?: number }) =>
  (a.user_id ?? a.id!) - (b.user_id ?? b.id!);
const numeric = (a: number, b: number) => a - b;

/** The parts of the state this area owns. */
function area(state: State) {
  const sortMembers = (v: any) =>
    typeof v === 'object' && v && 'direct_members' in v
      ? {
          direct_members: [...v.direct_members].sort(numeric),
          direct_subgroups: [...v.direct_subgroups].sort(numeric),
        }
      : v;
  const groups = state.realm_user_groups.map((g: any) =>
    Object.fromEntries(
      Object.entries(g).map(([k, v]) => [k, k.startsWith('can_') ? sortMembers(v) : v]),
    ),
  );
  const realm = Object.fromEntries(
    Object.entries(state)
      .filter(
        ([k]) =>
          k.startsWith('realm_') &&
          !['realm_users', 'realm_non_active_users', 'realm_user_groups', 'realm_emoji'].includes(
            k,
          ),
      )
      .map(([k, v]) => [k, sortMembers(v)]),
  );
  return {
    realm_users: [...state.realm_users].sort(byId),
    realm_non_active_users: [...state.realm_non_active_users].sort(byId),
    realm_user_groups: groups,
    user_status: state.user_status,
    custom_profile_fields: state.custom_profile_fields,
    realm,
    user_settings: state.user_settings,
  };
}

test('applying every event of the area to the initial state gives a fresh /register', async () => {
  const capable = await register(cast.owner, true);
  const legacy = await register(cast.owner, false);
  const shy = await server.createUser(cast.realm, { email: 'shy-events@example.com' });
  await server.ok('PATCH', '/settings', { as: shy, params: { email_address_visibility: 3 } });

  // Users: creation, role, name, profile data, email, deactivation and reactivation.
  const created = await server.call('POST', '/users', {
    as: cast.owner,
    params: { email: 'evented@example.com', password: 'pw-123456', full_name: 'Evented' },
  });
  const newId = created.body.user_id;
  await server.ok('PATCH', `/users/${newId}`, {
    as: cast.owner,
    params: { role: Role.MODERATOR, full_name: 'Evented Person' },
  });
  const field = (
    await server.ok('POST', '/realm/profile_fields', {
      as: cast.admin,
      params: { name: 'Bio', field_type: 2 },
    })
  ).body.id;
  const phone = (
    await server.ok('POST', '/realm/profile_fields', {
      as: cast.admin,
      params: { name: 'Phone', field_type: 1 },
    })
  ).body.id;
  await server.ok('PATCH', `/users/${newId}`, {
    as: cast.admin,
    params: {
      profile_data: [
        { id: field, value: 'Hello *there*' },
        { id: phone, value: '555' },
      ],
    },
  });
  await server.ok('PATCH', `/users/${newId}`, {
    as: cast.admin,
    params: { profile_data: [{ id: phone, value: '' }] },
  });
  await server.ok('PATCH', `/users/${shy.id}`, {
    as: cast.owner,
    params: { new_email: 'shy-renamed@example.com' },
  });
  await server.ok('PATCH', `/users/${cast.member2.id}`, {
    as: cast.owner,
    params: { new_email: 'cordelia-new@example.com' },
  });

  // Statuses.
  await server.ok('POST', '/users/me/status', {
    as: cast.member,
    params: { status_text: 'Busy', emoji_name: 'car' },
  });
  await server.ok('POST', '/users/me/status', { as: cast.member, params: { emoji_name: '' } });
  await server.ok('POST', `/users/${cast.guest.id}/status`, {
    as: cast.admin,
    params: { status_text: 'Visiting' },
  });
  await server.ok('POST', '/users/me/status', { as: cast.moderator, params: { away: true } });

  // Groups.
  const inner = (
    await server.ok('POST', '/user_groups/create', {
      as: cast.member,
      params: { name: 'inner', description: 'Inner', members: [cast.member.id] },
    })
  ).body.group_id;
  const outer = (
    await server.ok('POST', '/user_groups/create', {
      as: cast.member,
      params: { name: 'outer', description: 'Outer', members: [newId], subgroups: [inner] },
    })
  ).body.group_id;
  await server.ok('PATCH', `/user_groups/${outer}`, {
    as: cast.member,
    params: {
      name: 'outer renamed',
      can_mention_group: {
        new: { direct_members: [newId, cast.guest.id], direct_subgroups: [inner] },
      },
    },
  });
  await server.ok('POST', `/user_groups/${outer}/members`, {
    as: cast.member,
    params: { add: [cast.member2.id], delete: [newId] },
  });
  await server.ok('POST', `/user_groups/${outer}/members`, {
    as: cast.member,
    params: { delete_subgroups: [inner] },
  });
  await server.ok('POST', `/user_groups/${outer}/members`, {
    as: cast.member,
    params: { add_subgroups: [inner] },
  });
  const spare = (
    await server.ok('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'spare', description: '', members: [cast.member.id] },
    })
  ).body.group_id;
  expect(
    (await server.call('POST', `/user_groups/${spare}/deactivate`, { as: cast.admin })).status,
  ).toBe(200);
  await server.ok('PATCH', `/user_groups/${spare}`, {
    as: cast.admin,
    params: { description: 'Renamed while deactivated' },
  });
  const gone = (
    await server.ok('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'gone', description: '', members: [] },
    })
  ).body.group_id;
  await server.ok('POST', `/user_groups/${gone}/deactivate`, { as: cast.admin });
  await server.ok('PATCH', `/user_groups/${spare}`, {
    as: cast.admin,
    params: { deactivated: false },
  });

  // Realm settings.
  await server.ok('PATCH', '/realm', {
    as: cast.owner,
    params: {
      allow_message_editing: false,
      message_content_edit_limit_seconds: 'unlimited',
      topics_policy: 'disable_empty_topic',
      email_address_visibility: 2,
    },
  });
  await server.ok('PATCH', '/realm', {
    as: cast.owner,
    params: {
      can_create_groups: {
        new: {
          direct_members: [cast.guest.id, cast.member.id],
          direct_subgroups: [system['role:moderators']],
        },
      },
      can_resolve_topics_group: { new: system['role:members'] },
    },
  });
  await server.ok('PATCH', '/realm', { as: cast.owner, params: { waiting_period_threshold: 5 } });

  // A member of groups and anonymous settings is deactivated, another one too and comes back.
  await server.ok('DELETE', `/users/${cast.guest.id}`, { as: cast.admin });
  await server.ok('DELETE', `/users/${cast.member.id}`, { as: cast.admin });
  await server.ok('POST', `/users/${cast.member.id}/reactivate`, { as: cast.admin });

  const got = await events(cast.owner, capable.queue_id);
  const types = new Set(got.map((e) => `${e.type}/${e.op ?? ''}`));
  for (const t of [
    'realm_user/add',
    'realm_user/update',
    'user_group/add',
    'user_group/update',
    'user_group/add_members',
    'user_group/remove_members',
    'user_group/add_subgroups',
    'user_group/remove_subgroups',
    'realm/update_dict',
    'custom_profile_fields/',
    'user_status/',
  ]) {
    expect(types).toContain(t);
  }
  expect(got).toContainEqual({
    id: expect.any(Number),
    type: 'user_group',
    op: 'update',
    group_id: spare,
    data: { deactivated: true },
  });
  expect(got).toContainEqual({
    id: expect.any(Number),
    type: 'realm',
    op: 'update_dict',
    property: 'default',
    data: { allow_message_editing: false },
  });
  expect(got).toContainEqual({
    id: expect.any(Number),
    type: 'user_status',
    user_id: cast.member.id,
    status_text: 'Busy',
    emoji_name: 'car',
    emoji_code: '1f697',
    reaction_type: 'unicode_emoji',
  });
  expect(got).toContainEqual({
    id: expect.any(Number),
    type: 'realm_user',
    op: 'update',
    person: { user_id: newId, custom_profile_field: { id: phone, value: null } },
  });
  expect(got).toContainEqual({
    id: expect.any(Number),
    type: 'realm_user',
    op: 'update',
    person: { user_id: cast.guest.id, is_active: false },
  });
  applyEvents(capable, got);
  expect(area(capable)).toEqual(area(await register(cast.owner, true)));

  const legacyEvents = await events(cast.owner, legacy.queue_id);
  expect(legacyEvents).toContainEqual({
    id: expect.any(Number),
    type: 'user_group',
    op: 'remove',
    group_id: spare,
  });
  expect(legacyEvents).toContainEqual({
    id: expect.any(Number),
    type: 'user_group',
    op: 'add',
    group: expect.objectContaining({ id: spare, deactivated: false }),
  });
  expect(
    legacyEvents.some(
      (e) =>
        e.type === 'user_group' && e.group_id === spare && e.op === 'update' && e.data.description,
    ),
  ).toBe(false);
  applyEvents(legacy, legacyEvents);
  expect(area(legacy)).toEqual(area(await register(cast.owner, false)));
});

test('delivery_email events go only to those who may see the address; hiding it sends the placeholder email', async () => {
  await server.ok('PATCH', '/realm', { as: cast.owner, params: { email_address_visibility: 1 } });
  const state = await register(cast.admin, true);
  const hidden = await server.createUser(cast.realm, { email: 'hidden-events@example.com' });
  await server.ok('PATCH', '/settings', { as: hidden, params: { email_address_visibility: 3 } });
  await server.ok('PATCH', `/users/${hidden.id}`, {
    as: cast.owner,
    params: { new_email: 'hidden-new@example.com' },
  });
  const got = await events(cast.admin, state.queue_id);
  expect(
    got
      .filter((e) => e.type === 'realm_user' && e.op === 'update' && e.person?.delivery_email)
      .map((e) => e.person.delivery_email),
  ).toEqual(['hidden-new@example.com']);
  const asMember = await register(cast.moderator, true);
  await server.ok('PATCH', `/users/${hidden.id}`, {
    as: cast.owner,
    params: { new_email: 'hidden-newer@example.com' },
  });
  expect(
    (await events(cast.moderator, asMember.queue_id)).some(
      (e) => e.type === 'realm_user' && e.person?.delivery_email,
    ),
  ).toBe(false);
  const add = got.find((e) => e.type === 'realm_user' && e.op === 'add');
  expect(add?.person).toMatchObject({
    user_id: hidden.id,
    delivery_email: 'hidden-events@example.com',
    email: 'hidden-events@example.com',
    profile_data: {},
  });
  expect(got).toContainEqual({
    id: expect.any(Number),
    type: 'realm_user',
    op: 'update',
    person: { user_id: hidden.id, email: `user${hidden.id}@chat.test` },
  });
});
