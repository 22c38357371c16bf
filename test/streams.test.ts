// Channels: GET /streams with every flag combination Zulip distinguishes, the
// channel object of Part 2.5 field by field, GET /streams/{id}, archiving and
// changing a channel, and the stream events those send.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  register,
  sendToChannel,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let bot: User;
const groups = new Map<string, number>();

beforeAll(async () => {
  server = await TestServer.start({ LOG_LEVEL: 'error' });
  cast = await server.createCast();
  // Channels of every kind, seen from `member`:
  await subscribe(server, cast.member, ['public1'], {
    principals: [cast.member.id, cast.guest.id],
  }); // subscribed, with the guest
  await subscribe(server, cast.admin, ['public2']); // public, not subscribed
  await subscribe(server, cast.admin, ['private-shared'], {
    invite_only: true,
    history_public_to_subscribers: true,
  }); // private, not subscribed
  await subscribe(server, cast.member, ['private-mine'], { invite_only: true }); // private, subscribed
  await subscribe(server, cast.owner, ['webpublic'], { is_web_public: true });
  await subscribe(server, cast.admin, ['zz-default'], { is_default_stream: true });
  await subscribe(server, cast.admin, ['archived-one']);
  const archived = await streamId(server, cast.admin, 'archived-one');
  expect((await server.call('DELETE', `/streams/${archived}`, { as: cast.admin })).status).toBe(
    200,
  );
  // A bot owned by member2, who subscribes to public2.
  bot = await server.createUser(cast.realm, {
    email: 'bot@example.com',
    fullName: 'Helper Bot',
    isBot: true,
  });
  bot = await server.services.db.write((tx) =>
    tx.user.update({ where: { id: bot.id }, data: { botOwnerId: cast.member2.id, botType: 1 } }),
  );
  await server.services.auth.forgetUser(bot.id);
  await subscribe(server, cast.member2, ['public2']);
  const res = await server.call('GET', '/user_groups', { as: cast.owner });
  for (const g of res.body.user_groups) groups.set(g.name, g.id);
});
afterAll(() => server.stop());

async function names(as: User, params: Record<string, unknown> = {}): Promise<string[]> {
  const res = await server.call('GET', '/streams', { as, params });
  expect(res.status).toBe(200);
  return res.body.streams.map((s: { name: string }) => s.name);
}

