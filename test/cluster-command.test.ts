// `npm run cluster` (src/cluster.ts): refuses a configuration its processes
// cannot share; on PostgreSQL and Redis it migrates once, serves from N worker
// processes behind one port (an event registered through one reaches a poll
// answered by any), and on SIGTERM stops every worker before exiting.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createTestDatabase, type TestDatabase } from './support/database';
import { dropRedisKeys, newKeyPrefix, testRedisUrl, usesRedis } from './support/redis';
import { ApiClient, TestServer, type Cast } from './support/server';
import { waitFor } from './support/wait';

const root = resolve(__dirname, '..');

/** Starts src/cluster.ts with `env` and `args`; its log lines go to `lines`. */
function startCluster(env: Record<string, string>, args: string[] = []) {
  const child = spawn(
    process.execPath,
    ['-r', resolve(root, 'test/support/ts-register.js'), resolve(root, 'src/cluster.ts'), ...args],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: Record<string, any>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line));
    } catch {
      // not a log line
    }
  });
  const exited = new Promise<number | string>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')),
  );
  return { child, lines, exited, stderr: () => stderr };
}

test('refuses SQLite, and PostgreSQL without Redis, with the reason', async () => {
  const sqlite = startCluster({ DATABASE_URL: 'file:/tmp/never-created.db' });
  expect(await sqlite.exited).toBe(2);
  expect(sqlite.stderr()).toBe(
    'npm run cluster needs DATABASE_URL=postgresql://...: the processes share one database, and a SQLite file belongs to one process\n',
  );
  const noRedis = startCluster({ DATABASE_URL: 'postgresql://chat@127.0.0.1:1/chat' });
  expect(await noRedis.exited).toBe(2);
  expect(noRedis.stderr()).toBe(
    'npm run cluster needs REDIS_URL=redis://...: the processes share event queues, rate limits and cache drops through Redis\n',
  );
  const badCount = startCluster({ DATABASE_URL: 'postgresql://chat@127.0.0.1:1/chat' }, [
    '--workers',
    'none',
  ]);
  expect(await badCount.exited).toBe(2);
  expect(badCount.stderr()).toBe(
    'configuration error: --workers must be a whole number of at least 1, not "none"\n',
  );
});

/** The status of a GET of `path` on a connection of its own. */
function statusOnNewConnection(path: string, authorization: string): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(
      `${client.url}${path}`,
      { headers: { authorization }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end();
  });
}

let client: ApiClient;

(usesRedis() ? describe : describe.skip)('on PostgreSQL and Redis', () => {
  let database: TestDatabase;
  let prefix: string;
  let cluster: ReturnType<typeof startCluster>;

  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
    prefix = newKeyPrefix();
    cluster = startCluster(
      {
        DATABASE_URL: database.url,
        REDIS_URL: testRedisUrl(),
        REDIS_KEY_PREFIX: prefix,
        EVENT_HEARTBEAT_SECONDS: '1',
        EXTERNAL_URL: 'http://chat.test',
      },
      ['--workers', '2'],
    );
    await waitFor(
      'the cluster to log "cluster listening"',
      () => cluster.lines.some((l) => l.msg === 'cluster listening'),
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; its stderr: ${cluster.stderr()}`);
    });
    const url = cluster.lines.find((l) => l.msg === 'cluster listening')!.url as string;
    client = new ApiClient(url.replace(/\/api\/v1$/, ''));
  }, 70_000);
  afterAll(async () => {
    if (cluster.child.exitCode === null) cluster.child.kill('SIGKILL');
    await database?.drop();
    await dropRedisKeys(testRedisUrl(), prefix);
  });

  test('migrates once, serves from two workers on one port, and stops them all on SIGTERM', async () => {
    expect(cluster.lines.filter((l) => l.msg === 'database migrated')).toHaveLength(1);
    const { workers } = cluster.lines.find((l) => l.msg === 'cluster listening')!;
    expect(workers).toHaveLength(2);

    // The cast is made through a server of this test on the same database.
    const helper = await TestServer.startOn(database, {
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: prefix,
    });
    let cast: Cast;
    try {
      cast = await helper.createCast();
    } finally {
      await helper.stop();
    }

    const registered = await client.call('POST', '/register', {
      as: cast.member,
      params: { event_types: ['message'] },
    });
    expect(registered.status).toBe(200);
    const sent = await client.call('POST', '/messages', {
      as: cast.owner,
      params: {
        type: 'direct',
        to: JSON.stringify([cast.member.id]),
        content: 'through the cluster',
      },
    });
    expect(sent.status).toBe(200);
    const polled = await client.call('GET', '/events', {
      as: cast.member,
      params: { queue_id: registered.body.queue_id, last_event_id: -1 },
    });
    expect(polled.body.events).toEqual([
      expect.objectContaining({
        type: 'message',
        message: expect.objectContaining({ id: sent.body.id }),
      }),
    ]);
    // Connections spread over both workers: each logs the requests it answers.
    const authorization = `Basic ${Buffer.from(`${cast.member.email}:${cast.member.apiKey}`).toString('base64')}`;
    for (let i = 0; i < 20; i++)
      expect(await statusOnNewConnection('/api/v1/users/me', authorization)).toBe(200);
    const answeredBy = new Set(
      cluster.lines
        .filter((l) => l.msg === 'request' && l.operation === 'get-own-user')
        .map((l) => l.pid),
    );
    expect(answeredBy.size).toBe(2);

    cluster.child.kill('SIGTERM');
    expect(await cluster.exited).toBe(0);
    for (const pid of workers as number[]) expect(() => process.kill(pid, 0)).toThrow();
    expect(cluster.lines.filter((l) => l.msg === 'stopped')).toHaveLength(2);
  }, 60_000);
});
