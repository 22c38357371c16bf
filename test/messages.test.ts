// Sending messages (POST /messages) to channels and users, and reading one
// back (GET /messages/{id}): the success shapes, Zulip's topic and content
// rules, and every refusal with its exact code and message.
import { TestServer, type Cast } from './support/server';
import { expectError, sendDirect, sendToChannel, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let general: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['general'], {
    principals: [cast.member.id, cast.member2.id, cast.guest.id],
  });
  await subscribe(server, cast.admin, ['secret'], { invite_only: true });
  await subscribe(server, cast.admin, ['others']);
  general = await streamId(server, cast.member, 'general');
});
afterAll(() => server.stop());

function send(as: Cast['member'], params: Record<string, unknown>) {
  return server.call('POST', '/messages', { as, params });
}

async function getMessage(as: Cast['member'], id: number, params: Record<string, unknown> = {}) {
  const res = await server.call('GET', `/messages/${id}`, { as, params });
  expect(res.status).toBe(200);
  return res.body;
}

describe('channel messages', () => {
  test('by name, by ID and as a one-element list, answering the new ID', async () => {
    const before = Math.floor(Date.now() / 1000);
    const a = await send(cast.member, {
      type: 'stream',
      to: 'general',
      topic: 'greetings',
      content: 'Hello **all of you**',
    });
    expect(a.body).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
    const b = await send(cast.member, {
      type: 'channel',
      to: general,
      topic: 'greetings',
      content: 'two',
    });
    const c = await send(cast.member, {
      type: 'stream',
      to: JSON.stringify(['general']),
      topic: 'greetings',
      content: 'three',
    });
    expect(b.body.id).toBeGreaterThan(a.body.id);
    expect(c.body.id).toBeGreaterThan(b.body.id);
    const body = await getMessage(cast.member2, a.body.id);
    expect(body.raw_content).toBe('Hello **all of you**');
    expect(body.message).toEqual({
      id: a.body.id,
      sender_id: cast.member.id,
      sender_full_name: 'King Hamlet',
      sender_email: cast.member.email,
      sender_realm_str: '',
      avatar_url: expect.stringContaining('gravatar.com'),
      content: '<p>Hello <strong>all of you</strong></p>',
      content_type: 'text/html',
      client: 'Unspecified',
      display_recipient: 'general',
      recipient_id: general,
      stream_id: general,
      subject: 'greetings',
      topic_links: [],
      is_me_message: false,
      reactions: [],
      submessages: [],
      timestamp: expect.any(Number),
      type: 'stream',
      flags: [],
    });
    // Stamped by the server between the test's clock readings around the send.
    expect(body.message.timestamp).toBeGreaterThanOrEqual(before);
    expect(body.message.timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    const raw = await getMessage(cast.member2, a.body.id, { apply_markdown: false });
    expect([raw.message.content, raw.message.content_type]).toEqual([
      'Hello **all of you**',
      'text/x-markdown',
    ]);
  });

  test('a missing channel is STREAM_DOES_NOT_EXIST, by name or by ID', async () => {
    expectError(
      await send(cast.member, { type: 'stream', to: 'nowhere', topic: 't', content: 'x' }),
      400,
      'STREAM_DOES_NOT_EXIST',
      "Channel 'nowhere' does not exist",
      { stream: 'nowhere' },
    );
    expectError(
      await send(cast.member, { type: 'stream', to: 99999, topic: 't', content: 'x' }),
      400,
      'STREAM_DOES_NOT_EXIST',
      "Channel with ID '99999' does not exist",
      { stream_id: 99999 },
    );
  });

  test('refuses a missing topic, both topic and subject, and several channels', async () => {
    expectError(
      await send(cast.member, { type: 'stream', to: 'general', content: 'x' }),
      400,
      'BAD_REQUEST',
      'Missing topic',
    );
    expectError(
      await send(cast.member, {
        type: 'stream',
        to: 'general',
        topic: 'a',
        subject: 'b',
        content: 'x',
      }),
      400,
      'REQUEST_CONFUSING_VAR',
      "Can't decide between 'topic' and 'subject' arguments",
      {
        var_name1: 'topic',
        var_name2: 'subject',
      },
    );
    expectError(
      await send(cast.member, {
        type: 'stream',
        to: JSON.stringify(['general', 'others']),
        topic: 'a',
        content: 'x',
      }),
      400,
      'BAD_REQUEST',
      'Expected exactly one channel',
    );
    const viaSubject = await send(cast.member, {
      type: 'stream',
      to: 'general',
      subject: '  legacy  ',
      content: 'x',
    });
    expect((await getMessage(cast.member, viaSubject.body.id)).message.subject).toBe('legacy');
  });

  test('who may post: private channels, archived channels, guests, can_send_message_group', async () => {
    expectError(
      await send(cast.member, { type: 'stream', to: 'secret', topic: 't', content: 'x' }),
      400,
      'BAD_REQUEST',
      "Not authorized to send to channel 'secret'",
    );
    expectError(
      await send(cast.guest, { type: 'stream', to: 'others', topic: 't', content: 'x' }),
      400,
      'BAD_REQUEST',
      "Not authorized to send to channel 'others'",
    );
    expect(
      (await send(cast.guest, { type: 'stream', to: 'general', topic: 't', content: 'guest here' }))
        .status,
    ).toBe(200);
    const groups = (await server.call('GET', '/user_groups', { as: cast.owner })).body.user_groups;
    const moderators = groups.find((g: { name: string }) => g.name === 'role:moderators').id;
    await subscribe(server, cast.admin, ['announcements'], { can_send_message_group: moderators });
    expectError(
      await send(cast.member, { type: 'stream', to: 'announcements', topic: 't', content: 'x' }),
      400,
      'BAD_REQUEST',
      'You do not have permission to post in this channel.',
    );
    expect(
      (
        await send(cast.moderator, {
          type: 'stream',
          to: 'announcements',
          topic: 't',
          content: 'news',
        })
      ).status,
    ).toBe(200);
  });
});

describe('topics', () => {
  test('are trimmed and cut to max_topic_length', async () => {
    const long = 'x'.repeat(70);
    const res = await send(cast.member, {
      type: 'stream',
      to: 'general',
      topic: `  ${long}  `,
      content: 'long topic',
    });
    expect((await getMessage(cast.member, res.body.id)).message.subject).toBe(
      `${'x'.repeat(57)}...`,
    );
  });

  test('"(no topic)", the display name and "" are the empty topic, shown as its display name', async () => {
    for (const topic of ['(no topic)', 'general chat', '', '   ']) {
      const res = await send(cast.member, {
        type: 'stream',
        to: 'general',
        topic,
        content: `empty via ${JSON.stringify(topic)}`,
      });
      expect(res.status).toBe(200);
      expect((await getMessage(cast.member, res.body.id)).message.subject).toBe('general chat');
      expect(
        (await getMessage(cast.member, res.body.id, { allow_empty_topic_name: true })).message
          .subject,
      ).toBe('');
    }
  });

  test("follow the channel's topics_policy, and the organization's when it inherits", async () => {
    await subscribe(server, cast.owner, ['named-only'], { topics_policy: 'disable_empty_topic' });
    await subscribe(server, cast.owner, ['chat-only'], { topics_policy: 'empty_topic_only' });
    await subscribe(server, cast.owner, ['both'], { topics_policy: 'allow_empty_topic' });
    await subscribe(server, cast.owner, ['inheriting']);
    const refused = 'Sending messages to the general chat topic is not allowed in this channel.';
    expectError(
      await send(cast.owner, {
        type: 'stream',
        to: 'named-only',
        topic: '(no topic)',
        content: 'x',
      }),
      400,
      'BAD_REQUEST',
      refused,
    );
    expectError(
      await send(cast.owner, { type: 'stream', to: 'chat-only', topic: 'named', content: 'x' }),
      400,
      'BAD_REQUEST',
      'Only the general chat topic is allowed in this channel.',
    );
    expect(
      (await send(cast.owner, { type: 'stream', to: 'chat-only', topic: '', content: 'x' })).status,
    ).toBe(200);
    expect(
      (await send(cast.owner, { type: 'stream', to: 'inheriting', topic: '', content: 'x' }))
        .status,
    ).toBe(200);
    await server.services.db.write((tx) =>
      tx.realm.update({
        where: { id: cast.realm.id },
        data: { topicsPolicy: 'disable_empty_topic' },
      }),
    );
    server.services.auth.forgetRealm(cast.realm.id);
    try {
      expectError(
        await send(cast.owner, { type: 'stream', to: 'inheriting', topic: '', content: 'x' }),
        400,
        'BAD_REQUEST',
        refused,
      );
      expect(
        (await send(cast.owner, { type: 'stream', to: 'both', topic: '', content: 'x' })).status,
      ).toBe(200);
    } finally {
      await server.services.db.write((tx) =>
        tx.realm.update({
          where: { id: cast.realm.id },
          data: { topicsPolicy: 'allow_empty_topic' },
        }),
      );
      server.services.auth.forgetRealm(cast.realm.id);
    }
  });
});

describe('content', () => {
  test('loses trailing whitespace and leading newlines, and is cut to max_message_length', async () => {
    const trimmed = await send(cast.member, {
      type: 'stream',
      to: 'general',
      topic: 'c',
      content: '\n\n  indented\n\n  ',
    });
    expect((await getMessage(cast.member, trimmed.body.id)).raw_content).toBe('  indented');
    const long = await send(cast.member, {
      type: 'stream',
      to: 'general',
      topic: 'c',
      content: 'y'.repeat(10050),
    });
    const raw = (await getMessage(cast.member, long.body.id)).raw_content;
    expect(raw.length).toBe(10000);
    expect(raw.endsWith('\n[message truncated]')).toBe(true);
  });

  test('refuses empty content and null bytes', async () => {
    expectError(
      await send(cast.member, { type: 'stream', to: 'general', topic: 'c', content: ' \n\t ' }),
      400,
      'BAD_REQUEST',
      'Message must not be empty',
    );
    expectError(
      await send(cast.member, { type: 'stream', to: 'general', topic: 'c', content: 'a\u0000b' }),
      400,
      'BAD_REQUEST',
      'Message must not contain null bytes',
    );
  });

  test('is rendered to safe HTML: no script or event handler survives', async () => {
    const res = await send(cast.member, {
      type: 'stream',
      to: 'general',
      topic: 'c',
      content: '<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))',
    });
    const html = (await getMessage(cast.member, res.body.id)).message.content as string;
    expect(html).not.toMatch(/<script|<img|<[^>]*\son\w+=|href="javascript:/i);
    expect(html).toContain('&lt;script&gt;');
  });

  test('a /me message is flagged', async () => {
    const res = await send(cast.member, {
      type: 'stream',
      to: 'general',
      topic: 'c',
      content: '/me waves',
    });
    expect((await getMessage(cast.member, res.body.id)).message.is_me_message).toBe(true);
  });
});

describe('direct messages', () => {
  test('to user IDs, emails or a comma-separated string, and to oneself', async () => {
    const byIds = await sendDirect(server, cast.member, [cast.member2.id], 'psst');
    const body = await getMessage(cast.member2, byIds);
    expect(body.message).toMatchObject({
      type: 'private',
      subject: '',
      display_recipient: [
        {
          id: cast.member.id,
          email: cast.member.email,
          full_name: 'King Hamlet',
          is_mirror_dummy: false,
        },
        {
          id: cast.member2.id,
          email: cast.member2.email,
          full_name: 'Cordelia Lear',
          is_mirror_dummy: false,
        },
      ],
    });
    expect(body.message).not.toHaveProperty('stream_id');
    const byEmails = await send(cast.member, {
      type: 'private',
      to: JSON.stringify([cast.member2.email, cast.moderator.email]),
      content: 'group',
    });
    expect(
      (await getMessage(cast.moderator, byEmails.body.id)).message.display_recipient,
    ).toHaveLength(3);
    const byString = await send(cast.member, {
      type: 'direct',
      to: `${cast.member2.email}, ${cast.moderator.email}`,
      content: 'group again',
    });
    expect(byString.status).toBe(200);
    const self = await sendDirect(server, cast.member, [cast.member.id], 'note to self');
    expect((await getMessage(cast.member, self)).message.display_recipient).toEqual([
      {
        id: cast.member.id,
        email: cast.member.email,
        full_name: 'King Hamlet',
        is_mirror_dummy: false,
      },
    ]);
  });

  test('refuses unknown and deactivated recipients and empty lists', async () => {
    expectError(
      await send(cast.member, { type: 'direct', to: JSON.stringify([99999]), content: 'x' }),
      400,
      'BAD_REQUEST',
      'Invalid user ID 99999',
    );
    expectError(
      await send(cast.member, { type: 'direct', to: 'ghost@example.com', content: 'x' }),
      400,
      'BAD_REQUEST',
      "Invalid email 'ghost@example.com'",
    );
    expectError(
      await send(cast.member, { type: 'direct', to: JSON.stringify([]), content: 'x' }),
      400,
      'BAD_REQUEST',
      'Message must have recipients',
    );
    const gone = await server.createUser(cast.realm, { email: 'gone@example.com' });
    await server.services.db.write((tx) =>
      tx.user.update({ where: { id: gone.id }, data: { isActive: false } }),
    );
    expectError(
      await send(cast.member, { type: 'direct', to: JSON.stringify([gone.id]), content: 'x' }),
      400,
      'BAD_REQUEST',
      "'gone@example.com' is no longer using Zulip.",
    );
  });
});

describe('GET /messages/{message_id}', () => {
  test('a missing or inaccessible message is "Invalid message(s)"', async () => {
    expectError(
      await server.call('GET', '/messages/99999', { as: cast.member }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
    const dm = await sendDirect(server, cast.member, [cast.member2.id], 'private words');
    expectError(
      await server.call('GET', `/messages/${dm}`, { as: cast.moderator }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
  });

  test('a channel message the reader never received reads as historical', async () => {
    const id = await sendToChannel(server, cast.admin, 'others', 't', 'public words');
    expect((await getMessage(cast.member, id)).message.flags).toEqual(['read', 'historical']);
  });
});