describe('GET /streams flags', () => {
  test('by default: subscribed and public channels, not archived, sorted by name', async () => {
    expect(await names(cast.member)).toEqual([
      'private-mine',
      'public1',
      'public2',
      'webpublic',
      'zz-default',
    ]);
  });

  test('include_public=false leaves the subscribed ones', async () => {
    expect(await names(cast.member, { include_public: false })).toEqual([
      'private-mine',
      'public1',
    ]);
  });

  test('include_subscribed=false leaves the public ones', async () => {
    expect(await names(cast.member, { include_subscribed: false })).toEqual([
      'public1',
      'public2',
      'webpublic',
      'zz-default',
    ]);
  });

  test('with no source selected the list is empty', async () => {
    expect(await names(cast.member, { include_subscribed: false, include_public: false })).toEqual(
      [],
    );
  });

  test('include_web_public adds web-public channels even to an empty selection', async () => {
    expect(
      await names(cast.member, {
        include_subscribed: false,
        include_public: false,
        include_web_public: true,
      }),
    ).toEqual(['webpublic']);
  });

  test('exclude_archived=false adds archived channels, marked is_archived', async () => {
    const res = await server.call('GET', '/streams', {
      as: cast.member,
      params: { exclude_archived: false },
    });
    const archived = res.body.streams.find((s: { name: string }) => s.name === 'archived-one');
    expect(archived.is_archived).toBe(true);
    expect(res.body.streams.map((s: { name: string }) => s.name)).toEqual([
      'archived-one',
      'private-mine',
      'public1',
      'public2',
      'webpublic',
      'zz-default',
    ]);
  });

  test('include_all returns the metadata-accessible channels and overrides the other flags', async () => {
    const expected = ['private-mine', 'public1', 'public2', 'webpublic', 'zz-default'];
    expect(await names(cast.member, { include_all: true })).toEqual(expected);
    expect(
      await names(cast.member, {
        include_all: true,
        include_public: false,
        include_subscribed: false,
      }),
    ).toEqual(expected);
    // Administrators see every channel, subscribed or not.
    expect(await names(cast.admin, { include_all: true })).toEqual([
      'private-mine',
      'private-shared',
      'public1',
      'public2',
      'webpublic',
      'zz-default',
    ]);
  });

  test('include_all_active is the deprecated alias of include_all', async () => {
    expect(await names(cast.member, { include_all_active: true, include_public: false })).toEqual(
      await names(cast.member, { include_all: true }),
    );
    expect(await names(cast.admin, { include_all_active: true })).toContain('private-shared');
  });

  test('include_can_access_content returns readable channels and ignores public/subscribed', async () => {
    expect(
      await names(cast.member, {
        include_can_access_content: true,
        include_public: false,
        include_subscribed: false,
      }),
    ).toEqual(['private-mine', 'public1', 'public2', 'webpublic', 'zz-default']);
    // An administrator has metadata access to a private channel without content access.
    const admin = await names(cast.admin, { include_can_access_content: true });
    expect(admin).toContain('private-shared');
    expect(admin).not.toContain('private-mine');
  });

  test('guests never get public channels they are not in', async () => {
    expect(await names(cast.guest)).toEqual(['public1']);
    expect(await names(cast.guest, { include_subscribed: false })).toEqual([]);
    expect(await names(cast.guest, { include_web_public: true })).toEqual(['public1', 'webpublic']);
    expect(await names(cast.guest, { include_all: true })).toEqual(['public1', 'webpublic']);
    expect(await names(cast.guest, { include_can_access_content: true })).toEqual([
      'public1',
      'webpublic',
    ]);
  });

  test("include_owner_subscribed adds a bot owner's channels, and nothing for humans", async () => {
    expect(await names(bot, { include_public: false })).toEqual([]);
    expect(await names(bot, { include_public: false, include_owner_subscribed: true })).toEqual([
      'public2',
    ]);
    expect(
      await names(bot, {
        include_public: false,
        include_can_access_content: true,
        include_owner_subscribed: true,
      }),
    ).toEqual(['public1', 'public2', 'webpublic', 'zz-default']);
    expect(
      await names(cast.member2, { include_public: false, include_owner_subscribed: true }),
    ).toEqual(['public2']);
  });

  test('include_default marks default channels and selects nothing by itself', async () => {
    const res = await server.call('GET', '/streams', {
      as: cast.member,
      params: { include_default: true },
    });
    const flags = Object.fromEntries(
      res.body.streams.map((s: { name: string; is_default: boolean }) => [s.name, s.is_default]),
    );
    expect(flags).toEqual({
      'private-mine': false,
      public1: false,
      public2: false,
      webpublic: false,
      'zz-default': true,
    });
    const plain = await server.call('GET', '/streams', { as: cast.member });
    expect(plain.body.streams[0]).not.toHaveProperty('is_default');
  });
});

