// Alert words through HTTP: listing, adding (trimmed, without duplicates in
// any case) and removing them, the alert_words event and register key, and
// the has_alert_word flag set on delivery and reset by edits (GET /messages,
// message and update_message events, the is:alerted narrow), with Zulip's
// word boundaries.
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  fetchNarrow,
  idsOf,
  register,
  sendDirect,
  sendToChannel,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['denmark'], {
    principals: [cast.member.id, cast.member2.id, cast.moderator.id],
  });
});
afterAll(() => server.stop());

const list = (as = cast.member) => server.call('GET', '/users/me/alert_words', { as });
const add = (words: unknown, as = cast.member) =>
  server.call('POST', '/users/me/alert_words', { as, params: { alert_words: words } });
const remove = (words: unknown, as = cast.member, encoding?: 'form' | 'query' | 'json') =>
  server.call('DELETE', '/users/me/alert_words', {
    as,
    params: { alert_words: words },
    ...(encoding ? { encoding } : {}),
  });

describe('managing alert words', () => {
  test('add, list and remove, with events applied to the register state', async () => {
    const user = cast.owner;
    const queue = await register(server, user, {
      event_types: ['alert_words'],
      fetch_event_types: ['alert_words'],
    });
    expect(queue.alert_words).toEqual([]);
    expect((await list(user)).body).toEqual({ result: 'success', msg: '', alert_words: [] });

    expect((await add(['alert', ' multi-word word ', '☃', '', '  '], user)).body).toEqual({
      result: 'success',
      msg: '',
      alert_words: ['alert', 'multi-word word', '☃'],
    });
    // Words the user has, in any case, are skipped; of new ones differing in case the last stays.
    expect((await add(['ALert', 'Fire', 'FIRE'], user)).body.alert_words).toEqual([
      'alert',
      'multi-word word',
      '☃',
      'FIRE',
    ]);
    expect((await list(user)).body.alert_words).toEqual(['alert', 'multi-word word', '☃', 'FIRE']);

    // Removing matches without regard to case; unknown words are ignored.
    expect((await remove(['ALERT', 'never added'], user)).body).toEqual({
      result: 'success',
      msg: '',
      alert_words: ['multi-word word', '☃', 'FIRE'],
    });
    // The words may come in a form body, as Zulip's Python client sends them.
    expect((await remove(['fire'], user, 'form')).body.alert_words).toEqual([
      'multi-word word',
      '☃',
    ]);

    const events = await eventsOf(server, user, queue.queue_id);
    expect(withoutIds(events)).toEqual([
      { type: 'alert_words', alert_words: ['alert', 'multi-word word', '☃'] },
      { type: 'alert_words', alert_words: ['alert', 'multi-word word', '☃', 'FIRE'] },
      { type: 'alert_words', alert_words: ['multi-word word', '☃', 'FIRE'] },
      { type: 'alert_words', alert_words: ['multi-word word', '☃'] },
    ]);
    const fresh = await register(server, user, { fetch_event_types: ['alert_words'] });
    expect(applyEvents(queue, events).alert_words).toEqual(fresh.alert_words);
    expect(fresh.alert_words).toEqual(['multi-word word', '☃']);
    // Another user's words are their own.
    expect((await list(cast.admin)).body.alert_words).toEqual([]);
  });

  test.each([
    [
      'a word of 101 characters',
      () => add(['ok', 'x'.repeat(101)]),
      'alert_words[1] is too long (limit: 100 characters)',
      'BAD_REQUEST',
      {},
    ],
    [
      'no words when adding',
      () => server.call('POST', '/users/me/alert_words', { as: cast.member }),
      "Missing 'alert_words' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'alert_words' },
    ],
    [
      'no words when removing',
      () => server.call('DELETE', '/users/me/alert_words', { as: cast.member }),
      "Missing 'alert_words' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'alert_words' },
    ],
    [
      'words that are not a list',
      () => add('{"a": 1}'),
      'alert_words is not a list',
      'BAD_REQUEST',
      {},
    ],
  ])('%s is refused', async (_what, call, msg, code, extra) => {
    expectError(await call(), 400, code, msg, extra);
  });
});

