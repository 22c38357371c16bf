// POST /users/me/subscriptions/properties: every property of Part 4.2 with its
// value type, in_home_view as the inverse of is_muted, the refusals with their
// exact messages, and one update event per property.
import { withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';
import {
  eventsOf,
  expectError,
  expectRefusal,
  register,
  streamId,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
let lounge: number;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
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
    expect(withoutIds(events)).toEqual(
      data.map((d) => ({
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
    expect(withoutIds(events)).toEqual([
      {
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: 'in_home_view',
        value: false,
      },
      {
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: 'is_muted',
        value: true,
      },
      {
        type: 'subscription',
        op: 'update',
        stream_id: lounge,
        property: 'in_home_view',
        value: true,
      },
      {
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

// PATCH /users/me/subscriptions/{stream_id}: one setting of one subscription,
// as the bulk operation above changes it, with values sent as a form (JSON
// text, or plain text for a colour) or as JSON.
describe('PATCH /users/me/subscriptions/{stream_id}', () => {
  let single: number;

  beforeAll(async () => {
    await subscribe(server, cast.member, ['single']);
    single = await streamId(server, cast.member, 'single');
  });

  function patch(
    id: number,
    params: Record<string, unknown>,
    encoding: 'form' | 'json' = 'form',
    as = cast.member,
  ) {
    return server.call('PATCH', `/users/me/subscriptions/${id}`, { as, params, encoding });
  }

  const updateEvent = (property: string, value: unknown) => ({
    id: expect.any(Number),
    type: 'subscription',
    op: 'update',
    stream_id: single,
    property,
    value,
  });

  test('a boolean sent as form text ("true") or JSON changes the setting, with an event', async () => {
    const state = await register(server, cast.member, { event_types: ['subscription'] });
    expect((await patch(single, { property: 'pin_to_top', value: 'true' })).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await mySubscription(single)).pin_to_top).toBe(true);
    expect((await patch(single, { property: 'pin_to_top', value: false }, 'json')).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await mySubscription(single)).pin_to_top).toBe(false);
    expect(
      (await patch(single, { property: 'desktop_notifications', value: true }, 'json')).status,
    ).toBe(200);
    expect((await patch(single, { property: 'email_notifications', value: 'false' })).status).toBe(
      200,
    );
    expect(await mySubscription(single)).toMatchObject({
      desktop_notifications: true,
      email_notifications: false,
    });
    expect(await eventsOf(server, cast.member, state.queue_id)).toEqual([
      updateEvent('pin_to_top', true),
      updateEvent('pin_to_top', false),
      updateEvent('desktop_notifications', true),
      updateEvent('email_notifications', false),
    ]);
  });

  test('a colour sent as plain form text, JSON text in a form, or JSON', async () => {
    const state = await register(server, cast.member, { event_types: ['subscription'] });
    expect((await patch(single, { property: 'color', value: '#f00f00' })).body).toEqual({
      result: 'success',
      msg: '',
    });
    expect((await mySubscription(single)).color).toBe('#f00f00');
    expect((await patch(single, { property: 'color', value: '"#00ff00"' })).status).toBe(200);
    expect((await mySubscription(single)).color).toBe('#00ff00');
    expect((await patch(single, { property: 'color', value: '#abc' }, 'json')).status).toBe(200);
    expect((await mySubscription(single)).color).toBe('#abc');
    expect(await eventsOf(server, cast.member, state.queue_id)).toEqual([
      updateEvent('color', '#f00f00'),
      updateEvent('color', '#00ff00'),
      updateEvent('color', '#abc'),
    ]);
  });

  test('is_muted changes in_home_view too, with both events', async () => {
    const state = await register(server, cast.member, { event_types: ['subscription'] });
    expect((await patch(single, { property: 'is_muted', value: 'true' })).status).toBe(200);
    expect(await mySubscription(single)).toMatchObject({ is_muted: true, in_home_view: false });
    expect((await patch(single, { property: 'in_home_view', value: true }, 'json')).status).toBe(
      200,
    );
    expect(await mySubscription(single)).toMatchObject({ is_muted: false, in_home_view: true });
    expect(await eventsOf(server, cast.member, state.queue_id)).toEqual([
      updateEvent('in_home_view', false),
      updateEvent('is_muted', true),
      updateEvent('in_home_view', true),
      updateEvent('is_muted', false),
    ]);
  });

  test('only the requester and the channel named change', async () => {
    await subscribe(server, cast.member2, ['single']);
    const before = await server.call('GET', '/users/me/subscriptions', { as: cast.member2 });
    expect((await patch(single, { property: 'color', value: '#123456' })).status).toBe(200);
    const after = await server.call('GET', '/users/me/subscriptions', { as: cast.member2 });
    expect(after.body.subscriptions).toEqual(before.body.subscriptions);
    expect((await mySubscription(lounge)).color).not.toBe('#123456');
  });

  describe('refusals, which change nothing', () => {
    test('a channel the user is not subscribed to, or cannot see, or that does not exist', async () => {
      const notMine = await streamId(server, cast.member, 'not-mine');
      const secret = await streamId(server, cast.admin, 'secret');
      const state = await register(server, cast.member, { event_types: ['subscription'] });
      expectRefusal(
        await patch(notMine, { property: 'pin_to_top', value: true }, 'json'),
        `Not subscribed to channel ID ${notMine}`,
      );
      for (const id of [secret, 99999])
        expectRefusal(
          await patch(id, { property: 'pin_to_top', value: 'true' }),
          'Invalid channel ID',
        );
      expect(await eventsOf(server, cast.member, state.queue_id)).toEqual([]);
      // The administrator's own subscription is untouched.
      const admins = await server.call('GET', '/users/me/subscriptions', { as: cast.admin });
      expect(
        admins.body.subscriptions.find((s: { stream_id: number }) => s.stream_id === secret),
      ).toMatchObject({ pin_to_top: false });
    });

    test('an unknown property', async () => {
      for (const encoding of ['form', 'json'] as const)
        expectRefusal(
          await patch(single, { property: 'volume', value: true }, encoding),
          'Unknown subscription property: volume',
        );
    });

    test('a value of the wrong type', async () => {
      const before = await mySubscription(single);
      const cases: [Record<string, unknown>, 'form' | 'json', string][] = [
        [{ property: 'pin_to_top', value: 'yes' }, 'form', 'pin_to_top is not a boolean'],
        [{ property: 'pin_to_top', value: 'true' }, 'json', 'pin_to_top is not a boolean'],
        [{ property: 'is_muted', value: '#ffffff' }, 'form', 'is_muted is not a boolean'],
        [{ property: 'color', value: 'blue' }, 'form', 'color is not a valid hex color code'],
        [{ property: 'color', value: 'true' }, 'form', 'color is not a valid hex color code'],
        [{ property: 'color', value: true }, 'json', 'color is not a valid hex color code'],
        [{ property: 'color', value: '#12345g' }, 'json', 'color is not a valid hex color code'],
      ];
      for (const [params, encoding, msg] of cases)
        expectRefusal(await patch(single, params, encoding), msg);
      expect(await mySubscription(single)).toEqual(before);
    });

    test('property and value are required', async () => {
      expectRefusal(
        await patch(single, { value: true }),
        "Missing 'property' argument",
        'REQUEST_VARIABLE_MISSING',
        { var_name: 'property' },
      );
      expectRefusal(
        await patch(single, { property: 'pin_to_top' }, 'json'),
        "Missing 'value' argument",
        'REQUEST_VARIABLE_MISSING',
        { var_name: 'value' },
      );
    });
  });
});