describe('the channel object', () => {
  test('has every field of Part 2.5 with the values of a new channel', async () => {
    const before = Math.floor(Date.now() / 1000);
    await subscribe(server, cast.member2, ['fresh'], {
      subscriptions: [{ name: 'fresh', description: 'About **things**' }],
    });
    const id = await streamId(server, cast.member2, 'fresh');
    const res = await server.call('GET', `/streams/${id}`, { as: cast.member2 });
    expect(res.status).toBe(200);
    const s = res.body.stream;
    expect(s.date_created).toBeGreaterThanOrEqual(before - 1);
    expect(s).toEqual({
      stream_id: id,
      name: 'fresh',
      is_archived: false,
      description: 'About **things**',
      rendered_description: '<p>About <strong>things</strong></p>',
      date_created: s.date_created,
      creator_id: cast.member2.id,
      invite_only: false,
      is_web_public: false,
      stream_post_policy: 1,
      is_announcement_only: false,
      message_retention_days: null,
      history_public_to_subscribers: true,
      topics_policy: 'inherit',
      first_message_id: null,
      folder_id: null,
      is_recently_active: true,
      can_add_subscribers_group: groups.get('role:nobody'),
      can_remove_subscribers_group: groups.get('role:administrators'),
      can_administer_channel_group: { direct_members: [cast.member2.id], direct_subgroups: [] },
      can_delete_any_message_group: groups.get('role:nobody'),
      can_delete_own_message_group: groups.get('role:nobody'),
      can_move_messages_out_of_channel_group: groups.get('role:nobody'),
      can_move_messages_within_channel_group: groups.get('role:nobody'),
      can_send_message_group: groups.get('role:everyone'),
      can_subscribe_group: groups.get('role:nobody'),
      can_resolve_topics_group: groups.get('role:nobody'),
      stream_weekly_traffic: null,
      subscriber_count: 1,
    });
    const first = await sendToChannel(server, cast.member2, 'fresh', 'hello', 'first!');
    await sendToChannel(server, cast.member2, 'fresh', 'hello', 'second');
    expect(
      (await server.call('GET', `/streams/${id}`, { as: cast.member2 })).body.stream
        .first_message_id,
    ).toBe(first);
  });

  test('creation settings are stored: private protected history, retention, topics policy, permission groups', async () => {
    await subscribe(server, cast.owner, ['configured'], {
      invite_only: true,
      message_retention_days: 30,
      topics_policy: 'disable_empty_topic',
      can_send_message_group: groups.get('role:moderators'),
      can_remove_subscribers_group: {
        direct_members: [cast.member.id],
        direct_subgroups: [groups.get('role:moderators')],
      },
    });
    const s = (
      await server.ok('GET', `/streams/${await streamId(server, cast.owner, 'configured')}`, {
        as: cast.owner,
      })
    ).body.stream;
    expect(s).toMatchObject({
      invite_only: true,
      history_public_to_subscribers: false,
      message_retention_days: 30,
      topics_policy: 'disable_empty_topic',
      can_send_message_group: groups.get('role:moderators'),
      stream_post_policy: 4,
      can_remove_subscribers_group: {
        direct_members: [cast.member.id],
        direct_subgroups: [groups.get('role:moderators')],
      },
    });
  });
});

