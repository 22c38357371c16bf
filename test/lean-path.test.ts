// The lean path (src/http/lean.ts): GET and DELETE /api/v1/events without a
// body are answered outside Koa. What a client sees must not change: the
// same answers, refusals, headers, log line and metrics as the same
// operation through Koa (which still takes DELETE /events with a form body),
// and the same reading of a trusted proxy's headers.
import { expectRefusal, sendDirect } from './streams-fixtures';
import { TestServer, type Cast, type Reply } from './support/server';
import { parkedPolls, waitFor, waitForParkedPolls } from './support/wait';

let server: TestServer;
let cast: Cast;
const logLines: string[] = [];

beforeAll(async () => {
  server = await TestServer.start({ LOG_LEVEL: 'info' }, logLines);
  cast = await server.createCast();
});
afterAll(() => server.stop());

async function newQueue(as: Cast['member'] = cast.member): Promise<string> {
  const res = await server.call('POST', '/register', {
    as,
    params: { event_types: ['message'] },
  });
  expect(res.status).toBe(200);
  return res.body.queue_id;
}

/** The parts of an answer both front ends must agree on (the request ID differs by design). */
function comparable(res: Reply) {
  return {
    status: res.status,
    body: res.body,
    contentType: res.headers.get('content-type'),
    rateLimited: res.headers.has('x-ratelimit-remaining'),
    authenticate: res.headers.get('www-authenticate'),
    requestId: /^[0-9a-f-]{36}$/.test(res.headers.get('x-request-id') ?? ''),
  };
}

/** The request log lines written since `from`. */
function requestLines(from: number) {
  return logLines
    .slice(from)
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === 'request');
}

describe('the lean path for event queues', () => {
  test('a poll answers with the headers Koa gives every operation', async () => {
    const queueId = await newQueue();
    await sendDirect(server, cast.member2, [cast.member.id], 'lean');
    const res = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: 'success', msg: '', queue_id: queueId });
    expect(res.body.events).toEqual([
      expect.objectContaining({
        type: 'message',
        // Registered without apply_markdown: the raw Markdown.
        message: expect.objectContaining({ content: 'lean', content_type: 'text/x-markdown' }),
      }),
    ]);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(
      Number(res.headers.get('x-ratelimit-limit')),
    );
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
  });

  test('DELETE /events answers alike with the queue in the query string (lean) or a form body (Koa)', async () => {
    const viaQuery = await newQueue();
    const viaForm = await newQueue();
    const lean = await server.call('DELETE', '/events', {
      as: cast.member,
      params: { queue_id: viaQuery },
    });
    const koa = await server.call('DELETE', '/events', {
      as: cast.member,
      params: { queue_id: viaForm },
      encoding: 'form',
    });
    expect(comparable(lean)).toEqual(comparable(koa));
    expect(lean.body).toEqual({ result: 'success', msg: '' });
    // Both queues are gone.
    for (const queueId of [viaQuery, viaForm]) {
      const gone = await server.call('GET', '/events', {
        as: cast.member,
        params: { queue_id: queueId, last_event_id: -1, dont_block: true },
      });
      expectRefusal(gone, `Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', {
        queue_id: queueId,
      });
    }
  });

  test.each([
    ['an unknown queue', 'queue_id=no-such-queue', asMember],
    ['a missing queue_id', '', asMember],
    ['a queue_id sent twice', 'queue_id=a&queue_id=b', asMember],
    ['no credentials', 'queue_id=x', () => undefined],
    ['a wrong API key', 'queue_id=x', () => ({ email: cast.member.email, apiKey: 'k'.repeat(32) })],
  ])('refuses %s exactly as Koa does', async (_name, query, as) => {
    const path = `/events${query ? `?${query}` : ''}`;
    const lean = await server.send('DELETE', path, { as: as() });
    // A body, even an empty JSON object, sends the request through Koa.
    const koa = await server.send('DELETE', path, {
      as: as(),
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(lean.status).toBeGreaterThanOrEqual(400);
    expect(comparable(lean)).toEqual(comparable(koa));
  });

  test('an invalid last_event_id is a 400 naming it', async () => {
    const queueId = await newQueue();
    const res = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: 'soon' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    expect(res.body.msg).toContain('last_event_id');
  });

  test('each request writes one log line and counts in the metrics under its operation', async () => {
    const queueId = await newQueue();
    const count = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const match = text.match(
        /^chat_http_requests_total\{operation="get-events",status="200"\} (\d+)$/m,
      );
      return Number(match?.[1] ?? 0);
    };
    const before = await count();
    const from = logLines.length;
    const res = await server.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: queueId, last_event_id: -1, dont_block: true },
    });
    expect(res.status).toBe(200);
    expect(await count()).toBe(before + 1);
    const lines = requestLines(from).filter((l) => l.operation === 'get-events');
    expect(lines).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/api/v1/events',
        operation: 'get-events',
        status: 200,
        user_id: cast.member.id,
        request_id: res.headers.get('x-request-id'),
        duration_ms: expect.any(Number),
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(cast.member.apiKey);
  });

  test('a waiting poll whose client goes away is let go', async () => {
    const queueId = await newQueue(cast.member2);
    const parked = await parkedPolls(server);
    const controller = new AbortController();
    const auth = `Basic ${Buffer.from(`${cast.member2.email}:${cast.member2.apiKey}`).toString('base64')}`;
    const waiting = fetch(`${server.url}/api/v1/events?queue_id=${queueId}&last_event_id=-1`, {
      headers: { authorization: auth },
      signal: controller.signal,
    }).catch((error: Error) => error.name);
    await waitForParkedPolls(server, parked + 1);
    controller.abort();
    expect(await waiting).toBe('AbortError');
    await waitFor(
      'the aborted poll to be let go',
      async () => (await parkedPolls(server)) === parked,
    );
    // The queue still works: the next poll gets the message sent meanwhile.
    await sendDirect(server, cast.member, [cast.member2.id], 'after the abort');
    const next = await server.call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: -1 },
    });
    expect(next.body.events.map((e: { type: string }) => e.type)).toContain('message');
  });
});

describe('the lean path behind a trusted proxy', () => {
  test('reads X-Request-Id and X-Forwarded-Host as Koa does', async () => {
    await TestServer.using({ TRUST_PROXY: '1' }, async (proxied) => {
      const people = await proxied.createCast();
      const { owner } = await proxied.createRealm('Team', 'team');
      const queue = await proxied.call('POST', '/register', {
        as: owner,
        params: { event_types: ['message'] },
        headers: { host: 'team.chat.test' },
      });
      expect(queue.status).toBe(200);
      const poll = (headers: Record<string, string>, as = owner) =>
        proxied.call('GET', '/events', {
          as,
          params: { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true },
          headers,
        });
      // The proxy's host names the organization; the connection's Host does not.
      const forwarded = await poll({
        host: 'internal:8080',
        'x-forwarded-host': 'team.chat.test',
        'x-request-id': 'lb-77',
      });
      expect(forwarded.status).toBe(200);
      expect(forwarded.headers.get('x-request-id')).toBe('lb-77');
      const elsewhere = await poll({ host: 'team.chat.test', 'x-forwarded-host': 'chat.test' });
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.body.msg).toBe('Account is not associated with this subdomain');
      // Another user's queue is refused, whatever the host.
      const notTheirs = await poll({ host: 'chat.test' }, people.member);
      expect(notTheirs.status).toBe(400);
      expect(notTheirs.body.code).toBe('BAD_EVENT_QUEUE_ID');
    });
  });
});

function asMember() {
  return cast.member;
}
