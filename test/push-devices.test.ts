// Push devices: POST and DELETE /users/me/apns_device_token and
// /users/me/android_gcm_reg_id: the token and app ID rules, bots,
// registering the same token twice, and removing tokens.
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const token = Buffer.from('a device token of some length').toString('base64');

test('registers a token once, however often it is sent', async () => {
  for (let i = 0; i < 2; i++) {
    const res = await server.call('POST', '/users/me/apns_device_token', {
      as: cast.member,
      params: { token, appid: 'org.zulip.Zulip' },
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
  }
  const rows = await server.services.db.read((db) =>
    db.pushDeviceToken.findMany({ where: { userId: cast.member.id } }),
  );
  expect(rows).toEqual([expect.objectContaining({ kind: 1, token, appId: 'org.zulip.Zulip' })]);
});

test.each([
  ['an empty token', { token: '', appid: 'org.zulip.Zulip' }, 'Empty or invalid length token'],
  [
    'a token over 4096 characters',
    { token: 'A'.repeat(4100), appid: 'org.zulip.Zulip' },
    'Empty or invalid length token',
  ],
  [
    'a token that is not base64',
    { token: 'not base64!', appid: 'org.zulip.Zulip' },
    'Invalid APNS token',
  ],
  ['an app ID with a slash', { token, appid: 'org/zulip' }, 'Invalid app ID'],
])('%s is refused', async (_label, params, msg) => {
  const res = await server.call('POST', '/users/me/apns_device_token', {
    as: cast.member2,
    params,
  });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
});

test('appid is required', async () => {
  const res = await server.call('POST', '/users/me/apns_device_token', {
    as: cast.member2,
    params: { token },
  });
  expect(res.body).toEqual({
    result: 'error',
    msg: "Missing 'appid' argument",
    code: 'REQUEST_VARIABLE_MISSING',
    var_name: 'appid',
  });
});

test('bots may not register devices', async () => {
  const bot = await server.createUser(cast.realm, { email: 'pushbot@example.com', isBot: true });
  const res = await server.call('POST', '/users/me/apns_device_token', {
    as: bot,
    params: { token, appid: 'org.zulip.Zulip' },
  });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    result: 'error',
    msg: 'This endpoint is not available to bots.',
    code: 'BAD_REQUEST',
  });
});

describe('removing tokens and Android tokens', () => {
  const fcm = 'cXXE2TFnRvqW1e1Fkq2WxN:APA91bH4rE8f2zW0mYq3cD7x';
  const rows = (user: { id: number }) =>
    server.services.db.read((db) =>
      db.pushDeviceToken.findMany({ where: { userId: user.id }, orderBy: { id: 'asc' } }),
    );

  test('an FCM token is registered once, without an app ID, and removed', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await server.call('POST', '/users/me/android_gcm_reg_id', {
        as: cast.admin,
        params: { token: fcm },
      });
      expect(res.body).toEqual({ result: 'success', msg: '' });
    }
    expect(await rows(cast.admin)).toEqual([
      expect.objectContaining({ kind: 2, token: fcm, appId: null }),
    ]);
    const removed = await server.call('DELETE', '/users/me/android_gcm_reg_id', {
      as: cast.admin,
      params: { token: fcm },
    });
    expect(removed.body).toEqual({ result: 'success', msg: '' });
    expect(await rows(cast.admin)).toEqual([]);
  });

  test('an APNs token is removed; the FCM token of the same text stays', async () => {
    const apns = Buffer.from('apns token to remove').toString('base64');
    for (const [path, params] of [
      ['/users/me/apns_device_token', { token: apns, appid: 'org.zulip.Zulip' }],
      ['/users/me/android_gcm_reg_id', { token: apns }],
    ] as const)
      expect((await server.call('POST', path, { as: cast.moderator, params })).status).toBe(200);
    const res = await server.call('DELETE', '/users/me/apns_device_token', {
      as: cast.moderator,
      params: { token: apns },
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await rows(cast.moderator)).toEqual([expect.objectContaining({ kind: 2, token: apns })]);
  });

  test("unknown tokens, and other users' tokens, do not exist", async () => {
    const mine = Buffer.from('only mine').toString('base64');
    await server.ok('POST', '/users/me/apns_device_token', {
      as: cast.owner,
      params: { token: mine, appid: 'org.zulip.Zulip' },
    });
    for (const [path, as, token] of [
      ['/users/me/apns_device_token', cast.member2, mine],
      ['/users/me/apns_device_token', cast.owner, Buffer.from('never').toString('base64')],
      ['/users/me/android_gcm_reg_id', cast.owner, mine],
    ] as const) {
      const res = await server.call('DELETE', path, { as, params: { token } });
      expect([path, res.status, res.body]).toEqual([
        path,
        400,
        { result: 'error', msg: 'Token does not exist', code: 'BAD_REQUEST' },
      ]);
    }
    expect(await rows(cast.owner)).toHaveLength(1);
  });

  test.each([
    ['DELETE', '/users/me/apns_device_token', '', 'Empty or invalid length token'],
    ['DELETE', '/users/me/apns_device_token', 'not base64!', 'Invalid APNS token'],
    ['POST', '/users/me/android_gcm_reg_id', '', 'Empty or invalid length token'],
    ['POST', '/users/me/android_gcm_reg_id', 'x'.repeat(4097), 'Empty or invalid length token'],
    ['DELETE', '/users/me/android_gcm_reg_id', '', 'Empty or invalid length token'],
  ])('%s %s with a bad token is refused', async (method, path, token, msg) => {
    const res = await server.call(method, path, {
      as: cast.member2,
      params: { token },
      encoding: 'json',
    });
    expect([res.status, res.body]).toEqual([400, { result: 'error', msg, code: 'BAD_REQUEST' }]);
  });

  test('the token is required, and bots have no devices', async () => {
    const missing = await server.call('POST', '/users/me/android_gcm_reg_id', {
      as: cast.member2,
    });
    expect(missing.body).toEqual({
      result: 'error',
      msg: "Missing 'token' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'token',
    });
    const bot = await server.createUser(cast.realm, { email: 'fcmbot@example.com', isBot: true });
    for (const [method, path] of [
      ['POST', '/users/me/android_gcm_reg_id'],
      ['DELETE', '/users/me/android_gcm_reg_id'],
      ['DELETE', '/users/me/apns_device_token'],
    ]) {
      const res = await server.call(method, path, { as: bot, params: { token } });
      expect([path, res.body]).toEqual([
        path,
        { result: 'error', msg: 'This endpoint is not available to bots.', code: 'BAD_REQUEST' },
      ]);
    }
  });
});

