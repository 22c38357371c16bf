// User groups: GET /user_groups, POST /user_groups/create, PATCH
// /user_groups/{id}, POST /user_groups/{id}/deactivate and
// POST /user_groups/{id}/members, with group-setting values (Part 2.2).
import type { User } from '../generated/prisma/sqlite/client';
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
let counter = 0;

async function createGroup(as: User, extra: Record<string, unknown> = {}): Promise<number> {
  counter += 1;
  const res = await server.call('POST', '/user_groups/create', {
    as,
    params: { name: `group ${counter}`, description: 'A group', members: [], ...extra },
  });
  expect(res.body).toEqual({ result: 'success', msg: '', group_id: expect.any(Number) });
  return res.body.group_id;
}

async function readGroup(id: number, as: User = cast.admin) {
  const res = await server.call('GET', '/user_groups', {
    as,
    params: { include_deactivated_groups: true },
  });
  return res.body.user_groups.find((g: { id: number }) => g.id === id);
}

describe('system groups', () => {
  test('every realm has the nested role groups, which cannot be edited', async () => {
    const res = await server.call('GET', '/user_groups', { as: cast.member });
    const byName = Object.fromEntries(
      res.body.user_groups.map((g: { name: string }) => [g.name, g]),
    );
    expect(Object.keys(byName)).toEqual(
      expect.arrayContaining([
        'role:owners',
        'role:administrators',
        'role:moderators',
        'role:fullmembers',
        'role:members',
        'role:everyone',
        'role:internet',
        'role:nobody',
      ]),
    );
    expect(byName['role:administrators']).toMatchObject({
      is_system_group: true,
      direct_subgroup_ids: [system['role:owners']],
      members: [cast.admin.id],
      can_manage_group: system['role:nobody'],
    });
    expect(byName['role:everyone'].direct_subgroup_ids).toEqual([system['role:members']]);
    expect(byName['role:everyone'].members).toEqual([cast.guest.id]);
    const edit = await server.call('PATCH', `/user_groups/${system['role:members']}`, {
      as: cast.owner,
      params: { description: 'x' },
    });
    expect(edit.body).toEqual(error('Insufficient permission'));
    const members = await server.call('POST', `/user_groups/${system['role:members']}/members`, {
      as: cast.owner,
      params: { add: [cast.guest.id] },
    });
    expect(members.body).toEqual(error('Insufficient permission'));
  });

  test('guests cannot list groups', async () => {
    expect((await server.call('GET', '/user_groups', { as: cast.guest })).body).toEqual(
      error('Not allowed for guest users'),
    );
  });
});

