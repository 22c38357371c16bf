// POST /mobile_push/test_notification and GET /calls/bigbluebutton/create on
// a server with no push notification service and no BigBlueButton server, as
// Zulip answers there.
import { createHmac } from 'node:crypto';
import type { User } from '../generated/prisma/sqlite/client';
import { doGetServerSecret } from '../src/actions/users/server-secrets';
import { BIGBLUEBUTTON_SECRET } from '../src/lib/calls/bigbluebutton';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

describe('POST /mobile_push/test_notification', () => {
  const notify = (as: User, params: Record<string, unknown> = {}) =>
    server.call('POST', '/mobile_push/test_notification', { as, params });

  test('succeeds for every device, and for a registered token', async () => {
    expect((await notify(cast.member)).body).toEqual({ result: 'success', msg: '' });
    await server.ok('POST', '/users/me/android_gcm_reg_id', {
      as: cast.member,
      params: { token: 'fcm-token-1' },
    });
    expect((await notify(cast.member, { token: 'fcm-token-1' })).body).toEqual({
      result: 'success',
      msg: '',
    });
  });

  test("refuses a token that is not one of the requester's devices", async () => {
    await server.ok('POST', '/users/me/android_gcm_reg_id', {
      as: cast.member2,
      params: { token: 'fcm-token-2' },
    });
    for (const token of ['never-registered', 'fcm-token-2']) {
      const res = await notify(cast.member, { token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Device not recognized',
        code: 'INVALID_PUSH_DEVICE_TOKEN',
      });
    }
  });

  test('refuses bots', async () => {
    const bot = await server.call('POST', '/bots', {
      as: cast.member,
      params: { full_name: 'Push Bot', short_name: 'push' },
    });
    const res = await notify({ email: 'push-bot@chat.test', apiKey: bot.body.api_key } as User);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'This endpoint does not accept bot requests.',
      code: 'BAD_REQUEST',
    });
  });
});

describe('GET /calls/bigbluebutton/create', () => {
  test('answers a signed join address carrying the call', async () => {
    const res = await server.call('GET', '/calls/bigbluebutton/create', {
      as: cast.member,
      params: { meeting_name: 'design meeting', voice_only: true },
    });
    expect(res.status).toBe(200);
    const match = /^\/calls\/bigbluebutton\/join\?bigbluebutton=([\w-]+)\.([\w-]+)$/.exec(
      res.body.url,
    );
    expect(match).not.toBeNull();
    const [, details, signature] = match!;
    const secret = await doGetServerSecret(server.services, BIGBLUEBUTTON_SECRET);
    expect(createHmac('sha256', secret).update(details).digest('base64url')).toBe(signature);
    expect(JSON.parse(Buffer.from(details, 'base64url').toString())).toEqual({
      meeting_id: expect.stringMatching(/^zulip-\d{12}$/),
      name: 'design meeting',
      lock_settings_disable_cam: true,
      moderator: cast.member.id,
    });
    // Each call gets its own meeting.
    const again = await server.call('GET', '/calls/bigbluebutton/create', {
      as: cast.member,
      params: { meeting_name: 'design meeting' },
    });
    expect(again.body.url).not.toBe(res.body.url);
  });

  test('needs a meeting name', async () => {
    const res = await server.call('GET', '/calls/bigbluebutton/create', { as: cast.member });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: "Missing 'meeting_name' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'meeting_name',
    });
  });
});
