// POST /user_groups/{id}/subgroups: adding and removing direct subgroups,
// Zulip's refusals (cycles included), and the user_group events applied to
// the /register state.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const error = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
let counter = 0;

async function createGroup(as: User = cast.admin): Promise<number> {
  counter += 1;
  const res = await server.call('POST', '/user_groups/create', {
    as,
    params: { name: `subgroups ${counter}`, description: 'A group', members: [] },
  });
  expect(res.status).toBe(200);
  return res.body.group_id;
}

function update(groupId: number, params: Record<string, unknown>, as: User = cast.admin) {
  return server.call('POST', `/user_groups/${groupId}/subgroups`, { as, params });
}

async function subgroupsOf(groupId: number): Promise<number[]> {
  const res = await server.call('GET', `/user_groups/${groupId}/subgroups`, {
    as: cast.member,
    params: { direct_subgroup_only: true },
  });
  return [...res.body.subgroups].sort((a: number, b: number) => a - b);
}

describe('adding and removing', () => {
  test('add, then delete, in one request or in two', async () => {
    const parent = await createGroup();
    const [a, b] = [await createGroup(), await createGroup()];
    const added = await update(parent, { add: [a, b] });
    expect(added.body).toEqual({ result: 'success', msg: '' });
    expect(await subgroupsOf(parent)).toEqual([a, b]);
    // Both lists in one request: the additions first, so a group may go in and out.
    const both = await update(parent, { add: [], delete: [a] }, cast.admin);
    expect(both.body).toEqual({ result: 'success', msg: '' });
    expect(await subgroupsOf(parent)).toEqual([b]);
    const c = await createGroup();
    expect((await update(parent, { add: [c], delete: [b] })).body.result).toBe('success');
    expect(await subgroupsOf(parent)).toEqual([c]);
  });

  test('forms send the lists as JSON text', async () => {
    const parent = await createGroup();
    const child = await createGroup();
    const res = await server.call('POST', `/user_groups/${parent}/subgroups`, {
      as: cast.admin,
      encoding: 'form',
      params: { add: [child] },
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await subgroupsOf(parent)).toEqual([child]);
  });
});

describe('refusals', () => {
  test('nothing to do', async () => {
    const parent = await createGroup();
    expect((await update(parent, {})).body).toEqual(
      error('Nothing to do. Specify at least one of "add" or "delete".'),
    );
    expect((await update(parent, { add: [], delete: [] })).body).toEqual(
      error('Nothing to do. Specify at least one of "add" or "delete".'),
    );
  });

  test('unknown groups, duplicates, absent subgroups', async () => {
    const parent = await createGroup();
    const child = await createGroup();
    expect((await update(parent, { add: [999999] })).body).toEqual(
      error('Invalid user group ID: 999999'),
    );
    expect((await update(999999, { add: [child] })).body).toEqual(error('Invalid user group'));
    await update(parent, { add: [child] });
    const again = await update(parent, { add: [child] });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(error(`User group ${child} is already a subgroup of this group.`));
    const other = await createGroup();
    expect((await update(parent, { delete: [other] })).body).toEqual(
      error(`User group ${other} is not a subgroup of this group.`),
    );
  });

  test('cycles are refused, at any depth', async () => {
    const top = await createGroup();
    const middle = await createGroup();
    const bottom = await createGroup();
    await update(top, { add: [middle] });
    await update(middle, { add: [bottom] });
    expect((await update(bottom, { add: [top] })).body).toEqual(
      error(`User group ${bottom} is already a subgroup of one of the passed subgroups.`),
    );
    expect((await update(middle, { add: [top] })).body).toEqual(
      error(`User group ${middle} is already a subgroup of one of the passed subgroups.`),
    );
    // A group inside itself is a cycle too.
    expect((await update(top, { add: [top] })).body).toEqual(
      error(`User group ${top} is already a subgroup of one of the passed subgroups.`),
    );
  });

  test('system groups, deactivated groups, members without permission, guests', async () => {
    const parent = await createGroup();
    const groups = await server.services.db.read((db) =>
      db.userGroup.findMany({ where: { realmId: cast.realm.id, isSystemGroup: true } }),
    );
    const members = groups.find((g) => g.name === 'role:members')!.id;
    const moderators = groups.find((g) => g.name === 'role:moderators')!.id;
    expect((await update(members, { add: [parent] }, cast.owner)).body).toEqual(
      error('Insufficient permission'),
    );
    // A system group may be a subgroup of a named group.
    expect((await update(parent, { add: [moderators] })).body.result).toBe('success');
    const other = await createGroup();
    expect((await update(parent, { add: [other] }, cast.member)).body).toEqual(
      error('Insufficient permission'),
    );
    const gone = await createGroup();
    await server.ok('POST', `/user_groups/${gone}/deactivate`, { as: cast.admin });
    expect((await update(parent, { add: [gone] })).body).toEqual(
      error('User group is deactivated.'),
    );
    expect((await update(parent, { add: [moderators] }, cast.guest)).body).toEqual(
      error('Not allowed for guest users'),
    );
  });
});

describe('events', () => {
  test('add_subgroups and remove_subgroups reach everyone; applied to /register they give a fresh fetch', async () => {
    const parent = await createGroup();
    const a = await createGroup();
    const b = await createGroup();
    const register = (as: User) =>
      server.call('POST', '/register', {
        as,
        params: { event_types: ['user_group'], fetch_event_types: ['realm_user_groups'] },
      });
    const state = (await register(cast.member)).body;
    await update(parent, { add: [a, b] });
    await update(parent, { add: [], delete: [a] });
    await update(parent, { add: [a], delete: [b] });
    const { body } = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    expect(withoutIds(body.events)).toEqual([
      {
        type: 'user_group',
        op: 'add_subgroups',
        group_id: parent,
        direct_subgroup_ids: [a, b],
      },
      {
        type: 'user_group',
        op: 'remove_subgroups',
        group_id: parent,
        direct_subgroup_ids: [a],
      },
      {
        type: 'user_group',
        op: 'add_subgroups',
        group_id: parent,
        direct_subgroup_ids: [a],
      },
      {
        type: 'user_group',
        op: 'remove_subgroups',
        group_id: parent,
        direct_subgroup_ids: [b],
      },
    ]);
    const fresh = (await register(cast.member)).body;
    expect(applyEvents(state, body.events).realm_user_groups).toEqual(fresh.realm_user_groups);
  });
});
