// Delivery of scheduled messages: the scheduler's run is called directly with
// a chosen time (no waiting). Due messages are sent as their sender and leave
// the list; those that cannot be sent are marked failed until edited.
import { doDeliverScheduledMessages } from '../src/actions/messages/scheduled-messages';
import { applyEvents } from './support/apply-events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  fetchNarrow,
  register,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let general: number;
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const tick = (unixSeconds: number) =>
  doDeliverScheduledMessages(server.services, new Date(unixSeconds * 1000));

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' }));
  await subscribe(server, cast.member, ['general', 'doomed']);
  general = await streamId(server, cast.member, 'general');
});
afterAll(() => server.stop());

type User = Cast['member'];

async function scheduled(user: User) {
  return (await server.call('GET', '/scheduled_messages', { as: user })).body.scheduled_messages;
}

async function schedule(user: User, params: Record<string, unknown>): Promise<number> {
  const res = await server.call('POST', '/scheduled_messages', { as: user, params });
  expect(res.status).toBe(200);
  return res.body.scheduled_message_id;
}

test('a due message is sent as its sender once, and then cannot be edited', async () => {
  const at = inAnHour();
  const id = await schedule(cast.member, {
    type: 'stream',
    to: general,
    topic: 'later',
    content: 'from the past',
    scheduled_delivery_timestamp: at,
  });
  const other = await schedule(cast.member, {
    type: 'direct',
    to: [cast.member2.id],
    content: 'not yet',
    scheduled_delivery_timestamp: at + 600,
  });
  expect(await tick(at - 1)).toBe(0);
  expect(await tick(at)).toBe(1);
  expect(await tick(at + 1)).toBe(0);
  const sent = (
    await fetchNarrow(server, cast.member2, [
      { operator: 'channel', operand: general },
      { operator: 'topic', operand: 'later' },
    ])
  ).messages;
  expect(sent).toHaveLength(1);
  expect(sent[0]).toMatchObject({
    sender_id: cast.member.id,
    content: '<p>from the past</p>',
    subject: 'later',
  });
  expect(
    (await scheduled(cast.member)).map(
      (m: { scheduled_message_id: number }) => m.scheduled_message_id,
    ),
  ).toEqual([other]);
  const edit = await server.call('PATCH', `/scheduled_messages/${id}`, {
    as: cast.member,
    params: { content: 'too late' },
  });
  expectError(edit, 400, 'BAD_REQUEST', 'Scheduled message was already sent');

  expect(await tick(at + 600)).toBe(1);
  const dm = (
    await fetchNarrow(server, cast.member2, [{ operator: 'dm', operand: [cast.member.id] }])
  ).messages;
  expect(dm.map((m: { content: string }) => m.content)).toEqual(['<p>not yet</p>']);
  expect(await scheduled(cast.member)).toEqual([]);
});

test('a message that can no longer be sent fails, and needs a new time to be retried', async () => {
  const at = inAnHour();
  const doomed = await streamId(server, cast.member, 'doomed');
  const id = await schedule(cast.member, {
    type: 'stream',
    to: doomed,
    topic: 't',
    content: 'into the void',
    scheduled_delivery_timestamp: at,
  });
  const archived = await server.call('DELETE', `/streams/${doomed}`, { as: cast.admin });
  expect(archived.status).toBe(200);
  expect(await tick(at)).toBe(1);
  expect(await scheduled(cast.member)).toEqual([
    expect.objectContaining({ scheduled_message_id: id, failed: true }),
  ]);
  expect(await tick(at + 1)).toBe(0);
  const stored = await server.services.db.read((db) =>
    db.scheduledMessage.findUniqueOrThrow({ where: { id } }),
  );
  expect({ delivered: stored.delivered, failureMessage: stored.failureMessage }).toEqual({
    delivered: false,
    failureMessage: "Not authorized to send to channel 'doomed'",
  });

  const patch = (params: Record<string, unknown>) =>
    server.call('PATCH', `/scheduled_messages/${id}`, { as: cast.member, params });
  expectError(
    await patch({ to: general }),
    400,
    'BAD_REQUEST',
    'Scheduled delivery time must be in the future.',
  );
  const retry = inAnHour() + 60;
  expect((await patch({ to: general, scheduled_delivery_timestamp: retry })).status).toBe(200);
  expect(await scheduled(cast.member)).toEqual([
    expect.objectContaining({
      scheduled_message_id: id,
      to: general,
      failed: false,
      scheduled_delivery_timestamp: retry,
    }),
  ]);
  expect(await tick(retry)).toBe(1);
  expect(await scheduled(cast.member)).toEqual([]);
});

