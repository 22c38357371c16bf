// PATCH /users/me/subscriptions: joining and leaving in one request, all or
// nothing, with the answers and events of POST and DELETE
// /users/me/subscriptions merged; applied to /register, the events give a
// fresh /register.
import { applyEvents } from './support/apply-events';
import { eventsOf, expectError, register, streamId, subscribe } from './streams-fixtures';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['old room', 'kept room'], {
    principals: [cast.member.id, cast.member2.id],
  });
});
afterAll(() => server.stop());

function update(as: Cast['member'], params: Record<string, unknown>, encoding?: 'json') {
  return server.call('PATCH', '/users/me/subscriptions', { as, params, encoding });
}

async function names(as: Cast['member']) {
  const res = await server.call('GET', '/users/me/subscriptions', { as });
  return res.body.subscriptions.map((s: { name: string }) => s.name).sort();
}

test('joins, creates and leaves in one request; the events rebuild the state', async () => {
  const q = await register(server, cast.member, {
    event_types: ['subscription', 'stream'],
    fetch_event_types: ['subscription'],
  });
  const peer = await register(server, cast.member2, { event_types: ['subscription'] });
  const res = await update(cast.member, {
    add: [{ name: 'new room', color: '#aabbcc' }, { name: 'kept room' }],
    delete: ['old room'],
  });
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    subscribed: { [String(cast.member.id)]: ['new room'] },
    already_subscribed: { [String(cast.member.id)]: ['kept room'] },
    removed: ['old room'],
    not_removed: [],
  });
  expect(await names(cast.member)).toEqual(['kept room', 'new room']);
  const mine = await server.call('GET', '/users/me/subscriptions', { as: cast.member });
  expect(mine.body.subscriptions.find((s: { name: string }) => s.name === 'new room').color).toBe(
    '#aabbcc',
  );

  const events = await eventsOf(server, cast.member, q.queue_id);
  const kinds = events.map((e) => `${e.type}/${e.op}`);
  expect(kinds).toEqual(
    expect.arrayContaining(['stream/create', 'subscription/add', 'subscription/remove']),
  );
  const fresh = await register(server, cast.member, { fetch_event_types: ['subscription'] });
  const applied = applyEvents(q, events);
  const byName = (list: { name: string }[]) => list.map((s) => s.name).sort();
  expect(byName(applied.subscriptions)).toEqual(byName(fresh.subscriptions));
  expect(byName(applied.unsubscribed)).toEqual(byName(fresh.unsubscribed));

  const old = await streamId(server, cast.member2, 'old room');
  const peerEvents = await eventsOf(server, cast.member2, peer.queue_id);
  expect(peerEvents).toContainEqual({
    id: expect.any(Number),
    type: 'subscription',
    op: 'peer_remove',
    stream_ids: [old],
    user_ids: [cast.member.id],
  });
});

test('leaving a channel one is not in is reported, not refused', async () => {
  const res = await update(cast.member2, { delete: ['new room'] }, 'json');
  expect(res.body).toEqual({
    result: 'success',
    msg: '',
    subscribed: {},
    already_subscribed: {},
    removed: [],
    not_removed: ['new room'],
  });
});

test('nothing to do is refused', async () => {
  for (const params of [{}, { add: [], delete: [] }])
    expectError(
      await update(cast.member, params),
      400,
      'BAD_REQUEST',
      'Nothing to do. Specify at least one of "add" or "delete".',
    );
});

test('a failing half undoes the other', async () => {
  const before = await names(cast.member);
  expectError(
    await update(cast.member, { add: [{ name: 'phantom room' }], delete: ['no such room'] }),
    400,
    'BAD_REQUEST',
    'Channel(s) (no such room) do not exist',
  );
  expect(await names(cast.member)).toEqual(before);
  const listed = await server.call('GET', '/streams', {
    as: cast.admin,
    params: { include_all: true },
  });
  expect(listed.body.streams.map((s: { name: string }) => s.name)).not.toContain('phantom room');
});

test('guests may leave but not join', async () => {
  await subscribe(server, cast.admin, ['guest room'], { principals: [cast.guest.id] });
  expectError(
    await update(cast.guest, { add: [{ name: 'kept room' }] }),
    400,
    'BAD_REQUEST',
    'Not allowed for guest users',
  );
  const res = await update(cast.guest, { delete: ['guest room'] });
  expect(res.body.removed).toEqual(['guest room']);
});

test('malformed lists are refused', async () => {
  expectError(
    await update(cast.member, { add: [{ color: '#000000' }] }),
    400,
    'BAD_REQUEST',
    'add[0]["name"] field is missing',
  );
  expectError(
    await update(cast.member, { add: 'not json' }),
    400,
    'BAD_REQUEST',
    'add is not valid JSON',
  );
});
