// Emoji reactions (POST and DELETE /messages/{message_id}/reactions): the
// success paths read back through GET /messages/{id}, Zulip's name resolution
// order, every refusal with its exact code and message, and the events.
import type { User } from '../generated/prisma/sqlite/client';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  register,
  sendDirect,
  sendToChannel,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let partyEmoji: number;
let oldEmoji: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['general'], {
    principals: [cast.member.id, cast.member2.id],
  });
  await subscribe(server, cast.admin, ['secret'], {
    invite_only: true,
    history_public_to_subscribers: false,
  });
  // Custom emoji are created by their own endpoints; here rows suffice.
  [partyEmoji, oldEmoji] = await server.services.db.write(async (tx) => {
    const party = await tx.realmEmoji.create({
      data: { realmId: cast.realm.id, name: 'party_parrot', fileName: 'p.png' },
    });
    const old = await tx.realmEmoji.create({
      data: { realmId: cast.realm.id, name: 'retired', fileName: 'r.png', deactivated: true },
    });
    // A custom emoji named like a Unicode one wins name resolution.
    await tx.realmEmoji.create({
      data: { realmId: cast.realm.id, name: 'octopus', fileName: 'o.png' },
    });
    return [party.id, old.id];
  });
});
afterAll(() => server.stop());

function add(as: User, id: number, params: Record<string, unknown>) {
  return server.call('POST', `/messages/${id}/reactions`, { as, params });
}

function remove(as: User, id: number, params: Record<string, unknown>) {
  return server.call('DELETE', `/messages/${id}/reactions`, { as, params });
}

async function reactionsOf(as: User, id: number) {
  const res = await server.call('GET', `/messages/${id}`, { as });
  expect(res.status).toBe(200);
  return res.body.message.reactions;
}

async function emailOf(user: User): Promise<string> {
  return (await server.call('GET', '/users/me', { as: user })).body.email;
}

