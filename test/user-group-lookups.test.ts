// GET /user_groups/{id}/members, /members/{user_id} and /subgroups: direct and
// nested membership, deactivated users left out, deactivated groups readable,
// and the refusals (guests, bots, unknown groups and users).
import type { User } from '../generated/prisma/sqlite/client';
import { expectError } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
let inner: number;
let middle: number;
let outer: number;
let gone: User;

async function createGroup(name: string, members: number[], subgroups: number[] = []) {
  const res = await server.call('POST', '/user_groups/create', {
    as: cast.admin,
    params: { name, description: '', members, subgroups },
  });
  expect(res.status).toBe(200);
  return res.body.group_id as number;
}

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  gone = await server.createUser(cast.realm, { email: 'former@example.com' });
  inner = await createGroup('inner', [cast.member2.id, gone.id]);
  middle = await createGroup('middle', [cast.moderator.id], [inner]);
  outer = await createGroup('outer', [cast.member.id], [middle]);
  await server.ok('DELETE', `/users/${gone.id}`, { as: cast.admin });
});
afterAll(() => server.stop());

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

test('members: all of them through subgroups, or the direct ones; never deactivated users', async () => {
  const all = await server.call('GET', `/user_groups/${outer}/members`, { as: cast.member });
  expect(all.body).toEqual({
    result: 'success',
    msg: '',
    members: sorted([cast.member.id, cast.moderator.id, cast.member2.id]),
  });
  const direct = await server.call('GET', `/user_groups/${outer}/members`, {
    as: cast.member,
    params: { direct_member_only: true },
  });
  expect(direct.body.members).toEqual([cast.member.id]);
  const innerOnly = await server.call('GET', `/user_groups/${inner}/members`, {
    as: cast.member,
    params: { direct_member_only: true },
  });
  expect(innerOnly.body.members).toEqual([cast.member2.id]);
});

test('a user is a member through subgroups unless direct membership is asked', async () => {
  const check = (userId: number, params = {}) =>
    server.call('GET', `/user_groups/${outer}/members/${userId}`, { as: cast.member, params });
  expect((await check(cast.member2.id)).body).toEqual({
    result: 'success',
    msg: '',
    is_user_group_member: true,
  });
  expect(
    (await check(cast.member2.id, { direct_member_only: true })).body.is_user_group_member,
  ).toBe(false);
  expect(
    (await check(cast.member.id, { direct_member_only: true })).body.is_user_group_member,
  ).toBe(true);
  expect((await check(cast.owner.id)).body.is_user_group_member).toBe(false);
  expectError(await check(987654), 400, 'BAD_REQUEST', 'No such user');
  expectError(await check(gone.id), 400, 'BAD_REQUEST', 'User is deactivated');
  const bot = await server.createUser(cast.realm, { email: 'groupbot@example.com', isBot: true });
  expectError(await check(bot.id), 400, 'BAD_REQUEST', 'No such user');
});

test('subgroups: all nested ones, or the direct ones; never the group itself', async () => {
  const all = await server.call('GET', `/user_groups/${outer}/subgroups`, { as: cast.member });
  expect(all.body).toEqual({ result: 'success', msg: '', subgroups: sorted([middle, inner]) });
  const direct = await server.call('GET', `/user_groups/${outer}/subgroups`, {
    as: cast.member,
    params: { direct_subgroup_only: true },
  });
  expect(direct.body.subgroups).toEqual([middle]);
  const none = await server.call('GET', `/user_groups/${inner}/subgroups`, { as: cast.member });
  expect(none.body.subgroups).toEqual([]);
});

test('system groups can be read too', async () => {
  const groups = await server.call('GET', '/user_groups', { as: cast.member });
  const admins = groups.body.user_groups.find(
    (g: { name: string }) => g.name === 'role:administrators',
  );
  const res = await server.call('GET', `/user_groups/${admins.id}/members`, { as: cast.member });
  expect(res.body.members).toEqual(sorted([cast.owner.id, cast.admin.id]));
});

test('deactivated groups can be read', async () => {
  const old = await createGroup('retired', [cast.member.id]);
  await server.ok('POST', `/user_groups/${old}/deactivate`, { as: cast.admin });
  const res = await server.call('GET', `/user_groups/${old}/members`, { as: cast.member });
  expect(res.body.members).toEqual([cast.member.id]);
});

test('guests, bots and unknown groups are refused', async () => {
  const bot = await server.createUser(cast.realm, { email: 'reader-bot@example.com', isBot: true });
  for (const path of [
    `/user_groups/${outer}/members`,
    `/user_groups/${outer}/members/${cast.member.id}`,
    `/user_groups/${outer}/subgroups`,
  ]) {
    expectError(
      await server.call('GET', path, { as: cast.guest }),
      400,
      'BAD_REQUEST',
      'Not allowed for guest users',
    );
    expectError(
      await server.call('GET', path, { as: bot }),
      400,
      'BAD_REQUEST',
      'This endpoint does not accept bot requests.',
    );
  }
  for (const path of [
    '/user_groups/987654/members',
    `/user_groups/987654/members/${cast.member.id}`,
    '/user_groups/987654/subgroups',
  ])
    expectError(
      await server.call('GET', path, { as: cast.member }),
      400,
      'BAD_REQUEST',
      'Invalid user group',
    );
});
