// Typing notifications (POST /typing and POST /messages/{message_id}/typing):
// the events and who gets them, the settings that turn them off, and every
// refusal with its exact code and message. Nothing is stored, so the state of
// POST /register has nothing to keep current.
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
let general: number;
let secret: number;
const withChannelTyping = { client_capabilities: { stream_typing_notifications: true } };

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['general'], {
    principals: [cast.member.id, cast.member2.id],
  });
  await subscribe(server, cast.admin, ['secret'], { invite_only: true });
  general = await streamId(server, cast.member, 'general');
  secret = await streamId(server, cast.admin, 'secret');
});
afterAll(() => server.stop());

function typing(as: User, params: Record<string, unknown>, encoding?: 'form' | 'multipart') {
  return server.call('POST', '/typing', { as, params, encoding });
}

function editTyping(as: User, id: number, op: string) {
  return server.call('POST', `/messages/${id}/typing`, { as, params: { op } });
}

async function emailOf(user: User): Promise<string> {
  return (await server.call('GET', '/users/me', { as: user })).body.email;
}

async function setSetting(user: User, name: string, value: boolean) {
  const res = await server.call('PATCH', '/settings', { as: user, params: { [name]: value } });
  expect(res.status).toBe(200);
}

describe('POST /typing to users', () => {
  test('start and stop reach every participant, the typist included', async () => {
    const q2 = await register(server, cast.member2, { event_types: ['typing'] });
    const qSelf = await register(server, cast.member, { event_types: ['typing'] });
    const outsider = await register(server, cast.moderator, { event_types: ['typing'] });
    expect((await typing(cast.member, { op: 'start', to: [cast.member2.id] })).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect(
      (await typing(cast.member, { op: 'stop', type: 'direct', to: [cast.member2.id] })).status,
    ).toBe(200);
    const sender = { user_id: cast.member.id, email: await emailOf(cast.member) };
    const recipients = [{ user_id: cast.member2.id, email: await emailOf(cast.member2) }, sender];
    const expected = [
      { type: 'typing', message_type: 'direct', op: 'start', sender, recipients },
      { type: 'typing', message_type: 'direct', op: 'stop', sender, recipients },
    ];
    expect(withoutIds(await eventsOf(server, cast.member2, q2.queue_id))).toEqual(expected);
    expect(withoutIds(await eventsOf(server, cast.member, qSelf.queue_id))).toEqual(expected);
    expect(await eventsOf(server, cast.moderator, outsider.queue_id)).toEqual([]);
  });

  test('receives_typing_notifications=false leaves the user out of every typing event', async () => {
    const id = await sendDirect(server, cast.member, [cast.member2.id], 'quiet please');
    const quiet = await register(server, cast.member2, {
      event_types: ['typing', 'typing_edit_message'],
      ...withChannelTyping,
    });
    const loud = await register(server, cast.member, {
      event_types: ['typing', 'typing_edit_message'],
      ...withChannelTyping,
    });
    await setSetting(cast.member2, 'receives_typing_notifications', false);
    try {
      expect((await typing(cast.member, { op: 'start', to: [cast.member2.id] })).status).toBe(200);
      expect(
        (await typing(cast.member, { op: 'start', type: 'stream', stream_id: general, topic: 'x' }))
          .status,
      ).toBe(200);
      expect((await editTyping(cast.member, id, 'start')).status).toBe(200);
      expect(await eventsOf(server, cast.member2, quiet.queue_id)).toEqual([]);
      const heard = await eventsOf(server, cast.member, loud.queue_id);
      expect(heard.map((e) => e.type)).toEqual(['typing', 'typing', 'typing_edit_message']);
      // The recipients listed are still every participant.
      expect(heard[0].recipients.map((r: { user_id: number }) => r.user_id)).toContain(
        cast.member2.id,
      );
      expect(heard[2].recipient.user_ids).toContain(cast.member2.id);
    } finally {
      await setSetting(cast.member2, 'receives_typing_notifications', true);
    }
  });

  test('a bare user ID, as zulip-js sends for one recipient, is a one-element list', async () => {
    const q2 = await register(server, cast.member2, { event_types: ['typing'] });
    expect(
      (await typing(cast.member, { op: 'start', to: cast.member2.id }, 'multipart')).status,
    ).toBe(200);
    const events = await eventsOf(server, cast.member2, q2.queue_id);
    expect(events.map((e) => e.recipients.map((r: { user_id: number }) => r.user_id))).toEqual([
      [cast.member2.id, cast.member.id],
    ]);
  });

  test('refusals: missing or empty to, unknown user, invalid op', async () => {
    expectError(
      await typing(cast.member, { op: 'start' }),
      400,
      'BAD_REQUEST',
      "Missing 'to' argument",
    );
    expectError(
      await typing(cast.member, { op: 'start', to: [] }),
      400,
      'BAD_REQUEST',
      "Empty 'to' list",
    );
    expectError(
      await typing(cast.member, { op: 'start', to: [999999] }),
      400,
      'BAD_REQUEST',
      'Invalid user ID 999999',
    );
    expectError(
      await typing(cast.member, { op: 'begin', to: [cast.member2.id] }),
      400,
      'BAD_REQUEST',
      'Invalid op',
    );
  });

  test('send_private_typing_notifications=false refuses', async () => {
    await setSetting(cast.member, 'send_private_typing_notifications', false);
    try {
      expectError(
        await typing(cast.member, { op: 'start', to: [cast.member2.id] }),
        400,
        'BAD_REQUEST',
        'User has disabled typing notifications for direct messages',
      );
    } finally {
      await setSetting(cast.member, 'send_private_typing_notifications', true);
    }
  });
});

describe('POST /typing to a channel topic', () => {
  test('reaches subscribers whose clients declared stream_typing_notifications', async () => {
    const capable = await register(server, cast.member2, {
      event_types: ['typing'],
      ...withChannelTyping,
    });
    const legacy = await register(server, cast.member2, { event_types: ['typing'] });
    const outsider = await register(server, cast.moderator, {
      event_types: ['typing'],
      ...withChannelTyping,
    });
    expect(
      (
        await typing(cast.member, {
          op: 'start',
          type: 'channel',
          stream_id: general,
          topic: 'plans',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await typing(cast.member, {
          op: 'stop',
          type: 'stream',
          stream_id: general,
          topic: '(no topic)',
        })
      ).status,
    ).toBe(200);
    const sender = { user_id: cast.member.id, email: await emailOf(cast.member) };
    expect(withoutIds(await eventsOf(server, cast.member2, capable.queue_id))).toEqual([
      {
        type: 'typing',
        message_type: 'stream',
        op: 'start',
        sender,
        stream_id: general,
        topic: 'plans',
      },
      {
        type: 'typing',
        message_type: 'stream',
        op: 'stop',
        sender,
        stream_id: general,
        topic: '',
      },
    ]);
    expect(await eventsOf(server, cast.member2, legacy.queue_id)).toEqual([]);
    expect(await eventsOf(server, cast.moderator, outsider.queue_id)).toEqual([]);
  });

  test('refusals: missing stream_id or topic, inaccessible channel, disabled setting', async () => {
    expectError(
      await typing(cast.member, { op: 'start', type: 'stream', topic: 't' }),
      400,
      'BAD_REQUEST',
      "Missing 'stream_id' argument",
    );
    expectError(
      await typing(cast.member, { op: 'start', type: 'stream', stream_id: general }),
      400,
      'BAD_REQUEST',
      'Missing topic',
    );
    expectError(
      await typing(cast.member, { op: 'start', type: 'stream', stream_id: secret, topic: 't' }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    expectError(
      await typing(cast.member, { op: 'start', type: 'stream', stream_id: 999999, topic: 't' }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    await setSetting(cast.member, 'send_stream_typing_notifications', false);
    try {
      expectError(
        await typing(cast.member, { op: 'start', type: 'channel', stream_id: general, topic: 't' }),
        400,
        'BAD_REQUEST',
        'User has disabled typing notifications for channel messages',
      );
    } finally {
      await setSetting(cast.member, 'send_stream_typing_notifications', true);
    }
  });
});

describe('POST /messages/{message_id}/typing', () => {
  test('in a channel: typing_edit_message to the subscribers', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'edits', 'to be edited');
    const q2 = await register(server, cast.member2, { event_types: ['typing_edit_message'] });
    const outsider = await register(server, cast.moderator, {
      event_types: ['typing_edit_message'],
    });
    expect((await editTyping(cast.member, id, 'start')).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await editTyping(cast.member, id, 'stop')).status).toBe(200);
    const recipient = { type: 'channel', channel_id: general, topic: 'edits' };
    expect(withoutIds(await eventsOf(server, cast.member2, q2.queue_id))).toEqual([
      {
        type: 'typing_edit_message',
        op: 'start',
        sender_id: cast.member.id,
        message_id: id,
        recipient,
      },
      {
        type: 'typing_edit_message',
        op: 'stop',
        sender_id: cast.member.id,
        message_id: id,
        recipient,
      },
    ]);
    expect(await eventsOf(server, cast.moderator, outsider.queue_id)).toEqual([]);
  });

  test('in a direct message: to the participants', async () => {
    const id = await sendDirect(server, cast.member, [cast.member2.id], 'dm to edit');
    const q2 = await register(server, cast.member2, { event_types: ['typing_edit_message'] });
    expect((await editTyping(cast.member, id, 'start')).status).toBe(200);
    const userIds = [cast.member.id, cast.member2.id].sort((a, b) => a - b);
    expect(withoutIds(await eventsOf(server, cast.member2, q2.queue_id))).toEqual([
      {
        type: 'typing_edit_message',
        op: 'start',
        sender_id: cast.member.id,
        message_id: id,
        recipient: { type: 'direct', user_ids: userIds },
      },
    ]);
  });

  test('no event, for composing or editing, in a channel with more than 100 subscribers', async () => {
    const many: number[] = [];
    for (let i = 0; i < 100; i++)
      many.push((await server.createUser(cast.realm, { email: `crowd${i}@example.com` })).id);
    await subscribe(server, cast.owner, ['crowded'], {
      principals: [cast.member.id, cast.member2.id, ...many],
    });
    const id = await sendToChannel(server, cast.member, 'crowded', 't', 'big room');
    const q2 = await register(server, cast.member2, {
      event_types: ['typing', 'typing_edit_message'],
      ...withChannelTyping,
    });
    expect((await editTyping(cast.member, id, 'start')).status).toBe(200);
    const crowded = await streamId(server, cast.member, 'crowded');
    expect(
      (await typing(cast.member, { op: 'start', type: 'channel', stream_id: crowded, topic: 't' }))
        .status,
    ).toBe(200);
    expect(await eventsOf(server, cast.member2, q2.queue_id)).toEqual([]);
  });

  test('refusals: not the sender, unreadable message, editing off, time limit passed, settings', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'edits', 'mine');
    expectError(
      await editTyping(cast.member2, id, 'start'),
      400,
      'BAD_REQUEST',
      "You don't have permission to edit this message",
    );
    const dm = await sendDirect(server, cast.member, [cast.member2.id], 'private');
    expectError(
      await editTyping(cast.moderator, dm, 'start'),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
    expectError(
      await editTyping(cast.member, 999999, 'start'),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
    await setSetting(cast.member, 'send_stream_typing_notifications', false);
    await setSetting(cast.member, 'send_private_typing_notifications', false);
    try {
      expectError(
        await editTyping(cast.member, id, 'start'),
        400,
        'BAD_REQUEST',
        'User has disabled typing notifications for channel messages',
      );
      expectError(
        await editTyping(cast.member, dm, 'start'),
        400,
        'BAD_REQUEST',
        'User has disabled typing notifications for direct messages',
      );
    } finally {
      await setSetting(cast.member, 'send_stream_typing_notifications', true);
      await setSetting(cast.member, 'send_private_typing_notifications', true);
    }
    const setRealm = async (data: { allowMessageEditing?: boolean }) => {
      await server.services.db.write((tx) =>
        tx.realm.update({ where: { id: cast.realm.id }, data }),
      );
      server.services.auth.forgetRealm(cast.realm.id);
    };
    await setRealm({ allowMessageEditing: false });
    try {
      expectError(
        await editTyping(cast.member, id, 'start'),
        400,
        'BAD_REQUEST',
        'Your organization has turned off message editing',
      );
    } finally {
      await setRealm({ allowMessageEditing: true });
    }
    // Backdate the message past the organization's content edit limit (600 s by default).
    await server.services.db.write((tx) =>
      tx.message.update({ where: { id }, data: { dateSent: new Date(Date.now() - 3600_000) } }),
    );
    expectError(
      await editTyping(cast.member, id, 'start'),
      400,
      'BAD_REQUEST',
      'The time limit for editing this message has passed',
    );
  });
});