test('a message found more than ten minutes late is not sent', async () => {
  const at = inAnHour();
  const id = await schedule(cast.member2, {
    type: 'direct',
    to: [cast.member2.id],
    content: 'stale',
    scheduled_delivery_timestamp: at,
  });
  expect(await tick(at + 11 * 60)).toBe(1);
  expect(await scheduled(cast.member2)).toEqual([
    expect.objectContaining({ scheduled_message_id: id, failed: true }),
  ]);
  const stored = await server.services.db.read((db) =>
    db.scheduledMessage.findUniqueOrThrow({ where: { id } }),
  );
  expect(stored.failureMessage).toBe('Message could not be sent at the scheduled time.');
  const notes = (
    await fetchNarrow(server, cast.member2, [{ operator: 'dm', operand: [cast.member2.id] }])
  ).messages;
  expect(notes).toEqual([]);
  await server.ok('DELETE', `/scheduled_messages/${id}`, { as: cast.member2 });
});

test('delivery and failure events applied to the initial state give what a fresh /register returns', async () => {
  const user = cast.moderator;
  await subscribe(server, user, ['general', 'closing']);
  const closing = await streamId(server, user, 'closing');
  const at = inAnHour();
  const ok = await schedule(user, {
    type: 'stream',
    to: general,
    topic: 'ev',
    content: 'sent',
    scheduled_delivery_timestamp: at,
  });
  const bad = await schedule(user, {
    type: 'stream',
    to: closing,
    topic: 'ev',
    content: 'fails',
    scheduled_delivery_timestamp: at,
  });
  await server.ok('DELETE', `/streams/${closing}`, { as: cast.admin });
  const state = await register(server, user, {
    event_types: ['scheduled_messages', 'message'],
    fetch_event_types: ['scheduled_messages'],
  });
  expect(
    state.scheduled_messages.map((m: { scheduled_message_id: number }) => m.scheduled_message_id),
  ).toEqual([ok, bad]);
  expect(await tick(at)).toBe(2);
  const events = await eventsOf(server, user, state.queue_id);
  expect(events.filter((e) => e.type === 'scheduled_messages')).toEqual([
    { id: expect.any(Number), type: 'scheduled_messages', op: 'remove', scheduled_message_id: ok },
    {
      id: expect.any(Number),
      type: 'scheduled_messages',
      op: 'update',
      scheduled_message: {
        scheduled_message_id: bad,
        type: 'stream',
        to: closing,
        topic: 'ev',
        content: 'fails',
        rendered_content: '<p>fails</p>',
        scheduled_delivery_timestamp: at,
        failed: true,
      },
    },
  ]);
  expect(events.filter((e) => e.type === 'message').map((e) => e.message.content)).toEqual([
    'sent',
  ]);
  const applied = applyEvents(state, events).scheduled_messages;
  const fresh = await register(server, user, {
    fetch_event_types: ['scheduled_messages'],
    event_types: [],
  });
  expect(applied).toEqual(fresh.scheduled_messages);
});

test('a run with nothing due opens no write transaction', async () => {
  const at = inAnHour() + 7200;
  await schedule(cast.member, {
    type: 'stream',
    to: general,
    topic: 'much later',
    content: 'not due in this test',
    scheduled_delivery_timestamp: at,
  });
  const writes = server.services.db.timing.writes;
  expect(await tick(at - 60)).toBe(0);
  expect(server.services.db.timing.writes).toBe(writes);
  // Once due, the run claims and sends it, in write transactions.
  expect(await tick(at)).toBe(1);
  expect(server.services.db.timing.writes).toBeGreaterThan(writes);
});
