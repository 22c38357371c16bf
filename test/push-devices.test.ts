// POST /users/me/apns_device_token: the token and app ID rules, bots, and
// registering the same token twice.
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  server = await TestServer.start();
  cast = await server.createCast();
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
