// The HTTP layer: where parameters are read from, how JSON inside form fields
// is decoded, the success and error envelopes, and the answers for paths,
// methods and failures that reach no handler.
import { TestServer, type Cast } from './support/server';
import { waitFor } from './support/wait';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

async function settingsOf(user: Cast['member']) {
  const res = await server.call('POST', '/register', {
    as: user,
    params: { fetch_event_types: ['user_settings'], event_types: [] },
  });
  return res.body.user_settings;
}

describe('parameters', () => {
  test('are read from a urlencoded body, with JSON values decoded', async () => {
    const res = await server.call('PATCH', '/settings', {
      as: cast.member,
      params: { enter_sends: true, timezone: 'Europe/Paris' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await settingsOf(cast.member)).toMatchObject({
      enter_sends: true,
      timezone: 'Europe/Paris',
    });
  });

  test('are read from a multipart body', async () => {
    const res = await server.call('PATCH', '/settings', {
      as: cast.member,
      params: { twenty_four_hour_time: true },
      encoding: 'multipart',
    });
    expect(res.status).toBe(200);
    expect((await settingsOf(cast.member)).twenty_four_hour_time).toBe(true);
  });

  test('of PATCH are read from the query string, as zulip-js sends them', async () => {
    const res = await server.call('PATCH', '/settings', {
      as: cast.member,
      params: { enter_sends: false, default_language: 'de' },
      encoding: 'query',
    });
    expect(res.status).toBe(200);
    expect(await settingsOf(cast.member)).toMatchObject({
      enter_sends: false,
      default_language: 'de',
    });
  });

  test('in the body win over the same parameter in the query string', async () => {
    const res = await server.send('PATCH', '/settings?timezone=Asia/Tokyo', {
      as: cast.member,
      params: { timezone: 'America/Lima' },
    });
    expect(res.status).toBe(200);
    expect((await settingsOf(cast.member)).timezone).toBe('America/Lima');
  });

  test('of DELETE are read from the query string or from a form body', async () => {
    for (const encoding of ['query', 'form'] as const) {
      const reg = await server.call('POST', '/register', {
        as: cast.member,
        params: { event_types: ['user_settings'] },
      });
      const del = await server.call('DELETE', '/events', {
        as: cast.member,
        params: { queue_id: reg.body.queue_id },
        encoding,
      });
      expect(del.status).toBe(200);
      const again = await server.call('GET', '/events', {
        as: cast.member,
        params: { queue_id: reg.body.queue_id, dont_block: true },
      });
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('BAD_EVENT_QUEUE_ID');
    }
  });

  test('that are not valid JSON get a 400 naming the parameter', async () => {
    const res = await server.call('POST', '/register', {
      as: cast.member,
      params: { event_types: '["message"' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'event_types is not valid JSON',
      code: 'BAD_REQUEST',
    });
    const flag = await server.call('PATCH', '/settings', {
      as: cast.member,
      params: { enter_sends: 'yes please' },
    });
    expect(flag.body).toEqual({
      result: 'error',
      msg: 'enter_sends is not valid JSON',
      code: 'BAD_REQUEST',
    });
  });

  test('of the wrong type get a 400 naming the parameter and the type', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ enter_sends: 5 }, 'enter_sends is not a boolean'],
      [{ email_address_visibility: '"two"' }, 'email_address_visibility is not an integer'],
      [{ email_address_visibility: 9 }, 'Invalid email_address_visibility'],
      [{ full_name: 'x'.repeat(101) }, 'full_name is too long (limit: 100 characters)'],
    ];
    for (const [params, msg] of cases) {
      const res = await server.call('PATCH', '/settings', { as: cast.member, params });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    }
    const list = await server.call('POST', '/register', {
      as: cast.member,
      params: { event_types: '{"a":1}' },
    });
    expect(list.body).toEqual({
      result: 'error',
      msg: 'event_types is not a list',
      code: 'BAD_REQUEST',
    });
  });

  test('not defined by the operation are listed in ignored_parameters_unsupported, sorted', async () => {
    const res = await server.call('PATCH', '/settings', {
      as: cast.member,
      params: { enter_sends: true, zebra: 1, apple: 'x' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      ignored_parameters_unsupported: ['apple', 'zebra'],
    });
    const get = await server.call('GET', '/users/me', {
      as: cast.member,
      params: { unknown: 'x' },
    });
    expect(get.body.ignored_parameters_unsupported).toEqual(['unknown']);
  });

  test('a required parameter that is missing gets REQUEST_VARIABLE_MISSING', async () => {
    const res = await server.call('GET', '/events', { as: cast.member });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: "Missing 'queue_id' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'queue_id',
    });
  });
});

