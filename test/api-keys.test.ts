// API keys: POST /users/me/api_key/regenerate (the old key stops at once, the
// event queues stay the user's) and POST /jwt/fetch_api_key (tokens signed
// with the organization's JWT_AUTH_KEYS entry, HMAC or RSA, each way a token
// is refused), with the checks loadConfig makes of JWT_AUTH_KEYS.
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { loadConfig, ConfigError } from '../src/config';
import { Role } from '../src/lib/constants';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, expectRefusal, register, sendDirect } from './streams-fixtures';

type User = Cast['member'];

const success = { result: 'success', msg: '' };
const invalidKey = { result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' };

const HS_SECRET = 'root-organization-jwt-secret';
const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const otherRsa = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  // The root organization takes HS256 tokens; "rsa" RS256 ones; "mixed"
  // either, with one PEM public key; "nokey" none.
  server = await TestServer.start({
    JWT_AUTH_KEYS: JSON.stringify({
      '': { key: HS_SECRET, algorithms: ['HS256'] },
      rsa: { key: rsa.publicKey, algorithms: ['RS256'] },
      mixed: { key: rsa.publicKey, algorithms: ['RS256', 'HS256'] },
      closed: { key: HS_SECRET, algorithms: ['HS256'] },
    }),
  });
  cast = await server.createCast();
});
afterAll(() => server.stop());

/** GET /users/me with these credentials (at the user's organization): the status and the user's ID. */
async function whoAmI(as: User | { email: string; apiKey: string }) {
  const res = await server.call('GET', '/users/me', { as });
  return res.status === 200 ? { status: 200, userId: res.body.user_id } : { status: res.status };
}

describe('POST /users/me/api_key/regenerate', () => {
  let made = 0;
  async function freshUser(): Promise<User> {
    made += 1;
    return server.createUser(cast.realm, { email: `rekey${made}@example.com` });
  }

  async function regenerate(as: { email: string; apiKey: string }) {
    return server.call('POST', '/users/me/api_key/regenerate', { as });
  }

  test('answers a new key, which works; the old one is refused at once', async () => {
    const user = await freshUser();
    // The old key is known (and cached) before the change.
    expect(await whoAmI(user)).toEqual({ status: 200, userId: user.id });
    const res = await regenerate(user);
    expect(res.body).toEqual({ ...success, api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    const apiKey: string = res.body.api_key;
    expect(apiKey).not.toBe(user.apiKey);
    const old = await server.call('GET', '/users/me', { as: user });
    expect([old.status, old.body]).toEqual([401, invalidKey]);
    expect(await whoAmI({ email: user.email, apiKey })).toEqual({ status: 200, userId: user.id });
    const stored = await server.services.db.read((db) =>
      db.user.findUniqueOrThrow({ where: { id: user.id } }),
    );
    expect(stored.apiKey).toBe(apiKey);
    // POST /fetch_api_key gives the new key.
    const login = await server.call('POST', '/fetch_api_key', {
      params: { username: user.email, password: 'password' },
    });
    expect(login.body.api_key).toBe(apiKey);
  });

  test('each regeneration replaces the key before it; the old key cannot regenerate', async () => {
    const user = await freshUser();
    const first = (await regenerate(user)).body.api_key as string;
    const second = (await regenerate({ email: user.email, apiKey: first })).body.api_key as string;
    expect(new Set([user.apiKey, first, second]).size).toBe(3);
    for (const stale of [user.apiKey, first]) {
      const res = await regenerate({ email: user.email, apiKey: stale });
      expect([res.status, res.body]).toEqual([401, invalidKey]);
    }
    expect(await whoAmI({ email: user.email, apiKey: second })).toEqual({
      status: 200,
      userId: user.id,
    });
  });

  test('other users keep their keys', async () => {
    const user = await freshUser();
    const other = await freshUser();
    expect((await regenerate(user)).status).toBe(200);
    expect(await whoAmI(other)).toEqual({ status: 200, userId: other.id });
  });

  test('an event queue registered with the old key is polled with the new one', async () => {
    const user = await freshUser();
    const state = await register(server, user, { event_types: ['message'] });
    const apiKey = (await regenerate(user)).body.api_key as string;
    const id = await sendDirect(server, cast.member2, [user.id], 'after the new key');
    const renewed = { ...user, apiKey };
    const events = await eventsOf(server, renewed, state.queue_id);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'message',
        message: expect.objectContaining({ id, content: 'after the new key' }),
      }),
    ]);
    const old = await server.call('GET', '/events', {
      as: user,
      params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
    });
    expect([old.status, old.body]).toEqual([401, invalidKey]);
  });

  test('bots are refused, and keep their key', async () => {
    const bot = await server.createUser(cast.realm, {
      email: 'rekey-bot@example.com',
      isBot: true,
    });
    expectRefusal(await regenerate(bot), 'This endpoint does not accept bot requests.');
    expect(await whoAmI(bot)).toEqual({ status: 200, userId: bot.id });
  });

  test('without credentials, 401', async () => {
    const res = await server.call('POST', '/users/me/api_key/regenerate');
    expect(res.status).toBe(401);
  });
});

