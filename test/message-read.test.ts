// Marking messages read in bulk: POST /messages/flags/narrow over a range of a
// narrow, POST /mark_all_as_read, /mark_stream_as_read and
// /mark_topic_as_read, their update_message_flags events, and the unread
// state of POST /register with those events applied.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
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

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['reading'], {
    principals: [cast.member.id, cast.member2.id],
  });
  await subscribe(server, cast.admin, ['secret'], {
    principals: [cast.admin.id],
    invite_only: true,
  });
});
afterAll(() => server.stop());

const unreadTypes = { event_types: ['message', 'update_message_flags'] };

/** A user of their own, so that each test starts with no unread message. */
async function freshReader(name: string): Promise<User> {
  const user = await server.createUser(cast.realm, {
    email: `${name}@example.com`,
    fullName: name,
  });
  await subscribe(server, cast.member, ['reading'], { principals: [user.id] });
  return user;
}

async function flagsOf(as: User, id: number): Promise<string[]> {
  const res = await server.call('GET', `/messages/${id}`, { as });
  return res.body.message.flags;
}

/** Registers for the unread state, runs `act`, and checks that the events applied give a fresh state. */
async function expectEventsApply(as: User, act: () => Promise<void>) {
  const state = await register(server, as, unreadTypes);
  await act();
  const events = await eventsOf(server, as, state.queue_id);
  const { queue_id: _q, last_event_id: _l, ...initial } = state;
  applyEvents(initial, events);
  const { queue_id: _q2, last_event_id: _l2, ...fresh } = await register(server, as, unreadTypes);
  expect(initial).toEqual(fresh);
  return events;
}

