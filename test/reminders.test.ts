// Message reminders through HTTP: scheduling a reminder of a message, its
// text, listing and cancelling reminders, Zulip's refusals, the reminders
// events applied to the /register state, and delivery of a due reminder by
// the scheduled-message run, as a direct message from Notification Bot.
import { doDeliverScheduledMessages } from '../src/actions/messages/scheduled-messages';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  fetchNarrow,
  register,
  sendDirect,
  sendToChannel,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let channelMessage: number;
let directMessage: number;
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const tick = (unixSeconds: number) =>
  doDeliverScheduledMessages(server.services, new Date(unixSeconds * 1000));

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast({ SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' }));
  await subscribe(server, cast.member, ['general']);
  await subscribe(server, cast.member2, ['general']);
  channelMessage = await sendToChannel(
    server,
    cast.member2,
    'general',
    'plans',
    'Ship on **Friday**.',
  );
  directMessage = await sendDirect(server, cast.member2, [cast.member.id], 'Lunch at noon?');
});
afterAll(() => server.stop());

type User = Cast['member'];

function create(params: Record<string, unknown>, as: User = cast.member) {
  return server.call('POST', '/reminders', { as, params });
}

async function created(params: Record<string, unknown>, as: User = cast.member): Promise<number> {
  const res = await create(params, as);
  expect(res.body).toEqual({ result: 'success', msg: '', reminder_id: expect.any(Number) });
  return res.body.reminder_id;
}

async function list(as: User = cast.member) {
  const res = await server.call('GET', '/reminders', { as });
  expect(res.status).toBe(200);
  return res.body.reminders;
}

const base = () => server.services.config.externalUrl.replace(/\/$/, '');

test('a reminder of a channel message quotes it, with a link and the note', async () => {
  const at = inAnHour();
  const id = await created({
    message_id: channelMessage,
    scheduled_delivery_timestamp: at,
    note: 'Check the release\n\n',
  });
  const mention = `@_**${cast.member2.fullName}|${cast.member2.id}**`;
  const url = `${base()}/#narrow/channel/${(await list())[0].content.match(/channel\/(\d+-general)/)[1]}/topic/plans/near/${channelMessage}`;
  const reminders = await list();
  expect(reminders).toEqual([
    {
      reminder_id: id,
      type: 'private',
      to: [cast.member.id],
      content:
        'You requested a reminder for the following message. Note:\n > Check the release\n\n' +
        `${mention} [said](${url}) in #**general>plans@${channelMessage}**:\n` +
        '```quote\nShip on **Friday**.\n```',
      rendered_content: expect.stringContaining('<blockquote>'),
      scheduled_delivery_timestamp: at,
      failed: false,
      reminder_target_message_id: channelMessage,
    },
  ]);
  expect(reminders[0].rendered_content).toContain('<strong>Friday</strong>');
  const state = await register(server, cast.member, {
    fetch_event_types: ['reminders'],
    event_types: [],
  });
  expect(state.reminders).toEqual(reminders);
  // Reminders are not scheduled messages, and nobody else sees them.
  const scheduled = await server.call('GET', '/scheduled_messages', { as: cast.member });
  expect(scheduled.body.scheduled_messages).toEqual([]);
  expect(await list(cast.member2)).toEqual([]);
  await server.ok('DELETE', `/reminders/${id}`, { as: cast.member });
});

test('a reminder of a direct message names the other participants', async () => {
  const id = await created({ message_id: directMessage, scheduled_delivery_timestamp: inAnHour() });
  const reminder = (await list()).find((r: { reminder_id: number }) => r.reminder_id === id);
  const mention = `@_**${cast.member2.fullName}|${cast.member2.id}**`;
  expect(reminder.content).toBe(
    'You requested a reminder for the following direct message.\n\n' +
      `${mention} [said](${base()}/#narrow/dm/${[cast.member.id, cast.member2.id].sort((a, b) => a - b).join(',')}-pm/near/${directMessage}) to @_**${cast.member.fullName}|${cast.member.id}**:\n` +
      '```quote\nLunch at noon?\n```',
  );
  await server.ok('DELETE', `/reminders/${id}`, { as: cast.member });
});

test('refusals: past times, unreadable messages, long notes', async () => {
  const past = Math.floor(Date.now() / 1000) - 10;
  expectError(
    await create({ message_id: channelMessage, scheduled_delivery_timestamp: past }),
    400,
    'BAD_REQUEST',
    'Scheduled delivery time must be in the future.',
  );
  expectError(
    await create({ message_id: 999999, scheduled_delivery_timestamp: inAnHour() }),
    400,
    'BAD_REQUEST',
    'Invalid message(s)',
  );
  // A direct message between others cannot be read.
  expectError(
    await create(
      { message_id: directMessage, scheduled_delivery_timestamp: inAnHour() },
      cast.guest,
    ),
    400,
    'BAD_REQUEST',
    'Invalid message(s)',
  );
  expectError(
    await create({
      message_id: channelMessage,
      scheduled_delivery_timestamp: inAnHour(),
      note: 'x'.repeat(1001),
    }),
    400,
    'BAD_REQUEST',
    'Maximum reminder note length: 1000 characters',
  );
  expect(
    (
      await create({
        message_id: channelMessage,
        scheduled_delivery_timestamp: inAnHour(),
        note: `${'x'.repeat(1000)}   \n`,
      })
    ).status,
  ).toBe(200);
  for (const r of await list())
    await server.call('DELETE', `/reminders/${r.reminder_id}`, { as: cast.member });
});

