// Subscriptions: POST, GET and DELETE /users/me/subscriptions with every
// refusal and its exact message, and the subscription and stream events they
// send, applied to a /register state and compared with a fresh one.
import type { User } from '../generated/prisma/sqlite/client';
import { applyEvents } from './support/apply-events';
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

function post(as: User, params: Record<string, unknown>) {
  return server.call('POST', '/users/me/subscriptions', { as, params });
}

const stateKeys = ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams'];
function pick(body: Record<string, unknown>) {
  return Object.fromEntries(stateKeys.map((k) => [k, body[k]]));
}

describe('POST /users/me/subscriptions', () => {
  test('creates a channel, subscribes the requester and others, and sends the events', async () => {
    const mine = await register(server, cast.member, { event_types: ['subscription', 'stream'] });
    const peer = await register(server, cast.admin, { event_types: ['subscription', 'stream'] });
    const res = await post(cast.member, {
      subscriptions: [{ name: ' lounge ', description: 'Chat' }],
      principals: [cast.member.id, cast.member2.id],
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: { [cast.member.id]: ['lounge'], [cast.member2.id]: ['lounge'] },
      already_subscribed: {},
    });
    const id = await streamId(server, cast.member, 'lounge');
    const events = await eventsOf(server, cast.member, mine.queue_id);
    // The users being subscribed learn of each other from the add event, not from peer_add.
    expect(events.map((e) => `${e.type}:${e.op}`)).toEqual(['stream:create', 'subscription:add']);
    expect(events[1].subscriptions).toEqual([
      expect.objectContaining({
        stream_id: id,
        name: 'lounge',
        color: '#76ce90',
        is_muted: false,
        in_home_view: true,
        subscriber_count: 2,
        subscribers: [cast.member.id, cast.member2.id],
      }),
    ]);
    const peerEvents = await eventsOf(server, cast.admin, peer.queue_id);
    expect(withoutIds(peerEvents)).toEqual([
      expect.objectContaining({ type: 'stream', op: 'create' }),
      {
        type: 'subscription',
        op: 'peer_add',
        stream_ids: [id],
        user_ids: [cast.member.id, cast.member2.id],
      },
    ]);
    applyEvents(mine, events);
    expect(pick(mine)).toEqual(
      pick(await register(server, cast.member, { event_types: ['subscription', 'stream'] })),
    );
    applyEvents(peer, peerEvents);
    expect(pick(peer)).toEqual(
      pick(await register(server, cast.admin, { event_types: ['subscription', 'stream'] })),
    );
  });

  test('reports channels the users were already in', async () => {
    const res = await post(cast.member, { subscriptions: [{ name: 'lounge' }] });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: {},
      already_subscribed: { [cast.member.id]: ['lounge'] },
    });
  });

  test('refuses guests, empty and long names', async () => {
    expectError(
      await post(cast.guest, { subscriptions: [{ name: 'lounge' }] }),
      400,
      'BAD_REQUEST',
      'Not allowed for guest users',
    );
    expectError(
      await post(cast.member, { subscriptions: [{ name: '   ' }] }),
      400,
      'BAD_REQUEST',
      "Channel name can't be empty.",
    );
    expectError(
      await post(cast.member, { subscriptions: [{ name: 'x'.repeat(61) }] }),
      400,
      'BAD_REQUEST',
      'Channel name too long (limit: 60 characters).',
    );
  });

  test('private channels need access: fatal, or listed as unauthorized', async () => {
    await subscribe(server, cast.admin, ['secret'], { invite_only: true });
    expectError(
      await post(cast.member, { subscriptions: [{ name: 'secret' }] }),
      400,
      'BAD_REQUEST',
      'Unable to access channel (secret).',
    );
    const res = await post(cast.member, {
      subscriptions: [{ name: 'secret' }, { name: 'lounge' }],
      authorization_errors_fatal: false,
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: {},
      already_subscribed: { [cast.member.id]: ['lounge'] },
      unauthorized: ['secret'],
    });
  });

  test('creation settings need the matching permissions', async () => {
    expectError(
      await post(cast.member, { subscriptions: [{ name: 'kept' }], message_retention_days: 10 }),
      400,
      'UNAUTHORIZED_PRINCIPAL',
      'Must be an organization owner',
    );
    expectError(
      await post(cast.member, { subscriptions: [{ name: 'dflt' }], is_default_stream: true }),
      400,
      'BAD_REQUEST',
      'Insufficient permission',
    );
    expectError(
      await post(cast.admin, {
        subscriptions: [{ name: 'dflt' }],
        is_default_stream: true,
        invite_only: true,
      }),
      400,
      'BAD_REQUEST',
      'A default channel cannot be private.',
    );
    expectError(
      await post(cast.member, { subscriptions: [{ name: 'wp' }], is_web_public: true }),
      400,
      'BAD_REQUEST',
      'Insufficient permission',
    );
    const everyone = (
      await server.ok('GET', '/user_groups', { as: cast.owner })
    ).body.user_groups.find((g: { name: string }) => g.name === 'role:everyone').id;
    expectError(
      await post(cast.member, {
        subscriptions: [{ name: 'x1' }],
        can_administer_channel_group: everyone,
      }),
      400,
      'BAD_REQUEST',
      "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.",
    );
    expectError(
      await post(cast.member, { subscriptions: [{ name: 'x1' }], can_send_message_group: 99999 }),
      400,
      'BAD_REQUEST',
      'Invalid user group',
    );
    const admins = (
      await server.ok('GET', '/user_groups', { as: cast.owner })
    ).body.user_groups.find((g: { name: string }) => g.name === 'role:administrators').id;
    await server.services.db.write((tx) =>
      tx.realm.update({
        where: { id: cast.realm.id },
        data: { canCreatePrivateChannelGroupId: admins },
      }),
    );
    server.services.auth.forgetRealm(cast.realm.id);
    try {
      expectError(
        await post(cast.member, { subscriptions: [{ name: 'priv' }], invite_only: true }),
        400,
        'BAD_REQUEST',
        'Insufficient permission',
      );
      expect(
        (await post(cast.admin, { subscriptions: [{ name: 'priv' }], invite_only: true })).status,
      ).toBe(200);
    } finally {
      const members = (
        await server.ok('GET', '/user_groups', { as: cast.owner })
      ).body.user_groups.find((g: { name: string }) => g.name === 'role:members').id;
      await server.services.db.write((tx) =>
        tx.realm.update({
          where: { id: cast.realm.id },
          data: { canCreatePrivateChannelGroupId: members },
        }),
      );
      server.services.auth.forgetRealm(cast.realm.id);
    }
  });

  test('principals must be known, active users', async () => {
    expectError(
      await post(cast.member, { subscriptions: [{ name: 'lounge' }], principals: [99999] }),
      400,
      'BAD_REQUEST',
      'No such user',
    );
    expectError(
      await post(cast.member, {
        subscriptions: [{ name: 'lounge' }],
        principals: ['nobody@example.com'],
      }),
      400,
      'BAD_REQUEST',
      'No such user',
    );
    const res = await post(cast.member, {
      subscriptions: [{ name: 'lounge' }],
      principals: [cast.moderator.email],
    });
    expect(res.body.subscribed).toEqual({ [cast.moderator.id]: ['lounge'] });
  });
});

