// GET /messages ranges: anchors (newest, oldest, first_unread, an ID),
// num_before/num_after/include_anchor, found_anchor/oldest/newest, message_ids,
// the presentation options, and GET /messages/matches_narrow.
import { LARGER_THAN_MAX_MESSAGE_ID } from '../src/lib/messages/message-fetch';
import { TestServer, type Cast } from './support/server';
import { expectError, sendDirect, sendToChannel, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
const ids: number[] = [];
const feed = [{ operator: 'channel', operand: 'feed' }];

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['feed'], { principals: [cast.member.id, cast.member2.id] });
  for (let i = 0; i < 10; i++)
    ids.push(
      await sendToChannel(server, cast.member, 'feed', i % 2 ? 'odd' : 'even', `message ${i}`),
    );
});
afterAll(() => server.stop());

async function get(params: Record<string, unknown>, as = cast.member2) {
  const res = await server.call('GET', '/messages', { as, params: { narrow: feed, ...params } });
  expect(res.status).toBe(200);
  return { ...res.body, ids: res.body.messages.map((x: { id: number }) => x.id) };
}

describe('anchors and ranges', () => {
  test('newest: the last messages, found_newest', async () => {
    const r = await get({ anchor: 'newest', num_before: 3 });
    expect(r).toMatchObject({
      ids: ids.slice(7),
      found_anchor: false,
      found_oldest: false,
      found_newest: true,
      history_limited: false,
      anchor: LARGER_THAN_MAX_MESSAGE_ID,
    });
  });

  test('oldest: the first messages, found_oldest', async () => {
    const r = await get({ anchor: 'oldest', num_after: 3 });
    expect(r).toMatchObject({
      ids: ids.slice(0, 3),
      found_anchor: false,
      found_oldest: true,
      found_newest: false,
      anchor: 0,
    });
  });

  test('an ID with messages on both sides', async () => {
    const r = await get({ anchor: ids[5], num_before: 2, num_after: 2 });
    expect(r).toMatchObject({
      ids: ids.slice(3, 8),
      found_anchor: true,
      found_oldest: false,
      found_newest: false,
      anchor: ids[5],
    });
    const all = await get({ anchor: ids[5], num_before: 20, num_after: 20 });
    expect(all).toMatchObject({ ids, found_anchor: true, found_oldest: true, found_newest: true });
  });

  test('include_anchor=false at either end of the range', async () => {
    expect(await get({ anchor: ids[5], num_before: 2, include_anchor: false })).toMatchObject({
      ids: ids.slice(3, 5),
      found_anchor: false,
    });
    expect(await get({ anchor: ids[5], num_after: 2, include_anchor: false })).toMatchObject({
      ids: ids.slice(6, 8),
      found_anchor: false,
    });
    const res = await server.call('GET', '/messages', {
      as: cast.member2,
      params: { narrow: feed, anchor: ids[5], num_before: 1, num_after: 1, include_anchor: false },
    });
    expectError(res, 400, 'BAD_REQUEST', 'The anchor can only be excluded at an end of the range');
  });

  test('num_before=num_after=0 finds just the anchor, if it matches', async () => {
    expect(await get({ anchor: ids[4] })).toMatchObject({ ids: [ids[4]], found_anchor: true });
    expect(
      await get({ anchor: ids[4], narrow: [...feed, { operator: 'topic', operand: 'odd' }] }),
    ).toMatchObject({ ids: [], found_anchor: false });
  });

  test('first_unread: the oldest unread message, else the newest', async () => {
    await server.ok('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: ids.slice(0, 4), op: 'add', flag: 'read' },
    });
    expect(await get({ anchor: 'first_unread', num_before: 1, num_after: 1 })).toMatchObject({
      ids: ids.slice(3, 6),
      anchor: ids[4],
      found_anchor: true,
    });
    await server.ok('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: ids, op: 'add', flag: 'read' },
    });
    expect(await get({ anchor: 'first_unread', num_before: 2, num_after: 2 })).toMatchObject({
      ids: ids.slice(8),
      anchor: LARGER_THAN_MAX_MESSAGE_ID,
      found_newest: true,
    });
  });

  test('use_first_unread_anchor=true means anchor=first_unread, whatever anchor says', async () => {
    // zulip-terminal's first fetch: anchor=0 with the older flag.
    const unread = await sendToChannel(server, cast.member, 'feed', 'even', 'still unread');
    const r = await get({
      anchor: 0,
      use_first_unread_anchor: true,
      num_before: 1,
      num_after: 1,
    });
    expect(r).toMatchObject({ ids: [ids[9], unread], anchor: unread, found_anchor: true });
    expect(r.ignored_parameters_unsupported).toBeUndefined();
    // Without an anchor at all, the flag is enough.
    expect(await get({ use_first_unread_anchor: true, num_before: 0, num_after: 1 })).toMatchObject(
      { ids: [unread], anchor: unread },
    );
    // False leaves the anchor in charge.
    expect(await get({ anchor: 0, use_first_unread_anchor: false, num_after: 1 })).toMatchObject({
      ids: ids.slice(0, 1),
      anchor: 0,
    });
    await server.ok('POST', '/messages/flags', {
      as: cast.member2,
      params: { messages: [unread], op: 'add', flag: 'read' },
    });
    await server.ok('DELETE', `/messages/${unread}`, { as: cast.admin });
  });

  test('a negative anchor counts as 0 and a huge one as the newest', async () => {
    expect(await get({ anchor: -5, num_after: 1 })).toMatchObject({
      ids: ids.slice(0, 1),
      anchor: 0,
      found_oldest: true,
    });
    expect(await get({ anchor: '99999999999999999999', num_before: 1 })).toMatchObject({
      ids: ids.slice(9),
      anchor: LARGER_THAN_MAX_MESSAGE_ID,
    });
  });

  test('refuses bad anchors, a missing anchor, and too many messages', async () => {
    const call = (params: Record<string, unknown>) =>
      server.call('GET', '/messages', { as: cast.member2, params: { narrow: feed, ...params } });
    expectError(await call({ anchor: 'middle' }), 400, 'BAD_REQUEST', 'Invalid anchor');
    expectError(await call({ num_before: 1 }), 400, 'BAD_REQUEST', "Missing 'anchor' argument.");
    expectError(
      await call({ anchor: 'newest', num_before: 3000, num_after: 3000 }),
      400,
      'BAD_REQUEST',
      'Too many messages requested (maximum 5000).',
    );
  });
});