describe('POST /user_groups/create', () => {
  test('creates a group with Zulip defaults for the settings it was not given', async () => {
    const id = await createGroup(cast.member, {
      members: [cast.member.id, cast.member2.id],
      subgroups: [system['role:moderators']],
    });
    const group = await readGroup(id);
    expect(group).toEqual({
      id,
      name: expect.any(String),
      description: 'A group',
      members: [cast.member.id, cast.member2.id].sort((a, b) => a - b),
      direct_subgroup_ids: [system['role:moderators']],
      is_system_group: false,
      deactivated: false,
      creator_id: cast.member.id,
      date_created: expect.any(Number),
      can_add_members_group: { direct_members: [cast.member.id], direct_subgroups: [] },
      can_manage_group: { direct_members: [cast.member.id], direct_subgroups: [] },
      can_join_group: system['role:nobody'],
      can_remove_members_group: system['role:nobody'],
      can_leave_group: system['role:everyone'],
      can_mention_group: system['role:everyone'],
    });
  });

  test('setting values: a lone subgroup reads back as its ID, an empty value as role:nobody', async () => {
    const id = await createGroup(cast.admin, {
      can_manage_group: { direct_members: [], direct_subgroups: [system['role:moderators']] },
      can_join_group: { direct_members: [], direct_subgroups: [] },
      can_mention_group: {
        direct_members: [cast.member.id],
        direct_subgroups: [system['role:administrators']],
      },
    });
    const group = await readGroup(id);
    expect(group.can_manage_group).toBe(system['role:moderators']);
    expect(group.can_join_group).toBe(system['role:nobody']);
    expect(group.can_mention_group).toEqual({
      direct_members: [cast.member.id],
      direct_subgroups: [system['role:administrators']],
    });
  });

  test('names must be unique, non-empty, at most 100 characters and without reserved prefixes', async () => {
    const id = await createGroup(cast.admin);
    const group = await readGroup(id);
    const dup = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: group.name, description: '', members: [] },
    });
    expect(dup.body).toEqual(error(`User group '${group.name}' already exists.`));
    const empty = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: ' ', description: '', members: [] },
    });
    expect(empty.body).toEqual(error("User group name can't be empty!"));
    const long = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'x'.repeat(101), description: '', members: [] },
    });
    expect(long.body).toEqual(error('User group name cannot exceed 100 characters.'));
    for (const prefix of ['@', 'role:', 'user:', 'stream:', 'channel:']) {
      const res = await server.call('POST', '/user_groups/create', {
        as: cast.admin,
        params: { name: `${prefix}team`, description: '', members: [] },
      });
      expect(res.body).toEqual(error(`User group name cannot start with '${prefix}'.`));
    }
  });

  test('unknown or deactivated users and unknown groups are refused; required arguments are required', async () => {
    const gone = await server.createUser(cast.realm, { email: 'gone-group@example.com' });
    await server.services.db.write((tx) =>
      tx.user.update({ where: { id: gone.id }, data: { isActive: false } }),
    );
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.admin,
          params: { name: 'bad users', description: '', members: [999999] },
        })
      ).body,
    ).toEqual(error('Invalid user ID: 999999'));
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.admin,
          params: { name: 'bad users', description: '', members: [gone.id] },
        })
      ).body,
    ).toEqual(error(`Invalid user ID: ${gone.id}`));
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.admin,
          params: { name: 'bad groups', description: '', members: [], subgroups: [999999] },
        })
      ).body,
    ).toEqual(error('Invalid user group ID: 999999'));
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.admin,
          params: { name: 'no members', description: '' },
        })
      ).body,
    ).toEqual({
      result: 'error',
      msg: "Missing 'members' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'members',
    });
    const badSetting = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'bad setting', description: '', members: [], can_manage_group: 999999 },
    });
    expect(badSetting.body).toEqual(error('Invalid user group'));
    const badMember = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: {
        name: 'bad setting',
        description: '',
        members: [],
        can_manage_group: { direct_members: [gone.id], direct_subgroups: [] },
      },
    });
    expect(badMember.body).toEqual(error(`Invalid user ID: ${gone.id}`));
  });

  test('per-setting restrictions of Part 2.2', async () => {
    const cases: [string, string, string][] = [
      [
        'can_manage_group',
        'role:everyone',
        "'can_manage_group' setting cannot be set to 'role:everyone' group.",
      ],
      [
        'can_manage_group',
        'role:internet',
        "'can_manage_group' setting cannot be set to 'role:internet' group.",
      ],
      [
        'can_mention_group',
        'role:internet',
        "'can_mention_group' setting cannot be set to 'role:internet' group.",
      ],
      [
        'can_mention_group',
        'role:owners',
        "'can_mention_group' setting cannot be set to 'role:owners' group.",
      ],
    ];
    for (const [setting, group, msg] of cases) {
      const res = await server.call('POST', '/user_groups/create', {
        as: cast.admin,
        params: { name: 'restricted', description: '', members: [], [setting]: system[group] },
      });
      expect(res.body).toEqual(error(msg));
    }
  });

  test('needs can_create_groups (guests never hold it)', async () => {
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.guest,
          params: { name: 'guest group', description: '', members: [] },
        })
      ).body,
    ).toEqual(error('Insufficient permission'));
  });
});

