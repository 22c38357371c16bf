// What operators poll and read: GET /health, GET /ready (the database answers
// and every migration is applied), Prometheus metrics at GET /metrics, and one
// JSON log line per request, without credentials.
import { usesRedis } from './support/redis';
import { migrationNames } from '../src/db/migrate';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/log';
import { startServer } from '../src/server';
import { createTestDatabase } from './support/database';
import { sample } from './support/metrics';
import { TestServer, type Cast } from './support/server';
import { waitFor } from './support/wait';

let server: TestServer;
let cast: Cast;
const logLines: string[] = [];

beforeAll(async () => {
  server = await TestServer.start({ LOG_LEVEL: 'info' }, logLines);
  cast = await server.createCast();
});
afterAll(() => server.stop());

const provider = () => server.services.db.provider;

/** The log lines written since `from`, parsed. */
function logsSince(from: number): Record<string, unknown>[] {
  return logLines.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function metricsText(): Promise<string> {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return res.text();
}

describe('GET /health', () => {
  test('answers that the process is alive, without credentials', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${server.url}/health`, { method: 'HEAD' })).status).toBe(200);
  });

  test('other methods get a 405 naming GET and HEAD', async () => {
    const res = await fetch(`${server.url}/health`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await res.json()).toEqual({
      result: 'error',
      msg: 'Method Not Allowed',
      allowed_methods: ['GET', 'HEAD'],
    });
  });
});

describe('GET /ready', () => {
  const ledger = '"_prisma_migrations"';

  test('answers ready with the database and the number of migrations applied', async () => {
    const res = await fetch(`${server.url}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      database: provider(),
      migrations: migrationNames(provider()).length,
    });
  });

  test('is unavailable while a migration of this code is not applied', async () => {
    const last = migrationNames(provider()).at(-1)!;
    const from = logLines.length;
    await server.services.db.write((tx) =>
      tx.$executeRawUnsafe(
        `UPDATE ${ledger} SET rolled_back_at = finished_at WHERE migration_name = '${last}'`,
      ),
    );
    try {
      const res = await fetch(`${server.url}/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        status: 'unavailable',
        reason: `migrations not applied: ${last}`,
      });
      expect(logsSince(from)).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: 'not ready',
          reason: `migrations not applied: ${last}`,
        }),
      );
    } finally {
      await server.services.db.write((tx) =>
        tx.$executeRawUnsafe(
          `UPDATE ${ledger} SET rolled_back_at = NULL WHERE migration_name = '${last}'`,
        ),
      );
    }
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  });

  test('is unavailable when the database cannot be read, and logs why without answering it', async () => {
    const from = logLines.length;
    await server.services.db.write((tx) =>
      tx.$executeRawUnsafe(`ALTER TABLE ${ledger} RENAME TO "_ledger_aside"`),
    );
    try {
      const res = await fetch(`${server.url}/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        status: 'unavailable',
        reason: 'the database cannot be read',
      });
      const warning = logsSince(from).find((line) => line.msg === 'not ready');
      expect(warning).toMatchObject({ level: 'warn', reason: 'the database cannot be read' });
      expect(String(warning?.detail)).toMatch(/_prisma_migrations/);
    } finally {
      await server.services.db.write((tx) =>
        tx.$executeRawUnsafe(`ALTER TABLE "_ledger_aside" RENAME TO ${ledger}`),
      );
    }
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  });

  test('is unavailable when the database does not answer within two seconds', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    // A transaction holding the ledger: the SQLite connection itself, or an
    // exclusive lock on the PostgreSQL table.
    const holder = server.services.db.write(async (tx) => {
      if (provider() === 'postgresql')
        await tx.$executeRawUnsafe(`LOCK TABLE ${ledger} IN ACCESS EXCLUSIVE MODE`);
      locked();
      await held;
    });
    await lockTaken;
    try {
      const res = await fetch(`${server.url}/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        status: 'unavailable',
        reason: 'the database did not answer within 2000 ms',
      });
    } finally {
      release();
      await holder;
    }
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  });
});

describe('GET /metrics', () => {
  test('counts requests by operation and status, with their latency', async () => {
    const before = await metricsText();
    const count = (text: string, status: string) =>
      sample(text, 'chat_http_requests_total', { operation: 'get-own-user', status }) ?? 0;
    const observed = (text: string) =>
      sample(text, 'chat_http_request_duration_seconds_count', { operation: 'get-own-user' }) ?? 0;
    for (let i = 0; i < 3; i++) await server.call('GET', '/users/me', { as: cast.member });
    await server.call('GET', '/users/me', {
      as: { email: cast.member.email, apiKey: 'x'.repeat(32) },
    });
    await fetch(`${server.url}/api/v1/no/such/path`);
    const after = await metricsText();
    expect(count(after, '200') - count(before, '200')).toBe(3);
    expect(count(after, '401') - count(before, '401')).toBe(1);
    expect(observed(after) - observed(before)).toBe(4);
    expect(
      sample(after, 'chat_http_request_duration_seconds_bucket', {
        operation: 'get-own-user',
        le: '+Inf',
      }),
    ).toBe(observed(after));
    // Paths that match no operation share one label, whatever the path.
    expect(sample(after, 'chat_http_requests_total', { operation: 'none', status: '404' })).toBe(
      (sample(before, 'chat_http_requests_total', { operation: 'none', status: '404' }) ?? 0) + 1,
    );
    expect(after).not.toContain('/no/such/path');
  });

  test('shows the event queues, the events they hold and the polls waiting', async () => {
    const before = await metricsText();
    const queues = (text: string) => sample(text, 'chat_event_queues')!;
    const registered = await server.call('POST', '/register', {
      as: cast.member2,
      params: { event_types: ['message'] },
    });
    const queueId = registered.body.queue_id as string;
    const poll = server.call('GET', '/events', {
      as: cast.member2,
      params: { queue_id: queueId, last_event_id: -1 },
    });
    // The poll waits for an event or its heartbeat (one second in tests).
    await waitFor(
      'one poll parked (chat_event_polls_waiting 1)',
      async () => sample(await metricsText(), 'chat_event_polls_waiting') === 1,
    );
    const during = await metricsText();
    expect(queues(during)).toBe(queues(before) + 1);
    const events = (text: string) => sample(text, 'chat_event_queue_events')!;
    // With Redis, the events are the entries of the log every queue reads.
    if (!usesRedis()) expect(events(during)).toBe(0);
    await poll;
    const after = await metricsText();
    expect(sample(after, 'chat_event_polls_waiting')).toBe(0);
    // The heartbeat stays in the queue until the client acknowledges it (in the log, with Redis).
    expect(events(after)).toBe(events(during) + 1);
    await server.ok('DELETE', '/events', { as: cast.member2, params: { queue_id: queueId } });
    expect(queues(await metricsText())).toBe(queues(before));
  });

  test('adds up the calls to the database and the time they took', async () => {
    const before = await metricsText();
    await server.ok('POST', '/messages', {
      as: cast.member,
      params: { type: 'direct', to: [cast.member2.id], content: 'Counting database time' },
    });
    await server.ok('GET', '/users', { as: cast.member });
    const after = await metricsText();
    for (const kind of ['read', 'write']) {
      const calls = (text: string) => sample(text, 'chat_database_calls_total', { kind })!;
      const seconds = (text: string) => sample(text, 'chat_database_seconds_total', { kind })!;
      expect(calls(after)).toBeGreaterThan(calls(before));
      expect(seconds(after)).toBeGreaterThan(seconds(before));
    }
  });

  test('the server started by npm start adds the process metrics', async () => {
    const database = await createTestDatabase();
    const running = await startServer(
      loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', PORT: '0' }),
      createLogger('silent'),
      { lazy: true, processMetrics: true },
    );
    try {
      const text = await (await fetch(`${running.url}/metrics`)).text();
      expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'chat_event_queues')).toBe(0);
    } finally {
      await running.stop(0);
      await database.drop();
    }
  });
});

describe('request logs', () => {
  test('one JSON line per request at info, with its ID, operation, status and duration', async () => {
    const from = logLines.length;
    const res = await server.call('GET', '/users/me', { as: cast.member });
    const lines = logsSince(from);
    expect(lines).toEqual([
      {
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        level: 'info',
        msg: 'request',
        request_id: res.headers.get('x-request-id'),
        method: 'GET',
        path: '/api/v1/users/me',
        operation: 'get-own-user',
        status: 200,
        duration_ms: expect.any(Number),
        user_id: cast.member.id,
      },
    ]);
    expect(lines[0].duration_ms).toBeGreaterThan(0);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('names refusals, operator endpoints and files, and never writes credentials', async () => {
    const from = logLines.length;
    const password = 'password';
    const fetched = await server.call('POST', '/fetch_api_key', {
      params: { username: cast.member.email, password },
    });
    expect(fetched.status).toBe(200);
    await server.call('GET', '/users/me', {
      as: { email: cast.member.email, apiKey: 'A'.repeat(32) },
    });
    await server.ok('GET', '/users/me', {
      as: {
        authorization: `Basic ${Buffer.from(`${cast.member.email}:${cast.member.apiKey}`).toString('base64')}`,
      },
    });
    await fetch(`${server.url}/health`);
    await fetch(`${server.url}/user_uploads/1/ab/secret-token/file.txt`);
    const lines = logsSince(from);
    expect(lines.map((l) => [l.operation, l.status])).toEqual([
      ['fetch-api-key', 200],
      ['get-own-user', 401],
      ['get-own-user', 200],
      ['health', 200],
      ['user-uploads', 401],
    ]);
    const text = logLines.slice(from).join('');
    expect(text).not.toContain(cast.member.apiKey);
    expect(text).not.toContain(fetched.body.api_key);
    expect(text).not.toContain('A'.repeat(32));
    expect(text).not.toContain(`"${password}"`);
    expect(text).not.toContain('secret-token');
    expect(text).not.toMatch(/authorization/i);
  });

  test('an X-Request-Id from the client is used only behind a trusted proxy', async () => {
    const from = logLines.length;
    const mine = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'lb-1234' } });
    expect(mine.headers.get('x-request-id')).not.toBe('lb-1234');
    expect(logsSince(from)[0].request_id).toBe(mine.headers.get('x-request-id'));
    const proxied: string[] = [];
    await TestServer.using(
      { LOG_LEVEL: 'info', TRUST_PROXY: '1' },
      async (behindProxy) => {
        const res = await fetch(`${behindProxy.url}/health`, {
          headers: { 'x-request-id': 'lb-1234' },
        });
        expect(res.headers.get('x-request-id')).toBe('lb-1234');
        const odd = await fetch(`${behindProxy.url}/health`, {
          headers: { 'x-request-id': 'has spaces and "quotes"' },
        });
        expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      },
      proxied,
    );
    expect(proxied.map((l) => JSON.parse(l).request_id)).toContain('lb-1234');
  });

  test('LOG_LEVEL=warn writes no request lines', async () => {
    const quiet: string[] = [];
    await TestServer.using(
      { LOG_LEVEL: 'warn' },
      async (other) => {
        await fetch(`${other.url}/health`);
      },
      quiet,
    );
    expect(quiet.filter((l) => JSON.parse(l).msg === 'request')).toEqual([]);
  });
});
