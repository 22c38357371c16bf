// Incoming webhooks through HTTP: POST /external/json (the generic JSON
// integration), its credentials (an API key in the query string, or HTTP
// basic), where its messages go, the notice to a bot's owner about a channel
// that does not exist, its refusals, and the rule that incoming webhook bots
// may only send messages.
import type { User } from '../generated/prisma/sqlite/client';
import { TestServer, type Cast, type Reply } from './support/server';
import {
  eventsOf,
  expectError,
  fetchNarrow,
  register,
  sendToChannel,
  subscribe,
} from './streams-fixtures';

let server: TestServer;
let cast: Cast;
/** The member's incoming webhook bot. */
let hook: { id: number; email: string; apiKey: string };

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
  await subscribe(server, cast.member, ['builds']);
  const res = await server.call('POST', '/bots', {
    as: cast.member,
    params: { full_name: 'Build Hook', short_name: 'buildhook', bot_type: 2 },
  });
  expect(res.status).toBe(200);
  hook = { id: res.body.user_id, email: 'buildhook-bot@chat.test', apiKey: res.body.api_key };
});
afterAll(() => server.stop());

const payload = { build: 1042, status: 'passed', artifacts: ['logo.svg'], nested: { ok: true } };
const expectedContent = [
  '```json',
  '{',
  '  "build": 1042,',
  '  "status": "passed",',
  '  "artifacts": [',
  '    "logo.svg"',
  '  ],',
  '  "nested": {',
  '    "ok": true',
  '  }',
  '}',
  '```',
].join('\n');

