// Bots through HTTP: creating each kind, listing, changing, regenerating the
// key and deactivating, who may, the realm_bot and realm_user events, bots'
// keys authenticating like users', and outgoing webhooks: the payload posted
// on a mention or a direct message, the answer posted back as the bot's reply,
// and the owner told when the endpoint fails.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { User } from '../generated/prisma/sqlite/client';
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
import { waitFor } from './support/wait';

let server: TestServer;
let cast: Cast;

beforeAll(async () => {
  ({ server, cast } = await TestServer.startWithCast());
});
afterAll(() => server.stop());

/** A bot's credentials, to call the API as the bot. */
function asBot(email: string, apiKey: string) {
  return { email, apiKey } as User;
}

async function createBot(as: User, params: Record<string, unknown>) {
  return server.call('POST', '/bots', { as, params });
}

async function created(as: User, params: Record<string, unknown>) {
  const res = await createBot(as, params);
  expect(res.status).toBe(200);
  return res.body as { user_id: number; api_key: string };
}

describe('creating and listing bots', () => {
  test('a member creates a generic bot that authenticates with its own key', async () => {
    const queue = await register(server, cast.admin, { event_types: ['realm_bot', 'realm_user'] });
    const ownerQueue = await register(server, cast.member, { event_types: ['realm_bot'] });
    const res = await createBot(cast.member, { full_name: 'Weather Bot', short_name: 'weather' });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      user_id: expect.any(Number),
      api_key: expect.stringMatching(/^\w{32}$/),
      avatar_url: expect.stringContaining('gravatar'),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    });
    const { user_id: botId, api_key: apiKey } = res.body;
    const email = 'weather-bot@chat.test';
    // The key works like a user's.
    const me = await server.call('GET', '/users/me', { as: asBot(email, apiKey) });
    expect(me.body).toMatchObject({ user_id: botId, is_bot: true, full_name: 'Weather Bot' });
    // Everyone hears of the new user; the owner and administrators of the bot.
    const adminEvents = await eventsOf(server, cast.admin, queue.queue_id);
    expect(adminEvents.find((e) => e.type === 'realm_user')?.person).toMatchObject({
      user_id: botId,
      is_bot: true,
      bot_type: 1,
      bot_owner_id: cast.member.id,
    });
    const bot = {
      user_id: botId,
      email,
      full_name: 'Weather Bot',
      bot_type: 1,
      is_active: true,
      api_key: apiKey,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      avatar_url: expect.any(String),
      owner_id: cast.member.id,
      services: [],
    };
    expect(adminEvents.find((e) => e.type === 'realm_bot')).toEqual({
      type: 'realm_bot',
      op: 'add',
      bot,
      id: expect.any(Number),
    });
    expect((await eventsOf(server, cast.member, ownerQueue.queue_id))[0]).toMatchObject({
      op: 'add',
      bot: { user_id: botId },
    });
    // The register state of the owner lists it.
    const state = await register(server, cast.member, { fetch_event_types: ['realm_bot'] });
    expect(state.realm_bots).toContainEqual(bot);
    // GET /bots lists the owner's bots only.
    const mine = await server.call('GET', '/bots', { as: cast.member });
    expect(mine.body.bots).toEqual([
      {
        username: email,
        full_name: 'Weather Bot',
        api_key: apiKey,
        avatar_url: expect.any(String),
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
      },
    ]);
    expect((await server.call('GET', '/bots', { as: cast.member2 })).body.bots).toEqual([]);
  });

  test('default channels are stored by name and given back', async () => {
    await subscribe(server, cast.member, ['bot defaults']);
    const body = await created(cast.member, {
      full_name: 'Defaults Bot',
      short_name: 'defaults',
      default_sending_stream: 'bot defaults',
      default_events_register_stream: 'bot defaults',
      default_all_public_streams: true,
    });
    const mine = await server.call('GET', '/bots', { as: cast.member });
    expect(mine.body.bots.find((b: any) => b.api_key === body.api_key)).toMatchObject({
      default_sending_stream: 'bot defaults',
      default_events_register_stream: 'bot defaults',
      default_all_public_streams: true,
    });
  });

  test.each([
    [{ full_name: 'X Bot', short_name: '  ' }, 'Bad name or username'],
    [{ full_name: 'X Bot', short_name: 'no spaces' }, 'Bad name or username'],
    [{ full_name: '', short_name: 'empty' }, 'Name too short!'],
    [{ full_name: 'x'.repeat(101), short_name: 'long' }, 'Name too long!'],
    [{ full_name: 'Weather Bot', short_name: 'weather2' }, 'Name is already in use!'],
    [{ full_name: 'Another', short_name: 'weather' }, 'Username already in use'],
    [{ full_name: 'Typed', short_name: 'typed', bot_type: 4 }, 'Invalid bot type'],
    [{ full_name: 'Typed', short_name: 'typed', bot_type: 9 }, 'Invalid bot type'],
    [
      {
        full_name: 'Iface',
        short_name: 'iface',
        bot_type: 3,
        payload_url: 'https://example.com',
        interface_type: 7,
      },
      'Invalid interface type',
    ],
    [{ full_name: 'Hook', short_name: 'hook', bot_type: 3 }, 'Enter a valid URL.'],
    [
      { full_name: 'Hook', short_name: 'hook', bot_type: 3, payload_url: 'ftp://x.example' },
      'Enter a valid URL.',
    ],
    [
      { full_name: 'Chan', short_name: 'chan', default_sending_stream: 'no such' },
      "Invalid channel name 'no such'",
    ],
  ])('refuses %j: %s', async (params, msg) => {
    expectError(await createBot(cast.member, params), 400, 'BAD_REQUEST', msg);
  });

  test('guests may not create or list bots', async () => {
    expectError(
      await createBot(cast.guest, { full_name: 'Guest Bot', short_name: 'guest' }),
      400,
      'BAD_REQUEST',
      'Not allowed for guest users',
    );
    expectError(
      await server.call('GET', '/bots', { as: cast.guest }),
      400,
      'BAD_REQUEST',
      'Not allowed for guest users',
    );
  });
});