// POST /mobile_push/register: registering for end-to-end encrypted
// notifications needs Zulip's push notification service, which this server
// does not use: a well-formed request is answered PUSH_SERVICE_NOT_CONFIGURED.
describe('POST /mobile_push/register', () => {
  const registration = {
    token_kind: 'fcm',
    push_account_id: 2408,
    push_public_key: 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt',
    bouncer_public_key: 'bouncer-public-key',
    encrypted_push_registration: 'encrypted-push-registration-data',
  };
  const notConfigured = {
    result: 'error',
    msg: 'Server is not configured to use push notification service.',
    code: 'PUSH_SERVICE_NOT_CONFIGURED',
  };
  const registerDevice = (params: Record<string, unknown>, as = cast.member, encoding = 'form') =>
    server.call('POST', '/mobile_push/register', {
      as,
      params,
      encoding: encoding as 'form' | 'json' | 'multipart',
    });

  test.each([
    ['fcm', 'form'],
    ['apns', 'form'],
    ['fcm', 'json'],
    ['apns', 'multipart'],
  ])(
    'a well-formed %s request (%s) answers PUSH_SERVICE_NOT_CONFIGURED',
    async (kind, encoding) => {
      const res = await registerDevice(
        { ...registration, token_kind: kind },
        cast.member,
        encoding,
      );
      expect([res.status, res.body]).toEqual([400, notConfigured]);
    },
  );

  test('nothing is registered: the register state has no push devices, no token is stored', async () => {
    const user = await server.createUser(cast.realm, { email: 'e2ee-phone@example.com' });
    expect((await registerDevice(registration, user)).body).toEqual(notConfigured);
    const state = await server.call('POST', '/register', {
      as: user,
      params: { fetch_event_types: ['push_device'], event_types: [] },
    });
    expect(state.status).toBe(200);
    expect(state.body.push_devices).toEqual({});
    const rows = await server.services.db.read((db) =>
      db.pushDeviceToken.findMany({ where: { userId: user.id } }),
    );
    expect(rows).toEqual([]);
  });

  test.each(Object.keys(registration))('%s is required', async (missing) => {
    const params: Record<string, unknown> = { ...registration };
    delete params[missing];
    const res = await registerDevice(params);
    expect([res.status, res.body]).toEqual([
      400,
      {
        result: 'error',
        msg: `Missing '${missing}' argument`,
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: missing,
      },
    ]);
  });

  test.each([
    ['a token kind other than fcm or apns', { token_kind: 'gcm' }, 'Invalid token_kind'],
    [
      'a push account ID that is not a number',
      { push_account_id: 'abc' },
      'push_account_id is not valid JSON',
    ],
    ['a negative push account ID', { push_account_id: -1 }, 'push_account_id is too small'],
  ])('%s is refused', async (_label, change, msg) => {
    const res = await registerDevice({ ...registration, ...change });
    expect([res.status, res.body]).toEqual([400, { result: 'error', msg, code: 'BAD_REQUEST' }]);
  });

  test('bots are refused', async () => {
    const bot = await server.createUser(cast.realm, { email: 'e2eebot@example.com', isBot: true });
    const res = await registerDevice(registration, bot);
    expect([res.status, res.body]).toEqual([
      400,
      { result: 'error', msg: 'This endpoint is not available to bots.', code: 'BAD_REQUEST' },
    ]);
  });
});
