// Who may do what: every write operation of the users and groups area run as
// owner, administrator, moderator, member, guest and a deactivated user; and
// group permissions resolved through several levels of nested subgroups.
import type { User } from '../generated/prisma/sqlite/client';
import { Role } from '../src/lib/constants';
import { userHoldsPermission } from '../src/lib/groups/permissions';
import { TestServer, type Cast, type Reply } from './support/server';

let server: TestServer;
let cast: Cast;
let deactivated: User;
let system: Record<string, number>;
let serial = 0;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  deactivated = await server.createUser(cast.realm, {
    email: 'deactivated-actor@example.com',
    role: Role.ADMINISTRATOR,
  });
  await server.services.db.write((tx) =>
    tx.user.updateMany({
      where: { id: { in: [cast.owner.id, cast.admin.id] } },
      data: { canCreateUsers: true },
    }),
  );
  await server.services.db.write((tx) =>
    tx.user.update({
      where: { id: deactivated.id },
      data: { isActive: false, canCreateUsers: true },
    }),
  );
  const groups = await server.services.db.read((db) =>
    db.userGroup.findMany({ where: { realmId: cast.realm.id, isSystemGroup: true } }),
  );
  system = Object.fromEntries(groups.map((g) => [g.name!, g.id]));
});
afterAll(() => server.stop());

const fresh = async (role: number = Role.MEMBER) =>
  server.createUser(cast.realm, { email: `target-${++serial}@example.com`, role });
const newGroup = async () => {
  const res = await server.call('POST', '/user_groups/create', {
    as: cast.admin,
    params: { name: `matrix group ${++serial}`, description: '', members: [] },
  });
  return res.body.group_id as number;
};

type Actor = 'owner' | 'admin' | 'moderator' | 'member' | 'guest' | 'deactivated';
const actors: Actor[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'deactivated'];
const actorUser = (a: Actor): User => (a === 'deactivated' ? deactivated : cast[a]);

/** Each write operation, how to run it once as `as`, and who may. */
const operations: { name: string; allowed: Actor[]; run: (as: User) => Promise<Reply> }[] = [
  {
    name: 'POST /users',
    allowed: ['owner', 'admin'],
    run: (as) =>
      server.call('POST', '/users', {
        as,
        params: {
          email: `created-${++serial}@example.com`,
          password: 'pw-123456',
          full_name: 'Created',
        },
      }),
  },
  {
    name: 'PATCH /users/{id}',
    allowed: ['owner', 'admin'],
    run: async (as) =>
      server.call('PATCH', `/users/${(await fresh()).id}`, {
        as,
        params: { full_name: 'Changed', role: Role.MODERATOR },
      }),
  },
  {
    name: 'PATCH /users/{email}',
    allowed: ['owner', 'admin'],
    run: async (as) =>
      server.call('PATCH', `/users/${(await fresh()).email}`, { as, params: { role: Role.GUEST } }),
  },
  {
    name: 'DELETE /users/{id}',
    allowed: ['owner', 'admin'],
    run: async (as) => server.call('DELETE', `/users/${(await fresh()).id}`, { as }),
  },
  {
    name: 'POST /users/{id}/reactivate',
    allowed: ['owner', 'admin'],
    run: async (as) => {
      const user = await fresh();
      await server.services.db.write((tx) =>
        tx.user.update({ where: { id: user.id }, data: { isActive: false } }),
      );
      return server.call('POST', `/users/${user.id}/reactivate`, { as });
    },
  },
  {
    name: 'POST /users/{id}/status',
    allowed: ['owner', 'admin'],
    run: async (as) =>
      server.call('POST', `/users/${(await fresh()).id}/status`, {
        as,
        params: { status_text: 'Busy' },
      }),
  },
  {
    name: 'POST /users/me/status',
    allowed: ['owner', 'admin', 'moderator', 'member', 'guest'],
    run: (as) => server.call('POST', '/users/me/status', { as, params: { status_text: 'Here' } }),
  },
  {
    name: 'POST /user_groups/create',
    allowed: ['owner', 'admin', 'moderator', 'member'],
    run: (as) =>
      server.call('POST', '/user_groups/create', {
        as,
        params: { name: `by actor ${++serial}`, description: '', members: [] },
      }),
  },
  {
    name: 'PATCH /user_groups/{id}',
    allowed: ['owner', 'admin'],
    run: async (as) =>
      server.call('PATCH', `/user_groups/${await newGroup()}`, {
        as,
        params: { description: 'Changed' },
      }),
  },
  {
    name: 'POST /user_groups/{id}/deactivate',
    allowed: ['owner', 'admin'],
    run: async (as) => server.call('POST', `/user_groups/${await newGroup()}/deactivate`, { as }),
  },
  {
    name: 'POST /user_groups/{id}/members',
    allowed: ['owner', 'admin'],
    run: async (as) =>
      server.call('POST', `/user_groups/${await newGroup()}/members`, {
        as,
        params: { add: [cast.member2.id] },
      }),
  },
  {
    name: 'POST /realm/profile_fields',
    allowed: ['owner', 'admin'],
    run: (as) =>
      server.call('POST', '/realm/profile_fields', {
        as,
        params: { name: `Field ${++serial}`, field_type: 1 },
      }),
  },
  {
    name: 'PATCH /realm',
    allowed: ['owner', 'admin'],
    run: (as) =>
      server.call('PATCH', '/realm', { as, params: { allow_message_editing: serial++ % 2 === 0 } }),
  },
  {
    name: 'PATCH /realm (owner-only setting)',
    allowed: ['owner'],
    run: (as) =>
      server.call('PATCH', '/realm', {
        as,
        params: { can_manage_all_groups: { new: system['role:administrators'] } },
      }),
  },
];

