// `npm run manage -- create-realm | create-user`: on a fresh database, printing
// one JSON object, with a one-line error and status 2 for bad input; and the
// organization it creates answers GET /users/me.
import { runManage } from '../src/cli/manage';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/log';
import { startServer } from '../src/server';
import { createTestDatabase, type TestDatabase } from './support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(() => database.drop());

async function manage(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runManage(
    argv,
    { DATABASE_URL: database.url, LOG_LEVEL: 'silent' },
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}

test("create-realm migrates a fresh database and prints the owner's credentials", async () => {
  const res = await manage(
    'create-realm',
    '--name',
    'Acme',
    '--owner-email',
    'boss@acme.test',
    '--owner-password',
    'correct horse',
    '--owner-name',
    'The Boss',
  );
  expect(res.err).toBe('');
  expect(res.code).toBe(0);
  const printed = JSON.parse(res.out);
  expect(printed).toEqual({
    realm_id: expect.any(Number),
    user_id: expect.any(Number),
    email: 'boss@acme.test',
    api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
  });
  expect(res.out.trim().split('\n')).toHaveLength(1);

  // The credentials work against a server on the same database.
  const server = await startServer(
    loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', PORT: '0' }),
    createLogger('silent'),
    { lazy: true },
  );
  try {
    const authorization = `Basic ${Buffer.from(`${printed.email}:${printed.api_key}`).toString('base64')}`;
    const me = await fetch(`${server.url}/api/v1/users/me`, { headers: { authorization } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      user_id: printed.user_id,
      full_name: 'The Boss',
      role: 100,
      is_owner: true,
    });
    // By default the owner starts with Welcome Bot's message, as in Zulip.
    const newest = await fetch(
      `${server.url}/api/v1/messages?anchor=newest&num_before=100&num_after=0`,
      { headers: { authorization } },
    );
    const { messages } = (await newest.json()) as {
      messages: { type: string; display_recipient: unknown }[];
    };
    // The new organization's channels hold Welcome Bot's first posts too.
    expect(
      new Set(messages.filter((m) => m.type === 'stream').map((m) => m.display_recipient)),
    ).toEqual(new Set(['Zulip', 'sandbox', 'general']));
    expect(messages.filter((m) => m.type === 'private')).toEqual([
      expect.objectContaining({
        type: 'private',
        sender_email: 'welcome-bot@zulip.com',
        content: expect.stringContaining('<strong>Acme</strong>'),
      }),
    ]);
  } finally {
    await server.stop(0);
  }
});

test('create-user adds a user with a role', async () => {
  const res = await manage(
    'create-user',
    '--email',
    'mod@acme.test',
    '--password',
    'pw',
    '--role',
    'moderator',
    '--full-name',
    'Mo Derator',
  );
  expect(res.code).toBe(0);
  expect(JSON.parse(res.out)).toEqual({
    realm_id: expect.any(Number),
    user_id: expect.any(Number),
    email: 'mod@acme.test',
    api_key: expect.any(String),
  });
});

test.each([
  [
    ['create-realm', '--name', 'X', '--owner-email', 'not-an-email', '--owner-password', 'p'],
    "create-realm: Invalid address 'not-an-email'.\n",
  ],
  [
    ['create-realm', '--name', 'X', '--owner-password', 'p'],
    'create-realm: --owner-email is required\n',
  ],
  [
    ['create-realm', '--name', 'Again', '--owner-email', 'a@b.test', '--owner-password', 'p'],
    'create-realm: an organization at the root domain already exists\n',
  ],
  [
    ['create-user', '--email', 'boss@acme.test', '--password', 'p'],
    'create-user: Email is already in use.\n',
  ],
  [
    ['create-user', '--email', 'x@acme.test', '--password', 'p', '--role', 'emperor'],
    'create-user: --role must be one of owner, administrator, moderator, member, guest\n',
  ],
  [
    ['create-user', '--email', 'x@acme.test', '--password', 'p', '--bogus'],
    expect.stringMatching(/^create-user: Unknown option '--bogus'/),
  ],
  [
    ['make-coffee'],
    'usage: manage <create-realm|create-user|clear-login-lock|export-realm|import-realm|reactivate-realm|grant-permission|revoke-permission|outbox> [options]\n' +
      `manage: unknown command 'make-coffee'; run "manage --help" for the list\n`,
  ],
])('bad input %j gets one line and status 2', async (argv, message) => {
  const res = await manage(...argv);
  expect(res.code).toBe(2);
  expect(res.out).toBe('');
  expect(res.err).toEqual(message);
});
