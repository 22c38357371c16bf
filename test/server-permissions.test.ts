// The server-level permissions and the command line that grants them:
// `manage grant-permission` / `revoke-permission` for can_create_users (then
// POST /users works for that administrator) and can_forge_sender (its holder
// posts to any channel and may back-date messages); `--help` for the tool and
// each command, which needs no database.
import { runManage } from '../src/cli/manage';
import type { User } from '../generated/prisma/sqlite/client';
import { expectError, sendToChannel, subscribe } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.admin, ['vault'], { invite_only: true });
});
afterAll(() => server.stop());

/** Runs a command against the test server's own database. */
async function manage(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runManage(
    argv,
    { DATABASE_URL: server.services.config.databaseUrl, LOG_LEVEL: 'silent' },
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}

function createUser(as: User, email: string) {
  return server.call('POST', '/users', {
    as,
    params: { email, password: 'a-long-password', full_name: 'Made By API' },
  });
}

describe('--help', () => {
  // A database that cannot be opened: help must not need one.
  const noDatabase = { DATABASE_URL: 'file:/nonexistent/folder/chat.db', LOG_LEVEL: 'silent' };
  async function help(...argv: string[]) {
    let out = '';
    let err = '';
    const code = await runManage(
      argv,
      noDatabase,
      (t) => (out += t),
      (t) => (err += t),
    );
    return { code, out, err };
  }

  test.each([['--help'], ['-h'], ['help']])('manage %s lists every command', async (flag) => {
    const res = await help(flag);
    expect(res).toMatchObject({ code: 0, err: '' });
    expect(res.out).toMatch(
      /^usage: manage <create-realm\|create-user\|clear-login-lock\|export-realm\|import-realm\|reactivate-realm\|grant-permission\|revoke-permission\|outbox> \[options\]\n/,
    );
    const commands = [
      'create-realm',
      'create-user',
      'clear-login-lock',
      'export-realm',
      'import-realm',
      'reactivate-realm',
      'grant-permission',
      'revoke-permission',
      'outbox',
    ];
    for (const command of commands) expect(res.out).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    expect(res.out).toContain('Run "manage <command> --help"');
  });

  test.each([
    ['create-realm', ['--name NAME', '--owner-email E', '--owner-password P', '--subdomain S']],
    ['create-user', ['--email E', '--password P', '--full-name N', '--role ROLE']],
    ['grant-permission', ['--email E', '--permission NAME', '--subdomain S']],
    ['revoke-permission', ['--email E', '--permission NAME']],
  ])('manage %s --help describes its options', async (command, flags) => {
    const res = await help(command, '--help');
    expect(res).toMatchObject({ code: 0, err: '' });
    expect(res.out.startsWith(`usage: manage ${command} `)).toBe(true);
    for (const flag of flags) expect(res.out).toContain(flag);
    expect(res.out).toMatch(/--help +Print this help and exit\./);
  });

  test('an unknown command names itself and points to --help', async () => {
    const res = await help('make-coffee');
    expect(res.code).toBe(2);
    expect(res.out).toBe('');
    expect(res.err).toBe(
      'usage: manage <create-realm|create-user|clear-login-lock|export-realm|import-realm|reactivate-realm|grant-permission|revoke-permission|outbox> [options]\n' +
        `manage: unknown command 'make-coffee'; run "manage --help" for the list\n`,
    );
  });
});

describe('can_create_users', () => {
  test('granting it lets an administrator create users; revoking takes it back', async () => {
    expectError(
      await createUser(cast.admin, 'first@example.com'),
      400,
      'BAD_REQUEST',
      'User not authorized to create users',
    );
    const granted = await manage(
      'grant-permission',
      '--email',
      cast.admin.email,
      '--permission',
      'can_create_users',
    );
    expect(granted).toEqual({
      code: 0,
      err: '',
      out: `${JSON.stringify({
        user_id: cast.admin.id,
        email: cast.admin.email,
        can_create_users: true,
        can_forge_sender: false,
      })}\n`,
    });
    // The server sees the change at once, although it cached the administrator's credentials.
    const made = await createUser(cast.admin, 'first@example.com');
    expect(made.body).toEqual({ result: 'success', msg: '', user_id: expect.any(Number) });
    const again = await manage(
      'grant-permission',
      '--email',
      cast.admin.email,
      '--permission',
      'can_create_users',
    );
    expect(again).toEqual({
      code: 2,
      out: '',
      err: 'grant-permission: User can already create users for this realm.\n',
    });
    const revoked = await manage(
      'revoke-permission',
      '--email',
      cast.admin.email.toUpperCase(),
      '--permission',
      'can_create_users',
    );
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.out)).toMatchObject({ can_create_users: false });
    expectError(
      await createUser(cast.admin, 'second@example.com'),
      400,
      'BAD_REQUEST',
      'User not authorized to create users',
    );
    expect(
      await manage(
        'revoke-permission',
        '--email',
        cast.admin.email,
        '--permission',
        'can_create_users',
      ),
    ).toEqual({
      code: 2,
      out: '',
      err: "revoke-permission: User can't create users for this realm.\n",
    });
  });

  test('it does not make a member an administrator', async () => {
    await manage(
      'grant-permission',
      '--email',
      cast.member2.email,
      '--permission',
      'can_create_users',
    );
    expectError(
      await createUser(cast.member2, 'third@example.com'),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization administrator',
    );
  });
});