describe('administering a bot', () => {
  let bot: { user_id: number; api_key: string };
  const email = 'admin-target-bot@chat.test';

  beforeAll(async () => {
    bot = await created(cast.member, { full_name: 'Target Bot', short_name: 'admin-target' });
  });

  test('the owner renames it; everyone hears the new name', async () => {
    const queue = await register(server, cast.member2, { event_types: ['realm_user'] });
    const ownerQueue = await register(server, cast.member, { event_types: ['realm_bot'] });
    const res = await server.call('PATCH', `/bots/${bot.user_id}`, {
      as: cast.member,
      params: { full_name: 'Renamed Bot' },
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      full_name: 'Renamed Bot',
      avatar_url: expect.any(String),
      service_interface: 1,
      service_payload_url: null,
      config_data: null,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      bot_owner: cast.member.email,
    });
    expect(await eventsOf(server, cast.member2, queue.queue_id)).toEqual([
      {
        type: 'realm_user',
        op: 'update',
        person: { user_id: bot.user_id, full_name: 'Renamed Bot' },
        id: expect.any(Number),
      },
    ]);
    expect(await eventsOf(server, cast.member, ownerQueue.queue_id)).toEqual([
      {
        type: 'realm_bot',
        op: 'update',
        bot: { user_id: bot.user_id, full_name: 'Renamed Bot' },
        id: expect.any(Number),
      },
    ]);
  });

  test('others may not touch it; administrators may', async () => {
    for (const [method, path] of [
      ['PATCH', `/bots/${bot.user_id}`],
      ['POST', `/bots/${bot.user_id}/api_key/regenerate`],
      ['DELETE', `/bots/${bot.user_id}`],
    ])
      expectError(
        await server.call(method, path, { as: cast.member2, params: {} }),
        400,
        'BAD_REQUEST',
        'Insufficient permission',
      );
    const res = await server.call('PATCH', `/bots/${bot.user_id}`, {
      as: cast.admin,
      params: { default_all_public_streams: true },
    });
    expect(res.body.default_all_public_streams).toBe(true);
    // IDs of humans, or of nothing, name no bot.
    expectError(
      await server.call('PATCH', `/bots/${cast.member2.id}`, { as: cast.admin, params: {} }),
      400,
      'BAD_REQUEST',
      'No such bot',
    );
    expectError(
      await server.call('DELETE', '/bots/99999', { as: cast.admin }),
      400,
      'BAD_REQUEST',
      'No such bot',
    );
  });

  test('changing hands: the new owner gains the bot, the previous one loses it', async () => {
    const oldOwner = await register(server, cast.member, { event_types: ['realm_bot'] });
    const newOwner = await register(server, cast.member2, { event_types: ['realm_bot'] });
    for (const [owner, msg] of [
      [99999, 'Failed to change owner, no such user'],
      [bot.user_id, "Failed to change owner, bots can't own other bots"],
    ] as const)
      expectError(
        await server.call('PATCH', `/bots/${bot.user_id}`, {
          as: cast.member,
          params: { bot_owner_id: owner },
        }),
        400,
        'BAD_REQUEST',
        msg,
      );
    const res = await server.call('PATCH', `/bots/${bot.user_id}`, {
      as: cast.member,
      params: { bot_owner_id: cast.member2.id },
    });
    expect(res.body.bot_owner).toBe(cast.member2.email);
    const lost = await eventsOf(server, cast.member, oldOwner.queue_id);
    expect(lost).toContainEqual({
      type: 'realm_bot',
      op: 'delete',
      bot: { user_id: bot.user_id },
      id: expect.any(Number),
    });
    const gained = await eventsOf(server, cast.member2, newOwner.queue_id);
    expect(gained).toContainEqual(
      expect.objectContaining({
        op: 'add',
        bot: expect.objectContaining({ owner_id: cast.member2.id }),
      }),
    );
    // Now the new owner administers it, and the previous one cannot.
    expectError(
      await server.call('PATCH', `/bots/${bot.user_id}`, { as: cast.member, params: {} }),
      400,
      'BAD_REQUEST',
      'Insufficient permission',
    );
  });

  test('a new key replaces the old one at once', async () => {
    const res = await server.call('POST', `/bots/${bot.user_id}/api_key/regenerate`, {
      as: cast.member2,
    });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      api_key: expect.stringMatching(/^\w{32}$/),
    });
    expect(res.body.api_key).not.toBe(bot.api_key);
    const old = await server.call('GET', '/users/me', { as: asBot(email, bot.api_key) });
    expect(old.status).toBe(401);
    const fresh = await server.call('GET', '/users/me', { as: asBot(email, res.body.api_key) });
    expect(fresh.body.user_id).toBe(bot.user_id);
    bot.api_key = res.body.api_key;
  });

  test('deactivating stops its key; reactivating gives it back', async () => {
    const queue = await register(server, cast.admin, { event_types: ['realm_bot'] });
    const res = await server.call('DELETE', `/bots/${bot.user_id}`, { as: cast.member2 });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect((await server.call('GET', '/users/me', { as: asBot(email, bot.api_key) })).status).toBe(
      401,
    );
    expect(await eventsOf(server, cast.admin, queue.queue_id)).toContainEqual({
      type: 'realm_bot',
      op: 'update',
      bot: { user_id: bot.user_id, is_active: false },
      id: expect.any(Number),
    });
    expect((await server.call('GET', '/bots', { as: cast.member2 })).body.bots).toEqual([]);
    await server.ok('POST', `/users/${bot.user_id}/reactivate`, { as: cast.admin });
    const back = await server.call('GET', '/users/me', { as: asBot(email, bot.api_key) });
    expect(back.body.user_id).toBe(bot.user_id);
  });
});

