// POST /users/me/subscriptions/properties: every property of Part 4.2 with its
// value type, in_home_view as the inverse of is_muted, the refusals with their
// exact messages, and one update event per property.
import { TestServer, type Cast } from './support/server';
import { eventsOf, expectError, register, streamId, subscribe } from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let lounge: number;

beforeAll(async () => {
  server = await TestServer.start();
  cast = await server.createCast();
  await subscribe(server, cast.member, ['lounge', 'other']);
  await subscribe(server, cast.admin, ['secret'], { invite_only: true });
  await subscribe(server, cast.admin, ['not-mine']);
  lounge = await streamId(server, cast.member, 'lounge');
});
afterAll(() => server.stop());

function change(subscription_data: unknown[]) {
  return server.call('POST', '/users/me/subscriptions/properties', {
    as: cast.member,
    params: { subscription_data },
  });
}

async function mySubscription(id: number) {
  const res = await server.call('GET', '/users/me/subscriptions', { as: cast.member });
  return res.body.subscriptions.find((s: { stream_id: number }) => s.stream_id === id);
}

describe('changing personal settings', () => {
  test('every property takes its value type, one event each, and the events rebuild the state', async () => {
    const state = await register(server, cast.member, { event_types: ['subscription'] });
    const data = [
      { stream_id: lounge, property: 'color', value: '#abcdef' },
      { stream_id: lounge, property: 'pin_to_top', value: true },
      { stream_id: lounge, property: 'desktop_notifications', value: true },
      { stream_id: lounge, property: 'audible_notifications', value: false },
      { stream_id: lounge, property: 'push_notifications', value: true },
      { stream_id: lounge, property: 'email_notifications', value: false },
      { stream_id: lounge, property: 'wildcard_mentions_notify', value: true },
    ];
    const res = await change(data);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const events = await eventsOf(server, cast.member, state.queue_id);
    expect(events).toEqual(
      data.map((d, i) => ({
        id: i,
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: d.property,
        value: d.value,
      })),
    );
    expect(await mySubscription(lounge)).toMatchObject({
      color: '#abcdef',
      pin_to_top: true,
      desktop_notifications: true,
      audible_notifications: false,
      push_notifications: true,
      email_notifications: false,
      wildcard_mentions_notify: true,
    });
    for (const e of events)
      state.subscriptions.find((s: { stream_id: number }) => s.stream_id === e.stream_id)[
        e.property
      ] = e.value;
    expect(state.subscriptions).toEqual(
      (await register(server, cast.member, { event_types: ['subscription'] })).subscriptions,
    );
  });

  test('is_muted and in_home_view are inverses, and either sends both events', async () => {
    const state = await register(server, cast.member, { event_types: ['subscription'] });
    expect((await change([{ stream_id: lounge, property: 'is_muted', value: true }])).status).toBe(
      200,
    );
    expect(await mySubscription(lounge)).toMatchObject({ is_muted: true, in_home_view: false });
    expect(
      (await change([{ stream_id: lounge, property: 'in_home_view', value: true }])).status,
    ).toBe(200);
    expect(await mySubscription(lounge)).toMatchObject({ is_muted: false, in_home_view: true });
    const events = await eventsOf(server, cast.member, state.queue_id);
    expect(events).toEqual([
      {
        id: 0,
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: 'in_home_view',
        value: false,
      },
      {
        id: 1,
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: 'is_muted',
        value: true,
      },
      {
        id: 2,
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: 'in_home_view',
        value: true,
      },
      {
        id: 3,
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: 'is_muted',
        value: false,
      },
    ]);
  });
});

describe('refusals', () => {
  test('an unknown property', async () => {
    expectError(
      await change([{ stream_id: lounge, property: 'volume', value: true }]),
      400,
      'BAD_REQUEST',
      'Unknown subscription property: volume',
    );
  });

  test('a value of the wrong type', async () => {
    expectError(
      await change([{ stream_id: lounge, property: 'is_muted', value: 'yes' }]),
      400,
      'BAD_REQUEST',
      'is_muted is not a boolean',
    );
    expectError(
      await change([{ stream_id: lounge, property: 'pin_to_top', value: '#ffffff' }]),
      400,
      'BAD_REQUEST',
      'pin_to_top is not a boolean',
    );
    expectError(
      await change([{ stream_id: lounge, property: 'color', value: 'blue' }]),
      400,
      'BAD_REQUEST',
      'color is not a valid hex color code',
    );
    expectError(
      await change([{ stream_id: lounge, property: 'color', value: true }]),
      400,
      'BAD_REQUEST',
      'color is not a valid hex color code',
    );
  });

  test('a channel the user is not subscribed to, or cannot see', async () => {
    const notMine = await streamId(server, cast.member, 'not-mine');
    expectError(
      await change([{ stream_id: notMine, property: 'is_muted', value: true }]),
      400,
      'BAD_REQUEST',
      `Not subscribed to channel ID ${notMine}`,
    );
    expectError(
      await change([{ stream_id: 99999, property: 'is_muted', value: true }]),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
    const secret = await streamId(server, cast.admin, 'secret');
    expectError(
      await change([{ stream_id: secret, property: 'is_muted', value: true }]),
      400,
      'BAD_REQUEST',
      'Invalid channel ID',
    );
  });

  test('a refused change leaves the earlier ones of the request undone', async () => {
    const other = await streamId(server, cast.member, 'other');
    const res = await change([
      { stream_id: other, property: 'pin_to_top', value: true },
      { stream_id: 99999, property: 'pin_to_top', value: true },
    ]);
    expectError(res, 400, 'BAD_REQUEST', 'Invalid channel ID');
    expect((await mySubscription(other)).pin_to_top).toBe(false);
  });

  test('a malformed request body', async () => {
    const res = await server.call('POST', '/users/me/subscriptions/properties', {
      as: cast.member,
      params: { subscription_data: [{ stream_id: lounge, property: 'is_muted' }] },
    });
    expectError(res, 400, 'BAD_REQUEST', 'subscription_data[0]["value"] field is missing');
  });
});
