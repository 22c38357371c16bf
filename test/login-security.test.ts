// Logins that do not tell who has an account and cannot be guessed at speed:
// a wrong password is checked against a password hash for an unknown username
// as for an existing one, so it takes as long; five wrong passwords lock a username for 30 minutes (lifted by the
// clear-login-lock command); an address that keeps sending wrong API keys is
// throttled; and an organization on a subdomain answers its own address and
// refuses the keys of other organizations' users.
import { runManage } from '../src/cli/manage';
import { sample } from './support/metrics';
import { TestServer, type Cast } from './support/server';

const wrongPassword = {
  result: 'error',
  msg: 'Your username or password is incorrect',
  code: 'AUTHENTICATION_FAILED',
};
const rateLimited = {
  result: 'error',
  msg: 'API usage exceeded rate limit',
  code: 'RATE_LIMIT_HIT',
  'retry-after': expect.any(Number),
};

describe('password logins', () => {
  let server: TestServer;
  let cast: Cast;
  beforeAll(async () => {
    ({ server, cast } = await TestServer.startWithCast());
  });
  afterAll(() => server.stop());

  // Whether the answer takes as long is a timing question, measured by
  // bench/logins.ts; here the server shows, through its metrics, that it
  // checks one password hash per login whether or not the account exists.
  test('a wrong password is checked against one hash whether or not the account exists', async () => {
    const checks = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return {
        account: sample(text, 'chat_password_checks_total', { against: 'account' }),
        standIn: sample(text, 'chat_password_checks_total', { against: 'stand_in' }),
      };
    };
    const login = async (username: string, password = 'not the password') => {
      const res = await server.call('POST', '/fetch_api_key', { params: { username, password } });
      return { status: res.status, body: res.body };
    };
    const start = await checks();
    expect(await login(cast.member.email)).toEqual({ status: 401, body: wrongPassword });
    const afterExisting = await checks();
    expect(afterExisting).toEqual({ account: start.account! + 1, standIn: start.standIn });
    expect(await login('nobody@example.com')).toEqual({ status: 401, body: wrongPassword });
    const afterUnknown = await checks();
    expect(afterUnknown).toEqual({ account: afterExisting.account, standIn: start.standIn! + 1 });
    // An account without a password (one made by an administrator without
    // one, to sign in otherwise) is checked against the stand-in too.
    const passwordless = await server.createUser(cast.realm, {
      email: 'no-password@example.com',
      password: null,
    });
    expect(await login(passwordless.email)).toEqual({ status: 401, body: wrongPassword });
    expect(await checks()).toEqual({ account: afterExisting.account, standIn: start.standIn! + 2 });
  });
});

describe('the lock after five wrong passwords', () => {
  test('refuses even the right password for 30 minutes, until clear-login-lock', async () => {
    await TestServer.using({ RATE_LIMIT_AUTH_ATTEMPTS: '5' }, async (server) => {
      const { owner } = await server.createRealm();
      const login = (password: string, username = owner.email.toUpperCase()) =>
        server.call('POST', '/fetch_api_key', { params: { username, password } });
      for (let i = 0; i < 5; i++) expect((await login('wrong')).body).toEqual(wrongPassword);
      const locked = await login('owner-password');
      expect({ status: locked.status, body: locked.body }).toEqual({
        status: 429,
        body: rateLimited,
      });
      expect(locked.body['retry-after']).toBeGreaterThan(29 * 60);
      expect(locked.body['retry-after']).toBeLessThanOrEqual(30 * 60);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(29 * 60);
      // A username with no account is locked the same way.
      for (let i = 0; i < 5; i++) await login('wrong', 'ghost@example.com');
      expect((await login('wrong', 'ghost@example.com')).status).toBe(429);

      let out = '';
      let err = '';
      const manage = (...argv: string[]) =>
        runManage(
          argv,
          { DATABASE_URL: server.services.config.databaseUrl, LOG_LEVEL: 'silent' },
          (t) => (out += t),
          (t) => (err += t),
        );
      expect(await manage('clear-login-lock', '--help')).toBe(0);
      expect(out).toContain('--username E');
      out = '';
      expect(await manage('clear-login-lock', '--username', owner.email)).toBe(0);
      expect(err).toBe('');
      expect(JSON.parse(out)).toEqual({ username: owner.email.toLowerCase(), cleared: true });

      const unlocked = await login('owner-password');
      expect(unlocked.status).toBe(200);
      expect(unlocked.body.api_key).toBe(owner.apiKey);
      // The success forgot the failures: four more wrong passwords do not lock it.
      for (let i = 0; i < 4; i++) await login('wrong');
      expect((await login('owner-password')).status).toBe(200);
      out = '';
      expect(await manage('clear-login-lock', '--username', owner.email)).toBe(0);
      expect(JSON.parse(out)).toEqual({ username: owner.email.toLowerCase(), cleared: false });
    });
  }, 60_000);
});

