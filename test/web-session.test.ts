// The web client's browser session: POST /json/login sets an HttpOnly,
// SameSite cookie and returns the CSRF token; every operation is mirrored
// under /json, authenticated by the cookie alone, and a request there that
// changes something must repeat the token in X-CSRFToken. A wrong password
// meets the refusal and lock of POST /fetch_api_key, signing out ends the
// session, and joining through an invitation link signs the browser in.
import { checkAgainstContract, TestServer, type Cast, type Reply } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  // Five wrong passwords lock a username, as in production.
  ({ server, cast } = await TestServer.startWithCast({ RATE_LIMIT_AUTH_ATTEMPTS: '5' }));
});
afterAll(() => server.stop());

/** A browser's view of one request: its reply and the cookies it set. */
interface BrowserReply extends Reply {
  setCookies: string[];
}

/**
 * Sends a request under /json as a browser would, with `cookie` and `csrf`
 * when given; the answer is checked against the operation it mirrors.
 */
async function json(
  method: string,
  path: string,
  options: { cookie?: string; csrf?: string; form?: Record<string, string>; check?: boolean } = {},
): Promise<BrowserReply> {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (options.csrf) headers['x-csrftoken'] = options.csrf;
  const res = await fetch(`${server.url}/json${path}`, {
    method,
    headers,
    ...(options.form ? { body: new URLSearchParams(options.form) } : {}),
  });
  const reply = { status: res.status, headers: res.headers, body: await res.json() };
  if (options.check !== false) await checkAgainstContract(method, path, reply);
  return { ...reply, setCookies: res.headers.getSetCookie() };
}

/** The `name=value` part of the session cookie among `setCookies`. */
function sessionCookie(setCookies: string[]): string {
  const found = setCookies.find((c) => c.startsWith('sessionid='));
  if (!found) throw new Error(`no session cookie among ${JSON.stringify(setCookies)}`);
  return found.split(';')[0];
}

/** Signs in as `email` with `password`; the cookie to send and the CSRF token. */
async function signIn(email: string, password = 'password') {
  const reply = await json('POST', '/login', { form: { username: email, password } });
  expect(reply.status).toBe(200);
  return { cookie: sessionCookie(reply.setCookies), csrf: reply.body.csrf_token as string };
}

const notLoggedIn = {
  result: 'error',
  msg: 'Not logged in: API authentication or user session required',
  code: 'UNAUTHORIZED',
};

test('signing in sets an HttpOnly, SameSite cookie that the /json mirror accepts', async () => {
  const reply = await json('POST', '/login', {
    form: { username: cast.member.email, password: 'password' },
  });
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({
    result: 'success',
    msg: '',
    csrf_token: expect.stringMatching(/^[\w-]{32}$/),
    email: cast.member.email,
    user_id: cast.member.id,
  });
  const setCookie = reply.setCookies.find((c) => c.startsWith('sessionid='))!;
  expect(setCookie.toLowerCase()).toContain('httponly');
  expect(setCookie.toLowerCase()).toContain('samesite=lax');
  expect(setCookie.toLowerCase()).toContain('path=/');
  const cookie = sessionCookie(reply.setCookies);

  // A read needs the cookie only; a write needs the token as well.
  const me = await json('GET', '/users/me', { cookie });
  expect(me.status).toBe(200);
  expect(me.body.user_id).toBe(cast.member.id);
  const sent = await json('POST', '/messages', {
    cookie,
    csrf: reply.body.csrf_token,
    form: { type: 'direct', to: JSON.stringify([cast.member2.id]), content: 'hello' },
  });
  expect(sent.status).toBe(200);
  const stored = await server.services.db.read((db) =>
    db.message.findUniqueOrThrow({ where: { id: sent.body.id } }),
  );
  expect(stored.senderId).toBe(cast.member.id);

  // The session works under /json only: the same cookie is no credential under /api/v1.
  const api = await fetch(`${server.url}/api/v1/users/me`, { headers: { cookie } });
  expect(api.status).toBe(401);
});