test("deleting: only one's own undelivered reminders, not scheduled messages", async () => {
  const id = await created({
    message_id: channelMessage,
    scheduled_delivery_timestamp: inAnHour(),
  });
  expectError(
    await server.call('DELETE', `/reminders/${id}`, { as: cast.member2 }),
    404,
    'BAD_REQUEST',
    'Reminder does not exist',
  );
  // A reminder is no scheduled message either.
  expectError(
    await server.call('DELETE', `/scheduled_messages/${id}`, { as: cast.member }),
    404,
    'BAD_REQUEST',
    'Scheduled message does not exist',
  );
  expect((await server.call('DELETE', `/reminders/${id}`, { as: cast.member })).body).toEqual({
    result: 'success',
    msg: '',
  });
  expectError(
    await server.call('DELETE', `/reminders/${id}`, { as: cast.member }),
    404,
    'BAD_REQUEST',
    'Reminder does not exist',
  );
});

test('events applied to the initial state give what a fresh /register returns', async () => {
  const user = cast.member;
  const initial = await register(server, user, {
    event_types: ['reminders'],
    fetch_event_types: ['reminders'],
  });
  expect(initial.reminders).toEqual([]);
  const at = inAnHour();
  const a = await created({ message_id: channelMessage, scheduled_delivery_timestamp: at + 60 });
  const b = await created({ message_id: directMessage, scheduled_delivery_timestamp: at });
  await server.ok('DELETE', `/reminders/${a}`, { as: user });
  const events = await eventsOf(server, user, initial.queue_id);
  expect(withoutIds(events)).toEqual([
    {
      type: 'reminders',
      op: 'add',
      reminders: [
        expect.objectContaining({ reminder_id: a, scheduled_delivery_timestamp: at + 60 }),
      ],
    },
    {
      type: 'reminders',
      op: 'add',
      reminders: [
        expect.objectContaining({ reminder_id: b, reminder_target_message_id: directMessage }),
      ],
    },
    { type: 'reminders', op: 'remove', reminder_id: a },
  ]);
  const applied = applyEvents(initial, events).reminders;
  const fresh = await register(server, user, { fetch_event_types: ['reminders'], event_types: [] });
  expect(applied).toEqual(fresh.reminders);
  await server.ok('DELETE', `/reminders/${b}`, { as: user });
});

test('a due reminder is delivered once by Notification Bot, as a direct message to the user', async () => {
  const at = inAnHour();
  const id = await created({
    message_id: channelMessage,
    scheduled_delivery_timestamp: at,
    note: 'Time to ship',
  });
  const queue = await register(server, cast.member, { event_types: ['reminders', 'message'] });
  expect(await tick(at - 1)).toBe(0);
  expect(await tick(at)).toBe(1);
  expect(await tick(at + 1)).toBe(0);
  expect(await list()).toEqual([]);
  const users = (await server.call('GET', '/users', { as: cast.member })).body.members;
  const bot = users.find((u: { email: string }) => u.email === 'notification-bot@zulip.com');
  expect(bot).toMatchObject({ full_name: 'Notification Bot', is_bot: true });
  const received = (
    await fetchNarrow(server, cast.member, [{ operator: 'dm', operand: [bot.user_id] }])
  ).messages;
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({
    sender_id: bot.user_id,
    type: 'private',
    flags: [],
  });
  expect(received[0].content).toContain(
    '<p>You requested a reminder for the following message. Note:</p>',
  );
  expect(received[0].display_recipient.map((r: { id: number }) => r.id).sort()).toEqual(
    [cast.member.id, bot.user_id].sort(),
  );
  const events = await eventsOf(server, cast.member, queue.queue_id);
  expect(events.map((e) => [e.type, e.op])).toEqual([
    ['message', undefined],
    ['reminders', 'remove'],
  ]);
  expect(events[1]).toMatchObject({ reminder_id: id });
  // A second reminder reuses the same bot.
  const again = inAnHour() + 100;
  await created({ message_id: directMessage, scheduled_delivery_timestamp: again });
  expect(await tick(again)).toBe(1);
  const bots = (await server.call('GET', '/users', { as: cast.member })).body.members.filter(
    (u: { email: string }) => u.email === 'notification-bot@zulip.com',
  );
  expect(bots).toHaveLength(1);
});
