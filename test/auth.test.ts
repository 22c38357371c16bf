// Authentication: HTTP basic with email and API key, POST /fetch_api_key,
// GET /server_settings and GET /users/me, with Zulip's status and message for
// every way authentication can fail.
import { Role } from '../src/lib/constants';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

const basic = (text: string) => ({
  authorization: `Basic ${Buffer.from(text).toString('base64')}`,
});

describe('HTTP basic authentication', () => {
  test('answers the owner on GET /users/me', async () => {
    const res = await server.call('GET', '/users/me', { as: cast.owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: 'success',
      msg: '',
      user_id: cast.owner.id,
      delivery_email: cast.owner.email,
      full_name: 'Olivia Owner',
      role: Role.OWNER,
      is_owner: true,
      is_admin: true,
      is_guest: false,
      is_bot: false,
      max_message_id: -1,
    });
  });

  test('compares the email case-insensitively', async () => {
    const res = await server.call('GET', '/users/me', {
      as: { email: cast.member.email.toUpperCase(), apiKey: cast.member.apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(cast.member.id);
  });

  test('without credentials answers 401 with WWW-Authenticate', async () => {
    const res = await server.call('GET', '/users/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Not logged in: API authentication or user session required',
      code: 'UNAUTHORIZED',
    });
  });

  test('a scheme other than Basic answers 400', async () => {
    const res = await server.call('GET', '/users/me', { as: { authorization: 'Bearer abc' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'This endpoint requires HTTP basic authentication.',
      code: 'BAD_REQUEST',
    });
  });

  test('an undecodable header answers 401', async () => {
    const res = await server.call('GET', '/users/me', { as: basic('no-colon-here') });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Invalid authorization header for basic auth',
      code: 'UNAUTHORIZED',
    });
  });

  test('a malformed key answers 401 Malformed API key', async () => {
    const res = await server.call('GET', '/users/me', {
      as: { email: cast.owner.email, apiKey: 'short' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ result: 'error', msg: 'Malformed API key', code: 'UNAUTHORIZED' });
  });

  test("an unknown key, or a key with another user's email, answers 401 Invalid API key", async () => {
    for (const as of [
      { email: cast.owner.email, apiKey: 'A'.repeat(32) },
      { email: cast.member.email, apiKey: cast.owner.apiKey },
    ]) {
      const res = await server.call('GET', '/users/me', { as });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });
    }
  });

  test('a deactivated user answers 401 Account is deactivated', async () => {
    const user = await server.createUser(cast.realm, { email: 'gone@example.com' });
    await server.services.db.write((tx) =>
      tx.user.update({ where: { id: user.id }, data: { isActive: false } }),
    );
    const res = await server.call('GET', '/users/me', { as: user });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Account is deactivated',
      code: 'UNAUTHORIZED',
    });
  });
});

describe('credentials not seen lately', () => {
  /** Polls a queue of member2 with `as`, `count` times at once; answers the statuses and the database reads made. */
  async function concurrentPolls(as: { email: string; apiKey: string }, count: number) {
    const queue = (
      await server.ok('POST', '/register', {
        as: cast.member2,
        params: { event_types: JSON.stringify(['message']) },
      })
    ).body;
    const reads = () => server.services.db.timing.reads;
    const before = reads();
    const answers = await Promise.all(
      Array.from({ length: count }, () =>
        server.call('GET', '/events', {
          as,
          params: { queue_id: queue.queue_id, last_event_id: -1, dont_block: true },
        }),
      ),
    );
    return { statuses: answers.map((a) => a.status), reads: reads() - before };
  }

  test('are looked up once for the requests that come together', async () => {
    // The email in capitals is a header the server has not seen: a cold entry.
    // (On PostgreSQL, where a read takes a round trip, the lookups overlap.)
    const as = { email: cast.member2.email.toUpperCase(), apiKey: cast.member2.apiKey };
    const polls = await concurrentPolls(as, 20);
    expect(polls).toEqual({ statuses: Array(20).fill(200), reads: 1 });
  });

  test('a lookup shared by requests fails for each of them when the key is wrong', async () => {
    const wrong = { email: cast.member2.email, apiKey: 'x'.repeat(32) };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => server.call('GET', '/users/me', { as: wrong })),
    );
    expect(answers.map((a) => [a.status, a.body.msg])).toEqual(
      Array(5).fill([401, 'Invalid API key']),
    );
  });
});

