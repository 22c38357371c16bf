// A worker of `npm run cluster` (src/cluster.ts) killed with SIGKILL during
// 800 sends: the primary starts another, the surviving worker keeps
// serving, and only the requests the dead worker held go unanswered (no 500);
// every acknowledged message is in the database and reached every polled
// queue, or that queue answers BAD_EVENT_QUEUE_ID. (A message the dead worker
// committed without answering may miss its events: the queues are then
// dropped for it, which test/cluster-crash.test.ts checks.) And a worker
// killed while new connections come leaves none of them open unanswered.
// Runs on the PostgreSQL run when TEST_REDIS_URL is set.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createTestDatabase, type TestDatabase } from './support/database';
import { FaultDrill, storedMessageIds } from './support/faults';
import { waitFor } from './support/wait';
import { dropRedisKeys, newKeyPrefix, testRedisUrl, usesRedis } from './support/redis';
import { ApiClient, TestServer, type Cast } from './support/server';

const root = resolve(__dirname, '..');
/** Messages sent in all (FAULT_KILL_SENDS overrides, for a slow machine). */
const SENDS = Number(process.env.FAULT_KILL_SENDS || 800);
/** The share of the messages acknowledged before the kill (FAULT_KILL_AT overrides, to kill at another moment). */
const KILL_AT = Number(process.env.FAULT_KILL_AT || 0.1);

/** The status of GET `url` sent on a connection of its own, or the code of the error that ended it. */
function getOnNewConnection(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
    req.end();
  });
}