describe('GET /users/me/subscriptions', () => {
  test('lists the subscriptions with personal settings, and subscribers when asked', async () => {
    const res = await server.call('GET', '/users/me/subscriptions', {
      as: cast.member2,
      params: { include_subscribers: true },
    });
    expect(res.status).toBe(200);
    const lounge = res.body.subscriptions.find((s: { name: string }) => s.name === 'lounge');
    expect(lounge).toMatchObject({
      color: '#76ce90',
      is_muted: false,
      in_home_view: true,
      pin_to_top: false,
      desktop_notifications: null,
      wildcard_mentions_notify: null,
    });
    expect(lounge.subscribers).toEqual(
      [cast.moderator.id, cast.member.id, cast.member2.id].sort((a, b) => a - b),
    );
    const plain = await server.call('GET', '/users/me/subscriptions', { as: cast.member2 });
    expect(plain.body.subscriptions[0]).not.toHaveProperty('subscribers');
  });
});

describe('DELETE /users/me/subscriptions', () => {
  test('leaves channels, reports the ones not subscribed, and sends remove and peer_remove', async () => {
    await subscribe(server, cast.member, ['leaving', 'other']);
    const state = await register(server, cast.member, { event_types: ['subscription', 'stream'] });
    const peer = await register(server, cast.member2, { event_types: ['subscription', 'stream'] });
    const res = await server.call('DELETE', '/users/me/subscriptions', {
      as: cast.member,
      params: { subscriptions: ['leaving', 'secret'] },
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      removed: ['leaving'],
      not_removed: ['secret'],
    });
    const events = await eventsOf(server, cast.member, state.queue_id);
    const id = await streamId(server, cast.member, 'leaving');
    expect(withoutIds(events)).toEqual([
      {
        type: 'subscription',
        op: 'remove',
        subscriptions: [{ name: 'leaving', stream_id: id }],
      },
    ]);
    applyEvents(state, events);
    expect(pick(state)).toEqual(
      pick(await register(server, cast.member, { event_types: ['subscription', 'stream'] })),
    );
    const peerEvents = await eventsOf(server, cast.member2, peer.queue_id);
    expect(withoutIds(peerEvents)).toEqual([
      {
        type: 'subscription',
        op: 'peer_remove',
        stream_ids: [id],
        user_ids: [cast.member.id],
      },
    ]);
    applyEvents(peer, peerEvents);
    expect(pick(peer)).toEqual(
      pick(await register(server, cast.member2, { event_types: ['subscription', 'stream'] })),
    );
  });

  test('refuses unknown channels and removing others without permission', async () => {
    const unknown = await server.call('DELETE', '/users/me/subscriptions', {
      as: cast.member,
      params: { subscriptions: ['nope', 'nada'] },
    });
    expectError(unknown, 400, 'BAD_REQUEST', 'Channel(s) (nope, nada) do not exist');
    await subscribe(server, cast.admin, ['admins-own'], {
      principals: [cast.admin.id, cast.member.id, cast.member2.id],
    });
    const others = await server.call('DELETE', '/users/me/subscriptions', {
      as: cast.member,
      params: { subscriptions: ['admins-own'], principals: [cast.member2.id] },
    });
    expectError(others, 400, 'BAD_REQUEST', 'Insufficient permission');
    // The channel's administrator (here its creator) may remove others.
    const byCreator = await server.call('DELETE', '/users/me/subscriptions', {
      as: cast.member,
      params: { subscriptions: ['lounge'], principals: [cast.member2.id] },
    });
    expect(byCreator.body).toEqual({
      result: 'success',
      msg: '',
      removed: ['lounge'],
      not_removed: [],
    });
    const byAdmin = await server.call('DELETE', '/users/me/subscriptions', {
      as: cast.admin,
      params: { subscriptions: ['admins-own'], principals: [cast.member2.email] },
    });
    expect(byAdmin.body).toEqual({
      result: 'success',
      msg: '',
      removed: ['admins-own'],
      not_removed: [],
    });
  });
});