describe('GET /streams/{stream_id}', () => {
  test('a missing channel or one without metadata access is "Invalid channel ID"', async () => {
    expectError(
      await server.call('GET', '/streams/99999', { as: cast.member }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    const hidden = await streamId(server, cast.admin, 'private-shared');
    expectError(
      await server.call('GET', `/streams/${hidden}`, { as: cast.member }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    expect((await server.call('GET', `/streams/${hidden}`, { as: cast.admin })).status).toBe(200);
  });
});

describe('archiving and changing a channel', () => {
  test('the channel administrator archives it; others are refused', async () => {
    await subscribe(server, cast.member, ['to-archive'], {
      principals: [cast.member.id, cast.member2.id],
    });
    const id = await streamId(server, cast.member, 'to-archive');
    expectError(
      await server.call('DELETE', `/streams/${id}`, { as: cast.member2 }),
      400,
      'BAD_REQUEST',
      'You do not have permission to administer this channel.',
    );
    const hidden = await streamId(server, cast.admin, 'private-shared');
    expectError(
      await server.call('DELETE', `/streams/${hidden}`, { as: cast.member2 }),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    const modern = await register(server, cast.member2, {
      event_types: ['stream'],
      client_capabilities: { archived_channels: true },
    });
    const legacy = await register(server, cast.member2, { event_types: ['stream'] });
    expect((await server.call('DELETE', `/streams/${id}`, { as: cast.member })).status).toBe(200);
    expect(withoutIds(await eventsOf(server, cast.member2, modern.queue_id))).toEqual([
      {
        type: 'stream',
        op: 'update',
        stream_id: id,
        name: 'to-archive',
        property: 'is_archived',
        value: true,
      },
    ]);
    // Clients without the archived_channels capability see the channel go.
    expect(withoutIds(await eventsOf(server, cast.member2, legacy.queue_id))).toEqual([
      {
        type: 'stream',
        op: 'delete',
        streams: [{ stream_id: id }],
        stream_ids: [id],
      },
    ]);
    expect(await names(cast.member2)).not.toContain('to-archive');
    const send = await server.call('POST', '/messages', {
      as: cast.member,
      params: { type: 'stream', to: 'to-archive', topic: 't', content: 'x' },
    });
    expectError(send, 400, 'BAD_REQUEST', "Not authorized to send to channel 'to-archive'");
    // Unarchiving with PATCH: the channel comes back (as a create event for older clients).
    expect(
      (
        await server.call('PATCH', `/streams/${id}`, {
          as: cast.member,
          params: { is_archived: false },
        })
      ).status,
    ).toBe(200);
    expect(await names(cast.member2)).toContain('to-archive');
    expect(
      (await eventsOf(server, cast.member2, modern.queue_id)).map((e) => [
        e.op,
        e.property,
        e.value,
      ]),
    ).toEqual([
      ['update', 'is_archived', true],
      ['update', 'is_archived', false],
    ]);
    expect(
      (await eventsOf(server, cast.member2, legacy.queue_id)).map((e) => [e.op, e.stream_ids]),
    ).toEqual([
      ['delete', [id]],
      ['create', undefined],
    ]);
  });

  test('description and name changes send stream updates that turn the old state into the new one', async () => {
    await subscribe(server, cast.member, ['renamable']);
    const id = await streamId(server, cast.member, 'renamable');
    const state = await register(server, cast.member2, { event_types: ['stream'] });
    expect(
      (
        await server.call('PATCH', `/streams/${id}`, {
          as: cast.member,
          params: { description: 'New\ntext' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.call('PATCH', `/streams/${id}`, {
          as: cast.member,
          params: { new_name: 'renamed' },
        })
      ).status,
    ).toBe(200);
    const events = await eventsOf(server, cast.member2, state.queue_id);
    expect(withoutIds(events)).toEqual([
      {
        type: 'stream',
        op: 'update',
        stream_id: id,
        name: 'renamable',
        property: 'description',
        value: 'New text',
        rendered_description: '<p>New text</p>',
      },
      {
        type: 'stream',
        op: 'update',
        stream_id: id,
        name: 'renamable',
        property: 'name',
        value: 'renamed',
      },
    ]);
    applyEvents(state, events);
    const fresh = await register(server, cast.member2, { event_types: ['stream'] });
    expect(state.streams).toEqual(fresh.streams);
    expectError(
      await server.call('PATCH', `/streams/${id}`, {
        as: cast.member,
        params: { new_name: 'renamed' },
      }),
      400,
      'BAD_REQUEST',
      'Channel already has that name.',
    );
    expectError(
      await server.call('PATCH', `/streams/${id}`, {
        as: cast.member,
        params: { new_name: 'public1' },
      }),
      400,
      'BAD_REQUEST',
      "Channel name 'public1' is already taken.",
    );
  });

  test("privacy changes follow Zulip's consistency rules", async () => {
    await subscribe(server, cast.member, ['go-private']);
    const id = await streamId(server, cast.member, 'go-private');
    expectError(
      await server.call('PATCH', `/streams/${id}`, {
        as: cast.member,
        params: { history_public_to_subscribers: false },
      }),
      400,
      'BAD_REQUEST',
      'Invalid parameters',
    );
    expect(
      (
        await server.call('PATCH', `/streams/${id}`, {
          as: cast.member,
          params: { is_private: true },
        })
      ).status,
    ).toBe(200);
    const s = (await server.call('GET', `/streams/${id}`, { as: cast.member })).body.stream;
    expect([s.invite_only, s.history_public_to_subscribers]).toEqual([true, false]);
    expect(await names(cast.member2, { include_all: true })).not.toContain('go-private');
  });
});
