// Lookups bots and the Python client use: GET /get_stream_id,
// GET /streams/{id} and /streams/{id}/members, GET
// /users/{user_id}/subscriptions/{stream_id} and GET
// /streams/{id}/email_address, each with who may see what and Zulip's refusals.
import { loadConfig } from '../src/config';
import { expectError, streamId, subscribe } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
let general: number;
let secret: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['General Chat'], {
    principals: [cast.member.id, cast.member2.id, cast.guest.id],
  });
  await subscribe(server, cast.member, ['secret plans'], {
    invite_only: true,
    principals: [cast.member.id],
  });
  general = await streamId(server, cast.admin, 'General Chat');
  secret = await streamId(server, cast.admin, 'secret plans');
});
afterAll(() => server.stop());

describe('GET /get_stream_id', () => {
  test('finds a channel by name, without regard to case', async () => {
    for (const name of ['General Chat', 'general chat', 'GENERAL CHAT']) {
      const res = await server.call('GET', '/get_stream_id', {
        as: cast.member2,
        params: { stream: name },
      });
      expect(res.body).toEqual({ result: 'success', msg: '', stream_id: general });
    }
  });

  test('unknown channels and private channels of others are both "Invalid channel name"', async () => {
    for (const name of ['nowhere', 'secret plans']) {
      expectError(
        await server.call('GET', '/get_stream_id', { as: cast.member2, params: { stream: name } }),
        400,
        'BAD_REQUEST',
        `Invalid channel name '${name}'`,
      );
    }
    const mine = await server.call('GET', '/get_stream_id', {
      as: cast.member,
      params: { stream: 'secret plans' },
    });
    expect(mine.body.stream_id).toBe(secret);
  });

  test('the name is required', async () => {
    expectError(
      await server.call('GET', '/get_stream_id', { as: cast.member }),
      400,
      'REQUEST_VARIABLE_MISSING',
      "Missing 'stream' argument",
      { var_name: 'stream' },
    );
  });
});