describe('wrong API keys from one address', () => {
  test('are throttled with 429 after the address budget, while known keys work', async () => {
    await TestServer.using({ RATE_LIMIT_IP_REQUESTS: '100' }, async (server) => {
      const { owner } = await server.createRealm();
      expect((await server.call('GET', '/users/me', { as: owner })).status).toBe(200);
      const statuses: number[] = [];
      let last: unknown;
      for (let i = 0; i < 300; i++) {
        const res = await server.call('GET', '/users/me', {
          as: { email: owner.email, apiKey: `wrongkey${String(i).padStart(24, '0')}` },
        });
        statuses.push(res.status);
        last = res.body;
      }
      expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
      expect(statuses.slice(100).every((s) => s === 429)).toBe(true);
      expect(last).toEqual(rateLimited);
      // The key that worked just before is still taken.
      expect((await server.call('GET', '/users/me', { as: owner })).status).toBe(200);
    });
  }, 60_000);
});

describe('organizations by host', () => {
  let server: TestServer;
  let cast: Cast;
  beforeAll(async () => {
    ({ server, cast } = await TestServer.startWithCast());
  });
  afterAll(() => server.stop());

  test('a subdomain organization answers its own address as realm_url', async () => {
    const { owner } = await server.createRealm('Team', 'team');
    const settings = await server.call('GET', '/server_settings', {
      headers: { host: 'team.chat.test' },
    });
    expect(settings.body).toEqual(
      expect.objectContaining({
        realm_name: 'Team',
        realm_url: 'http://team.chat.test',
        realm_uri: 'http://team.chat.test',
      }),
    );
    const root = await server.call('GET', '/server_settings', { headers: { host: 'chat.test' } });
    expect(root.body.realm_url).toBe('http://chat.test');
    const register = await server.call('POST', '/register', { as: owner });
    expect(register.body.realm_url).toBe('http://team.chat.test');
    const rootRegister = await server.call('POST', '/register', { as: cast.member });
    expect(rootRegister.body.realm_url).toBe('http://chat.test');
  });

  test("an API key used on another organization's host is a 401", async () => {
    const { owner } = await server.createRealm('Other', 'other');
    const notHere = {
      result: 'error',
      msg: 'Account is not associated with this subdomain',
      code: 'UNAUTHORIZED',
    };
    const onOther = await server.call('GET', '/users/me', {
      as: cast.member,
      headers: { host: 'other.chat.test' },
    });
    expect({ status: onOther.status, body: onOther.body }).toEqual({ status: 401, body: notHere });
    const onRoot = await server.call('GET', '/users/me', {
      as: owner,
      headers: { host: 'chat.test' },
    });
    expect({ status: onRoot.status, body: onRoot.body }).toEqual({ status: 401, body: notHere });
    const home = await server.call('GET', '/users/me', { as: owner });
    expect(home.body.user_id).toBe(owner.id);
  });
});