(usesRedis() ? describe : describe.skip)('a worker killed under load', () => {
  let database: TestDatabase;
  let prefix: string;
  let cluster: ReturnType<typeof spawn>;
  const lines: Record<string, any>[] = [];
  let client: ApiClient;
  let cast: Cast;

  beforeAll(async () => {
    database = await createTestDatabase();
    prefix = newKeyPrefix();
    cluster = spawn(
      process.execPath,
      [
        '-r',
        resolve(root, 'test/support/ts-register.js'),
        resolve(root, 'src/cluster.ts'),
        '--workers',
        '2',
      ],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOST: '127.0.0.1',
          PORT: '0',
          LOG_LEVEL: 'info',
          DATABASE_URL: database.url,
          REDIS_URL: testRedisUrl(),
          REDIS_KEY_PREFIX: prefix,
          EVENT_HEARTBEAT_SECONDS: '1',
          EVENT_PROCESS_LIVENESS_SECONDS: '5',
          EXTERNAL_URL: 'http://chat.test',
          RATE_LIMIT_USER_REQUESTS: '100000',
          RATE_LIMIT_IP_REQUESTS: '100000',
          SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    createInterface({ input: cluster.stdout! }).on('line', (line) => {
      try {
        lines.push(JSON.parse(line));
      } catch {
        // not a log line
      }
    });
    await waitFor(
      'the cluster to listen',
      () => lines.some((l) => l.msg === 'cluster listening'),
      300_000,
    );
    const url = lines.find((l) => l.msg === 'cluster listening')!.url as string;
    client = new ApiClient(url.replace(/\/api\/v1$/, ''));
    // The cast is made through a server of this test on the same database.
    const helper = await TestServer.startOn(database, {
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: prefix,
    });
    try {
      cast = await helper.createCast();
    } finally {
      await helper.stop();
    }
  }, 400_000);
  afterAll(async () => {
    if (cluster?.exitCode === null) {
      const exited = new Promise((done) => cluster.once('exit', done));
      cluster.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
    await dropRedisKeys(testRedisUrl(), prefix);
  }, 30_000);

  test('the primary replaces it and the other keeps serving', async () => {
    const workers = lines.find((l) => l.msg === 'cluster listening')!.workers as number[];
    expect(workers).toHaveLength(2);
    const [victim, survivor] = workers;
    const drill = new FaultDrill({
      clients: [client],
      sender: cast.owner,
      recipients: [cast.member, cast.member2],
      senders: 6,
      checkContract: true,
      maxSends: SENDS,
    });
    await drill.start();
    await drill.until(
      `${KILL_AT * SENDS} messages acknowledged before the kill`,
      () => drill.acknowledged.length >= SENDS * KILL_AT,
      300_000,
    );
    const killedAt = Date.now();
    process.kill(victim, 'SIGKILL');
    await drill.until(
      'the surviving worker to answer requests after the kill',
      () =>
        lines.some(
          (l) => l.msg === 'request' && l.pid === survivor && Date.parse(l.time) > killedAt,
        ),
      60_000,
    );
    await drill.until(
      'the primary to start another worker',
      () => lines.some((l) => l.msg === 'listening' && !workers.includes(l.pid)),
      300_000,
    );
    await drill.until(`all ${SENDS} sends`, () => drill.sendsDone, 600_000);
    await drill.stopSending();

    // Only 2xx and 503 answers; a request the dead worker held got no answer
    // (its connection was reset), at most one for each connection open then.
    expect(drill.problems).toEqual([]);
    const answered = drill.answers.filter((a) => a.status !== 0);
    expect(
      answered.filter(
        (a) => a.status !== 200 && a.status !== 503 && a.code !== 'BAD_EVENT_QUEUE_ID',
      ),
    ).toEqual([]);
    const unanswered = drill.answers.filter((a) => a.status === 0);
    const loops = 6 + 1 + drill.queues.length;
    expect(unanswered.length).toBeLessThanOrEqual(2 * loops);

    const acknowledged = drill.acknowledged.map((m) => m.id);
    const stored = await storedMessageIds(database.url, acknowledged);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    await drill.until(
      'every queue to receive every acknowledged message, or to be lost',
      () => drill.queues.every((q) => q.lost || drill.missing(q).length === 0),
      60_000,
    );
    await drill.stop();
    for (const queue of drill.queues)
      expect({ queue: queue.queueId, missing: queue.lost ? [] : drill.missing(queue) }).toEqual({
        queue: queue.queueId,
        missing: [],
      });
  }, 900_000);

  // A worker stopped (SIGSTOP) takes no connection, so the connections
  // opened meanwhile are all the other's; once it is killed none of them is
  // left open without an answer. (With the primary handing connections out,
  // one was handed to the stopped worker and stayed open after its death.)
  test('a connection opened while a worker dies is answered by another', async () => {
    const exited = new Set(
      lines.filter((l) => l.msg === 'worker exited; starting another').map((l) => l.pid as number),
    );
    const live = [
      ...new Set(lines.filter((l) => l.msg === 'listening').map((l) => l.pid as number)),
    ].filter((pid) => !exited.has(pid));
    expect(live).toHaveLength(2);
    const [stopped] = live;
    process.kill(stopped, 'SIGSTOP');
    const answers: (number | string | undefined)[] = [];
    const requests = Array.from({ length: 4 }, (_, i) =>
      getOnNewConnection(`${client.url}/health`).then((answer) => (answers[i] = answer)),
    );
    await waitFor(
      'the worker still running to answer three of the four requests',
      () => answers.filter((a) => a !== undefined).length >= 3,
      30_000,
    );
    process.kill(stopped, 'SIGKILL');
    await waitFor(
      'the primary to see the stopped worker exit',
      () => lines.some((l) => l.msg === 'worker exited; starting another' && l.pid === stopped),
      30_000,
    );
    await waitFor(
      'every request answered, or its connection reset',
      () => answers.filter((a) => a !== undefined).length === 4,
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; answers: ${JSON.stringify(answers)}`);
    });
    await Promise.all(requests);
    // A connection reset by the kill is an answer too: the client knows to try again.
    expect(answers.filter((a) => a !== 200 && a !== 'ECONNRESET')).toEqual([]);
  }, 120_000);
});
