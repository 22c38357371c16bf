// Default channels and default channel groups through HTTP: adding and
// removing them (also through PATCH /streams and archiving), Zulip's refusals,
// new users joining the default channels, and the default_streams and
// default_stream_groups events applied to the /register state.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds, type QueueEvent } from './support/events';
import { TestServer, type Cast } from './support/server';
import { expectRefusal, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
const ids: Record<string, number> = {};

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.admin, ['general', 'design', 'random', 'old-projects', 'sales']);
  await subscribe(server, cast.admin, ['secret'], { invite_only: true });
  await subscribe(server, cast.owner, ['owners-only'], { invite_only: true });
  for (const name of ['general', 'design', 'random', 'old-projects', 'sales', 'secret'])
    ids[name] = await streamId(server, cast.admin, name);
  ids['owners-only'] = await streamId(server, cast.owner, 'owners-only');
});
afterAll(() => server.stop());

const success = { result: 'success', msg: '' };

async function register(as: User) {
  const res = await server.call('POST', '/register', {
    as,
    params: {
      event_types: ['default_streams', 'default_stream_groups'],
      fetch_event_types: ['default_streams', 'default_stream_groups'],
    },
  });
  expect(res.status).toBe(200);
  return res.body;
}

async function eventsOf(as: User, queueId: string) {
  const res = await server.call('GET', '/events', {
    as,
    params: { queue_id: queueId, last_event_id: -1, dont_block: true },
  });
  return res.body.events as QueueEvent[];
}

const addDefault = (stream_id: number, as: User = cast.admin) =>
  server.call('POST', '/default_streams', { as, params: { stream_id } });
const removeDefault = (stream_id: number, as: User = cast.admin) =>
  server.call('DELETE', '/default_streams', { as, params: { stream_id } });