describe('POST /messages/flags/narrow', () => {
  test('marks a range of a narrow read, counting only the messages that changed', async () => {
    const reader = await freshReader('ranger');
    const ids: number[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(await sendToChannel(server, cast.member, 'reading', 'range', `message ${i}`));
    const elsewhere = await sendToChannel(server, cast.member, 'reading', 'other', 'not this one');
    await server.ok('POST', '/messages/flags', {
      as: reader,
      params: { messages: [ids[1]], op: 'add', flag: 'read' },
    });
    const narrow = [
      { operator: 'channel', operand: 'reading' },
      { operator: 'topic', operand: 'range' },
    ];
    const events = await expectEventsApply(reader, async () => {
      const res = await server.call('POST', '/messages/flags/narrow', {
        as: reader,
        params: {
          anchor: 'oldest',
          num_before: 0,
          num_after: 100,
          narrow,
          op: 'add',
          flag: 'read',
        },
      });
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        processed_count: 4,
        updated_count: 3,
        first_processed_id: ids[0],
        last_processed_id: ids[3],
        found_oldest: true,
        found_newest: true,
      });
    });
    expect(withoutIds(events)).toEqual([
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: [ids[0], ids[2], ids[3]],
        all: false,
      },
    ]);
    expect(await flagsOf(reader, elsewhere)).toEqual([]);
  });

  test('works in steps from an anchor, and reports where the range ends', async () => {
    const reader = await freshReader('stepper');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await sendToChannel(server, cast.member, 'reading', 'steps', `step ${i}`));
    const narrow = [{ operator: 'topic', operand: 'steps' }];
    const step = (anchor: unknown, params: Record<string, unknown> = {}) =>
      server.call('POST', '/messages/flags/narrow', {
        as: reader,
        params: {
          anchor,
          num_before: 0,
          num_after: 2,
          narrow,
          op: 'add',
          flag: 'starred',
          ...params,
        },
        encoding: 'json',
      });
    const first = await step('first_unread');
    expect(first.body).toMatchObject({
      processed_count: 3,
      updated_count: 3,
      first_processed_id: ids[0],
      last_processed_id: ids[2],
      // Nothing was asked before the anchor, so the range did not look back.
      found_oldest: false,
      found_newest: false,
    });
    const second = await step(ids[2], { include_anchor: false, num_after: 3 });
    expect(second.body).toMatchObject({
      processed_count: 2,
      updated_count: 2,
      first_processed_id: ids[3],
      last_processed_id: ids[4],
      found_newest: true,
    });
    const none = await step('newest', { include_anchor: false, num_after: 0, num_before: 0 });
    expect(none.body).toMatchObject({
      processed_count: 0,
      updated_count: 0,
      first_processed_id: null,
      last_processed_id: null,
    });
    // A numeric anchor sent as text, and a range wider than the server's bound.
    const wide = await server.call('POST', '/messages/flags/narrow', {
      as: reader,
      params: {
        anchor: String(ids[4]),
        num_before: 5000,
        num_after: 5000,
        narrow: JSON.stringify(narrow),
        op: 'remove',
        flag: 'starred',
      },
    });
    expect(wide.body).toMatchObject({ processed_count: 5, updated_count: 5 });
    for (const id of ids) expect(await flagsOf(reader, id)).toEqual([]);
  });

  test('marking unread skips channels the user is not subscribed to, and names them', async () => {
    const id = await sendToChannel(server, cast.member, 'reading', 'visitors', 'come by');
    const reading = await streamId(server, cast.member, 'reading');
    const res = await server.call('POST', '/messages/flags/narrow', {
      as: cast.moderator,
      params: {
        anchor: id,
        num_before: 0,
        num_after: 0,
        narrow: [{ operator: 'channel', operand: reading }],
        op: 'remove',
        flag: 'read',
      },
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      processed_count: 1,
      updated_count: 0,
      first_processed_id: id,
      last_processed_id: id,
      found_oldest: false,
      found_newest: false,
      ignored_because_not_subscribed_channels: [reading],
    });
    expect(await flagsOf(cast.moderator, id)).toEqual(['read', 'historical']);
  });

  test('refuses bad anchors, ranges, narrows and flags', async () => {
    const post = (params: Record<string, unknown>) =>
      server.call('POST', '/messages/flags/narrow', {
        as: cast.member,
        params: {
          anchor: 'newest',
          num_before: 1,
          num_after: 0,
          narrow: [],
          op: 'add',
          flag: 'read',
          ...params,
        },
      });
    expectError(await post({ anchor: 'latest' }), 400, 'BAD_REQUEST', 'Invalid anchor');
    expectError(
      await post({ num_after: 1, include_anchor: false }),
      400,
      'BAD_REQUEST',
      'The anchor can only be excluded at an end of the range',
    );
    expectError(
      await post({ narrow: [{ operator: 'channel', operand: 'nowhere' }] }),
      400,
      'BAD_NARROW',
      'Invalid narrow operator: unknown channel nowhere',
    );
    expectError(await post({ flag: 'sparkly' }), 400, 'BAD_REQUEST', "Invalid flag: 'sparkly'");
    expectError(
      await post({ flag: 'mentioned' }),
      400,
      'BAD_REQUEST',
      "Flag not editable: 'mentioned'",
    );
    expectError(
      await post({ op: 'flip' }),
      400,
      'BAD_REQUEST',
      "Invalid message flag operation: 'flip'",
    );
    expectError(await post({ num_before: -1 }), 400, 'BAD_REQUEST', 'num_before is too small');
    expectError(
      await post({ anchor: undefined }),
      400,
      'REQUEST_VARIABLE_MISSING',
      "Missing 'anchor' argument",
      {
        var_name: 'anchor',
      },
    );
  });
});