/** Posts `body` (JSON) to the JSON webhook with the given query string. */
function post(query: Record<string, string>, body: unknown = payload, as?: User): Promise<Reply> {
  const search = new URLSearchParams(query).toString();
  return server.call('POST', `/external/json${search ? `?${search}` : ''}`, {
    ...(as ? { as } : {}),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The newest message `as` can see in a narrow. */
async function newest(as: User, narrow: unknown[]) {
  const { messages } = await fetchNarrow(server, as, narrow);
  return messages[messages.length - 1];
}

describe('posting', () => {
  test('to a channel by name, in topic JSON, as the bot and its client', async () => {
    const res = await post({ api_key: hook.apiKey, stream: 'builds' });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const message = await newest(cast.member, [{ operator: 'channel', operand: 'builds' }]);
    expect(message).toMatchObject({
      sender_id: hook.id,
      subject: 'JSON',
      client: 'ZulipJSONWebhook',
      type: 'stream',
    });
    const raw = await server.call('GET', `/messages/${message.id}`, {
      as: cast.member,
      params: { apply_markdown: false },
    });
    expect(raw.body.message.content).toBe(expectedContent);
  });

  test('to a channel by ID, in the topic the URL names, with HTTP basic credentials', async () => {
    const channels = await server.call('GET', '/streams', { as: cast.member });
    const id = channels.body.streams.find((s: { name: string }) => s.name === 'builds').stream_id;
    const res = await post({ stream: String(id), topic: 'nightly' }, { n: 1 }, {
      email: hook.email,
      apiKey: hook.apiKey,
    } as User);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const message = await newest(cast.member, [{ operator: 'channel', operand: 'builds' }]);
    expect(message).toMatchObject({ sender_id: hook.id, subject: 'nightly' });
  });

  test("without a channel, a direct message to the bot's owner", async () => {
    const res = await post({ api_key: hook.apiKey }, { alert: 'disk full' });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const message = await newest(cast.member, [{ operator: 'dm', operand: [hook.id] }]);
    expect(message).toMatchObject({ sender_id: hook.id, type: 'private' });
    expect(message.display_recipient.map((r: { id: number }) => r.id).sort()).toEqual(
      [cast.member.id, hook.id].sort((a, b) => a - b),
    );
  });

  test('a human may post too; without a channel, to themselves', async () => {
    const res = await post({}, { note: 1 }, cast.member2);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const message = await newest(cast.member2, [{ operator: 'is', operand: 'dm' }]);
    expect(message).toMatchObject({ sender_id: cast.member2.id, client: 'ZulipJSONWebhook' });
  });

  test('text outside ASCII is escaped as Python does; empty containers stay on one line', async () => {
    await post(
      { api_key: hook.apiKey, stream: 'builds', topic: 'unicode' },
      {
        name: 'café ☕ 😀',
        list: [],
        map: {},
        n: null,
      },
    );
    const message = await newest(cast.member, [
      { operator: 'channel', operand: 'builds' },
      { operator: 'topic', operand: 'unicode' },
    ]);
    const raw = await server.call('GET', `/messages/${message.id}`, {
      as: cast.member,
      params: { apply_markdown: false },
    });
    expect(raw.body.message.content).toBe(
      [
        '```json',
        '{',
        '  "name": "caf\\u00e9 \\u2615 \\ud83d\\ude00",',
        '  "list": [],',
        '  "map": {},',
        '  "n": null',
        '}',
        '```',
      ].join('\n'),
    );
  });

  test('subscribers get the message event', async () => {
    const queue = await register(server, cast.member, { event_types: ['message'] });
    await post({ api_key: hook.apiKey, stream: 'builds', topic: 'events' });
    const events = await eventsOf(server, cast.member, queue.queue_id);
    expect(events).toHaveLength(1);
    expect(events[0].message).toMatchObject({
      sender_id: hook.id,
      subject: 'events',
      client: 'ZulipJSONWebhook',
    });
  });
});

describe('a channel that does not exist', () => {
  test('succeeds, and tells the owner once in five minutes', async () => {
    const before = await fetchNarrow(server, cast.member, [{ operator: 'dm', operand: [hook.id] }]);
    const res = await post({ api_key: hook.apiKey, stream: 'deploys' });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const notice = await newest(cast.member, [{ operator: 'dm', operand: [hook.id] }]);
    expect(notice.id).not.toBe(before.messages[before.messages.length - 1]?.id);
    const raw = await server.call('GET', `/messages/${notice.id}`, {
      as: cast.member,
      params: { apply_markdown: false },
    });
    expect(raw.body.message.content).toBe(
      'Your bot `buildhook-bot@chat.test` tried to post to the channel #**deploys**, which does not exist. You can [create it](#channels/new), or change the address the integration posts to.',
    );
    // A second failure within five minutes sends nothing more.
    expect((await post({ api_key: hook.apiKey, stream: '999999' })).body.result).toBe('success');
    const after = await newest(cast.member, [{ operator: 'dm', operand: [hook.id] }]);
    expect(after.id).toBe(notice.id);
    // Five minutes later, the owner hears of the channel ID.
    await server.services.db.write((tx) =>
      tx.user.update({
        where: { id: hook.id },
        data: { botOwnerNoticeAt: new Date(Date.now() - 6 * 60 * 1000) },
      }),
    );
    await post({ api_key: hook.apiKey, stream: '999999' });
    const later = await newest(cast.member, [{ operator: 'dm', operand: [hook.id] }]);
    const laterRaw = await server.call('GET', `/messages/${later.id}`, {
      as: cast.member,
      params: { apply_markdown: false },
    });
    expect(laterRaw.body.message.content).toBe(
      'Your bot `buildhook-bot@chat.test` tried to post to the channel with ID 999999, but no channel has that ID.',
    );
  });
});

describe('refusals', () => {
  test('a channel the bot may not post in', async () => {
    await subscribe(server, cast.admin, ['secret plans'], { invite_only: true });
    const res = await post({ api_key: hook.apiKey, stream: 'secret plans' });
    expectError(res, 400, 'BAD_REQUEST', "Not authorized to send to channel 'secret plans'");
  });

  test('credentials: none, a malformed key, an unknown key, a deactivated bot', async () => {
    expectError(await post({}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'api_key' argument", {
      var_name: 'api_key',
    });
    expectError(await post({ api_key: 'short' }), 401, 'UNAUTHORIZED', 'Malformed API key');
    expectError(
      await post({ api_key: 'Zq8sV2pWcD4kLm9tRb7yXe3uNh6jFa1g' }),
      401,
      'UNAUTHORIZED',
      'Invalid API key',
    );
    const res = await server.call('POST', '/bots', {
      as: cast.member,
      params: { full_name: 'Gone Hook', short_name: 'gonehook', bot_type: 2 },
    });
    await server.ok('DELETE', `/bots/${res.body.user_id}`, { as: cast.member });
    expectError(
      await post({ api_key: res.body.api_key, stream: 'builds' }),
      401,
      'UNAUTHORIZED',
      'Account is deactivated',
    );
  });

  test('bodies that are not a JSON object', async () => {
    const send = (body: string, type = 'application/json') =>
      server.call('POST', `/external/json?api_key=${hook.apiKey}&stream=builds`, {
        headers: { 'content-type': type },
        body,
      });
    expectError(await send('{"a":'), 400, 'BAD_REQUEST', 'Malformed JSON in the request body');
    expectError(await send('[1, 2]'), 400, 'BAD_REQUEST', 'A JSON request body must be an object');
    expectError(
      await server.call('POST', `/external/json?api_key=${hook.apiKey}`, {}),
      400,
      'BAD_REQUEST',
      'Malformed JSON in the request body',
    );
    expectError(
      await send('a=1', 'application/x-www-form-urlencoded'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Type application/x-www-form-urlencoded is not supported here; send application/json',
    );
  });

  test('the payload is not read as parameters, and the key is not a parameter either', async () => {
    const res = await post({ api_key: hook.apiKey, stream: 'builds' }, { topic: 'x', to: 1 });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const message = await newest(cast.member, [{ operator: 'channel', operand: 'builds' }]);
    expect(message.subject).toBe('JSON');
  });
});

describe('incoming webhook bots may only send messages', () => {
  const asHook = () => ({ email: hook.email, apiKey: hook.apiKey }) as User;

  test('reading is refused with 401', async () => {
    for (const [method, path] of [
      ['GET', '/users/me'],
      ['GET', '/messages'],
      ['POST', '/register'],
    ] as const) {
      const res = await server.call(method, path, { as: asHook() });
      expectError(res, 401, 'UNAUTHORIZED', 'This API is not available to incoming webhook bots.');
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
    }
  });

  test('sending a message is allowed', async () => {
    const id = await sendToChannel(server, asHook(), 'builds', 'manual', 'Posted by hand');
    expect(id).toEqual(expect.any(Number));
  });

  test('other bots are not restricted', async () => {
    const res = await server.call('POST', '/bots', {
      as: cast.member,
      params: { full_name: 'Generic', short_name: 'generic' },
    });
    const me = await server.call('GET', '/users/me', {
      as: { email: 'generic-bot@chat.test', apiKey: res.body.api_key } as User,
    });
    expect(me.status).toBe(200);
  });
});