describe('can_forge_sender', () => {
  test('its holder may post to a private channel without being subscribed', async () => {
    const send = () =>
      server.call('POST', '/messages', {
        as: cast.member,
        params: { type: 'stream', to: 'vault', topic: 'mirror', content: 'bridged' },
      });
    expectError(await send(), 400, 'BAD_REQUEST', "Not authorized to send to channel 'vault'");
    const res = await manage(
      'grant-permission',
      '--email',
      cast.member.email,
      '--permission',
      'can_forge_sender',
    );
    expect(JSON.parse(res.out)).toMatchObject({ user_id: cast.member.id, can_forge_sender: true });
    const sent = await send();
    expect(sent.status).toBe(200);
    // The message went to the channel's subscribers, not to the sender's feed alone.
    const read = await server.call('GET', `/messages/${sent.body.id}`, { as: cast.admin });
    expect(read.body.message).toMatchObject({
      display_recipient: 'vault',
      sender_id: cast.member.id,
    });
  });

  test('forged messages keep their original time; others may not forge', async () => {
    const time = 1_500_000_000;
    const forged = await server.call('POST', '/messages', {
      as: cast.member,
      params: { type: 'stream', to: 'vault', topic: 'mirror', content: 'old', forged: 'yes', time },
    });
    expect(forged.status).toBe(200);
    const read = await server.call('GET', `/messages/${forged.body.id}`, { as: cast.admin });
    expect(read.body.message.timestamp).toBe(time);
    // `forged` false, or absent, leaves the time alone.
    const plain = await server.call('POST', '/messages', {
      as: cast.member,
      params: { type: 'stream', to: 'vault', topic: 'mirror', content: 'now', forged: false, time },
    });
    const now = await server.call('GET', `/messages/${plain.body.id}`, { as: cast.admin });
    expect(Math.abs(now.body.message.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expectError(
      await server.call('POST', '/messages', {
        as: cast.member2,
        params: { type: 'stream', to: 'vault', topic: 't', content: 'x', forged: true, time },
        encoding: 'json',
      }),
      400,
      'BAD_REQUEST',
      'User not authorized for this query',
    );
  });

  test('revoked, the permission no longer opens the channel', async () => {
    await manage(
      'revoke-permission',
      '--email',
      cast.member.email,
      '--permission',
      'can_forge_sender',
    );
    expectError(
      await server.call('POST', '/messages', {
        as: cast.member,
        params: { type: 'stream', to: 'vault', topic: 'mirror', content: 'late' },
      }),
      400,
      'BAD_REQUEST',
      "Not authorized to send to channel 'vault'",
    );
    // Subscribers are unaffected.
    expect(await sendToChannel(server, cast.admin, 'vault', 'own', 'mine')).toEqual(
      expect.any(Number),
    );
  });
});

test.each([
  [
    ['grant-permission', '--email', 'nobody@example.com', '--permission', 'can_create_users'],
    'grant-permission: no user with the email address nobody@example.com in this organization\n',
  ],
  [
    ['grant-permission', '--email', 'hamlet@example.com', '--permission', 'is_admin'],
    'grant-permission: --permission must be one of can_create_users, can_forge_sender\n',
  ],
  [
    ['revoke-permission', '--permission', 'can_forge_sender'],
    'revoke-permission: --email is required\n',
  ],
  [
    [
      'grant-permission',
      '--email',
      'hamlet@example.com',
      '--permission',
      'can_forge_sender',
      '--subdomain',
      'elsewhere',
    ],
    'grant-permission: no such organization; create one with create-realm first\n',
  ],
])('bad input %j gets one line and status 2', async (argv, message) => {
  expect(await manage(...argv)).toEqual({ code: 2, out: '', err: message });
});
