// Custom profile fields: GET and POST /realm/profile_fields, and users'
// values through PATCH /users/{user_id} (profile_data), read back with
// include_custom_profile_fields and on GET /users/me.
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const error = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

async function createField(params: Record<string, unknown>): Promise<number> {
  const res = await server.call('POST', '/realm/profile_fields', { as: cast.admin, params });
  expect(res.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
  return res.body.id;
}

describe('POST and GET /realm/profile_fields', () => {
  test('creates fields in order and lists them', async () => {
    const phone = await createField({
      name: 'Phone',
      hint: 'Your number',
      field_type: 1,
      display_in_profile_summary: true,
    });
    const team = await createField({
      name: 'Team',
      field_type: 3,
      field_data: {
        eng: { text: 'Engineering', order: '1' },
        ops: { text: 'Operations', order: '2' },
      },
    });
    const res = await server.call('GET', '/realm/profile_fields', { as: cast.guest });
    expect(res.body.custom_fields).toEqual([
      {
        id: phone,
        name: 'Phone',
        type: 1,
        hint: 'Your number',
        field_data: '',
        order: 0,
        required: false,
        editable_by_user: true,
        display_in_profile_summary: true,
      },
      {
        id: team,
        name: 'Team',
        type: 3,
        hint: '',
        field_data: JSON.stringify({
          eng: { text: 'Engineering', order: '1' },
          ops: { text: 'Operations', order: '2' },
        }),
        order: 1,
        required: false,
        editable_by_user: true,
      },
    ]);
  });

  test("each refusal, with Zulip's message", async () => {
    const post = (params: Record<string, unknown>, as = cast.admin) =>
      server.call('POST', '/realm/profile_fields', { as, params });
    expect((await post({ name: 'X', field_type: 1 }, cast.member)).body).toEqual(
      error('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'),
    );
    expect((await post({ name: '  ', field_type: 1 })).body).toEqual(
      error('Label cannot be blank.'),
    );
    expect((await post({ name: 'Phone', field_type: 1 })).body).toEqual(
      error('A field with that label already exists.'),
    );
    expect((await post({ name: 'Choices', field_type: 3, field_data: {} })).body).toEqual(
      error('Field must have at least one choice.'),
    );
    expect(
      (await post({ name: 'Bio', field_type: 2, display_in_profile_summary: true })).body,
    ).toEqual(error('Field type not supported for display in profile summary.'));
    await createField({ name: 'Second summary', field_type: 1, display_in_profile_summary: true });
    expect(
      (await post({ name: 'Third summary', field_type: 1, display_in_profile_summary: true })).body,
    ).toEqual(error('Only 2 custom profile fields can be displayed in the profile summary.'));
    const badType = await post({ name: 'Weird', field_type: 9 });
    expect(badType.status).toBe(400);
    expect((await post({ name: 'x'.repeat(41), field_type: 1 })).body).toEqual(
      error('name is too long (limit: 40 characters)'),
    );
  });
});

describe('profile_data', () => {
  test('values are set, rendered for Markdown types, and removed by an empty value', async () => {
    const bio = await createField({ name: 'Bio', field_type: 2 });
    const birthday = await createField({ name: 'Birthday', field_type: 4 });
    const mentor = await createField({ name: 'Mentor', field_type: 6 });
    const res = await server.call('PATCH', `/users/${cast.member.id}`, {
      as: cast.admin,
      params: {
        profile_data: [
          { id: bio, value: 'I <3 *tea*' },
          { id: birthday, value: '1990-05-17' },
          { id: mentor, value: [cast.owner.id] },
        ],
      },
    });
    expect(res.status).toBe(200);
    const read = await server.call('GET', `/users/${cast.member.id}`, {
      as: cast.member2,
      params: { include_custom_profile_fields: true },
    });
    expect(read.body.user.profile_data).toEqual({
      [bio]: { value: 'I <3 *tea*', rendered_value: '<p>I &lt;3 <em>tea</em></p>' },
      [birthday]: { value: '1990-05-17' },
      [mentor]: { value: JSON.stringify([cast.owner.id]) },
    });
    const without = await server.call('GET', `/users/${cast.member.id}`, { as: cast.member2 });
    expect(without.body.user).not.toHaveProperty('profile_data');
    const me = await server.call('GET', '/users/me', { as: cast.member });
    expect(Object.keys(me.body.profile_data).sort()).toEqual(
      [String(bio), String(birthday), String(mentor)].sort(),
    );

    await server.ok('PATCH', `/users/${cast.member.id}`, {
      as: cast.admin,
      params: { profile_data: [{ id: bio, value: '' }] },
    });
    const after = await server.call('GET', `/users/${cast.member.id}`, {
      as: cast.member2,
      params: { include_custom_profile_fields: true },
    });
    expect(after.body.user.profile_data).not.toHaveProperty(String(bio));
  });

  test('invalid values and unknown fields are refused', async () => {
    const fields = (await server.call('GET', '/realm/profile_fields', { as: cast.admin })).body
      .custom_fields;
    const id = (name: string) => fields.find((f: { name: string }) => f.name === name).id;
    const patch = (profile_data: unknown) =>
      server.call('PATCH', `/users/${cast.member2.id}`, {
        as: cast.admin,
        params: { profile_data },
      });
    expect((await patch([{ id: 999999, value: 'x' }])).body).toEqual(
      error('Field id 999999 not found.'),
    );
    expect((await patch([{ id: id('Birthday'), value: 'not a date' }])).body).toEqual(
      error('Birthday is not a date'),
    );
    expect((await patch([{ id: id('Team'), value: 'sales' }])).body).toEqual(
      error("'sales' is not a valid choice for 'Team'."),
    );
    expect((await patch([{ id: id('Phone'), value: 'x'.repeat(51) }])).body).toEqual(
      error('Phone is too long (limit: 50 characters)'),
    );
    expect((await patch([{ id: id('Mentor'), value: [999999] }])).body).toEqual(
      error('Invalid user ID: 999999'),
    );
  });
});