describe('permission matrix', () => {
  for (const op of operations) {
    test(`${op.name}: allowed for ${op.allowed.join(', ')}`, async () => {
      const outcome: Record<string, boolean> = {};
      for (const actor of actors) {
        const res = await op.run(actorUser(actor));
        outcome[actor] = res.status === 200;
        if (actor === 'deactivated')
          expect(res.body).toEqual({
            result: 'error',
            msg: 'Account is deactivated',
            code: 'UNAUTHORIZED',
          });
        else if (res.status !== 200) expect(res.status).toBe(400);
      }
      expect(outcome).toEqual(Object.fromEntries(actors.map((a) => [a, op.allowed.includes(a)])));
    });
  }
});

describe('nested subgroups', () => {
  test('a group permission held through three levels of subgroups, and lost when a link is cut', async () => {
    // top ⊃ middle ⊃ lower ⊃ bottom, and only bottom holds the member directly.
    const make = async (name: string, extra: Record<string, unknown>) =>
      (
        await server.ok('POST', '/user_groups/create', {
          as: cast.admin,
          params: { name, description: '', members: [], ...extra },
        })
      ).body.group_id as number;
    const bottom = await make('bottom', { members: [cast.member.id] });
    const lower = await make('lower', { subgroups: [bottom] });
    const middle = await make('middle', { subgroups: [lower] });
    const top = await make('top', { subgroups: [middle] });
    const target = await make('managed by top', {
      can_manage_group: top,
      can_add_members_group: { direct_members: [], direct_subgroups: [top] },
    });

    expect(
      (
        await server.call('PATCH', `/user_groups/${target}`, {
          as: cast.member,
          params: { description: 'by a nested member' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('POST', `/user_groups/${target}/members`, {
          as: cast.member,
          params: { add: [cast.guest.id] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('PATCH', `/user_groups/${target}`, {
          as: cast.member2,
          params: { description: 'not nested' },
        })
      ).body.msg,
    ).toBe('Insufficient permission');
    const db = server.services.db;
    expect(await db.read((tx) => userHoldsPermission(tx, cast.member, top))).toBe(true);

    // Cutting lower ⊃ bottom removes the permission.
    expect(
      (
        await server.call('POST', `/user_groups/${lower}/members`, {
          as: cast.admin,
          params: { delete_subgroups: [bottom] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('PATCH', `/user_groups/${target}`, {
          as: cast.member,
          params: { description: 'again' },
        })
      ).body.msg,
    ).toBe('Insufficient permission');
    expect(await db.read((tx) => userHoldsPermission(tx, cast.member, top))).toBe(false);
  });

  test('realm permissions resolve through nested groups too, but guests never hold a setting that refuses everyone', async () => {
    const make = async (name: string, extra: Record<string, unknown>) =>
      (
        await server.ok('POST', '/user_groups/create', {
          as: cast.admin,
          params: { name, description: '', members: [], ...extra },
        })
      ).body.group_id as number;
    const leaf = await make('creators leaf', { members: [cast.guest.id, cast.member2.id] });
    const mid = await make('creators mid', { subgroups: [leaf] });
    const root = await make('creators root', { subgroups: [mid] });
    expect(
      (
        await server.call('PATCH', '/realm', {
          as: cast.owner,
          params: { can_create_groups: { new: root } },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.member2,
          params: { name: 'nested creator', description: '', members: [] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.member,
          params: { name: 'not a creator', description: '', members: [] },
        })
      ).body.msg,
    ).toBe('Insufficient permission');
    expect(
      (
        await server.call('POST', '/user_groups/create', {
          as: cast.guest,
          params: { name: 'guest creator', description: '', members: [] },
        })
      ).body.msg,
    ).toBe('Insufficient permission');
    await server.ok('PATCH', '/realm', {
      as: cast.owner,
      params: { can_create_groups: { new: system['role:members'] } },
    });
  });

  test('roles are group memberships: the system groups nest', async () => {
    const db = server.services.db;
    expect(
      await db.read((tx) => userHoldsPermission(tx, cast.owner, system['role:moderators'])),
    ).toBe(true);
    expect(
      await db.read((tx) => userHoldsPermission(tx, cast.moderator, system['role:administrators'])),
    ).toBe(false);
    expect(
      await db.read((tx) => userHoldsPermission(tx, cast.guest, system['role:everyone'])),
    ).toBe(true);
    expect(await db.read((tx) => userHoldsPermission(tx, cast.guest, system['role:members']))).toBe(
      false,
    );
  });
});