describe('GET /streams/{stream_id}', () => {
  test('returns the channel to those who may see it', async () => {
    const res = await server.call('GET', `/streams/${general}`, { as: cast.member2 });
    expect(res.body.stream).toMatchObject({
      stream_id: general,
      name: 'General Chat',
      invite_only: false,
    });
    expectError(
      await server.call('GET', `/streams/${secret}`, { as: cast.member2 }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    // Administrators see private channels they are not in.
    const admin = await server.call('GET', `/streams/${secret}`, { as: cast.admin });
    expect(admin.body.stream.name).toBe('secret plans');
  });
});

describe('GET /streams/{stream_id}/members', () => {
  test('lists the active subscribers', async () => {
    const res = await server.call('GET', `/streams/${general}/members`, { as: cast.member2 });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribers: [cast.member.id, cast.member2.id, cast.guest.id].sort((a, b) => a - b),
    });
  });

  test('deactivated subscribers are left out', async () => {
    const leaver = await server.createUser(cast.realm, { email: 'leaver@example.com' });
    await subscribe(server, cast.member, ['General Chat'], { principals: [leaver.id] });
    let res = await server.call('GET', `/streams/${general}/members`, { as: cast.member });
    expect(res.body.subscribers).toContain(leaver.id);
    await server.ok('DELETE', `/users/${leaver.id}`, { as: cast.admin });
    res = await server.call('GET', `/streams/${general}/members`, { as: cast.member });
    expect(res.body.subscribers).not.toContain(leaver.id);
  });

  test('a private channel: its subscribers and administrators, not others', async () => {
    const mine = await server.call('GET', `/streams/${secret}/members`, { as: cast.member });
    expect(mine.body.subscribers).toEqual([cast.member.id]);
    const admin = await server.call('GET', `/streams/${secret}/members`, { as: cast.admin });
    expect(admin.body.subscribers).toEqual([cast.member.id]);
    for (const as of [cast.member2, cast.guest])
      expectError(
        await server.call('GET', `/streams/${secret}/members`, { as }),
        400,
        'BAD_REQUEST',
        'Invalid channel ID',
      );
    expectError(
      await server.call('GET', '/streams/987654/members', { as: cast.member }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
  });
});

describe('GET /users/{user_id}/subscriptions/{stream_id}', () => {
  const status = (as: Cast['member'], userId: number, stream: number) =>
    server.call('GET', `/users/${userId}/subscriptions/${stream}`, { as });

  test('tells whether a user is subscribed', async () => {
    expect((await status(cast.member2, cast.member.id, general)).body).toEqual({
      result: 'success',
      msg: '',
      is_subscribed: true,
    });
    expect((await status(cast.member2, cast.moderator.id, general)).body.is_subscribed).toBe(false);
    // Administrators may ask about private channels they are not in.
    expect((await status(cast.admin, cast.member.id, secret)).body.is_subscribed).toBe(true);
  });

  test('refuses unknown users, bots, deactivated users and channels the requester may not see', async () => {
    const bot = await server.createUser(cast.realm, {
      email: 'statusbot@example.com',
      isBot: true,
    });
    const gone = await server.createUser(cast.realm, { email: 'gone@example.com' });
    await server.ok('DELETE', `/users/${gone.id}`, { as: cast.admin });
    expectError(await status(cast.member, 987654, general), 400, 'BAD_REQUEST', 'No such user');
    expectError(await status(cast.member, bot.id, general), 400, 'BAD_REQUEST', 'No such user');
    expectError(
      await status(cast.member, gone.id, general),
      400,
      'BAD_REQUEST',
      'User is deactivated',
    );
    expectError(
      await status(cast.member2, cast.member.id, secret),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    expectError(
      await status(cast.member2, cast.member.id, 987654),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
  });
});

describe('GET /streams/{stream_id}/email_address', () => {
  test('without an email gateway the address is empty', async () => {
    const res = await server.call('GET', `/streams/${general}/email_address`, { as: cast.member });
    expect(res.body).toEqual({ result: 'success', msg: '', email: '' });
  });

  test('with a gateway: one stable address per requester and sender', async () => {
    await TestServer.using({ EMAIL_GATEWAY_PATTERN: '%s@mail.chat.test' }, async (other) => {
      const team = await other.createCast();
      await subscribe(other, team.member, ['Café Talk', '日本 team', 'ops'], {
        principals: [team.member.id, team.member2.id],
      });
      const ops = await streamId(other, team.member, 'ops');
      const cafe = await streamId(other, team.member, 'Café Talk');
      const nihon = await streamId(other, team.member, '日本 team');
      const address = async (as: Cast['member'], stream: number, params = {}) =>
        (await other.call('GET', `/streams/${stream}/email_address`, { as, params })).body;
      const mine = await address(team.member, ops);
      expect(mine.email).toMatch(/^ops\.[0-9a-f]{32}\.show-sender@mail\.chat\.test$/);
      expect((await address(team.member, ops)).email).toBe(mine.email);
      const theirs = await address(team.member2, ops);
      expect(theirs.email).not.toBe(mine.email);
      // Accents are dropped; letters ASCII cannot show leave the name out.
      expect((await address(team.member, cafe)).email).toMatch(
        /^cafe-talk\.[0-9a-f]{32}\.show-sender@mail\.chat\.test$/,
      );
      expect((await address(team.member, nihon)).email).toMatch(
        /^[0-9a-f]{32}\.show-sender@mail\.chat\.test$/,
      );
      // As sender: oneself, or one's own bot; each gives its own address.
      const self = await address(team.member, ops, { sender_id: team.member.id });
      expect(self.email).not.toBe(mine.email);
      const bot = await other.createUser(team.realm, { email: 'mailbot@example.com', isBot: true });
      await other.services.db.write((tx) =>
        tx.user.update({ where: { id: bot.id }, data: { botOwnerId: team.member.id } }),
      );
      const viaBot = await address(team.member, ops, { sender_id: bot.id });
      expect(viaBot.email).toMatch(/^ops\.[0-9a-f]{32}\.show-sender@mail\.chat\.test$/);
      expect(viaBot.email).not.toBe(self.email);
      expectError(
        await other.call('GET', `/streams/${ops}/email_address`, {
          as: team.member2,
          params: { sender_id: bot.id },
        }),
        400,
        'BAD_REQUEST',
        'Insufficient permission',
      );
      expectError(
        await other.call('GET', `/streams/${ops}/email_address`, {
          as: team.member,
          params: { sender_id: team.member2.id },
        }),
        400,
        'BAD_REQUEST',
        'No such bot',
      );
    });
  });

  test('a gateway pattern must hold %s exactly once', () => {
    for (const pattern of ['mail.chat.test', '%s.%s@mail.chat.test'])
      expect(() => loadConfig({ EMAIL_GATEWAY_PATTERN: pattern })).toThrow(
        'EMAIL_GATEWAY_PATTERN must hold %s exactly once, as in %s@mail.example.com',
      );
    expect(loadConfig({ EMAIL_GATEWAY_PATTERN: '%s@x.test' }).emailGatewayPattern).toBe(
      '%s@x.test',
    );
  });

  test('the channel must be readable by the requester', async () => {
    expectError(
      await server.call('GET', `/streams/${secret}/email_address`, { as: cast.member2 }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    expectError(
      await server.call('GET', `/streams/987654/email_address`, { as: cast.member }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
  });
});