describe('adding', () => {
  test('by name: Unicode, the zulip extra emoji and custom emoji, with codes looked up', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'react to me');
    expect((await add(cast.member, id, { emoji_name: 'thumbs_up' })).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await add(cast.member, id, { emoji_name: 'zulip' })).status).toBe(200);
    expect((await add(cast.member2, id, { emoji_name: 'party_parrot' })).status).toBe(200);
    expect((await add(cast.member2, id, { emoji_name: 'octopus' })).status).toBe(200);
    expect(await reactionsOf(cast.member2, id)).toEqual([
      {
        emoji_name: '+1',
        emoji_code: '1f44d',
        reaction_type: 'unicode_emoji',
        user_id: cast.member.id,
      },
      {
        emoji_name: 'zulip',
        emoji_code: 'zulip',
        reaction_type: 'zulip_extra_emoji',
        user_id: cast.member.id,
      },
      {
        emoji_name: 'party_parrot',
        emoji_code: String(partyEmoji),
        reaction_type: 'realm_emoji',
        user_id: cast.member2.id,
      },
      {
        emoji_name: 'octopus',
        emoji_code: expect.not.stringMatching(/^1f/),
        reaction_type: 'realm_emoji',
        user_id: cast.member2.id,
      },
    ]);
  });

  test('with an explicit code and type, and as multipart like zulip-js', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'explicit');
    const res = await server.call('POST', `/messages/${id}/reactions`, {
      as: cast.member,
      params: { emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji' },
      encoding: 'multipart',
    });
    expect(res.status).toBe(200);
    expect(await reactionsOf(cast.member, id)).toEqual([
      {
        emoji_name: 'heart',
        emoji_code: '2764',
        reaction_type: 'unicode_emoji',
        user_id: cast.member.id,
      },
    ]);
  });

  test('a second user with the same code votes for the existing reaction and takes its name', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'votes');
    await add(cast.member, id, { emoji_name: '+1' });
    expect((await add(cast.member2, id, { emoji_name: 'like' })).status).toBe(200);
    expect(
      (await reactionsOf(cast.member, id)).map((r: { emoji_name: string }) => r.emoji_name),
    ).toEqual(['+1', '+1']);
  });

  test('reacting twice is REACTION_ALREADY_EXISTS', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'twice');
    await add(cast.member, id, { emoji_name: 'smile' });
    expectError(
      await add(cast.member, id, { emoji_name: 'smile' }),
      400,
      'REACTION_ALREADY_EXISTS',
      'Reaction already exists.',
    );
  });

  test('refuses unknown and mismatched emoji', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'bad emoji');
    expectError(
      await add(cast.member, id, { emoji_name: 'no_such_emoji' }),
      400,
      'BAD_REQUEST',
      "Emoji 'no_such_emoji' does not exist",
    );
    expectError(
      await add(cast.member, id, { emoji_name: 'retired' }),
      400,
      'BAD_REQUEST',
      "Emoji 'retired' does not exist",
    );
    expectError(
      await add(cast.member, id, {
        emoji_name: 'retired',
        emoji_code: String(oldEmoji),
        reaction_type: 'realm_emoji',
      }),
      400,
      'BAD_REQUEST',
      'This custom emoji has been deactivated.',
    );
    expectError(
      await add(cast.member, id, {
        emoji_name: 'party_parrot',
        emoji_code: '99999',
        reaction_type: 'realm_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid custom emoji.',
    );
    expectError(
      await add(cast.member, id, {
        emoji_name: 'parrot',
        emoji_code: String(partyEmoji),
        reaction_type: 'realm_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid custom emoji name.',
    );
    expectError(
      await add(cast.member, id, {
        emoji_name: 'smile',
        emoji_code: 'ffffff',
        reaction_type: 'unicode_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid emoji code.',
    );
    expectError(
      await add(cast.member, id, {
        emoji_name: 'smile',
        emoji_code: '1f44d',
        reaction_type: 'unicode_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid emoji name.',
    );
    expectError(
      await add(cast.member, id, {
        emoji_name: 'zulip',
        emoji_code: 'other',
        reaction_type: 'zulip_extra_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid emoji code.',
    );
    expectError(
      await add(cast.member, id, {
        emoji_name: 'zulap',
        emoji_code: 'zulip',
        reaction_type: 'zulip_extra_emoji',
      }),
      400,
      'BAD_REQUEST',
      'Invalid emoji name.',
    );
    expect(await reactionsOf(cast.member, id)).toEqual([]);
  });

  test('on a message the user cannot read: "Invalid message(s)"', async () => {
    const dm = await sendDirect(server, cast.member, [cast.member2.id], 'just us');
    expectError(
      await add(cast.moderator, dm, { emoji_name: 'smile' }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
    const secret = await sendToChannel(server, cast.admin, 'secret', 't', 'hidden');
    expectError(
      await add(cast.member, secret, { emoji_name: 'smile' }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
    expectError(
      await add(cast.member, 999999, { emoji_name: 'smile' }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
  });

  test('on a public channel message never received, the reactor gets a historical row', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'public');
    expect((await add(cast.moderator, id, { emoji_name: 'smile' })).status).toBe(200);
    const res = await server.call('GET', `/messages/${id}`, { as: cast.moderator });
    expect(res.body.message.flags).toEqual(['read', 'historical']);
    expect(res.body.message.reactions).toHaveLength(1);
  });

  test('reactions sent at once to a message never received all land; a duplicate among them is refused', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'at once');
    const names = ['smile', 'heart', 'tada', 'octopus', 'rocket', 'zulip'];
    const answers = await Promise.all(
      [...names, 'heart'].map((emoji_name) => add(cast.moderator, id, { emoji_name })),
    );
    // Each distinct emoji is added once; of the two hearts, one is a duplicate.
    expect(answers.filter((a) => a.status === 200)).toHaveLength(names.length);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => [a.status, a.body.code])).toEqual([[400, 'REACTION_ALREADY_EXISTS']]);
    const res = await server.call('GET', `/messages/${id}`, { as: cast.moderator });
    expect(res.body.message.flags).toEqual(['read', 'historical']);
    expect(
      res.body.message.reactions.map((r: { emoji_name: string }) => r.emoji_name).sort(),
    ).toEqual([...names].sort());
  });
});

describe('removing', () => {
  test('by name, by code, and zulip-js style with parameters in the query string', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'remove me');
    await add(cast.member, id, { emoji_name: 'smile' });
    await add(cast.member, id, { emoji_name: 'heart' });
    await add(cast.member, id, { emoji_name: 'zulip' });
    expect((await remove(cast.member, id, { emoji_name: 'smile' })).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await remove(cast.member, id, { emoji_code: '2764' })).status).toBe(200);
    expect(
      (await remove(cast.member, id, { emoji_name: 'zulip', reaction_type: 'zulip_extra_emoji' }))
        .status,
    ).toBe(200);
    expect(await reactionsOf(cast.member, id)).toEqual([]);
  });

  test('a custom emoji needs reaction_type=realm_emoji; removal works even once deactivated', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'custom');
    await add(cast.member, id, { emoji_name: 'party_parrot' });
    expectError(
      await remove(cast.member, id, { emoji_name: 'party_parrot' }),
      400,
      'REACTION_DOES_NOT_EXIST',
      "Reaction doesn't exist.",
    );
    await server.services.db.write((tx) =>
      tx.realmEmoji.update({ where: { id: partyEmoji }, data: { deactivated: true } }),
    );
    try {
      expect(
        (
          await remove(cast.member, id, {
            emoji_code: String(partyEmoji),
            reaction_type: 'realm_emoji',
          })
        ).status,
      ).toBe(200);
    } finally {
      await server.services.db.write((tx) =>
        tx.realmEmoji.update({ where: { id: partyEmoji }, data: { deactivated: false } }),
      );
    }
    expect(await reactionsOf(cast.member, id)).toEqual([]);
  });

  test('refusals: no emoji given, unknown name, malformed code, missing reaction, unreadable message', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'refusals');
    await add(cast.member2, id, { emoji_name: 'smile' });
    expectError(
      await remove(cast.member, id, {}),
      400,
      'BAD_REQUEST',
      'At least one of the following arguments must be present: emoji_name, emoji_code',
    );
    expectError(
      await remove(cast.member, id, { emoji_name: 'no_such_emoji' }),
      400,
      'BAD_REQUEST',
      "Emoji 'no_such_emoji' does not exist",
    );
    expectError(
      await remove(cast.member, id, { emoji_code: 'not hex' }),
      400,
      'BAD_REQUEST',
      'Invalid emoji code.',
    );
    expectError(
      await remove(cast.member, id, { emoji_name: 'smile' }),
      400,
      'REACTION_DOES_NOT_EXIST',
      "Reaction doesn't exist.",
    );
    const dm = await sendDirect(server, cast.member, [cast.member2.id], 'private');
    expectError(
      await remove(cast.moderator, dm, { emoji_name: 'smile' }),
      400,
      'BAD_REQUEST',
      'Invalid message(s)',
    );
    expect(await reactionsOf(cast.member, id)).toHaveLength(1);
  });
});