/** A local endpoint that records what it is posted and answers as told. */
class Endpoint {
  requests: { type: string; body: string }[] = [];
  answer: (body: string) => { status: number; json?: unknown } = () => ({ status: 200, json: {} });
  private server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      this.requests.push({ type: req.headers['content-type'] ?? '', body });
      const { status, json } = this.answer(body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(json === undefined ? '' : JSON.stringify(json));
    });
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  stop() {
    return new Promise((resolve) => this.server.close(resolve));
  }
}

/** Waits until `check` finds something, failing after the bounded wait naming `state`. */
function eventually<T>(
  check: () => Promise<T | undefined>,
  state = 'the outgoing webhook call or its reply',
): Promise<NonNullable<T>> {
  return waitFor(state, check);
}

/**
 * Sends a message that calls the bot and waits for the endpoint to receive
 * it: calls are made in the order messages are sent, so a call that an
 * earlier message made would have been received by then.
 */
async function callMarker(
  server: TestServer,
  endpoint: { requests: { body: string }[] },
  sender: Cast['member'],
): Promise<number> {
  const id = await sendToChannel(server, sender, 'webhooks', 'marker', '@**Echo Bot** marker');
  await eventually(
    async () => endpoint.requests.find((r) => JSON.parse(r.body).message.id === id),
    'the call about the marker message',
  );
  return id;
}

