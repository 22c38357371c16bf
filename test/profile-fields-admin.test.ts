// Reordering and deleting custom profile fields through HTTP: the refusals,
// the custom_profile_fields events applied to the /register state, and the
// values that go with a deleted field.
import { applyEvents } from './support/apply-events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
let ids: number[];

beforeAll(async () => {
  server = await TestServer.start();
  cast = await server.createCast();
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

function refused(res: { status: number; body: unknown }, msg: string, code = 'BAD_REQUEST') {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: 'error', msg, code });
}

test('only administrators may reorder or delete', async () => {
  for (const as of [cast.moderator, cast.member, cast.guest]) {
    refused(
      await server.call('PATCH', '/realm/profile_fields', { as, params: { order: ids } }),
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    refused(
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
    refused(await reorder(order), 'Invalid order mapping.');
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
    refused(
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
  await server.call('PATCH', '/realm/profile_fields', {
    as: cast.admin,
    params: { order: [second, first] },
  });
  await server.call('DELETE', `/realm/profile_fields/${first}`, { as: cast.admin });
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
