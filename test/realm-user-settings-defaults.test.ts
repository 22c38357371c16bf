// PATCH /realm/user_settings_defaults: an administrator chooses the personal
// settings new accounts start with. Checked through /register (the
// realm_user_settings_defaults key and a new account's user_settings), the
// realm_user_settings_defaults events applied to a registered state, and the
// refusals.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents, type Event, type State } from './support/apply-events';
import { TestServer, type Cast } from './support/server';
import { choices, pick } from './support/settings-values';
import { eventsOf, register as registerQueue } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

/** A queue of `types` with their state. */
const register = (user: User, types: string[]): Promise<State> =>
  registerQueue(server, user, { fetch_event_types: types, event_types: types });

const events = (user: User, queueId: string) => eventsOf(server, user, queueId) as Promise<Event[]>;

const patchDefaults = (as: User, params: Record<string, unknown>) =>
  server.call('PATCH', '/realm/user_settings_defaults', { as, params });

const defaultsOf = async (user: User) =>
  (await register(user, ['realm_user_settings_defaults'])).realm_user_settings_defaults;

let counter = 0;
const newMember = () => {
  counter += 1;
  return server.createUser(cast.realm, { email: `defaults-${counter}@example.com` });
};

const { timezone: _timezone, ...changed } = pick(1);
const { timezone: _initialTimezone, ...initial } = pick(0);

test('an administrator changes every default; new accounts start with them, existing ones keep theirs', async () => {
  const watching = await register(cast.member, ['realm_user_settings_defaults']);
  const before = await register(cast.member, ['user_settings']);

  const res = await patchDefaults(cast.admin, changed);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ result: 'success', msg: '' });

  const received = await events(cast.member, watching.queue_id);
  expect(received.map(({ id: _id, ...e }) => e)).toEqual(
    expect.arrayContaining(
      Object.entries(changed).map(([property, value]) => ({
        type: 'realm_user_settings_defaults',
        op: 'update',
        property,
        value,
      })),
    ),
  );
  expect(received).toHaveLength(Object.keys(changed).length);
  applyEvents(watching, received);
  expect(watching.realm_user_settings_defaults).toEqual(await defaultsOf(cast.member));
  expect(watching.realm_user_settings_defaults).toEqual({ ...changed, ...choices });

  const newcomer = await newMember();
  const { user_settings } = await register(newcomer, ['user_settings']);
  expect(user_settings).toEqual({ ...changed, timezone: '', ...choices });
  expect((await register(cast.member, ['user_settings'])).user_settings).toEqual(
    before.user_settings,
  );

  // Back to the server's values: the next account starts as on a new server.
  expect((await patchDefaults(cast.admin, initial)).status).toBe(200);
  expect(await defaultsOf(cast.member)).toEqual({ ...initial, ...choices });
  const later = await newMember();
  expect((await register(later, ['user_settings'])).user_settings).toEqual({
    ...pick(0),
    ...choices,
  });
});

test('a value equal to the current default sends no event', async () => {
  const watching = await register(cast.member, ['realm_user_settings_defaults']);
  const current = (await defaultsOf(cast.member)).enter_sends;
  expect((await patchDefaults(cast.admin, { enter_sends: current })).status).toBe(200);
  expect(await events(cast.member, watching.queue_id)).toEqual([]);
});

test('members are refused, bad values change nothing, and other names are ignored', async () => {
  const before = await defaultsOf(cast.member);
  expect(await patchDefaults(cast.member, { enter_sends: true })).toMatchObject({
    status: 400,
    body: {
      result: 'error',
      msg: 'Must be an organization administrator',
      code: 'UNAUTHORIZED_PRINCIPAL',
    },
  });
  expect(await patchDefaults(cast.moderator, { enter_sends: true })).toMatchObject({
    status: 400,
    body: { code: 'UNAUTHORIZED_PRINCIPAL' },
  });
  expect(
    await patchDefaults(cast.admin, { enter_sends: true, default_language: 'tlh' }),
  ).toMatchObject({
    status: 400,
    body: { result: 'error', msg: 'Invalid default_language', code: 'BAD_REQUEST' },
  });
  expect(await patchDefaults(cast.admin, { color_scheme: 7 })).toMatchObject({
    status: 400,
    body: { result: 'error', code: 'BAD_REQUEST' },
  });
  expect(await defaultsOf(cast.member)).toEqual(before);

  const res = await patchDefaults(cast.owner, {
    timezone: 'Asia/Kolkata',
    full_name: 'Someone',
    high_contrast_mode: true,
  });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    ignored_parameters_unsupported: ['full_name', 'timezone'],
  });
  expect(await defaultsOf(cast.member)).toEqual({ ...before, high_contrast_mode: true });
});

test('JSON bodies carry the defaults as native values', async () => {
  const res = await server.call('PATCH', '/realm/user_settings_defaults', {
    as: cast.admin,
    params: { web_font_size_px: 18, web_home_view: 'all_messages' },
    encoding: 'json',
  });
  expect(res.status).toBe(200);
  expect(await defaultsOf(cast.member)).toMatchObject({
    web_font_size_px: 18,
    web_home_view: 'all_messages',
  });
});