describe('POST /messages/flags', () => {
  test('reports only changed messages, and ignored channels when marking unread', async () => {
    const reader = await freshReader('flagger');
    const a = await sendToChannel(server, cast.member, 'reading', 'flags', 'a');
    const b = await sendToChannel(server, cast.member, 'reading', 'flags', 'b');
    const secret = await sendToChannel(server, cast.admin, 'secret', 'hush', 'private words');
    const { queue_id } = await register(server, reader, { event_types: ['update_message_flags'] });
    await server.ok('POST', '/messages/flags', {
      as: reader,
      params: { messages: [a], op: 'add', flag: 'read' },
    });
    const res = await server.call('POST', '/messages/flags', {
      as: reader,
      params: { messages: [a, b], op: 'add', flag: 'read' },
    });
    expect(res.body).toEqual({ result: 'success', msg: '', messages: [a, b] });
    // Reading what one may not read changes nothing; starring it is refused.
    const hidden = await server.call('POST', '/messages/flags', {
      as: reader,
      params: { messages: [secret], op: 'add', flag: 'read' },
    });
    expect(hidden.body).toEqual({ result: 'success', msg: '', messages: [secret] });
    expectError(
      await server.call('POST', '/messages/flags', {
        as: reader,
        params: { messages: [secret], op: 'add', flag: 'starred' },
      }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
    const unread = await server.call('POST', '/messages/flags', {
      as: reader,
      params: { messages: [a, secret], op: 'remove', flag: 'read' },
    });
    const secretId = await streamId(server, cast.admin, 'secret');
    expect(unread.body).toEqual({
      result: 'success',
      msg: '',
      messages: [a, secret],
      ignored_because_not_subscribed_channels: [secretId],
    });
    const events = await eventsOf(server, reader, queue_id);
    expect(events.map((e) => [e.op, e.messages])).toEqual([
      ['add', [a]],
      ['add', [b]],
      ['add', []],
      ['remove', [a]],
    ]);
  });
});

describe('POST /mark_all_as_read', () => {
  test('marks everything read, with one event for all', async () => {
    const reader = await freshReader('everything');
    await sendToChannel(server, cast.member, 'reading', 'all', 'one');
    await sendDirect(server, cast.member, [reader.id], 'two');
    await sendDirect(server, cast.member, [reader.id, cast.member2.id], 'three');
    const events = await expectEventsApply(reader, async () => {
      const res = await server.call('POST', '/mark_all_as_read', { as: reader });
      expect(res.body).toEqual({ result: 'success', msg: '', complete: true });
    });
    expect(withoutIds(events)).toEqual([
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: [],
        all: true,
      },
    ]);
    const state = await register(server, reader, unreadTypes);
    expect(state.unread_msgs.count).toBe(0);
  });
});

describe('POST /mark_stream_as_read', () => {
  test("marks the channel's unread messages read, and only those", async () => {
    const reader = await freshReader('streamer');
    const a = await sendToChannel(server, cast.member, 'reading', 'one', 'a');
    const b = await sendToChannel(server, cast.member, 'reading', 'two', 'b');
    const direct = await sendDirect(server, cast.member, [reader.id], 'stays unread');
    const reading = await streamId(server, cast.member, 'reading');
    const events = await expectEventsApply(reader, async () => {
      const res = await server.call('POST', '/mark_stream_as_read', {
        as: reader,
        params: { stream_id: reading },
      });
      expect(res.body).toEqual({ result: 'success', msg: '' });
    });
    expect(withoutIds(events)).toEqual([
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: [a, b],
        all: false,
      },
    ]);
    expect(await flagsOf(reader, direct)).toEqual([]);
    // Nothing left unread: no event.
    const again = await expectEventsApply(reader, async () => {
      await server.ok('POST', '/mark_stream_as_read', {
        as: reader,
        params: { stream_id: reading },
      });
    });
    expect(again).toEqual([]);
  });

  test('refuses channels that do not exist or cannot be read', async () => {
    const secret = await streamId(server, cast.admin, 'secret');
    for (const id of [secret, 99999])
      expectError(
        await server.call('POST', '/mark_stream_as_read', {
          as: cast.member,
          params: { stream_id: id },
        }),
        400,
        'BAD_REQUEST',
        'Invalid channel ID',
      );
    expectError(
      await server.call('POST', '/mark_stream_as_read', { as: cast.member }),
      400,
      'REQUEST_VARIABLE_MISSING',
      "Missing 'stream_id' argument",
      { var_name: 'stream_id' },
    );
  });
});

describe('POST /mark_topic_as_read', () => {
  test("marks the topic's unread messages read, whatever the case", async () => {
    const reader = await freshReader('topical');
    const a = await sendToChannel(server, cast.member, 'reading', 'Lunch', 'a');
    const b = await sendToChannel(server, cast.member, 'reading', 'lunch', 'b');
    const other = await sendToChannel(server, cast.member, 'reading', 'dinner', 'c');
    const reading = await streamId(server, cast.member, 'reading');
    const events = await expectEventsApply(reader, async () => {
      const res = await server.call('POST', '/mark_topic_as_read', {
        as: reader,
        params: { stream_id: reading, topic_name: 'LUNCH' },
      });
      expect(res.body).toEqual({ result: 'success', msg: '' });
    });
    expect(events.map((e) => e.messages)).toEqual([[a, b]]);
    expect(await flagsOf(reader, other)).toEqual([]);
  });

  test('refuses unknown topics and channels', async () => {
    const reading = await streamId(server, cast.member, 'reading');
    const secret = await streamId(server, cast.admin, 'secret');
    expectError(
      await server.call('POST', '/mark_topic_as_read', {
        as: cast.member,
        params: { stream_id: reading, topic_name: 'never said' },
      }),
      400,
      'BAD_REQUEST',
      "No such topic 'never said'",
    );
    expectError(
      await server.call('POST', '/mark_topic_as_read', {
        as: cast.member,
        params: { stream_id: secret, topic_name: 'hush' },
      }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
  });
});
