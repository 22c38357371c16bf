// Reporting messages: PATCH /realm moderation_request_channel_id chooses the
// private channel reports go to (a realm event of op `update`), and POST
// /messages/{message_id}/report makes Notification Bot post the report there,
// in a topic about the reported sender, for the channel's subscribers only.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { expectRefusal, sendDirect, sendToChannel, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
const channel: Record<string, number> = {};
const message: Record<string, number> = {};

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.admin, ['moderation'], {
    invite_only: true,
    principals: [cast.admin.id, cast.moderator.id],
  });
  await subscribe(server, cast.admin, ['secret'], { invite_only: true });
  await subscribe(server, cast.member2, ['lobby'], {
    principals: [cast.member.id, cast.member2.id],
  });
  for (const name of ['moderation', 'secret', 'lobby'])
    channel[name] = await streamId(server, cast.admin, name);
  message.lobby = await sendToChannel(
    server,
    cast.member2,
    'lobby',
    'offers',
    'Cheap watches at https://spam.example.com',
  );
  message.secret = await sendToChannel(server, cast.admin, 'secret', 'plans', 'Not for you');
  message.direct = await sendDirect(server, cast.member2, [cast.member.id], 'You again?');
});
afterAll(() => server.stop());

const report = (as: User, id: number, params: Record<string, unknown>) =>
  server.call('POST', `/messages/${id}/report`, { as, params });

const setChannel = (as: User, id: number) =>
  server.call('PATCH', '/realm', { as, params: { moderation_request_channel_id: id } });

async function registered(as: User) {
  const res = await server.call('POST', '/register', {
    as,
    params: { event_types: ['realm'], fetch_event_types: ['realm'] },
  });
  expect(res.status).toBe(200);
  return res.body;
}

/** The newest messages of the moderation channel, as `as` reads them. */
async function moderationMessages(as: User) {
  const res = await server.call('GET', '/messages', {
    as,
    params: {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: [{ operator: 'channel', operand: channel.moderation }],
      apply_markdown: false,
    },
  });
  return res;
}

test('reporting is off until an administrator chooses a private channel', async () => {
  expect((await registered(cast.member)).realm_moderation_request_channel_id).toBe(-1);
  expectRefusal(
    await report(cast.member, message.lobby, { report_type: 'spam' }),
    'Moderation request channel must be specified to enable message reporting.',
  );
  expectRefusal(
    await setChannel(cast.member, channel.moderation),
    'Must be an organization administrator',
    'UNAUTHORIZED_PRINCIPAL',
  );
  expectRefusal(
    await setChannel(cast.admin, channel.lobby),
    'Moderation request channel must be private.',
  );
  expectRefusal(await setChannel(cast.admin, 99999), 'Invalid channel ID');

  const state = await registered(cast.member);
  expect((await setChannel(cast.admin, channel.moderation)).body).toEqual({
    result: 'success',
    msg: '',
  });
  const { body } = await server.call('GET', '/events', {
    as: cast.member,
    params: { queue_id: state.queue_id, last_event_id: -1, dont_block: true },
  });
  expect(withoutIds(body.events)).toEqual([
    {
      type: 'realm',
      op: 'update',
      property: 'moderation_request_channel_id',
      value: channel.moderation,
    },
  ]);
  const fresh = await registered(cast.member);
  expect(fresh.realm_moderation_request_channel_id).toBe(channel.moderation);
  const { queue_id: _a, last_event_id: _b, ...applied } = applyEvents(state, body.events);
  const { queue_id: _c, last_event_id: _d, ...expected } = fresh;
  expect(applied).toEqual(expected);
});

test('a report reaches the moderators, from Notification Bot, quoting the message', async () => {
  const res = await report(cast.member, message.lobby, {
    report_type: 'spam',
    description: 'Third time today.\nPlease remove.',
  });
  expect(res.body).toEqual({ result: 'success', msg: '' });

  const read = await moderationMessages(cast.moderator);
  expect(read.status).toBe(200);
  const posted = read.body.messages.at(-1);
  expect(posted).toMatchObject({
    sender_email: 'notification-bot@zulip.com',
    sender_full_name: 'Notification Bot',
    stream_id: channel.moderation,
    subject: `Reports about ${cast.member2.fullName}`,
  });
  expect(posted.content).toContain(`@_**${cast.member.fullName}|${cast.member.id}**`);
  expect(posted.content).toContain(`@_**${cast.member2.fullName}|${cast.member2.id}**`);
  expect(posted.content).toContain('**Reason:** Spam');
  expect(posted.content).toContain('> Third time today.\n> Please remove.');
  expect(posted.content).toContain('```quote\nCheap watches at https://spam.example.com\n```');
  expect(posted.content).toContain(`/near/${message.lobby}`);

  // The reporter is not a moderator: the report is not theirs to read.
  const theirs = await server.call('GET', '/messages', {
    as: cast.member,
    params: { anchor: 'newest', num_before: 20, num_after: 0 },
  });
  expect(theirs.status).toBe(200);
  expect(theirs.body.messages.map((m: { id: number }) => m.id)).toContain(message.lobby);
  expect(theirs.body.messages.map((m: { id: number }) => m.id)).not.toContain(posted.id);
});

test('a direct message can be reported by a participant', async () => {
  const res = await report(cast.member, message.direct, { report_type: 'harassment' });
  expect(res.body).toEqual({ result: 'success', msg: '' });
  const posted = (await moderationMessages(cast.admin)).body.messages.at(-1);
  expect(posted.content).toContain('**Reason:** Harassment');
  expect(posted.content).toContain('```quote\nYou again?\n```');
});

test('refusals: no explanation for another reason, an unreadable message, a long explanation', async () => {
  const before = (await moderationMessages(cast.admin)).body.messages.length;
  expectRefusal(
    await report(cast.member, message.lobby, { report_type: 'other' }),
    'An explanation is required.',
  );
  expectRefusal(
    await report(cast.member, message.lobby, { report_type: 'other', description: '   ' }),
    'An explanation is required.',
  );
  for (const id of [message.secret, 99999])
    expectRefusal(await report(cast.member, id, { report_type: 'spam' }), 'Invalid message(s)');
  expect(
    (
      await report(cast.member, message.lobby, {
        report_type: 'spam',
        description: 'x'.repeat(1001),
      })
    ).status,
  ).toBe(400);
  expect((await report(cast.member, message.lobby, { report_type: 'rude' })).status).toBe(400);
  expect((await moderationMessages(cast.admin)).body.messages).toHaveLength(before);
});

test('archiving the moderation channel turns reporting off', async () => {
  const res = await server.call('DELETE', `/streams/${channel.moderation}`, { as: cast.admin });
  expect(res.status).toBe(200);
  expectRefusal(
    await report(cast.member, message.lobby, { report_type: 'spam' }),
    'Moderation request channel must be specified to enable message reporting.',
  );
});
