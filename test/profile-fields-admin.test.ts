// Changing, reordering and deleting custom profile fields through HTTP: the
// refusals, the custom_profile_fields events applied to the /register state,
// and the values that go with a deleted field or a removed option.
import { applyEvents } from './support/apply-events';
import { Role } from '../src/lib/constants';
import { TestServer, type Cast } from './support/server';
import { expectRefusal } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let ids: number[];

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  ids = [];
  for (const name of ['Phone', 'Team', 'Office']) {
    const res = await server.call('POST', '/realm/profile_fields', {
      as: cast.admin,
      params: { name, field_type: 1 },
    });
    ids.push(res.body.id);
  }
});
afterAll(() => server.stop());

async function fieldIds(): Promise<number[]> {
  const res = await server.call('GET', '/realm/profile_fields', { as: cast.member });
  return res.body.custom_fields.map((f: { id: number }) => f.id);
}

test('only administrators may reorder or delete', async () => {
  for (const as of [cast.moderator, cast.member, cast.guest]) {
    expectRefusal(
      await server.call('PATCH', '/realm/profile_fields', { as, params: { order: ids } }),
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectRefusal(
      await server.call('DELETE', `/realm/profile_fields/${ids[0]}`, { as }),
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
  }
});

test('reordering needs every field exactly once', async () => {
  const reorder = (order: number[]) =>
    server.call('PATCH', '/realm/profile_fields', { as: cast.admin, params: { order } });
  for (const order of [[ids[0], ids[1]], [...ids, ids[0]], [ids[0], ids[1], 99999], []])
    expectRefusal(await reorder(order), 'Invalid order mapping.');
  expect((await reorder([ids[2], ids[0], ids[1]])).body).toEqual({ result: 'success', msg: '' });
  expect(await fieldIds()).toEqual([ids[2], ids[0], ids[1]]);
});

test('deleting removes the field and its values; unknown fields are refused', async () => {
  const set = await server.call('PATCH', `/users/${cast.member.id}`, {
    as: cast.admin,
    params: { profile_data: [{ id: ids[1], value: 'Blue' }] },
  });
  expect(set.status).toBe(200);
  const other = await server.createRealm('Elsewhere', 'elsewhere');
  const theirs = await server.call('POST', '/realm/profile_fields', {
    as: other.owner,
    params: { name: 'Theirs', field_type: 1 },
  });
  for (const id of [theirs.body.id, 99999])
    expectRefusal(
      await server.call('DELETE', `/realm/profile_fields/${id}`, { as: cast.admin }),
      `Field id ${id} not found.`,
    );
  const res = await server.call('DELETE', `/realm/profile_fields/${ids[1]}`, { as: cast.admin });
  expect(res.body).toEqual({ result: 'success', msg: '' });
  expect(await fieldIds()).toEqual([ids[2], ids[0]]);
  const me = await server.call('GET', `/users/${cast.member.id}`, {
    as: cast.admin,
    params: { include_custom_profile_fields: true },
  });
  expect(me.body.user.profile_data ?? {}).not.toHaveProperty(String(ids[1]));
});

test('events reach everyone, and applied to /register give a fresh fetch', async () => {
  const register = () =>
    server.call('POST', '/register', {
      as: cast.guest,
      params: {
        event_types: ['custom_profile_fields'],
        fetch_event_types: ['custom_profile_fields'],
      },
    });
  const state = (await register()).body;
  const [first, second] = await fieldIds();
  await server.ok('PATCH', '/realm/profile_fields', {
    as: cast.admin,
    params: { order: [second, first] },
  });
  await server.ok('DELETE', `/realm/profile_fields/${first}`, { as: cast.admin });
  const { body } = await server.call('GET', '/events', {
    as: cast.guest,
    params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
  });
  expect(body.events.map((e: { type: string }) => e.type)).toEqual([
    'custom_profile_fields',
    'custom_profile_fields',
  ]);
  expect(body.events[1].fields.map((f: { id: number }) => f.id)).toEqual([second]);
  const fresh = (await register()).body;
  expect(applyEvents(state, body.events).custom_profile_fields).toEqual(
    fresh.custom_profile_fields,
  );
});

describe('PATCH /realm/profile_fields/{field_id}', () => {
  let realm: Cast;
  const create = async (params: Record<string, unknown>): Promise<number> => {
    const res = await server.call('POST', '/realm/profile_fields', { as: realm.admin, params });
    expect(res.status).toBe(200);
    return res.body.id;
  };
  const update = (id: number, params: Record<string, unknown>, as = realm.admin) =>
    server.call('PATCH', `/realm/profile_fields/${id}`, { as, params });
  const fields = async () =>
    (await server.call('GET', '/realm/profile_fields', { as: realm.member })).body.custom_fields;

  // An organization of its own, so that the fields above stay as they are.
  beforeAll(async () => {
    const { realm: org, owner } = await server.createRealm('Fields', 'fields');
    const as = (name: string, role: number) =>
      server.createUser(org, { email: `${name}@fields.example.com`, role });
    realm = {
      realm: org,
      owner,
      admin: await as('admin', Role.ADMINISTRATOR),
      moderator: await as('moderator', Role.MODERATOR),
      member: await as('member', Role.MEMBER),
      member2: await as('member2', Role.MEMBER),
      guest: await as('guest', Role.GUEST),
    };
  });

  test('changes only what is sent, announced with the whole list', async () => {
    const id = await create({ name: 'Desk', hint: 'Floor and room', field_type: 1 });
    const state = (
      await server.ok('POST', '/register', {
        as: realm.guest,
        params: {
          event_types: ['custom_profile_fields'],
          fetch_event_types: ['custom_profile_fields'],
        },
      })
    ).body;
    const res = await update(id, {
      name: ' Office desk ',
      display_in_profile_summary: true,
      required: true,
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect((await update(id, { editable_by_user: false })).status).toBe(200);
    const [field] = await fields();
    expect(field).toMatchObject({
      id,
      name: 'Office desk',
      hint: 'Floor and room',
      type: 1,
      display_in_profile_summary: true,
      required: true,
      editable_by_user: false,
    });
    const { body } = await server.call('GET', '/events', {
      as: realm.guest,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    expect(body.events).toHaveLength(2);
    expect(applyEvents(state, body.events).custom_profile_fields).toEqual(await fields());
  });

  test('removing an option clears the values that chose it', async () => {
    const id = await create({
      name: 'Team',
      field_type: 3,
      field_data: { a: { text: 'Apps', order: '1' }, b: { text: 'Backend', order: '2' } },
    });
    const choose = (user: typeof realm.member, value: string) =>
      server.call('PATCH', `/users/${user.id}`, {
        as: realm.admin,
        params: { profile_data: [{ id, value }] },
      });
    expect((await choose(realm.member, 'a')).status).toBe(200);
    expect((await choose(realm.member2, 'b')).status).toBe(200);
    const state = (
      await server.ok('POST', '/register', {
        as: realm.guest,
        params: { event_types: ['realm_user'], fetch_event_types: ['realm_user'] },
      })
    ).body;
    const res = await update(id, { field_data: { b: { text: 'Backend', order: '1' } } });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const valueOf = async (user: typeof realm.member) =>
      (
        await server.ok('GET', `/users/${user.id}`, {
          as: realm.admin,
          params: { include_custom_profile_fields: true },
        })
      ).body.user.profile_data?.[String(id)];
    expect(await valueOf(realm.member)).toBeUndefined();
    expect(await valueOf(realm.member2)).toEqual({ value: 'b' });
    const { body } = await server.call('GET', '/events', {
      as: realm.guest,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    expect(body.events.map(({ id: _id, ...e }: { id: number }) => e)).toEqual([
      {
        type: 'realm_user',
        op: 'update',
        person: { user_id: realm.member.id, custom_profile_field: { id, value: null } },
      },
    ]);
  });

  test("each refusal, with Zulip's message, changes nothing", async () => {
    const id = await create({ name: 'Room', field_type: 1 });
    await create({ name: 'Floor', field_type: 1 });
    const github = await create({ field_type: 7, field_data: { subtype: 'github' } });
    const notes = await create({ name: 'Notes', field_type: 2 });
    const before = await fields();
    for (const as of [realm.moderator, realm.member, realm.guest])
      expectRefusal(
        await update(id, { hint: 'x' }, as),
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    const other = await server.createRealm('Other place', 'otherplace');
    const theirs = await server.call('POST', '/realm/profile_fields', {
      as: other.owner,
      params: { name: 'Theirs', field_type: 1 },
    });
    for (const missing of [theirs.body.id, 99999])
      expectRefusal(await update(missing, { hint: 'x' }), `Field id ${missing} not found.`);
    expectRefusal(await update(id, { name: '  ' }), 'Label cannot be blank.');
    expectRefusal(await update(id, { name: 'Floor' }), 'A field with that label already exists.');
    expectRefusal(
      await update(github, { name: 'Code', field_data: { subtype: 'github' } }),
      'Default custom field cannot be updated.',
    );
    expectRefusal(
      await update(github, { field_data: { subtype: 'myspace' } }),
      'Invalid external account type',
    );
    expectRefusal(
      await update(notes, { display_in_profile_summary: true }),
      'Field type not supported for display in profile summary.',
    );
    expect(await fields()).toEqual(before);
  });
});