describe('events', () => {
  test('add and remove reach everyone who can read the message, and change what a fetch shows', async () => {
    const id = await sendToChannel(server, cast.member, 'general', 'r', 'watched');
    const queues = {
      member: await register(server, cast.member, { event_types: ['reaction'] }),
      member2: await register(server, cast.member2, { event_types: ['reaction'] }),
      outsider: await register(server, cast.moderator, { event_types: ['reaction'] }),
    };
    await add(cast.member2, id, { emoji_name: 'tada' });
    expect(await reactionsOf(cast.member, id)).toEqual([
      {
        emoji_name: 'tada',
        emoji_code: '1f389',
        reaction_type: 'unicode_emoji',
        user_id: cast.member2.id,
      },
    ]);
    await remove(cast.member2, id, { emoji_name: 'tada' });
    expect(await reactionsOf(cast.member, id)).toEqual([]);
    const user = {
      user_id: cast.member2.id,
      email: await emailOf(cast.member2),
      full_name: cast.member2.fullName,
    };
    const body = {
      user_id: cast.member2.id,
      user,
      message_id: id,
      emoji_name: 'tada',
      emoji_code: '1f389',
      reaction_type: 'unicode_emoji',
    };
    const expected = [
      { type: 'reaction', op: 'add', ...body },
      { type: 'reaction', op: 'remove', ...body },
    ];
    expect(withoutIds(await eventsOf(server, cast.member, queues.member.queue_id))).toEqual(
      expected,
    );
    expect(withoutIds(await eventsOf(server, cast.member2, queues.member2.queue_id))).toEqual(
      expected,
    );
    expect(await eventsOf(server, cast.moderator, queues.outsider.queue_id)).toEqual([]);
  });

  test('a subscriber who joined after the message (public history) hears of reactions too', async () => {
    await subscribe(server, cast.member, ['history'], { principals: [cast.member.id] });
    const id = await sendToChannel(server, cast.member, 'history', 'r', 'before you came');
    await subscribe(server, cast.admin, ['history']);
    const latecomer = await register(server, cast.admin, { event_types: ['reaction'] });
    await add(cast.member, id, { emoji_name: 'wave' });
    expect(
      (await eventsOf(server, cast.admin, latecomer.queue_id)).map((e) => [e.op, e.message_id]),
    ).toEqual([['add', id]]);
  });

  test('direct message reactions go to the participants only; a refused one sends nothing', async () => {
    const dm = await sendDirect(server, cast.member, [cast.member2.id], 'dm');
    const sender = await register(server, cast.member, { event_types: ['reaction'] });
    const outsider = await register(server, cast.admin, { event_types: ['reaction'] });
    await add(cast.member2, dm, { emoji_name: 'heart' });
    expectError(
      await add(cast.member2, dm, { emoji_name: 'heart' }),
      400,
      'REACTION_ALREADY_EXISTS',
      'Reaction already exists.',
    );
    const events = await eventsOf(server, cast.member, sender.queue_id);
    expect(events.map((e) => [e.op, e.message_id, e.emoji_code])).toEqual([['add', dm, '2764']]);
    expect(await eventsOf(server, cast.admin, outsider.queue_id)).toEqual([]);
  });
});