/** base64url of a JSON value. */
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

type Alg = 'HS256' | 'HS384' | 'HS512' | 'RS256' | 'RS384' | 'RS512';

/** A compact JWS of `claims`, signed with `key` by `alg` (a header may be given whole). */
function jwt(
  claims: unknown,
  alg: Alg,
  key: string,
  header: unknown = { alg, typ: 'JWT' },
): string {
  const signed = `${part(header)}.${part(claims)}`;
  const hash = `sha${alg.slice(2)}`;
  const signature = alg.startsWith('HS')
    ? createHmac(hash, key).update(signed).digest()
    : sign(hash, Buffer.from(signed), key);
  return `${signed}.${signature.toString('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);

describe('POST /jwt/fetch_api_key', () => {
  let rsaRealm: { realm: Cast['realm']; owner: User };
  let mixedRealm: { realm: Cast['realm']; owner: User };
  let closedRealm: { realm: Cast['realm']; owner: User };
  let noKeyRealm: { realm: Cast['realm']; owner: User };

  beforeAll(async () => {
    rsaRealm = await server.createRealm('RSA', 'rsa');
    mixedRealm = await server.createRealm('Mixed', 'mixed');
    closedRealm = await server.createRealm('Closed', 'closed');
    noKeyRealm = await server.createRealm('No key', 'nokey');
  });

  function fetchKey(
    params: Record<string, unknown>,
    options: { subdomain?: string; encoding?: 'form' | 'json' | 'multipart' } = {},
  ) {
    const host = options.subdomain ? `${options.subdomain}.chat.test` : 'chat.test';
    return server.call('POST', '/jwt/fetch_api_key', {
      params,
      encoding: options.encoding ?? 'form',
      headers: { host },
    });
  }

  const hs256 = (claims: unknown) => jwt(claims, 'HS256', HS_SECRET);
  const bad = 'Bad JSON web token';

  describe('accepted tokens', () => {
    test.each(['form', 'json', 'multipart'] as const)(
      'an HS256 token (%s) answers the API key and email, which authenticate',
      async (encoding) => {
        const res = await fetchKey({ token: hs256({ email: cast.member.email }) }, { encoding });
        expect(res.body).toEqual({
          ...success,
          api_key: cast.member.apiKey,
          email: cast.member.email,
        });
        expect(await whoAmI({ email: res.body.email, apiKey: res.body.api_key })).toEqual({
          status: 200,
          userId: cast.member.id,
        });
      },
    );

    test.each([
      ['form', 'true'],
      ['json', true],
    ] as const)('include_profile (%s) adds the profile', async (encoding, include) => {
      const res = await fetchKey(
        { token: hs256({ email: cast.admin.email }), include_profile: include },
        { encoding },
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...success,
        api_key: cast.admin.apiKey,
        email: cast.admin.email,
        user: expect.objectContaining({
          user_id: cast.admin.id,
          email: cast.admin.email,
          full_name: 'Iago Admin',
          role: Role.ADMINISTRATOR,
          is_admin: true,
          is_bot: false,
          is_active: true,
        }),
      });
      const other = await server.call('GET', `/users/${cast.admin.id}`, {
        as: cast.admin,
        params: { client_gravatar: false },
      });
      expect(res.body.user).toMatchObject({
        user_id: other.body.user.user_id,
        full_name: other.body.user.full_name,
        date_joined: other.body.user.date_joined,
        avatar_url: other.body.user.avatar_url,
      });
    });

    test('include_profile false answers no profile', async () => {
      const res = await fetchKey(
        { token: hs256({ email: cast.guest.email }), include_profile: false },
        { encoding: 'json' },
      );
      expect(res.body).toEqual({ ...success, api_key: cast.guest.apiKey, email: cast.guest.email });
    });

    test('the email claim is compared case-insensitively; other claims are allowed', async () => {
      const res = await fetchKey({
        token: hs256({
          email: 'HAMLET@Example.COM',
          sub: 'someone',
          iat: now(),
          exp: now() + 600,
          nbf: now() - 60,
        }),
      });
      expect(res.body).toEqual({
        ...success,
        api_key: cast.member.apiKey,
        email: cast.member.email,
      });
    });

    test('an RS256 token checked with the PEM public key', async () => {
      const res = await fetchKey(
        { token: jwt({ email: rsaRealm.owner.email }, 'RS256', rsa.privateKey) },
        { subdomain: 'rsa' },
      );
      expect(res.body).toEqual({
        ...success,
        api_key: rsaRealm.owner.apiKey,
        email: rsaRealm.owner.email,
      });
      expect(await whoAmI({ ...rsaRealm.owner, apiKey: res.body.api_key })).toEqual({
        status: 200,
        userId: rsaRealm.owner.id,
      });
    });

    test('an organization allowing RS256 and HS256 with a PEM key takes RS256 tokens', async () => {
      const res = await fetchKey(
        { token: jwt({ email: mixedRealm.owner.email }, 'RS256', rsa.privateKey) },
        { subdomain: 'mixed' },
      );
      expect(res.body.api_key).toBe(mixedRealm.owner.apiKey);
    });

    test('after the key is regenerated, the token answers the new key', async () => {
      const user = await server.createUser(cast.realm, { email: 'jwt-rekey@example.com' });
      const rekeyed = await server.call('POST', '/users/me/api_key/regenerate', { as: user });
      const res = await fetchKey({ token: hs256({ email: user.email }) });
      expect(res.body.api_key).toBe(rekeyed.body.api_key);
      expect(res.body.api_key).not.toBe(user.apiKey);
    });
  });

  describe('refused tokens: Bad JSON web token', () => {
    const claims = () => ({ email: cast.member.email });

    test.each<[string, () => string]>([
      ['signed with another secret', () => jwt(claims(), 'HS256', 'another secret')],
      [
        'HS512 when only HS256 is allowed',
        () => jwt(claims(), 'HS512', HS_SECRET, { alg: 'HS512', typ: 'JWT' }),
      ],
      [
        'HS384 when only HS256 is allowed',
        () => jwt(claims(), 'HS384', HS_SECRET, { alg: 'HS384', typ: 'JWT' }),
      ],
      [
        'RS256, which the organization does not allow',
        () => jwt(claims(), 'RS256', rsa.privateKey),
      ],
      ['alg "none", unsigned', () => `${part({ alg: 'none', typ: 'JWT' })}.${part(claims())}.`],
      [
        'alg "none" with the HS256 signature',
        () => {
          const token = hs256(claims()).split('.');
          return [part({ alg: 'none', typ: 'JWT' }), token[1], token[2]].join('.');
        },
      ],
      ['an unknown alg', () => jwt(claims(), 'HS256', HS_SECRET, { alg: 'XS256' })],
      ['a header without alg', () => jwt(claims(), 'HS256', HS_SECRET, { typ: 'JWT' })],
      ['a header that is not an object', () => jwt(claims(), 'HS256', HS_SECRET, 'HS256')],
      [
        'claims changed after signing',
        () => {
          const [h, , s] = hs256({ email: cast.guest.email }).split('.');
          return `${h}.${part({ email: cast.owner.email })}.${s}`;
        },
      ],
      ['an expired token', () => hs256({ ...claims(), exp: now() - 60 })],
      ['an exp that is not a number', () => hs256({ ...claims(), exp: String(now() + 600) })],
      ['a token not valid before a time to come', () => hs256({ ...claims(), nbf: now() + 600 })],
      ['claims that are a list', () => hs256([claims()])],
      [
        'claims that are not JSON',
        () => {
          const h = part({ alg: 'HS256', typ: 'JWT' });
          const p = Buffer.from('not json').toString('base64url');
          const s = createHmac('sha256', HS_SECRET).update(`${h}.${p}`).digest('base64url');
          return `${h}.${p}.${s}`;
        },
      ],
      ['two parts', () => hs256(claims()).split('.').slice(0, 2).join('.')],
      ['four parts', () => `${hs256(claims())}.xyz`],
      ['characters outside base64url', () => hs256(claims()).replace('.', '+.')],
      ['plain text', () => 'not a token'],
    ])('%s', async (_label, token) => {
      expectRefusal(await fetchKey({ token: token() }), bad);
    });

    test('an RS256 token signed with another private key', async () => {
      expectRefusal(
        await fetchKey(
          { token: jwt({ email: rsaRealm.owner.email }, 'RS256', otherRsa.privateKey) },
          { subdomain: 'rsa' },
        ),
        bad,
      );
    });

    test('an HS256 token signed with the PEM public key as the secret is refused', async () => {
      // Where only RS256 is allowed, and where HS256 is allowed with a PEM key too:
      // the public key is no secret, so it must not check an HMAC.
      for (const subdomain of ['rsa', 'mixed']) {
        const owner = subdomain === 'rsa' ? rsaRealm.owner : mixedRealm.owner;
        expectRefusal(
          await fetchKey(
            { token: jwt({ email: owner.email }, 'HS256', rsa.publicKey) },
            { subdomain },
          ),
          bad,
        );
      }
    });

    test("a token signed with the root organization's secret, at another organization", async () => {
      expectRefusal(
        await fetchKey({ token: hs256({ email: rsaRealm.owner.email }) }, { subdomain: 'rsa' }),
        bad,
      );
    });
  });

  describe('other refusals', () => {
    test('an empty token', async () => {
      expectRefusal(await fetchKey({ token: '' }), 'No JSON web token passed in request');
    });

    test('a missing token', async () => {
      expectRefusal(await fetchKey({}), "Missing 'token' argument", 'REQUEST_VARIABLE_MISSING', {
        var_name: 'token',
      });
    });

    test.each([
      ['no email claim', { sub: 'hamlet' }],
      ['an email claim that is not text', { email: 42 }],
      ['a null email claim', { email: null }],
    ])('%s', async (_label, claims) => {
      expectRefusal(
        await fetchKey({ token: hs256(claims) }),
        'No email specified in JSON web token claims',
      );
    });

    test('an organization without a key accepts no token, not even an empty one', async () => {
      for (const token of [hs256({ email: noKeyRealm.owner.email }), ''])
        expectRefusal(
          await fetchKey({ token }, { subdomain: 'nokey' }),
          'JWT authentication is not enabled for this organization',
        );
    });

    test('a server without JWT_AUTH_KEYS accepts no token', async () => {
      await TestServer.using({}, async (plain) => {
        const { owner } = await plain.createRealm();
        const res = await plain.call('POST', '/jwt/fetch_api_key', {
          params: { token: hs256({ email: owner.email }) },
        });
        expectRefusal(res, 'JWT authentication is not enabled for this organization');
      });
    });

    test('an address with no organization', async () => {
      const res = await fetchKey(
        { token: hs256({ email: cast.member.email }) },
        {
          subdomain: 'nowhere',
        },
      );
      expectError(res, 404, 'BAD_REQUEST', 'There is no Zulip organization at this address.');
    });

    test('an email address with no account here: 401 AUTHENTICATION_FAILED', async () => {
      // Nobody has it, or a user of another organization has it.
      for (const email of ['nobody@example.com', rsaRealm.owner.email])
        expectError(
          await fetchKey({ token: hs256({ email }) }),
          401,
          'AUTHENTICATION_FAILED',
          'Your username or password is incorrect',
        );
    });

    test('a deactivated account: 401 USER_DEACTIVATED', async () => {
      const user = await server.createUser(cast.realm, { email: 'jwt-gone@example.com' });
      await server.services.db.write((tx) =>
        tx.user.update({ where: { id: user.id }, data: { isActive: false } }),
      );
      expectError(
        await fetchKey({ token: hs256({ email: user.email }) }),
        401,
        'USER_DEACTIVATED',
        'Account is deactivated',
      );
    });

    test('a bot: 401', async () => {
      const bot = await server.createUser(cast.realm, {
        email: 'jwt-bot@example.com',
        isBot: true,
      });
      expectError(
        await fetchKey({ token: hs256({ email: bot.email }) }),
        401,
        'BAD_REQUEST',
        'This endpoint is not available to bots.',
      );
    });

    test('a deactivated organization: 401 REALM_DEACTIVATED', async () => {
      await server.services.db.write((tx) =>
        tx.realm.update({ where: { id: closedRealm.realm.id }, data: { deactivated: true } }),
      );
      expectError(
        await fetchKey(
          { token: hs256({ email: closedRealm.owner.email }) },
          { subdomain: 'closed' },
        ),
        401,
        'REALM_DEACTIVATED',
        'This organization has been deactivated',
      );
    });
  });
});

describe('JWT_AUTH_KEYS in the configuration', () => {
  const load = (value: string) => loadConfig({ JWT_AUTH_KEYS: value });

  test('unset or empty: no organization takes tokens', () => {
    expect(loadConfig({}).jwtAuthKeys).toEqual({});
    expect(load('').jwtAuthKeys).toEqual({});
  });

  test('a well-formed value gives each subdomain its key and algorithms', () => {
    const keys = load(
      JSON.stringify({
        '': { key: 's', algorithms: ['HS256', 'HS512'] },
        rsa: { key: rsa.publicKey, algorithms: ['RS256', 'RS384', 'RS512'] },
        hs384: { key: 't', algorithms: ['HS384'] },
      }),
    ).jwtAuthKeys;
    expect({ ...keys }).toEqual({
      '': { key: 's', algorithms: ['HS256', 'HS512'] },
      rsa: { key: rsa.publicKey, algorithms: ['RS256', 'RS384', 'RS512'] },
      hs384: { key: 't', algorithms: ['HS384'] },
    });
  });

  const shape =
    'JWT_AUTH_KEYS must be a JSON object of {"<subdomain>": {"key": "...", "algorithms": ["HS256"]}}';

  test.each([
    ['not JSON', '{"": '],
    ['a list', '[]'],
    ['a string', '"secret"'],
    ['null', 'null'],
    ['an entry that is not an object', '{"": "secret"}'],
    ['a null entry', '{"": null}'],
    ['an entry without a key', '{"": {"algorithms": ["HS256"]}}'],
    ['an empty key', '{"": {"key": "", "algorithms": ["HS256"]}}'],
    ['a key that is not text', '{"": {"key": 42, "algorithms": ["HS256"]}}'],
    ['an entry without algorithms', '{"": {"key": "s"}}'],
    ['no algorithm', '{"": {"key": "s", "algorithms": []}}'],
    ['algorithms that are not a list', '{"": {"key": "s", "algorithms": "HS256"}}'],
  ])('%s is refused', (_label, value) => {
    expect(() => load(value)).toThrow(ConfigError);
    expect(() => load(value)).toThrow(shape);
  });

  test.each([
    ['none', '"none"'],
    ['ES256', '"ES256"'],
    ['hs256', '"hs256"'],
    ['a number', '256'],
  ])('the algorithm %s is refused by name', (_label, alg) => {
    const value = `{"": {"key": "s", "algorithms": ["HS256", ${alg}]}}`;
    expect(() => load(value)).toThrow(ConfigError);
    expect(() => load(value)).toThrow(
      `JWT_AUTH_KEYS: unsupported algorithm ${alg} (HS256, HS384, HS512, RS256, RS384 or RS512)`,
    );
  });
});