describe('PATCH /user_groups/{id}', () => {
  test('renames and describes; settings take {new, old}; a wrong old is EXPECTATION_MISMATCH', async () => {
    const id = await createGroup(cast.member);
    expect(
      (
        await server.call('PATCH', `/user_groups/${id}`, {
          as: cast.member,
          params: { name: `renamed ${id}`, description: 'New text' },
        })
      ).status,
    ).toBe(200);
    const wrongOld = await server.call('PATCH', `/user_groups/${id}`, {
      as: cast.member,
      params: { can_join_group: { new: system['role:members'], old: system['role:everyone'] } },
    });
    expect(wrongOld.body).toEqual(
      error("'old' value does not match the expected value.", 'EXPECTATION_MISMATCH'),
    );
    const ok = await server.call('PATCH', `/user_groups/${id}`, {
      as: cast.member,
      params: { can_join_group: { new: system['role:members'], old: system['role:nobody'] } },
    });
    expect(ok.status).toBe(200);
    const anonymousOld = await server.call('PATCH', `/user_groups/${id}`, {
      as: cast.member,
      params: {
        can_manage_group: {
          new: { direct_members: [cast.member.id, cast.member2.id], direct_subgroups: [] },
          old: { direct_members: [cast.member.id], direct_subgroups: [] },
        },
      },
    });
    expect(anonymousOld.status).toBe(200);
    const group = await readGroup(id);
    expect(group).toMatchObject({
      name: `renamed ${id}`,
      description: 'New text',
      can_join_group: system['role:members'],
    });
    expect(group.can_manage_group).toEqual({
      direct_members: [cast.member.id, cast.member2.id].sort((a, b) => a - b),
      direct_subgroups: [],
    });
  });

  test('nothing to change, an unknown group and a missing permission are refused', async () => {
    const id = await createGroup(cast.member);
    expect((await server.call('PATCH', `/user_groups/${id}`, { as: cast.member })).body).toEqual(
      error('No new data supplied'),
    );
    expect(
      (
        await server.call('PATCH', '/user_groups/999999', {
          as: cast.member,
          params: { name: 'x' },
        })
      ).body,
    ).toEqual(error('Invalid user group'));
    expect(
      (
        await server.call('PATCH', `/user_groups/${id}`, {
          as: cast.member2,
          params: { name: 'x' },
        })
      ).body,
    ).toEqual(error('Insufficient permission'));
    const newSettingOnlySetting = await server.call('PATCH', `/user_groups/${id}`, {
      as: cast.member,
      params: { can_manage_group: 999999 },
    });
    expect(newSettingOnlySetting.status).toBe(400);
  });
});

describe('deactivation and reactivation', () => {
  test('a deactivated group is hidden by default, still editable, and reactivated with deactivated=false', async () => {
    const id = await createGroup(cast.member, { members: [cast.member.id] });
    expect(
      (await server.call('POST', `/user_groups/${id}/deactivate`, { as: cast.member })).status,
    ).toBe(200);
    const list = await server.call('GET', '/user_groups', { as: cast.member });
    expect(list.body.user_groups.some((g: { id: number }) => g.id === id)).toBe(false);
    expect((await readGroup(id)).deactivated).toBe(true);
    expect(
      (await server.call('POST', `/user_groups/${id}/deactivate`, { as: cast.member })).body,
    ).toEqual(error('User group is deactivated.'));
    // Members and settings can still change while deactivated.
    expect(
      (
        await server.call('POST', `/user_groups/${id}/members`, {
          as: cast.member,
          params: { add: [cast.member2.id] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('PATCH', `/user_groups/${id}`, {
          as: cast.member,
          params: { description: 'while away' },
        })
      ).status,
    ).toBe(200);
    // A deactivated group cannot be used in a new value or as a subgroup.
    const use = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: `uses ${id}`, description: '', members: [], can_mention_group: id },
    });
    expect(use.body).toEqual(error('User group is deactivated.'));
    const sub = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: `uses ${id}`, description: '', members: [], subgroups: [id] },
    });
    expect(sub.body).toEqual(error('User group is deactivated.'));
    // deactivated=true changes nothing; false reactivates.
    expect(
      (
        await server.call('PATCH', `/user_groups/${id}`, {
          as: cast.member,
          params: { deactivated: false },
        })
      ).status,
    ).toBe(200);
    expect(await readGroup(id)).toMatchObject({
      deactivated: false,
      description: 'while away',
      members: [cast.member.id, cast.member2.id].sort((a, b) => a - b),
    });
  });

  test('a group still in use is refused with the objections', async () => {
    const used = await createGroup(cast.admin);
    const user = await createGroup(cast.admin, {
      subgroups: [used],
      can_mention_group: { direct_members: [cast.member.id], direct_subgroups: [used] },
    });
    await server.ok('PATCH', '/realm', {
      as: cast.owner,
      params: {
        can_create_groups: {
          new: { direct_members: [], direct_subgroups: [used, system['role:moderators']] },
        },
      },
    });
    const res = await server.call('POST', `/user_groups/${used}/deactivate`, { as: cast.admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Cannot deactivate user group in use.',
      code: 'CANNOT_DEACTIVATE_GROUP_IN_USE',
      objections: [
        { type: 'subgroup', supergroup_ids: [user] },
        { type: 'user_group', group_id: user, settings: ['can_mention_group'] },
        { type: 'realm', settings: ['can_create_groups'] },
      ],
    });
    await server.ok('PATCH', '/realm', {
      as: cast.owner,
      params: { can_create_groups: { new: system['role:members'] } },
    });
  });
});