describe('the has_alert_word flag', () => {
  const alerted: number[] = [];

  beforeAll(async () => {
    expect((await add(['one', 'two', 'three', 'multi-word word', '☃'])).status).toBe(200);
  });

  async function doesAlert(content: string): Promise<boolean> {
    const id = await sendToChannel(server, cast.member2, 'denmark', 'alerts', content);
    const body = await fetchNarrow(server, cast.member, [{ operator: 'id', operand: id }]);
    const has = body.messages[0].flags.includes('has_alert_word');
    if (has) alerted.push(id);
    return has;
  }

  test.each([
    'Normal alert one time',
    'Normal alert one',
    'two normal alerts',
    'This one? should alert',
    'Definitely time for three.',
    "One two three o'clock",
    "One o'clock",
    "Case of ONE, won't stop me",
    '(one)',
    'a multi-word word here',
    'snow ☃ man',
  ])('"%s" alerts', async (content) => {
    expect(await doesAlert(content)).toBe(true);
  });

  test.each([
    "Don't alert on http://t.co/one/ URLs",
    "Don't alert on http://t.co/one URLs",
    "Don't alert on clone, twofold or seventytwofold",
    'none of it',
    'one-off',
  ])('"%s" does not alert', async (content) => {
    expect(await doesAlert(content)).toBe(false);
  });

  test('the flag is the recipient’s own, and is:alerted finds those messages', async () => {
    const id = await sendToChannel(server, cast.member2, 'denmark', 'alerts', 'one more');
    const mine = await fetchNarrow(server, cast.member, [{ operator: 'id', operand: id }]);
    expect(mine.messages[0].flags).toEqual(['has_alert_word']);
    const theirs = await fetchNarrow(server, cast.moderator, [{ operator: 'id', operand: id }]);
    expect(theirs.messages[0].flags).toEqual([]);
    alerted.push(id);
    expect(await idsOf(server, cast.member, [{ operator: 'is', operand: 'alerted' }])).toEqual(
      [...alerted].sort((a, b) => a - b),
    );
    expect(await idsOf(server, cast.moderator, [{ operator: 'is', operand: 'alerted' }])).toEqual(
      [],
    );
  });

  test('message events carry the flag; direct messages and the sender’s own messages alert too', async () => {
    const queue = await register(server, cast.member, { event_types: ['message'] });
    const direct = await sendDirect(server, cast.member2, [cast.member.id], 'about three things');
    const own = await sendToChannel(server, cast.member, 'denmark', 'alerts', 'my two cents');
    const events = await eventsOf(server, cast.member, queue.queue_id);
    expect(events.map((e) => [e.message.id, e.flags])).toEqual([
      [direct, ['has_alert_word']],
      [own, ['has_alert_word']],
    ]);
  });

  test('an edit sets or clears the flag as the new content says, in its update_message event too', async () => {
    const id = await sendToChannel(server, cast.member2, 'denmark', 'edits', 'nothing here');
    const flagsOf = async (as = cast.member) =>
      (await fetchNarrow(server, as, [{ operator: 'id', operand: id }])).messages[0].flags;
    expect(await flagsOf()).toEqual([]);
    const queue = await register(server, cast.member, { event_types: ['update_message'] });
    const edit = (content: string) =>
      server.call('PATCH', `/messages/${id}`, { as: cast.member2, params: { content } });

    expect((await edit('now there is one')).status).toBe(200);
    expect(await flagsOf()).toEqual(['has_alert_word']);
    expect(await flagsOf(cast.moderator)).toEqual([]);
    expect(await idsOf(server, cast.member, [{ operator: 'is', operand: 'alerted' }])).toContain(
      id,
    );

    expect((await edit('and now none')).status).toBe(200);
    expect(await flagsOf()).toEqual([]);
    const events = await eventsOf(server, cast.member, queue.queue_id);
    expect(events.map((e) => e.flags)).toEqual([['has_alert_word'], []]);
  });
});
