// User status (Part 2.13): POST /users/me/status, POST /users/{user_id}/status
// (administrators) and GET /users/{user_id}/status, with the emoji rules of
// the three namespaces and Zulip's message for each refusal.
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;
let realmEmojiId: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  const emoji = await server.services.db.write((tx) =>
    tx.realmEmoji.create({
      data: {
        realmId: cast.realm.id,
        name: 'green_tick',
        fileName: 'tick.png',
        authorId: cast.admin.id,
      },
    }),
  );
  realmEmojiId = emoji.id;
});
afterAll(() => server.stop());

const error = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const status = async (userId: number) =>
  (await server.call('GET', `/users/${userId}/status`, { as: cast.member2 })).body.status;

describe('POST /users/me/status', () => {
  test('sets text and a Unicode emoji by name alone, then changes only what is sent', async () => {
    const res = await server.call('POST', '/users/me/status', {
      as: cast.member,
      params: { status_text: '  In a meeting ', emoji_name: 'car' },
    });
    expect(res.status).toBe(200);
    expect(await status(cast.member.id)).toEqual({
      status_text: 'In a meeting',
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
    await server.ok('POST', '/users/me/status', {
      as: cast.member,
      params: { status_text: 'Lunch' },
    });
    expect(await status(cast.member.id)).toEqual({
      status_text: 'Lunch',
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
    await server.ok('POST', '/users/me/status', { as: cast.member, params: { emoji_name: '' } });
    expect(await status(cast.member.id)).toEqual({ status_text: 'Lunch' });
    await server.ok('POST', '/users/me/status', { as: cast.member, params: { status_text: '' } });
    expect(await status(cast.member.id)).toEqual({});
  });

  test('realm emoji and the zulip extra emoji', async () => {
    await server.ok('POST', '/users/me/status', {
      as: cast.member2,
      params: { emoji_name: 'green_tick' },
    });
    expect(await status(cast.member2.id)).toEqual({
      emoji_name: 'green_tick',
      emoji_code: String(realmEmojiId),
      reaction_type: 'realm_emoji',
    });
    await server.ok('POST', '/users/me/status', {
      as: cast.member2,
      params: { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' },
    });
    const zulip = { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' };
    expect(await status(cast.member2.id)).toEqual(zulip);
    // This server's earlier name of the namespace is read as Zulip's.
    await server.ok('POST', '/users/me/status', {
      as: cast.member2,
      params: { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' },
    });
    expect(await status(cast.member2.id)).toEqual(zulip);
  });

  test("each refusal, with Zulip's message", async () => {
    const post = (params: Record<string, unknown>) =>
      server.call('POST', '/users/me/status', { as: cast.member, params });
    expect((await post({})).body).toEqual(error('Client did not pass any new values.'));
    expect((await post({ status_text: 'x'.repeat(61) })).body).toEqual(
      error('status_text is too long (limit: 60 characters)'),
    );
    expect((await post({ status_text: 'In a meeting', emoji_code: '1f4bb' })).body).toEqual(
      error('Client must pass emoji_name if they pass either emoji_code or reaction_type.'),
    );
    expect(
      (await post({ status_text: 'In a meeting', reaction_type: 'unicode_emoji' })).body,
    ).toEqual(
      error('Client must pass emoji_name if they pass either emoji_code or reaction_type.'),
    );
    expect((await post({ emoji_name: 'invalid' })).body).toEqual(
      error("Emoji 'invalid' does not exist"),
    );
    expect((await post({ emoji_name: 'car', emoji_code: '1f4bb' })).body).toEqual(
      error('Invalid emoji name.'),
    );
    expect(
      (await post({ emoji_name: 'car', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' })).body,
    ).toEqual(error('Invalid emoji code.'));
    expect(
      (await post({ emoji_name: 'car', emoji_code: '1f4bb', reaction_type: 'realm_emoji' })).body,
    ).toEqual(error('Invalid custom emoji.'));
    expect(
      (
        await post({
          emoji_name: 'car',
          emoji_code: String(realmEmojiId),
          reaction_type: 'realm_emoji',
        })
      ).body,
    ).toEqual(error('Invalid custom emoji name.'));
    expect(
      (await post({ emoji_name: 'car', emoji_code: 'car', reaction_type: 'zulip_extra_emoji' }))
        .body,
    ).toEqual(error('Invalid emoji code.'));
    expect(
      (await post({ emoji_name: 'car', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }))
        .body,
    ).toEqual(error('Invalid emoji name.'));
    const badType = await post({ emoji_name: 'car', reaction_type: 'other' });
    expect(badType.status).toBe(400);
    expect(await status(cast.member.id)).toEqual({});
  });

  test('the legacy away flag turns presence_enabled off and shows as away', async () => {
    await server.ok('POST', '/users/me/status', { as: cast.moderator, params: { away: true } });
    expect(await status(cast.moderator.id)).toEqual({ away: true });
    await server.ok('POST', '/users/me/status', { as: cast.moderator, params: { away: false } });
    expect(await status(cast.moderator.id)).toEqual({});
  });
});

describe('POST /users/{user_id}/status', () => {
  test("administrators set another user's status; others are refused", async () => {
    expect(
      (
        await server.call('POST', `/users/${cast.guest.id}/status`, {
          as: cast.admin,
          params: { status_text: 'Set by admin' },
        })
      ).status,
    ).toBe(200);
    expect(await status(cast.guest.id)).toEqual({ status_text: 'Set by admin' });
    expect(
      (
        await server.call('POST', `/users/${cast.guest.id}/status`, {
          as: cast.member,
          params: { status_text: 'Nope' },
        })
      ).body,
    ).toEqual(error('Insufficient permission'));
    expect(
      (await server.call('POST', `/users/${cast.guest.id}/status`, { as: cast.admin, params: {} }))
        .body,
    ).toEqual(error('Client did not pass any new values.'));
    expect(
      (
        await server.call('POST', '/users/999999/status', {
          as: cast.admin,
          params: { status_text: 'x' },
        })
      ).body,
    ).toEqual(error('No such user'));
  });
});

describe('GET /users/{user_id}/status', () => {
  test('an unknown user answers "No such user"', async () => {
    expect((await server.call('GET', '/users/999999/status', { as: cast.member })).body).toEqual(
      error('No such user'),
    );
  });
});