test('a wrong password is refused and counts towards the lock of /fetch_api_key', async () => {
  const email = 'locked@example.com';
  await server.createUser(cast.realm, { email, password: 'right-password' });
  const wrong = await json('POST', '/login', { form: { username: email, password: 'nope' } });
  expect(wrong.status).toBe(401);
  expect(wrong.body).toEqual({
    result: 'error',
    msg: 'Your username or password is incorrect',
    code: 'AUTHENTICATION_FAILED',
  });
  // No password prompt of the browser's own.
  expect(wrong.headers.get('www-authenticate')).toBeNull();
  expect(wrong.setCookies).toEqual([]);
  // Five failures in all, through either door, lock the username for both.
  for (let i = 0; i < 3; i++)
    expect(
      (await json('POST', '/login', { form: { username: email, password: 'nope' } })).status,
    ).toBe(401);
  const viaApi = await server.call('POST', '/fetch_api_key', {
    params: { username: email, password: 'nope' },
  });
  expect(viaApi.status).toBe(401);
  const locked = await json('POST', '/login', {
    form: { username: email, password: 'right-password' },
  });
  expect(locked.status).toBe(429);
  expect(locked.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT' });
  expect(locked.setCookies).toEqual([]);
});

test('a request that changes something without the CSRF token is refused', async () => {
  const { cookie, csrf } = await signIn(cast.member2.email);
  const form = { type: 'stream', to: 'general', topic: 'csrf', content: 'forged' };
  const missing = await json('POST', '/messages', { cookie, form, check: false });
  expect(missing.status).toBe(403);
  expect(missing.body).toEqual({
    result: 'error',
    msg: 'CSRF error: CSRF token missing.',
    code: 'CSRF_FAILED',
  });
  const wrong = await json('POST', '/messages', { cookie, csrf: `${csrf}x`, form, check: false });
  expect(wrong.status).toBe(403);
  expect(wrong.body).toEqual({
    result: 'error',
    msg: 'CSRF error: CSRF token incorrect.',
    code: 'CSRF_FAILED',
  });
  const forged = await server.services.db.read((db) =>
    db.message.count({ where: { content: 'forged' } }),
  );
  expect(forged).toBe(0);
});

test('signed out, or without a session, /json refuses; API credentials are no session', async () => {
  const { cookie, csrf } = await signIn(cast.moderator.email);
  const out = await json('POST', '/logout', { cookie, csrf });
  expect(out.status).toBe(200);
  expect(out.body).toEqual({ result: 'success', msg: '' });
  // The cookie is cleared in the browser, and ended on the server.
  expect(out.setCookies.some((c) => /^sessionid=;/.test(c))).toBe(true);
  const after = await json('GET', '/users/me', { cookie });
  expect(after.status).toBe(401);
  expect(after.body).toEqual(notLoggedIn);
  expect(after.headers.get('www-authenticate')).toBeNull();
  const none = await json('GET', '/users/me');
  expect(none.body).toEqual(notLoggedIn);
  const stale = await json('GET', '/users/me', { cookie: 'sessionid=not-a-session' });
  expect(stale.body).toEqual(notLoggedIn);
  const basic = await fetch(`${server.url}/json/users/me`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${cast.member.email}:${cast.member.apiKey}`).toString('base64')}`,
    },
  });
  expect(basic.status).toBe(401);
  // Signing out with API credentials has no session to end.
  const viaApi = await server.call('POST', '/logout', { as: cast.member });
  expect(viaApi.body).toEqual({ result: 'success', msg: '' });
});

test('a deactivated account loses its session', async () => {
  const email = 'leaving@example.com';
  const user = await server.createUser(cast.realm, { email });
  const { cookie } = await signIn(email);
  expect((await json('GET', '/users/me', { cookie })).status).toBe(200);
  const gone = await server.call('DELETE', `/users/${user.id}`, { as: cast.admin });
  expect(gone.status).toBe(200);
  expect((await json('GET', '/users/me', { cookie })).body).toEqual(notLoggedIn);
});

test('joining through an invitation link signs the browser in', async () => {
  const made = await server.call('POST', '/invites/multiuse', {
    as: cast.admin,
    params: { invite_expires_in_minutes: 60 },
  });
  expect(made.status).toBe(200);
  const path = new URL(made.body.invite_link as string).pathname;
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    body: new URLSearchParams({
      email: 'newcomer@example.com',
      full_name: 'New Comer',
      password: 'newcomer-password',
    }),
  });
  expect(res.status).toBe(201);
  expect(await res.text()).toContain('You are signed in: <a href="/">open the web app</a>.');
  const cookie = sessionCookie(res.headers.getSetCookie());
  const me = await json('GET', '/users/me', { cookie });
  expect(me.status).toBe(200);
  expect(me.body.email).toBe('newcomer@example.com');
});