describe('outgoing webhooks', () => {
  const endpoint = new Endpoint();
  let url: string;
  let bot: { user_id: number; api_key: string };
  let token: string;

  beforeAll(async () => {
    url = await endpoint.start();
    bot = await created(cast.member, {
      full_name: 'Echo Bot',
      short_name: 'echo',
      bot_type: 3,
      payload_url: url,
    });
    const state = await register(server, cast.member, { fetch_event_types: ['realm_bot'] });
    const mine = state.realm_bots.find((b: any) => b.user_id === bot.user_id);
    expect(mine.services).toEqual([{ base_url: url, interface: 1, token: expect.any(String) }]);
    token = mine.services[0].token;
    await subscribe(server, cast.member, ['webhooks'], {
      principals: [cast.member.id, bot.user_id],
    });
  });
  afterAll(() => endpoint.stop());
  beforeEach(() => {
    endpoint.requests = [];
  });

  test('a mention posts Zulip’s payload, and the answer comes back as the bot’s reply', async () => {
    endpoint.answer = (body) => ({
      status: 200,
      json: { content: `echo: ${JSON.parse(body).data}` },
    });
    const id = await sendToChannel(server, cast.member, 'webhooks', 'pings', '@**Echo Bot** hello');
    const request = await eventually(async () => endpoint.requests[0]);
    expect(request.type).toBe('application/json');
    const payload = JSON.parse(request.body);
    expect(payload).toEqual({
      bot_email: 'echo-bot@chat.test',
      bot_full_name: 'Echo Bot',
      data: '@**Echo Bot** hello',
      token,
      trigger: 'mention',
      message: expect.objectContaining({
        id,
        content: '@**Echo Bot** hello',
        rendered_content: expect.stringContaining('user-mention'),
        sender_id: cast.member.id,
        type: 'stream',
        display_recipient: 'webhooks',
        subject: 'pings',
      }),
    });
    const reply = await eventually(async () => {
      const found = (
        await fetchNarrow(server, cast.member, [{ operator: 'topic', operand: 'pings' }])
      ).messages.find((m: any) => m.sender_id === bot.user_id);
      return found;
    });
    expect(reply).toMatchObject({
      content: `<p>echo: <span class="user-mention" data-user-id="${bot.user_id}">@Echo Bot</span> hello</p>`,
      client: 'OutgoingWebhookResponse',
    });
    // The reply mentions the bot, but a bot's own messages call nobody: the
    // next call is the marker's.
    endpoint.answer = () => ({ status: 200, json: { response_not_required: true } });
    const marker = await callMarker(server, endpoint, cast.member);
    expect(endpoint.requests.map((r) => JSON.parse(r.body).message.id)).toEqual([id, marker]);
  });

  test('a direct message triggers it too; response_not_required sends nothing', async () => {
    endpoint.answer = () => ({ status: 200, json: { response_not_required: true, content: 'no' } });
    await sendDirect(server, cast.member, [bot.user_id], 'are you there?');
    const request = await eventually(async () => endpoint.requests[0]);
    expect(JSON.parse(request.body).trigger).toBe('direct_message');
    // A later call whose answer is a reply: once that reply is there, any
    // reply to the first would be too.
    endpoint.answer = () => ({ status: 200, json: { content: 'later' } });
    await sendDirect(server, cast.member, [bot.user_id], 'and now?');
    await eventually(
      async () =>
        (
          await fetchNarrow(server, cast.member, [{ operator: 'dm', operand: [bot.user_id] }])
        ).messages.find((m: any) => m.sender_id === bot.user_id),
      "the bot's reply to the later message",
    );
    const dms = await fetchNarrow(server, cast.member, [
      { operator: 'dm', operand: [bot.user_id] },
    ]);
    expect(dms.messages.map((m: any) => m.sender_id)).toEqual([
      cast.member.id,
      cast.member.id,
      bot.user_id,
    ]);
  });

  test('messages that neither mention nor address the bot call nothing', async () => {
    await sendToChannel(server, cast.member, 'webhooks', 'quiet', 'just talking about Echo Bot');
    endpoint.answer = () => ({ status: 200, json: { response_not_required: true } });
    const marker = await callMarker(server, endpoint, cast.member);
    expect(endpoint.requests.map((r) => JSON.parse(r.body).message.id)).toEqual([marker]);
  });

  test('a failing endpoint is tried three times, then the owner is told', async () => {
    endpoint.answer = () => ({ status: 503 });
    await sendToChannel(server, cast.member, 'webhooks', 'failing', '@**Echo Bot** fail please');
    // The bot's earlier replies share the conversation: wait for the notice itself.
    const notice = await eventually(async () =>
      (
        await fetchNarrow(server, cast.member, [{ operator: 'dm', operand: [bot.user_id] }])
      ).messages.find(
        (m: any) => m.sender_id === bot.user_id && m.content.includes('status code 503'),
      ),
    );
    expect(endpoint.requests).toHaveLength(3);
    expect(notice.content).toContain('status code 503');
  });
});