describe('POST /user_groups/{id}/members', () => {
  test('adds and removes members and subgroups', async () => {
    const inner = await createGroup(cast.admin);
    const id = await createGroup(cast.admin, { members: [cast.member.id] });
    const res = await server.call('POST', `/user_groups/${id}/members`, {
      as: cast.admin,
      params: { add: [cast.member2.id], delete: [cast.member.id], add_subgroups: [inner] },
    });
    expect(res.status).toBe(200);
    expect(await readGroup(id)).toMatchObject({
      members: [cast.member2.id],
      direct_subgroup_ids: [inner],
    });
    expect(
      (
        await server.call('POST', `/user_groups/${id}/members`, {
          as: cast.admin,
          params: { delete_subgroups: [inner] },
        })
      ).status,
    ).toBe(200);
    expect((await readGroup(id)).direct_subgroup_ids).toEqual([]);
  });

  test("each of Zulip's refusals", async () => {
    const inner = await createGroup(cast.admin);
    const id = await createGroup(cast.admin, { members: [cast.member.id], subgroups: [inner] });
    const call = (params: Record<string, unknown>, as = cast.admin) =>
      server.call('POST', `/user_groups/${id}/members`, { as, params });
    expect((await call({})).body).toEqual(
      error(
        'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
      ),
    );
    expect((await call({ add: [cast.member.id] })).body).toEqual(
      error(`User ${cast.member.id} is already a member of this group`),
    );
    expect((await call({ delete: [cast.member2.id] })).body).toEqual(
      error(`There is no member '${cast.member2.id}' in this user group`),
    );
    expect((await call({ add: [999999] })).body).toEqual(error('Invalid user ID: 999999'));
    expect((await call({ add_subgroups: [inner] })).body).toEqual(
      error(`User group ${inner} is already a subgroup of this group.`),
    );
    expect((await call({ delete_subgroups: [system['role:members']] })).body).toEqual(
      error(`User group ${system['role:members']} is not a subgroup of this group.`),
    );
    expect((await call({ add_subgroups: [999999] })).body).toEqual(
      error('Invalid user group ID: 999999'),
    );
    expect((await call({ add: [cast.member2.id] }, cast.member2)).body).toEqual(
      error('Insufficient permission'),
    );
    const gone = await server.createUser(cast.realm, { email: 'gone-member@example.com' });
    await server.services.db.write((tx) =>
      tx.user.update({ where: { id: gone.id }, data: { isActive: false } }),
    );
    expect((await call({ add: [gone.id] })).body).toEqual(error(`Invalid user ID: ${gone.id}`));
  });

  test('no subgroup cycles, however deep', async () => {
    const a = await createGroup(cast.admin);
    const b = await createGroup(cast.admin, { subgroups: [a] });
    const c = await createGroup(cast.admin, { subgroups: [b] });
    const res = await server.call('POST', `/user_groups/${a}/members`, {
      as: cast.admin,
      params: { add_subgroups: [c] },
    });
    expect(res.body).toEqual(
      error(`User group ${a} is already a subgroup of one of the passed subgroups.`),
    );
    const self = await server.call('POST', `/user_groups/${a}/members`, {
      as: cast.admin,
      params: { add_subgroups: [a] },
    });
    expect(self.body).toEqual(
      error(`User group ${a} is already a subgroup of one of the passed subgroups.`),
    );
  });

  test('joining and leaving follow can_join_group and can_leave_group', async () => {
    const id = await createGroup(cast.admin, {
      can_join_group: system['role:members'],
      can_leave_group: system['role:nobody'],
    });
    expect(
      (
        await server.call('POST', `/user_groups/${id}/members`, {
          as: cast.member,
          params: { add: [cast.member.id] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('POST', `/user_groups/${id}/members`, {
          as: cast.member,
          params: { add: [cast.member2.id] },
        })
      ).body,
    ).toEqual(error('Insufficient permission'));
    expect(
      (
        await server.call('POST', `/user_groups/${id}/members`, {
          as: cast.member,
          params: { delete: [cast.member.id] },
        })
      ).body,
    ).toEqual(error('Insufficient permission'));
  });
});