describe('default channels', () => {
  test('an administrator adds and removes them; non-guests hear of it, and register agrees', async () => {
    const member = await register(cast.member);
    const guest = await register(cast.guest);
    expect(member.realm_default_streams).toEqual([]);
    expect((await addDefault(ids.random)).body).toEqual(success);
    expect((await addDefault(ids.general, cast.owner)).body).toEqual(success);
    // Adding one again changes nothing and says nothing.
    expect((await addDefault(ids.general)).body).toEqual(success);
    expect(
      (await server.call('DELETE', `/default_streams?stream_id=${ids.random}`, { as: cast.admin }))
        .body,
    ).toEqual(success);
    const events = await eventsOf(cast.member, member.queue_id);
    expect(withoutIds(events)).toEqual([
      { type: 'default_streams', default_streams: [ids.random] },
      { type: 'default_streams', default_streams: [ids.general, ids.random] },
      { type: 'default_streams', default_streams: [ids.general] },
    ]);
    expect(applyEvents(member, events).realm_default_streams).toEqual(
      (await register(cast.member)).realm_default_streams,
    );
    expect((await register(cast.member)).realm_default_streams).toEqual([ids.general]);
    // Guests see no default channels and hear nothing of them.
    expect(guest.realm_default_streams).toEqual([]);
    expect((await register(cast.guest)).realm_default_streams).toEqual([]);
    expect(await eventsOf(cast.guest, guest.queue_id)).toEqual([]);
  });

  test('only administrators, and only channels they can read that are public', async () => {
    for (const as of [cast.moderator, cast.member, cast.guest]) {
      expectRefusal(
        await addDefault(ids.design, as),
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectRefusal(
        await removeDefault(ids.general, as),
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
    expectRefusal(await addDefault(999999), 'Invalid channel ID');
    expectRefusal(await removeDefault(999999), 'Invalid channel ID');
    expectRefusal(await addDefault(ids.secret), 'Private channels cannot be made default.');
    // A private channel the administrator is not subscribed to cannot even be named.
    expectRefusal(await addDefault(ids['owners-only']), 'Invalid channel ID');
    const missing = await server.call('POST', '/default_streams', { as: cast.admin });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'stream_id' });
  });

  test('new users join the default channels; their subscribers hear of it', async () => {
    const peers = await server.call('POST', '/register', {
      as: cast.admin,
      params: { event_types: ['subscription'] },
    });
    const newcomer = await server.createUser(cast.realm, { email: 'newcomer@example.com' });
    const subs = await server.call('GET', '/users/me/subscriptions', { as: newcomer });
    expect(subs.body.subscriptions.map((s: { name: string }) => s.name)).toEqual(['general']);
    const events = await eventsOf(cast.admin, peers.body.queue_id);
    expect(events).toContainEqual({
      id: expect.any(Number),
      type: 'subscription',
      op: 'peer_add',
      stream_ids: [ids.general],
      user_ids: [newcomer.id],
    });
    // Bots do not.
    const bot = await server.createUser(cast.realm, {
      email: 'helper-bot@example.com',
      isBot: true,
    });
    const botSubs = await server.call('GET', '/users/me/subscriptions', { as: bot });
    expect(botSubs.body.subscriptions).toEqual([]);
  });

  test('PATCH /streams changes is_default_stream, refusing private channels and non-administrators', async () => {
    const member = await register(cast.member);
    const patch = (id: number, params: Record<string, unknown>, as: User = cast.admin) =>
      server.call('PATCH', `/streams/${id}`, { as, params });
    expect((await patch(ids.design, { is_default_stream: true })).body).toEqual(success);
    expectRefusal(
      await patch(ids.secret, { is_default_stream: true }),
      'A default channel cannot be private.',
    );
    expectRefusal(
      await patch(ids.design, { is_private: true }),
      'A default channel cannot be private.',
    );
    // Administering a channel is not enough: its creator, a member, may not.
    await subscribe(server, cast.member2, ['members-corner']);
    const corner = await streamId(server, cast.member2, 'members-corner');
    expectRefusal(
      await patch(corner, { is_default_stream: true }, cast.member2),
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expect((await patch(corner, { description: 'Ours' }, cast.member2)).body).toEqual(success);
    expect((await patch(ids.design, { is_default_stream: false })).body).toEqual(success);
    // Private and default at once is refused; public and default at once is fine.
    expectRefusal(
      await patch(ids.sales, { is_private: true, is_default_stream: true }),
      'A default channel cannot be private.',
    );
    const events = await eventsOf(cast.member, member.queue_id);
    expect(events.map((e) => e.default_streams)).toEqual([
      [ids.general, ids.design],
      [ids.general],
    ]);
    expect(applyEvents(member, events).realm_default_streams).toEqual([ids.general]);
  });

  test('a channel created as a default channel is announced', async () => {
    const member = await register(cast.member);
    await subscribe(server, cast.admin, ['announcements'], { is_default_stream: true });
    const id = await streamId(server, cast.admin, 'announcements');
    const events = await eventsOf(cast.member, member.queue_id);
    expect(withoutIds(events)).toEqual([
      { type: 'default_streams', default_streams: [ids.general, id] },
    ]);
    await removeDefault(id);
  });
});

describe('default channel groups', () => {
  const create = (params: Record<string, unknown>, as: User = cast.admin) =>
    server.call('POST', '/default_stream_groups/create', { as, params });
  const groupsNow = async () => (await register(cast.member)).realm_default_stream_groups;

  test('create, rename, change channels and delete, with events applied to register', async () => {
    const member = await register(cast.member);
    const guest = await register(cast.guest);
    expect(member.realm_default_stream_groups).toEqual([]);
    expect(
      (
        await create({
          group_name: 'Sales',
          description: 'Deals',
          stream_names: ['sales', 'Random'],
        })
      ).body,
    ).toEqual(success);
    expect(
      (await create({ group_name: 'Design', description: 'Looks', stream_names: ['design'] })).body,
    ).toEqual(success);
    const [design, sales] = await groupsNow();
    expect([design, sales]).toEqual([
      { name: 'Design', id: expect.any(Number), description: 'Looks', streams: [ids.design] },
      {
        name: 'Sales',
        id: expect.any(Number),
        description: 'Deals',
        streams: [ids.random, ids.sales],
      },
    ]);
    const patch = (id: number, params: Record<string, unknown>, path = '') =>
      server.call('PATCH', `/default_stream_groups/${id}${path}`, { as: cast.admin, params });
    expect((await patch(sales.id, { new_group_name: 'Sellers' })).body).toEqual(success);
    expect((await patch(sales.id, { new_description: 'Deals and leads' })).body).toEqual(success);
    expect(
      (await patch(sales.id, { op: 'add', stream_names: ['old-projects', 'design'] }, '/streams'))
        .body,
    ).toEqual(success);
    expect(
      (await patch(sales.id, { op: 'remove', stream_names: ['random'] }, '/streams')).body,
    ).toEqual(success);
    expect(
      (await server.call('DELETE', `/default_stream_groups/${design.id}`, { as: cast.admin })).body,
    ).toEqual(success);
    const events = await eventsOf(cast.member, member.queue_id);
    expect(events).toHaveLength(7);
    expect(events.every((e) => e.type === 'default_stream_groups')).toBe(true);
    const expected = [
      {
        name: 'Sellers',
        id: sales.id,
        description: 'Deals and leads',
        streams: [ids.design, ids['old-projects'], ids.sales],
      },
    ];
    expect(events[6].default_stream_groups).toEqual(expected);
    expect(applyEvents(member, events).realm_default_stream_groups).toEqual(await groupsNow());
    expect(await groupsNow()).toEqual(expected);
    // Guests see no groups and hear nothing of them.
    expect(guest.realm_default_stream_groups).toEqual([]);
    expect(await eventsOf(cast.guest, guest.queue_id)).toEqual([]);
  });

  test('creating is refused as Zulip refuses it', async () => {
    for (const as of [cast.moderator, cast.member]) {
      expectRefusal(
        await create({ group_name: 'X', description: '', stream_names: [] }, as),
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
    expectRefusal(
      await create({ group_name: 'X', description: '', stream_names: ['nowhere'] }),
      "Invalid channel name 'nowhere'",
    );
    expectRefusal(
      await create({ group_name: 'X', description: '', stream_names: ['owners-only'] }),
      "Invalid channel name 'owners-only'",
    );
    expectRefusal(
      await create({ group_name: 'News', description: '', stream_names: ['design', 'general'] }),
      "'general' is a default channel and cannot be added to 'News'",
    );
    expectRefusal(
      await create({ group_name: '  ', description: '', stream_names: [] }),
      "Invalid default channel group name '  '",
    );
    expectRefusal(
      await create({ group_name: 'x'.repeat(61), description: '', stream_names: [] }),
      'Default channel group name too long (limit: 60 characters)',
    );
    expectRefusal(
      await create({ group_name: 'a\u0000b', description: '', stream_names: [] }),
      "Default channel group name 'a\u0000b' contains NULL (0x00) characters.",
    );
    expectRefusal(
      await create({ group_name: 'Sellers', description: 'Other', stream_names: [] }),
      "Default channel group 'Sellers' already exists",
    );
  });

  test('changing is refused as Zulip refuses it', async () => {
    expect(
      (await create({ group_name: 'Spare', description: '', stream_names: ['random'] })).body,
    ).toEqual(success);
    const [sellers, spare] = await groupsNow();
    const patch = (id: number, params: Record<string, unknown>, path = '', as = cast.admin) =>
      server.call('PATCH', `/default_stream_groups/${id}${path}`, { as, params });
    expectRefusal(
      await patch(sellers.id, { new_group_name: 'Y' }, '', cast.moderator),
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectRefusal(
      await patch(sellers.id, {}),
      'You must pass "new_description" or "new_group_name".',
    );
    expectRefusal(
      await patch(sellers.id, { new_group_name: '', new_description: '' }),
      'You must pass "new_description" or "new_group_name".',
    );
    expectRefusal(
      await patch(999999, { new_group_name: 'Y' }),
      "Default channel group with id '999999' does not exist.",
    );
    expectRefusal(
      await patch(sellers.id, { new_group_name: 'Sellers' }),
      "This default channel group is already named 'Sellers'",
    );
    expectRefusal(
      await patch(sellers.id, { new_group_name: 'Spare' }),
      "Default channel group 'Spare' already exists",
    );
    expectRefusal(
      await patch(spare.id, { op: 'add', stream_names: ['random'] }, '/streams'),
      "Channel 'random' is already present in default channel group 'Spare'",
    );
    expectRefusal(
      await patch(spare.id, { op: 'add', stream_names: ['general'] }, '/streams'),
      "'general' is a default channel and cannot be added to 'Spare'",
    );
    expectRefusal(
      await patch(spare.id, { op: 'remove', stream_names: ['design'] }, '/streams'),
      "Channel 'design' is not present in default channel group 'Spare'",
    );
    expectRefusal(
      await patch(spare.id, { op: 'swap', stream_names: ['design'] }, '/streams'),
      'Invalid value for "op". Specify one of "add" or "remove".',
    );
    expectRefusal(
      await patch(999999, { op: 'add', stream_names: [] }, '/streams'),
      "Default channel group with id '999999' does not exist.",
    );
    expectRefusal(
      await server.call('DELETE', '/default_stream_groups/999999', { as: cast.admin }),
      "Default channel group with id '999999' does not exist.",
    );
    expectRefusal(
      await server.call('DELETE', `/default_stream_groups/${spare.id}`, { as: cast.member }),
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
  });

  test('archiving a channel takes it out of the default channels and the groups', async () => {
    await addDefault(ids.random);
    const member = await register(cast.member);
    expect((await server.call('DELETE', `/streams/${ids.sales}`, { as: cast.admin })).body).toEqual(
      success,
    );
    expect(
      (await server.call('DELETE', `/streams/${ids.random}`, { as: cast.admin })).body,
    ).toEqual(success);
    const events = (await eventsOf(cast.member, member.queue_id)).filter(
      (e) => e.type === 'default_streams' || e.type === 'default_stream_groups',
    );
    expect(events.map((e) => e.type)).toEqual([
      'default_stream_groups',
      'default_streams',
      'default_stream_groups',
    ]);
    const fresh = await register(cast.member);
    const applied = applyEvents(member, events);
    expect(applied.realm_default_streams).toEqual(fresh.realm_default_streams);
    expect(applied.realm_default_stream_groups).toEqual(fresh.realm_default_stream_groups);
    expect(fresh.realm_default_streams).toEqual([ids.general]);
    expect(fresh.realm_default_stream_groups.map((g: { streams: number[] }) => g.streams)).toEqual([
      [ids.design, ids['old-projects']],
      [],
    ]);
  });
});