describe('a deactivated organization', () => {
  test('refuses its users with 401 and their password logins with REALM_DEACTIVATED', async () => {
    const other = await server.createRealm('Closed', 'closed');
    await server.services.db.write((tx) =>
      tx.realm.update({ where: { id: other.realm.id }, data: { deactivated: true } }),
    );
    const res = await server.call('GET', '/users/me', { as: other.owner });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'This organization has been deactivated',
      code: 'UNAUTHORIZED',
    });

    const login = await server.call('POST', '/fetch_api_key', {
      params: { username: other.owner.email, password: 'owner-password' },
      headers: { host: 'closed.chat.test' },
    });
    expect(login.status).toBe(401);
    expect(login.body).toEqual({
      result: 'error',
      msg: 'This organization has been deactivated',
      code: 'REALM_DEACTIVATED',
    });
  });
});

describe('POST /fetch_api_key', () => {
  test('returns the API key, email and user ID for the right password, as zulip-js sends it (multipart)', async () => {
    const res = await server.call('POST', '/fetch_api_key', {
      params: { username: 'HAMLET@example.com', password: 'password' },
      encoding: 'multipart',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      api_key: cast.member.apiKey,
      email: cast.member.email,
      user_id: cast.member.id,
    });
  });

  test('a wrong password or unknown user answers 401 AUTHENTICATION_FAILED', async () => {
    for (const params of [
      { username: cast.member.email, password: 'wrong' },
      { username: 'nobody@example.com', password: 'password' },
    ]) {
      const res = await server.call('POST', '/fetch_api_key', { params });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Your username or password is incorrect',
        code: 'AUTHENTICATION_FAILED',
      });
    }
  });

  test('a deactivated user answers 401 USER_DEACTIVATED', async () => {
    const user = await server.createUser(cast.realm, {
      email: 'retired@example.com',
      password: 'pw-retired',
    });
    await server.services.db.write((tx) =>
      tx.user.update({ where: { id: user.id }, data: { isActive: false } }),
    );
    const res = await server.call('POST', '/fetch_api_key', {
      params: { username: user.email, password: 'pw-retired' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Account is deactivated',
      code: 'USER_DEACTIVATED',
    });
  });

  test('a missing password answers REQUEST_VARIABLE_MISSING', async () => {
    const res = await server.call('POST', '/fetch_api_key', {
      params: { username: cast.member.email },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: "Missing 'password' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'password',
    });
  });

  test('needs no credentials even when wrong ones are sent', async () => {
    const res = await server.call('POST', '/fetch_api_key', {
      params: { username: cast.member.email, password: 'password' },
      as: { email: 'x@example.com', apiKey: 'B'.repeat(32) },
    });
    expect(res.status).toBe(200);
  });
});

describe('GET /server_settings', () => {
  test('describes the server without credentials', async () => {
    const res = await server.call('GET', '/server_settings');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: 'success',
      zulip_version: expect.any(String),
      realm_name: 'Test organization',
      realm_url: 'http://chat.test',
      realm_uri: 'http://chat.test',
      email_auth_enabled: true,
    });
    expect(res.body.zulip_feature_level).toBeGreaterThanOrEqual(407);
    expect(res.body.authentication_methods.password).toBe(true);
  });

  test('answers 404 for a subdomain with no organization', async () => {
    const res = await server.call('GET', '/server_settings', {
      headers: { host: 'missing.chat.test' },
    });
    expect(res.status).toBe(404);
    expect(res.body.result).toBe('error');
  });
});
