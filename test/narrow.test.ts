// Narrows in GET /messages: every operator, each also negated, on a fixed
// corpus read by one user; the refusals with BAD_NARROW; the legacy pair form.
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer, type Cast } from './support/server';
import {
  expectError,
  idsOf,
  sendDirect,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let viewer: User;
/** Message IDs by name; see the corpus below. */
const m: Record<string, number> = {};
/** Everything the viewer received (d3 is the sender's note to self; g1 is in a channel the viewer is not in). */
const received = ['a1', 'a2', 'a3', 'b1', 'b2', 'd1', 'd2'];

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  viewer = cast.member2;
  await subscribe(server, cast.member, ['alpha'], {
    principals: [cast.member.id, cast.member2.id, cast.moderator.id],
  });
  await subscribe(server, cast.member, ['beta'], { principals: [cast.member.id, cast.member2.id] });
  await subscribe(server, cast.admin, ['gamma']);
  m.a1 = await sendToChannel(server, cast.member, 'alpha', 'Topic One', 'The quick brown fox');
  m.a2 = await sendToChannel(
    server,
    cast.member2,
    'alpha',
    'topic one',
    'jumps over https://example.com',
  );
  m.a3 = await sendToChannel(server, cast.moderator, 'alpha', '✔ fixed', 'resolved thing');
  m.b1 = await sendToChannel(
    server,
    cast.member,
    'beta',
    'misc',
    'nothing special @**Cordelia Lear**',
  );
  m.b2 = await sendToChannel(
    server,
    cast.member,
    'beta',
    'misc',
    'see [pic](/user_uploads/1/aa/pic.png)',
  );
  m.d1 = await sendDirect(server, cast.member, [viewer.id], 'direct words');
  m.d2 = await sendDirect(server, viewer, [cast.member.id, cast.moderator.id], 'group words');
  m.d3 = await sendDirect(server, cast.member, [cast.member.id], 'self note');
  m.g1 = await sendToChannel(server, cast.admin, 'gamma', 'elsewhere', 'unseen fox');
  await server.ok('POST', '/messages/flags', {
    as: viewer,
    params: { messages: [m.a1, m.d1], op: 'add', flag: 'read' },
  });
  await server.ok('POST', '/messages/flags', {
    as: viewer,
    params: { messages: [m.a2], op: 'add', flag: 'starred' },
  });
  await server.services.db.write((tx) =>
    tx.reaction.create({
      data: {
        messageId: m.a1,
        userId: cast.member.id,
        emojiName: 'tada',
        emojiCode: '1f389',
        reactionType: 'unicode_emoji',
      },
    }),
  );
});
afterAll(() => server.stop());

/** The names of the corpus messages a narrow finds for the viewer. */
async function found(narrow: unknown[]): Promise<string[]> {
  const ids = await idsOf(server, viewer, narrow);
  const byId = new Map(Object.entries(m).map(([k, v]) => [v, k]));
  return ids.map((id) => byId.get(id) ?? `#${id}`);
}

const except = (...names: string[]) => received.filter((n) => !names.includes(n));

/** [operator, operand, matching corpus messages]; each is checked plain and negated. */
const cases: [string, () => unknown, string[]][] = [
  ['channel', () => 'alpha', ['a1', 'a2', 'a3']],
  ['stream', () => 'beta', ['b1', 'b2']],
  ['topic', () => 'TOPIC ONE', ['a1', 'a2']],
  ['sender', () => cast.member.email, ['a1', 'b1', 'b2', 'd1']],
  ['sender', () => cast.moderator.id, ['a3']],
  ['dm', () => [cast.member.id], ['d1']],
  ['dm', () => `${cast.member.email},${cast.moderator.email}`, ['d2']],
  ['pm-with', () => cast.member.email, ['d1']],
  ['dm-including', () => cast.moderator.id, ['d2']],
  ['dm-including', () => cast.member.email, ['d1', 'd2']],
  ['is', () => 'dm', ['d1', 'd2']],
  ['is', () => 'private', ['d1', 'd2']],
  ['is', () => 'starred', ['a2']],
  ['is', () => 'mentioned', ['b1']],
  ['is', () => 'unread', except('a1', 'd1')],
  ['is', () => 'resolved', ['a3']],
  ['has', () => 'link', ['a2', 'b2']],
  ['has', () => 'attachment', ['b2']],
  ['has', () => 'image', ['b2']],
  ['has', () => 'reaction', ['a1']],
  ['id', () => m.a3, ['a3']],
  ['search', () => 'fox', ['a1']],
  ['search', () => 'WORDS', ['d1', 'd2']],
  ['search', () => 'fixed', ['a3']],
];