describe('paths and methods', () => {
  test('an unknown path under /api/v1 answers 404 in the envelope', async () => {
    const res = await server.call('GET', '/no/such/endpoint', { as: cast.member });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });
  });

  test('a method the path does not support answers 405 with allowed_methods', async () => {
    const res = await server.call('PUT', '/events', { as: cast.member });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Method Not Allowed',
      allowed_methods: ['DELETE', 'GET'],
    });
    expect(res.headers.get('allow')).toBe('DELETE, GET');
  });
});

describe('rate limits', () => {
  test('answer 429 RATE_LIMIT_HIT with Retry-After once a user exceeds the limit', async () => {
    await TestServer.using(
      { RATE_LIMIT_USER_REQUESTS: '3', RATE_LIMIT_IP_REQUESTS: '2' },
      async (limited) => {
        const { owner } = await limited.createRealm();
        for (let i = 0; i < 3; i++) {
          const ok = await limited.call('GET', '/users/me', { as: owner });
          expect(ok.status).toBe(200);
          expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
          expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
        }
        const res = await limited.call('GET', '/users/me', { as: owner });
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({
          result: 'error',
          msg: 'API usage exceeded rate limit',
          code: 'RATE_LIMIT_HIT',
        });
        expect(res.body['retry-after']).toBeGreaterThan(0);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);

        await limited.call('GET', '/server_settings');
        await limited.call('GET', '/server_settings');
        const anon = await limited.call('GET', '/server_settings');
        expect(anon.status).toBe(429);
        expect(anon.body.code).toBe('RATE_LIMIT_HIT');
      },
    );
  });

  test('a refused user is let in again once the window has ended', async () => {
    await TestServer.using(
      { RATE_LIMIT_USER_REQUESTS: '1', RATE_LIMIT_WINDOW_SECONDS: '1' },
      async (limited) => {
        const { owner } = await limited.createRealm();
        expect((await limited.call('GET', '/users/me', { as: owner })).status).toBe(200);
        expect((await limited.call('GET', '/users/me', { as: owner })).status).toBe(429);
        const next = await waitFor('a request in the next window', async () => {
          const res = await limited.call('GET', '/users/me', { as: owner });
          return res.status === 200 ? res : undefined;
        });
        expect(next.headers.get('x-ratelimit-remaining')).toBe('0');
      },
    );
  });

  test('failed password logins are limited per username', async () => {
    await TestServer.using({ RATE_LIMIT_AUTH_ATTEMPTS: '2' }, async (limited) => {
      const { owner } = await limited.createRealm();
      for (let i = 0; i < 2; i++) {
        const res = await limited.call('POST', '/fetch_api_key', {
          params: { username: owner.email, password: 'wrong' },
        });
        expect(res.status).toBe(401);
      }
      const blocked = await limited.call('POST', '/fetch_api_key', {
        params: { username: owner.email, password: 'owner-password' },
      });
      expect(blocked.status).toBe(429);
      expect(blocked.body.code).toBe('RATE_LIMIT_HIT');
    });
  });
});

describe('unexpected failures', () => {
  test('answer 500 in the envelope with a request id and no stack trace, and are logged', async () => {
    const lines: string[] = [];
    await TestServer.using(
      { LOG_LEVEL: 'error' },
      async (broken) => {
        const { owner } = await broken.createRealm();
        // Break the database under the server: the next query of GET /users/me fails.
        await broken.services.db.client.$executeRawUnsafe('DROP TABLE "UserMessage"');
        const res = await broken.send('GET', '/users/me', { as: owner });
        expect(res.status).toBe(500);
        expect(res.body).toEqual({
          result: 'error',
          msg: 'Internal server error',
          code: 'INTERNAL_SERVER_ERROR',
          request_id: expect.any(String),
        });
        expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+|UserMessage/);
        expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
        expect(
          lines.some((l) => l.includes(res.body.request_id) && l.includes('unhandled error')),
        ).toBe(true);
      },
      lines,
    );
  });
});
