// Two benchmarks of several server processes sharing PostgreSQL and Redis;
// figures, not a pass/fail test:
//  - delivery: 1,000 event queues (20 for each of 50 subscribers of a
//    channel), registered and long-polled half on each of two processes; one
//    message is sent through the first process and the time from sending to
//    the last of the 1,000 polls answered is measured, over BENCH_ROUNDS
//    messages (p50, p99; the goal is under 50 ms). The send's own time
//    (commit included) is printed beside it: the events are queued before it
//    answers, so commit -> last poll is at most send -> last poll.
//  - scaling: authenticated GET /users/me through `npm run cluster` with one
//    worker, then two, under the same load (autocannon); prints both and the
//    factor.
//   BENCH_POSTGRES_URL=postgresql://... BENCH_REDIS_URL=redis://... npm run bench:cluster
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import { Client } from 'pg';
import {
  basicAuth,
  call,
  load,
  startCluster,
  startServer,
  stopped,
  subscribeAll,
  summary,
  type BenchUser,
} from './load';
import { percentile } from './open-loop';

const postgresUrl = process.env.BENCH_POSTGRES_URL || '';
const redisUrl = process.env.BENCH_REDIS_URL || '';
const seconds = Number(process.env.BENCH_SECONDS || 10);
const connections = Number(process.env.BENCH_CONNECTIONS || 50);
const rounds = Number(process.env.BENCH_ROUNDS || 50);
const subscribers = 50;
const queuesPerUser = 20;

async function delivery(ports: number[], owner: BenchUser, users: BenchUser[]): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2000 });
  await subscribeAll(ports[0], agent, owner, 'bench', users);
  const queues: { user: BenchUser; port: number; queueId: string }[] = [];
  for (let i = 0; i < subscribers * queuesPerUser; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, async (_, j) => {
        const user = users[(i + j) % subscribers];
        const port = ports[(i + j) % 2];
        const res = await call(port, agent, user, 'POST', '/register', {
          event_types: JSON.stringify(['message']),
          fetch_event_types: JSON.stringify([]),
        });
        return { user, port, queueId: res.queue_id as string };
      }),
    );
    queues.push(...batch);
  }
  // Each queue's poll re-polls as soon as it is answered; answers are timed
  // by the message they carry.
  const answered = new Map<number, number[]>();
  let running = true;
  const loops = queues.map(async ({ user, port, queueId }) => {
    let last = -1;
    while (running) {
      const res = await call(
        port,
        agent,
        user,
        'GET',
        `/events?queue_id=${queueId}&last_event_id=${last}`,
      ).catch(() => null);
      const now = performance.now();
      for (const event of res?.events ?? []) {
        last = Math.max(last, event.id);
        if (event.type === 'message') {
          const times = answered.get(event.message.id) ?? [];
          times.push(now);
          answered.set(event.message.id, times);
        }
      }
    }
  });
  const toLast: number[] = [];
  const sendTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Every poll is waiting again before the next message.
    await new Promise((done) => setTimeout(done, 300));
    const started = performance.now();
    const sent = await call(ports[0], agent, owner, 'POST', '/messages', {
      type: 'stream',
      to: 'bench',
      topic: 'delivery',
      content: `round ${round}`,
    });
    sendTimes.push(performance.now() - started);
    const deadline = performance.now() + 10_000;
    while ((answered.get(sent.id)?.length ?? 0) < queues.length && performance.now() < deadline)
      await new Promise((done) => setImmediate(done));
    const times = answered.get(sent.id) ?? [];
    if (times.length < queues.length)
      throw new Error(`round ${round}: ${times.length} of ${queues.length} polls answered`);
    toLast.push(Math.max(...times) - started);
  }
  running = false;
  void loops;
  agent.destroy();
  toLast.sort((a, b) => a - b);
  sendTimes.sort((a, b) => a - b);
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  process.stdout.write(
    `delivery of one message to ${queues.length} waiting queues on 2 processes, ${rounds} messages\n`,
  );
  process.stdout.write(
    `  send -> last poll answered   p50 ${ms(percentile(toLast, 50))}   p99 ${ms(percentile(toLast, 99))}   (goal < 50 ms)\n`,
  );
  process.stdout.write(
    `  send answered (commit, events queued)   p50 ${ms(percentile(sendTimes, 50))}   p99 ${ms(percentile(sendTimes, 99))}\n`,
  );
}

async function scaling(env: Record<string, string>, owner: BenchUser): Promise<void> {
  const results = [];
  for (const workers of [1, 2]) {
    const cluster = await startCluster(env, workers);
    try {
      results.push(
        await load(
          {
            url: `http://127.0.0.1:${cluster.port}/api/v1/users/me`,
            connections,
            headers: { authorization: basicAuth(owner) },
          },
          seconds,
        ),
      );
    } finally {
      await stopped(cluster.child);
    }
  }
  const [one, two] = results;
  process.stdout.write(
    `GET /users/me through npm run cluster, ${connections} connections, ${seconds} s each\n`,
  );
  process.stdout.write(`  ${summary('1 process', one)}\n`);
  process.stdout.write(`  ${summary('2 processes', two)}\n`);
  process.stdout.write(
    `  scaling factor (2 / 1): ${(two.requests.average / one.requests.average).toFixed(2)}\n`,
  );
}

async function main(): Promise<void> {
  if (!/^postgres(ql)?:\/\//.test(postgresUrl) || !/^rediss?:\/\//.test(redisUrl)) {
    process.stderr.write(
      'npm run bench:cluster needs BENCH_POSTGRES_URL=postgresql://... (a schema of its own is made and dropped) and BENCH_REDIS_URL=redis://...\n',
    );
    process.exit(2);
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const databaseUrl = `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}schema=${schema}`;
  const env = {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `${schema}:`,
    BENCH_DATABASE_URL: databaseUrl,
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_USER_REQUESTS: '100000000',
  };
  process.stdout.write(
    `machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), PostgreSQL and Redis on the same machine\n`,
  );
  const first = await startServer('chat', { ...env, BENCH_USERS: String(subscribers) });
  const owner = first.info as BenchUser;
  try {
    const second = await startServer('peer', env);
    try {
      await delivery([first.info.port, second.info.port], owner, first.info.users!);
    } finally {
      second.child.kill('SIGTERM');
    }
    first.child.kill('SIGTERM');
    await scaling(env, owner);
  } finally {
    first.child.kill('SIGTERM');
    const pg = new Client({ connectionString: postgresUrl });
    await pg.connect();
    await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pg.end();
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