describe('message_ids', () => {
  test('returns the requested messages the user may read that match the narrow', async () => {
    const dm = await sendDirect(server, cast.member, [cast.moderator.id], 'not for member2');
    const res = await server.call('GET', '/messages', {
      as: cast.member2,
      params: { message_ids: [ids[1], ids[2], dm, 99999], narrow: [] },
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      messages: expect.any(Array),
      found_anchor: false,
      found_oldest: false,
      found_newest: false,
      history_limited: false,
    });
    expect(res.body.messages.map((x: { id: number }) => x.id)).toEqual([ids[1], ids[2]]);
    const odd = await server.call('GET', '/messages', {
      as: cast.member2,
      params: { message_ids: [ids[1], ids[2]], narrow: [{ operator: 'topic', operand: 'odd' }] },
    });
    expect(odd.body.messages.map((x: { id: number }) => x.id)).toEqual([ids[1]]);
  });

  test('cannot be combined with use_first_unread_anchor', async () => {
    const res = await server.call('GET', '/messages', {
      as: cast.member2,
      params: { message_ids: [ids[1]], use_first_unread_anchor: true },
    });
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.msg).toMatch(/^Unsupported parameter combination/);
  });

  test('cannot be combined with a range', async () => {
    const res = await server.call('GET', '/messages', {
      as: cast.member2,
      params: { message_ids: [ids[1]], anchor: 'newest' },
    });
    const parameters =
      'num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor';
    expectError(res, 400, 'BAD_REQUEST', `Unsupported parameter combination: ${parameters}`, {
      parameters,
    });
  });
});

describe('presentation options', () => {
  test('apply_markdown, client_gravatar and allow_empty_topic_name', async () => {
    const empty = await sendToChannel(server, cast.member, 'feed', '', 'in **general chat**');
    const params = { anchor: empty, narrow: feed };
    const html = (await get(params)).messages[0];
    expect(html).toMatchObject({
      content: '<p>in <strong>general chat</strong></p>',
      content_type: 'text/html',
      subject: 'general chat',
      avatar_url: null,
    });
    const raw = (
      await get({
        ...params,
        apply_markdown: false,
        client_gravatar: false,
        allow_empty_topic_name: true,
      })
    ).messages[0];
    expect(raw).toMatchObject({
      content: 'in **general chat**',
      content_type: 'text/x-markdown',
      subject: '',
    });
    expect(raw.avatar_url).toContain('gravatar.com');
  });
});

describe('GET /messages/matches_narrow', () => {
  test('lists the received messages that match, with highlights; leaves out the others', async () => {
    const hit = await sendToChannel(server, cast.member, 'feed', 'searching', 'a needle in here');
    const res = await server.call('GET', '/messages/matches_narrow', {
      as: cast.member2,
      params: { msg_ids: [hit, ids[0]], narrow: [{ operator: 'search', operand: 'needle' }] },
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      messages: {
        [hit]: {
          match_content: '<p>a <span class="highlight">needle</span> in here</p>',
          match_subject: 'searching',
        },
      },
    });
    const byTopic = await server.call('GET', '/messages/matches_narrow', {
      as: cast.member2,
      params: { msg_ids: [ids[0], ids[1]], narrow: [{ operator: 'topic', operand: 'even' }] },
    });
    expect(byTopic.body.messages).toEqual({
      [ids[0]]: { match_content: '<p>message 0</p>', match_subject: 'even' },
    });
  });

  test('considers only messages the user received', async () => {
    await subscribe(server, cast.admin, ['public-elsewhere']);
    const unseen = await sendToChannel(server, cast.admin, 'public-elsewhere', 't', 'needle too');
    const res = await server.call('GET', '/messages/matches_narrow', {
      as: cast.member2,
      params: { msg_ids: [unseen], narrow: [{ operator: 'search', operand: 'needle' }] },
    });
    expect(res.body.messages).toEqual({});
  });
});