describe('each operator and its negation', () => {
  test.each(cases)('%s %#', async (operator, operand, expected) => {
    expect(await found([{ operator, operand: operand() }])).toEqual(expected);
    expect(await found([{ operator, operand: operand(), negated: true }])).toEqual(
      received.filter((n) => !expected.includes(n)),
    );
  });

  test('channel by ID', async () => {
    const beta = await streamId(server, viewer, 'beta');
    expect(await found([{ operator: 'channel', operand: beta }])).toEqual(['b1', 'b2']);
    expect(await found([{ operator: 'channel', operand: beta, negated: true }])).toEqual(
      except('b1', 'b2'),
    );
  });

  test('channel and topic together; sender:me', async () => {
    expect(
      await found([
        { operator: 'channel', operand: 'alpha' },
        { operator: 'topic', operand: 'topic one' },
      ]),
    ).toEqual(['a1', 'a2']);
    expect(
      await found([
        { operator: 'channel', operand: 'alpha' },
        { operator: 'topic', operand: 'topic one', negated: true },
      ]),
    ).toEqual(['a3']);
    expect(await found([{ operator: 'sender', operand: 'me' }])).toEqual(['a2', 'd2']);
  });

  test('a channel the viewer is not in includes its history; a public-channels narrow too', async () => {
    expect(await found([{ operator: 'channel', operand: 'gamma' }])).toEqual(['g1']);
    expect(await found([{ operator: 'channels', operand: 'public' }])).toEqual([
      'a1',
      'a2',
      'a3',
      'b1',
      'b2',
      'g1',
    ]);
    expect(await found([{ operator: 'channels', operand: 'public', negated: true }])).toEqual([
      'd1',
      'd2',
    ]);
    const res = await server.call('GET', '/messages', {
      as: viewer,
      params: {
        anchor: 'newest',
        num_before: 5,
        narrow: [{ operator: 'channel', operand: 'gamma' }],
      },
    });
    expect(res.body.messages[0].flags).toEqual(['read', 'historical']);
  });

  test("near filters nothing; with moves to the message's conversation", async () => {
    expect(await found([{ operator: 'near', operand: m.a2 }])).toEqual(received);
    expect(await found([{ operator: 'with', operand: m.a1 }])).toEqual(['a1', 'a2']);
    expect(
      await found([
        { operator: 'channel', operand: 'beta' },
        { operator: 'with', operand: m.d1 },
      ]),
    ).toEqual(['d1']);
    // A message the viewer cannot read leaves the narrow as it was.
    expect(
      await found([
        { operator: 'channel', operand: 'beta' },
        { operator: 'with', operand: m.d3 },
      ]),
    ).toEqual(['b1', 'b2']);
  });

  test('in:home leaves out muted channels; is:muted selects them', async () => {
    const beta = await streamId(server, viewer, 'beta');
    await server.ok('POST', '/users/me/subscriptions/properties', {
      as: viewer,
      params: { subscription_data: [{ stream_id: beta, property: 'is_muted', value: true }] },
    });
    try {
      expect(await found([{ operator: 'in', operand: 'home' }])).toEqual(except('b1', 'b2'));
      expect(await found([{ operator: 'in', operand: 'all' }])).toEqual(received);
      expect(await found([{ operator: 'is', operand: 'muted' }])).toEqual(['b1', 'b2']);
      expect(await found([{ operator: 'is', operand: 'muted', negated: true }])).toEqual(
        except('b1', 'b2'),
      );
    } finally {
      await server.ok('POST', '/users/me/subscriptions/properties', {
        as: viewer,
        params: { subscription_data: [{ stream_id: beta, property: 'is_muted', value: false }] },
      });
    }
  });

  test('the legacy [operator, operand] pairs work like objects', async () => {
    expect(
      await found([
        ['channel', 'alpha'],
        ['topic', 'topic one'],
      ]),
    ).toEqual(['a1', 'a2']);
  });

  test('search results carry highlighted match_content and match_subject', async () => {
    const res = await server.call('GET', '/messages', {
      as: viewer,
      params: {
        anchor: 'newest',
        num_before: 10,
        narrow: [{ operator: 'search', operand: 'fixed' }],
      },
    });
    expect(res.body.messages[0]).toMatchObject({
      match_content: '<p>resolved thing</p>',
      match_subject: '✔ <span class="highlight">fixed</span>',
    });
    const plain = await server.call('GET', '/messages', {
      as: viewer,
      params: {
        anchor: 'newest',
        num_before: 10,
        narrow: [{ operator: 'channel', operand: 'alpha' }],
      },
    });
    expect(plain.body.messages[0]).not.toHaveProperty('match_content');
  });
});

describe('refusals', () => {
  const bad = async (narrow: unknown[], msg: string) => {
    const res = await server.call('GET', '/messages', {
      as: viewer,
      params: { anchor: 'newest', num_before: 5, narrow },
    });
    expectError(res, 400, 'BAD_NARROW', msg);
  };
  test('unknown operators and operands', async () => {
    await bad(
      [{ operator: 'bogus', operand: 'x' }],
      'Invalid narrow operator: unknown operator bogus',
    );
    await bad(
      [{ operator: 'channel', operand: 'nope' }],
      'Invalid narrow operator: unknown channel nope',
    );
    await bad(
      [{ operator: 'channel', operand: 'nope', negated: true }],
      'Invalid narrow operator: unknown channel nope',
    );
    await bad(
      [{ operator: 'sender', operand: 'who@example.com' }],
      'Invalid narrow operator: unknown user who@example.com',
    );
    await bad(
      [{ operator: 'dm', operand: [99999] }],
      'Invalid narrow operator: unknown user in 99999',
    );
    await bad(
      [{ operator: 'is', operand: 'nonsense' }],
      "Invalid narrow operator: unknown 'is' operand nonsense",
    );
    await bad(
      [{ operator: 'has', operand: 'nonsense' }],
      "Invalid narrow operator: unknown 'has' operand nonsense",
    );
    await bad([{ operator: 'id', operand: 'abc' }], 'Invalid narrow operator: Invalid message ID');
    await bad(
      [{ operator: 'channels', operand: 'all' }],
      'Invalid narrow operator: unknown channels operand all',
    );
  });
});
