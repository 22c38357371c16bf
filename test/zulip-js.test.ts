// Zulip's own JavaScript client (zulip-js) against this server: it logs in with
// a password (multipart POST without credentials), sends POST parameters as
// multipart, and GET, PATCH and DELETE parameters in the query string.
import zulipInit from 'zulip-js';
import { checkEvents, withoutIds } from './support/events';
import { TestServer, type Cast } from './support/server';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

test('logs in with a password and reads the own profile and server settings', async () => {
  const client = await zulipInit({
    username: cast.member.email,
    password: 'password',
    realm: server.url,
  });
  expect(client.config.apiKey).toBe(cast.member.apiKey);
  const me = await client.users.me.getProfile();
  expect(me).toMatchObject({
    result: 'success',
    user_id: cast.member.id,
    full_name: 'King Hamlet',
  });
  const settings = await client.server.settings();
  expect(settings).toMatchObject({
    result: 'success',
    zulip_feature_level: expect.any(Number),
    zulip_version: expect.any(String),
  });
});

test('registers a queue, receives an event, and deletes the queue', async () => {
  const client = await zulipInit({
    username: cast.member2.email,
    apiKey: cast.member2.apiKey,
    realm: server.url,
  });
  const queue = await client.queues.register({ event_types: ['user_settings'] });
  expect(queue).toMatchObject({
    result: 'success',
    queue_id: expect.any(String),
    last_event_id: -1,
  });

  const patched = await client.callEndpoint('/settings', 'PATCH', { enter_sends: true });
  expect(patched).toEqual({ result: 'success', msg: '' });

  const events = await client.events.retrieve({
    queue_id: queue.queue_id,
    last_event_id: -1,
    dont_block: true,
  });
  checkEvents(events.events);
  expect(withoutIds(events.events)).toEqual([
    { type: 'user_settings', op: 'update', property: 'enter_sends', value: true },
  ]);

  expect(await client.queues.deregister({ queue_id: queue.queue_id })).toEqual({
    result: 'success',
    msg: '',
  });
  const gone = await client.events.retrieve({ queue_id: queue.queue_id, dont_block: true });
  expect(gone).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID' });
});

test('after a wrong password the client holds no key, and the server refuses it', async () => {
  const client = await zulipInit({
    username: cast.member.email,
    password: 'nope',
    realm: server.url,
  });
  expect(client.config.apiKey).toBeUndefined();
  expect(await client.users.me.getProfile()).toEqual({
    result: 'error',
    msg: 'Malformed API key',
    code: 'UNAUTHORIZED',
  });
});
