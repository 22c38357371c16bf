// Per-recipient message rows and their flags: who receives a message, mention
// and wildcard flags, the wildcard-mention permission checks with Zulip's
// thresholds, POST /messages/flags, and the unread state of POST /register.
import type { User } from '../generated/prisma/sqlite/client';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  register,
  sendDirect,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let crowd: User[];

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  crowd = [];
  for (let i = 0; i < 16; i++)
    crowd.push(
      await server.createUser(cast.realm, {
        email: `crowd${i}@example.com`,
        fullName: `Crowd ${i}`,
        password: null,
      }),
    );
  await subscribe(server, cast.member, ['small'], {
    principals: [cast.member.id, cast.member2.id, cast.moderator.id],
  });
  await subscribe(server, cast.admin, ['large'], {
    principals: [cast.admin.id, cast.member.id, ...crowd.map((u) => u.id)],
  });
});
afterAll(() => server.stop());

async function flagsOf(as: User, id: number): Promise<string[]> {
  const res = await server.call('GET', `/messages/${id}`, { as });
  return res.body.message.flags;
}

describe('recipients and flags', () => {
  test("subscribers and the sender get rows; the sender's is read only with read_by_sender", async () => {
    const id = await sendToChannel(server, cast.member, 'small', 't', 'plain');
    expect(await flagsOf(cast.member, id)).toEqual([]);
    expect(await flagsOf(cast.member2, id)).toEqual([]);
    // A non-subscriber reads a public channel's message as historical.
    expect(await flagsOf(cast.admin, id)).toEqual(['read', 'historical']);
    const read = await server.call('POST', '/messages', {
      as: cast.member,
      params: { type: 'stream', to: 'small', topic: 't', content: 'mine', read_by_sender: true },
    });
    expect(await flagsOf(cast.member, read.body.id)).toEqual(['read']);
    expect(await flagsOf(cast.member2, read.body.id)).toEqual([]);
  });

  test('mentions: personal, silent, group, and not for those outside the channel', async () => {
    const group = await server.call('POST', '/user_groups/create', {
      as: cast.admin,
      params: { name: 'reviewers', description: 'R', members: [cast.moderator.id, cast.admin.id] },
    });
    expect(group.status).toBe(200);
    const id = await sendToChannel(
      server,
      cast.member,
      'small',
      't',
      '@**Cordelia Lear** @_**Shiva Moderator** @**Iago Admin**',
    );
    expect(await flagsOf(cast.member2, id)).toEqual(['mentioned']);
    expect(await flagsOf(cast.moderator, id)).toEqual([]);
    expect(await flagsOf(cast.admin, id)).toEqual(['read', 'historical']);
    const byGroup = await sendToChannel(server, cast.member, 'small', 't', 'hello @*reviewers*');
    expect(await flagsOf(cast.moderator, byGroup)).toEqual(['mentioned']);
    expect(await flagsOf(cast.member2, byGroup)).toEqual([]);
  });

  test('channel and topic wildcards flag every recipient, and topic participants only', async () => {
    await sendToChannel(server, cast.member2, 'small', 'wild', 'I was here');
    const all = await sendToChannel(server, cast.member, 'small', 'wild', 'hey @**all**');
    for (const u of [cast.member, cast.member2, cast.moderator])
      expect(await flagsOf(u, all)).toEqual(['wildcard_mentioned', 'stream_wildcard_mentioned']);
    const topic = await sendToChannel(server, cast.member, 'small', 'wild', 'hey @**topic**');
    expect(await flagsOf(cast.member2, topic)).toEqual([
      'wildcard_mentioned',
      'topic_wildcard_mentioned',
    ]);
    expect(await flagsOf(cast.member, topic)).toEqual([
      'wildcard_mentioned',
      'topic_wildcard_mentioned',
    ]);
    expect(await flagsOf(cast.moderator, topic)).toEqual([]);
  });

  test('direct messages flag their participants', async () => {
    const id = await sendDirect(server, cast.member, [cast.member2.id], 'hi @**Cordelia Lear**');
    expect(await flagsOf(cast.member2, id)).toEqual(['mentioned']);
    expect(await flagsOf(cast.member, id)).toEqual([]);
  });
});

describe('wildcard mention permissions', () => {
  test('a channel wildcard in a channel of more than 15 subscribers needs can_mention_many_users_group', async () => {
    for (const word of ['all', 'everyone', 'channel', 'stream']) {
      const res = await server.call('POST', '/messages', {
        as: cast.member,
        params: { type: 'stream', to: 'large', topic: 't', content: `@**${word}** look` },
      });
      expectError(
        res,
        400,
        'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
        'You do not have permission to use channel wildcard mentions in this channel.',
      );
    }
    expect(
      (
        await server.call('POST', '/messages', {
          as: cast.admin,
          params: { type: 'stream', to: 'large', topic: 't', content: '@**all** look' },
        })
      ).status,
    ).toBe(200);
    // Silent wildcards and small channels are not restricted.
    expect(
      (
        await server.call('POST', '/messages', {
          as: cast.member,
          params: { type: 'stream', to: 'large', topic: 't', content: '@_**all** look' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('POST', '/messages', {
          as: cast.member,
          params: { type: 'stream', to: 'small', topic: 't', content: '@**all** look' },
        })
      ).status,
    ).toBe(200);
  });

  test('a topic wildcard in a topic with more than 15 participants needs it too', async () => {
    for (const u of crowd.slice(0, 15))
      await sendToChannel(server, u, 'large', 'busy', `${u.fullName} says hi`);
    const refused = await server.call('POST', '/messages', {
      as: cast.member,
      params: { type: 'stream', to: 'large', topic: 'busy', content: '@**topic** news' },
    });
    expectError(
      refused,
      400,
      'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
      'You do not have permission to use topic wildcard mentions in this topic.',
    );
    expect(
      (
        await server.call('POST', '/messages', {
          as: cast.member,
          params: { type: 'stream', to: 'large', topic: 'quiet', content: '@**topic** news' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('POST', '/messages', {
          as: cast.admin,
          params: { type: 'stream', to: 'large', topic: 'busy', content: '@**topic** news' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('POST /messages/flags', () => {
  test('adds and removes read and starred, with update_message_flags events', async () => {
    const id = await sendToChannel(server, cast.member, 'small', 'flags', 'star me');
    const { queue_id } = await register(server, cast.member2, {
      event_types: ['update_message_flags'],
    });
    const res = await server.call('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: [id], op: 'add', flag: 'starred' },
    });
    expect(res.body).toEqual({ result: 'success', msg: '', messages: [id] });
    expect(await flagsOf(cast.member2, id)).toEqual(['starred']);
    await server.ok('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: [id], op: 'add', flag: 'read' },
    });
    await server.ok('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: [id], op: 'remove', flag: 'read' },
    });
    const small = await streamId(server, cast.member, 'small');
    expect(withoutIds(await eventsOf(server, cast.member2, queue_id))).toEqual([
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'starred',
        messages: [id],
        all: false,
      },
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: [id],
        all: false,
      },
      {
        type: 'update_message_flags',
        op: 'remove',
        operation: 'remove',
        flag: 'read',
        messages: [id],
        all: false,
        message_details: {
          [id]: { type: 'stream', stream_id: small, topic: 'flags', unmuted_stream_msg: true },
        },
      },
    ]);
  });

  test('a readable message never received gets a historical row, read as it was', async () => {
    const id = await sendToChannel(server, cast.member, 'small', 'flags', 'for outsiders');
    await server.ok('POST', '/messages/flags', {
      as: cast.admin,
      params: { messages: [id], op: 'add', flag: 'starred' },
    });
    expect(await flagsOf(cast.admin, id)).toEqual(['read', 'starred', 'historical']);
  });

  test('refuses server-set flags, unknown flags and operations, and unreadable messages', async () => {
    const id = await sendToChannel(server, cast.member, 'small', 'flags', 'x');
    const post = (params: Record<string, unknown>) =>
      server.call('POST', '/messages/flags', {
        as: cast.member2,
        params: { messages: [id], op: 'add', flag: 'read', ...params },
      });
    expectError(
      await post({ flag: 'mentioned' }),
      400,
      'BAD_REQUEST',
      "Flag not editable: 'mentioned'",
    );
    expectError(await post({ flag: 'sparkly' }), 400, 'BAD_REQUEST', "Invalid flag: 'sparkly'");
    expectError(
      await post({ op: 'toggle' }),
      400,
      'BAD_REQUEST',
      "Invalid message flag operation: 'toggle'",
    );
    const dm = await sendDirect(server, cast.member, [cast.moderator.id], 'not for cordelia');
    // Starring needs a row for the message: one the user cannot read is refused.
    const star = { op: 'add', flag: 'starred' };
    expectError(await post({ messages: [dm], ...star }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(
      await post({ messages: [99999], ...star }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
  });
});

describe('flags in GET /messages', () => {
  test('every flag reads as GET /messages/{id} reads it, through channel history and through the received messages', async () => {
    const viewer = cast.member2;
    const flag = (messages: number[], op: string, name: string) =>
      server.call('POST', '/messages/flags', { as: viewer, params: { messages, op, flag: name } });
    await sendToChannel(server, viewer, 'small', 'every flag', 'taking part in the topic');
    const plain = await sendToChannel(server, cast.member, 'small', 'every flag', 'plain');
    const mentioned = await sendToChannel(
      server,
      cast.member,
      'small',
      'every flag',
      `@**${viewer.fullName}**`,
    );
    const channelWildcard = await sendToChannel(
      server,
      cast.member,
      'small',
      'every flag',
      '@**all**',
    );
    const topicWildcard = await sendToChannel(
      server,
      cast.member,
      'small',
      'every flag',
      '@**topic**',
    );
    const own = await server.call('POST', '/messages', {
      as: viewer,
      params: {
        type: 'stream',
        to: 'small',
        topic: 'every flag',
        content: 'mine',
        read_by_sender: true,
      },
    });
    await flag([plain, topicWildcard], 'add', 'starred');
    await flag([mentioned, topicWildcard], 'add', 'read');
    // In a channel the viewer is not in: one message without a row, one starred (a historical row).
    const outside = await sendToChannel(
      server,
      cast.admin,
      'large',
      'every flag',
      'never received',
    );
    const starredOutside = await sendToChannel(
      server,
      cast.admin,
      'large',
      'every flag',
      'starred from outside',
    );
    await flag([starredOutside], 'add', 'starred');

    const expected: Record<number, string[]> = {
      [plain]: ['starred'],
      [mentioned]: ['read', 'mentioned'],
      [channelWildcard]: ['wildcard_mentioned', 'stream_wildcard_mentioned'],
      [topicWildcard]: ['read', 'starred', 'wildcard_mentioned', 'topic_wildcard_mentioned'],
      [own.body.id]: ['read'],
      [outside]: ['read', 'historical'],
      [starredOutside]: ['read', 'starred', 'historical'],
    };
    for (const [id, flags] of Object.entries(expected))
      expect(await flagsOf(viewer, Number(id))).toEqual(flags);
    const fetched = async (narrow: unknown[]) => {
      const res = await server.call('GET', '/messages', {
        as: viewer,
        params: { anchor: 'newest', num_before: 50, num_after: 0, narrow },
      });
      expect(res.status).toBe(200);
      return Object.fromEntries(
        (res.body.messages as { id: number; flags: string[] }[])
          .filter((m) => m.id in expected)
          .map((m) => [m.id, m.flags]),
      );
    };
    const only = (ids: number[]) => Object.fromEntries(ids.map((id) => [id, expected[id]]));
    const small = [plain, mentioned, channelWildcard, topicWildcard, own.body.id];
    // Narrowed to a channel: its history, with or without the viewer's rows.
    expect(
      await fetched([
        { operator: 'channel', operand: 'small' },
        { operator: 'topic', operand: 'every flag' },
      ]),
    ).toEqual(only(small));
    expect(
      await fetched([
        { operator: 'channel', operand: 'large' },
        { operator: 'topic', operand: 'every flag' },
      ]),
    ).toEqual(only([outside, starredOutside]));
    // Not narrowed to a channel: only messages the viewer has rows for.
    expect(await fetched([{ operator: 'topic', operand: 'every flag' }])).toEqual(
      only([...small, starredOutside]),
    );
  });
});

describe('unread state', () => {
  test('register lists unreads by channel and topic, direct conversation and mention', async () => {
    const reader = await server.createUser(cast.realm, {
      email: 'reader@example.com',
      fullName: 'Reader',
    });
    await subscribe(server, cast.admin, ['news'], { principals: [reader.id, cast.admin.id] });
    const a = await sendToChannel(server, cast.admin, 'news', 'today', 'one');
    const b = await sendToChannel(server, cast.admin, 'news', 'today', 'two @**Reader**');
    const c = await sendDirect(server, cast.admin, [reader.id], 'direct');
    const d = await sendDirect(server, cast.admin, [reader.id, cast.member.id], 'group');
    const state = await register(server, reader, {
      event_types: ['message', 'update_message_flags'],
    });
    const news = await streamId(server, cast.admin, 'news');
    expect(state.max_message_id).toBe(d);
    expect(state.unread_msgs).toEqual({
      count: 4,
      pms: [{ other_user_id: cast.admin.id, sender_id: cast.admin.id, unread_message_ids: [c] }],
      streams: [{ stream_id: news, topic: 'today', unread_message_ids: [a, b] }],
      huddles: [
        {
          user_ids_string: [cast.admin.id, cast.member.id, reader.id]
            .sort((x, y) => x - y)
            .join(','),
          unread_message_ids: [d],
        },
      ],
      mentions: [b],
      old_unreads_missing: false,
    });
    // Marking read, as an event does, empties it.
    await server.ok('POST', '/messages/flags', {
      as: reader,
      params: { messages: [a, b, c, d], op: 'add', flag: 'read' },
    });
    const fresh = await register(server, reader, {
      event_types: ['message', 'update_message_flags'],
    });
    expect(fresh.unread_msgs).toEqual({
      count: 0,
      pms: [],
      streams: [],
      huddles: [],
      mentions: [],
      old_unreads_missing: false,
    });
  });
});
