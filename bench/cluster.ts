// Two benchmarks of several server processes sharing PostgreSQL and Redis;
// figures, not a pass/fail test:
//  - delivery: BENCH_QUEUES event queues (100, 1,000 and 5,000 in turn,
//    spread evenly over the 50 subscribers of a channel), registered and
//    long-polled half on each of two processes; one message at a time is sent
//    through the first process, once every poll waits in its server again
//    (the servers' own count), and the time from sending to the last of the
//    polls answered is measured, over BENCH_ROUNDS messages (p50, p99; the
//    goal is under 50 ms). The send's own time (commit included) is printed
//    beside it: the events are queued before it answers, so commit -> last
//    poll is at most send -> last poll. Redis's INFO commandstats, read as
//    every poll waits before each send and after the last, gives the commands
//    Redis ran per message: its publication, the answers and the polls that
//    follow (the calls of every command, those that scripts run included). It
//    counts every client of that Redis: give the benchmark one of its own.
//    Those of the requests' rate limits (a lease of hits now and then per
//    user and process: a script running GET, PTTL, INCRBY, PEXPIRE at a
//    window's start) are counted apart: what remains is the event queues'
//    work, printed per published event (per entry of the log; goal: 2 per
//    process holding recipients); all commands per published event, the
//    rate limits' included, are printed too. The same delivery to one
//    process keeping its queues in memory (no Redis) gives the CPU time per
//    delivered event to compare the servers' and Redis's with (goal: the
//    memory store's at least 0.7 of theirs). Each delivery runs
//    BENCH_DELIVERY_REPEATS (3) times, in turn with the memory store's, so
//    that the machine's changing load falls on both alike: the CPU ratio is
//    the median of the pairs, printed with their spread. At the smallest
//    number of queues, the first process alone on Redis runs beside them:
//    what the Redis store costs apart from sharing queues between processes.
//  - scaling: authenticated GET /users/me through `npm run cluster` with one
//    worker, then two, under the same load (autocannon); prints both and the
//    factor.
//   BENCH_POSTGRES_URL=postgresql://... BENCH_REDIS_URL=redis://... npm run bench:cluster
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import Redis from 'ioredis';
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
  withSchema,
  type BenchUser,
  type Started,
} from './load';
import { alternately, percentile, spread, withSpread } from './open-loop';

const postgresUrl = process.env.BENCH_POSTGRES_URL || '';
const redisUrl = process.env.BENCH_REDIS_URL || '';
const seconds = Number(process.env.BENCH_SECONDS || 10);
const connections = Number(process.env.BENCH_CONNECTIONS || 50);
const rounds = Number(process.env.BENCH_ROUNDS || 50);
/** How many times each delivery runs, on Redis and on the memory store in turn. */
const repeats = Number(process.env.BENCH_DELIVERY_REPEATS || 3);
/** The numbers of waiting queues each delivery is measured with. */
const queueCounts = (process.env.BENCH_QUEUES || '100,1000,5000').split(',').map(Number);
const subscribers = 50;

/** One registered queue, and where its poll goes. */
interface BenchQueue {
  user: BenchUser;
  port: number;
  queueId: string;
}

/** Registers `count` queues for message events, spread over the subscribers and over the processes. */
async function registerQueues(
  ports: number[],
  agent: Agent,
  users: BenchUser[],
  count: number,
): Promise<BenchQueue[]> {
  const queues: BenchQueue[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async (_, j) => {
        const user = users[(i + j) % subscribers];
        const port = ports[(i + j) % ports.length];
        const res = await call(port, agent, user, 'POST', '/register', {
          event_types: JSON.stringify(['message']),
          fetch_event_types: JSON.stringify([]),
        });
        return { user, port, queueId: res.queue_id as string };
      }),
    );
    queues.push(...batch);
  }
  return queues;
}

/** How long a poll answered with an error waits before the next (the servers' Retry-After). */
const ERROR_PAUSE_MS = 1000;

/**
 * Long-polls every queue, each poll again as soon as it is answered (a
 * second later after an error), timing answers by the message they carry.
 * `stop` deletes the queues, which answers the polls waiting on them, and
 * resolves once every poll has ended.
 */
function pollAll(queues: BenchQueue[], agent: Agent) {
  const answered = new Map<number, number[]>();
  /** Polls answered with an error, by code (or the request's failure). */
  const errors = new Map<string, number>();
  let running = true;
  let inFlight = 0;
  const loops = queues.map(async ({ user, port, queueId }) => {
    let last = -1;
    while (running) {
      inFlight++;
      const res = await call(
        port,
        agent,
        user,
        'GET',
        `/events?queue_id=${queueId}&last_event_id=${last}`,
      ).catch((error: Error) => ({ code: error.message.split(': ').pop() }));
      inFlight--;
      if (res?.result !== 'success') {
        errors.set(String(res?.code), (errors.get(String(res?.code)) ?? 0) + 1);
        // As Zulip's clients do, wait a moment before polling again after an error.
        if (running) await new Promise((done) => setTimeout(done, ERROR_PAUSE_MS));
      }
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
  return {
    answered,
    errors,
    /** Whether every queue has a poll out. */
    allWaiting: () => inFlight === queues.length,
    /** Ends every poll at once, its request cut, leaving the queues (after a failure). */
    abandon: async () => {
      running = false;
      agent.destroy();
      await Promise.all(loops);
    },
    stop: async () => {
      running = false;
      for (let i = 0; i < queues.length; i += 50)
        await Promise.all(
          queues
            .slice(i, i + 50)
            .map(({ user, port, queueId }) =>
              call(port, agent, user, 'DELETE', `/events?queue_id=${queueId}`),
            ),
        );
      await Promise.all(loops);
    },
  };
}

/**
 * The calls of each command Redis has run so far (INFO commandstats), those
 * of INFO and XLEN (the benchmark's own) left out, and the length of the
 * event log (as `log entries`). Commands a script runs count as their own,
 * beside the script's EVALSHA.
 */
async function commandCalls(redis: Redis, logKey: string): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const [, name, n] of (await redis.info('commandstats')).matchAll(
    /^cmdstat_([^:]+):calls=(\d+)/gm,
  ))
    if (name !== 'info' && name !== 'xlen') calls.set(name, Number(n));
  calls.set(LOG_ENTRIES, await redis.xlen(logKey));
  return calls;
}

/** The name under which commandCalls counts the log's entries. */
const LOG_ENTRIES = 'log entries';

/**
 * The commands of the requests' rate limits among `calls`: per lease of hits
 * (and per check or refusal) a script running GET and PTTL (INCRBY when it
 * leases, PEXPIRE at a window's start). PTTL, INCRBY and PEXPIRE are the
 * limits' alone; each PTTL stands for its script and its GET.
 */
function rateLimitCalls(calls: Map<string, number>): number {
  const n = (name: string) => calls.get(name) ?? 0;
  return 3 * n('pttl') + n('incrby') + n('pexpire');
}

/**
 * The commands of each process's upkeep among `calls`, which it runs on a
 * timer whatever the events and queues: the liveness renewal (a script
 * running SET, and HSET or HDEL for the in-flight mark; SET pairs with its
 * script), the claim sweep for dead processes' marks (a script running
 * HGETALL and EXISTS per mark; HGETALL pairs with its script), the refresh of
 * the queues' last-seen times (ZADD), and the idle sweep every ten seconds
 * (a script running ZRANGEBYSCORE, and one running XREVRANGE, then SET and
 * XTRIM when it trims; each of ZRANGEBYSCORE and XREVRANGE pairs with its
 * script). The SETs of the trim are counted with the renewals' (two each),
 * which equals the trim's SET and XTRIM.
 */
function upkeepCalls(calls: Map<string, number>): number {
  const n = (name: string) => calls.get(name) ?? 0;
  return (
    2 * (n('set') + n('hgetall') + n('zrangebyscore') + n('xrevrange')) +
    n('hset') +
    n('hdel') +
    n('exists') +
    n('zadd')
  );
}

/** CPU seconds Redis has used so far (INFO cpu: user and system). */
async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1]);
  return seconds('used_cpu_user') + seconds('used_cpu_sys');
}

/** The calls of each command between two readings of commandCalls. */
function callsBetween(before: Map<string, number>, after: Map<string, number>) {
  const calls = new Map<string, number>();
  for (const [name, n] of after) calls.set(name, n - (before.get(name) ?? 0));
  return calls;
}

const sum = (calls: Map<string, number>) =>
  [...calls].reduce((total, [name, n]) => (name === LOG_ENTRIES ? total : total + n), 0);

/**
 * Waits (up to 30 s) until every queue has a poll out and every poll waits
 * in its server (the servers' own count, asked over their IPC channels), so
 * that a round starts with every poll parked, and no idle time is counted
 * beyond what reaching that state takes.
 */
async function untilAllWaiting(
  polls: ReturnType<typeof pollAll>,
  setup: Setup,
  count: number,
): Promise<void> {
  const deadline = performance.now() + 30_000;
  const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));
  while (!polls.allWaiting() && performance.now() < deadline) await pause(1);
  // The servers are asked less often: each question costs them a little CPU.
  const parked = async () =>
    (await Promise.all(setup.servers.map((server) => server.waiting()))).reduce(
      (total, n) => total + n,
      0,
    ) === count;
  while (!(await parked()) && performance.now() < deadline) await pause(5);
}

/** How long the idle window is in which upkeep is counted. */
const IDLE_MS = 5000;

/**
 * The commands Redis runs while every poll waits and nothing is sent, over
 * IDLE_MS, per second: the upkeep's, the rate limits', and the rest (the
 * blocking reads of the log renewed when they time out). What upkeepCalls
 * misses would show in the rest.
 */
async function idleCalls(setup: Setup) {
  const before = await commandCalls(setup.redis!, setup.logKey);
  const started = performance.now();
  await new Promise((done) => setTimeout(done, IDLE_MS));
  const calls = callsBetween(before, await commandCalls(setup.redis!, setup.logKey));
  const perSecond = (n: number) => n / ((performance.now() - started) / 1000);
  const upkeep = upkeepCalls(calls);
  const limits = rateLimitCalls(calls);
  return {
    upkeep: perSecond(upkeep),
    rateLimits: perSecond(limits),
    rest: perSecond(sum(calls) - upkeep - limits),
    entries: calls.get(LOG_ENTRIES) ?? 0,
  };
}

/** Where one delivery runs: its servers, and the Redis they share (none for the memory store). */
interface Setup {
  servers: Started[];
  redis: Redis | null;
  logKey: string;
}

/** The CPU time (microseconds) the servers and Redis have used so far. */
async function cpuNow(setup: Setup): Promise<{ servers: number; redis: number }> {
  const usages = await Promise.all(setup.servers.map((server) => server.usage()));
  return {
    servers: usages.reduce((total, u) => total + u.cpuAfter, 0),
    redis: setup.redis ? (await redisCpu(setup.redis)) * 1e6 : 0,
  };
}

/**
 * Sends `rounds` messages to `count` long-polled queues on the servers of
 * `setup`, one at a time once every poll waits again: the time from each
 * send to the last poll answered, the send's own time, the Redis commands
 * run over each message's cycle (the send, its publication, the answers and
 * the polls that follow, up to the next send), and the CPU time per
 * delivered event of the servers and of Redis.
 */
async function delivery(setup: Setup, owner: BenchUser, users: BenchUser[], count: number) {
  const ports = setup.servers.map((server) => server.info.port);
  const agent = new Agent({ keepAlive: true, maxSockets: count + 100 });
  const queues = await registerQueues(ports, agent, users, count);
  const polls = pollAll(queues, agent);
  const toLast: number[] = [];
  const sendTimes: number[] = [];
  const readings: Map<string, number>[] = [];
  await untilAllWaiting(polls, setup, count);
  const idle = setup.redis ? await idleCalls(setup) : null;
  const cpuBefore = await cpuNow(setup);
  try {
    for (let round = 0; round <= rounds; round++) {
      await untilAllWaiting(polls, setup, count);
      if (setup.redis) readings.push(await commandCalls(setup.redis, setup.logKey));
      if (round === rounds) break;
      const started = performance.now();
      const sent = await call(ports[0], agent, owner, 'POST', '/messages', {
        type: 'stream',
        to: 'bench',
        topic: 'delivery',
        content: `round ${round}`,
      });
      sendTimes.push(performance.now() - started);
      const deadline = performance.now() + 30_000;
      while ((polls.answered.get(sent.id)?.length ?? 0) < count && performance.now() < deadline)
        await new Promise((done) => setImmediate(done));
      const times = polls.answered.get(sent.id) ?? [];
      if (times.length < count)
        throw new Error(
          `round ${round}: ${times.length} of ${count} polls answered; errors: ${JSON.stringify([...polls.errors])}`,
        );
      toLast.push(Math.max(...times) - started);
    }
  } catch (error) {
    // The polls would go on against the servers: cut them, and leave the queues.
    await polls.abandon();
    throw error;
  }
  const cpuAfter = await cpuNow(setup);
  await polls.stop();
  agent.destroy();
  const cycles = readings.slice(1).map((after, i) => callsBetween(readings[i], after));
  const events = count * rounds;
  return {
    toLast,
    sendTimes,
    perRound: cycles.map(sum),
    /** Per published event (entry of the log): the commands of each cycle but the rate limits' and the upkeep's. */
    perEvent: cycles.map(
      (calls) =>
        (sum(calls) - rateLimitCalls(calls) - upkeepCalls(calls)) /
        Math.max(1, calls.get(LOG_ENTRIES) ?? 0),
    ),
    /** Per published event: the commands of each cycle but the rate limits', upkeep included. */
    withUpkeepPerEvent: cycles.map(
      (calls) => (sum(calls) - rateLimitCalls(calls)) / Math.max(1, calls.get(LOG_ENTRIES) ?? 0),
    ),
    idle,
    /** Per published event: every command of each cycle, the rate limits' included. */
    allPerEvent: cycles.map((calls) => sum(calls) / Math.max(1, calls.get(LOG_ENTRIES) ?? 0)),
    byCommand: setup.redis ? callsBetween(readings[0], readings[rounds]) : new Map(),
    cpuPerEvent: {
      servers: (cpuAfter.servers - cpuBefore.servers) / events,
      redis: (cpuAfter.redis - cpuBefore.redis) / events,
    },
  };
}

type Delivery = Awaited<ReturnType<typeof delivery>>;

/** The runs of one delivery taken together: their times and readings in one list each. */
function together(runs: Delivery[]) {
  const all = <
    K extends
      'toLast' | 'sendTimes' | 'perRound' | 'perEvent' | 'withUpkeepPerEvent' | 'allPerEvent',
  >(
    key: K,
  ) => runs.flatMap((run) => run[key]);
  const byCommand = new Map<string, number>();
  for (const run of runs)
    for (const [name, n] of run.byCommand) byCommand.set(name, (byCommand.get(name) ?? 0) + n);
  return {
    toLast: all('toLast').sort((a, b) => a - b),
    sendTimes: all('sendTimes').sort((a, b) => a - b),
    perRound: all('perRound'),
    perEvent: all('perEvent'),
    withUpkeepPerEvent: all('withUpkeepPerEvent'),
    allPerEvent: all('allPerEvent'),
    byCommand,
  };
}

/**
 * Prints one delivery's times, and the Redis commands per message with the
 * busiest commands, over `runs` of the two processes on Redis, each beside
 * the run of the memory store made after it (`memory`).
 */
function printDelivery(count: number, runs: Delivery[], memory: Delivery[]): string[] {
  const result = together(runs);
  const { toLast, sendTimes } = result;
  const messages = rounds * runs.length;
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const busiest = [...result.byCommand]
    .filter(([name]) => name !== LOG_ENTRIES)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, n]) => `${name} ${(n / messages).toFixed(1)}`)
    .join(', ');
  const entries = ((result.byCommand.get(LOG_ENTRIES) ?? 0) / messages).toFixed(1);
  const us = (values: number[]) => withSpread(values, 1);
  const servers = runs.map((run) => run.cpuPerEvent.servers);
  const redis = runs.map((run) => run.cpuPerEvent.redis);
  const alone = memory.map((run) => run.cpuPerEvent.servers);
  const cpuRatios = memoryOver(runs, memory);
  const idle = runs[0].idle;
  process.stdout.write(
    `delivery of one message to ${count} waiting queues on 2 processes, ${runs.length} runs of ${rounds} messages, each run beside one of the memory store\n` +
      `  send -> last poll answered   p50 ${ms(percentile(toLast, 50))}   p99 ${ms(percentile(toLast, 99))}\n` +
      `  send answered (commit, events queued)   p50 ${ms(percentile(sendTimes, 50))}   p99 ${ms(percentile(sendTimes, 99))}\n` +
      `  Redis commands per message, rate limits of the polls included (median, min-max over the messages): ${withSpread(result.perRound, 0)}; log entries per message ${entries}; busiest: ${busiest}\n` +
      `  the event queues' commands per published event, upkeep included (median, min-max): ${withSpread(result.withUpkeepPerEvent, 1)}\n` +
      (idle
        ? `  with every poll waiting and nothing sent, per second over ${IDLE_MS / 1000} s (first run): upkeep ${idle.upkeep.toFixed(1)} commands (both processes), rate limits ${idle.rateLimits.toFixed(1)}, the rest ${idle.rest.toFixed(1)} (log reads renewed), log entries ${idle.entries}\n`
        : '') +
      `  CPU per delivered event (median, min-max over the runs): servers ${us(servers)} us + Redis ${us(redis)} us; one process with the memory store ${us(alone)} us\n`,
  );
  const perEvent = spread(result.perEvent);
  const allPerEvent = spread(result.allPerEvent);
  const cpu = spread(cpuRatios);
  const range = ({ min, max }: { min: number; max: number }, over: string, digits = 1) =>
    `min-max over the ${over} ${min.toFixed(digits)}-${max.toFixed(digits)}`;
  return [
    `one message to ${count} waiting queues on 2 processes, p99 send -> last answered: ${ms(percentile(toLast, 99))} (goal <= 50 ms)`,
    `redis commands per published event, event queues, upkeep apart, ${count} queues on 2 processes: ratio ${perEvent.median.toFixed(1)}, ${range(perEvent, 'messages')} (goal <= 4)`,
    `redis commands per published event, upkeep and rate limits included, ${count} queues on 2 processes: ratio ${allPerEvent.median.toFixed(1)}, ${range(allPerEvent, 'messages')} (goal <= 4)`,
    `cpu per delivered event, ${count} queues, memory store / 2 processes and Redis: ratio ${cpu.median.toFixed(2)}, ${range(cpu, `${runs.length} runs`, 2)} (goal >= 0.7)`,
  ];
}

/** The servers' and Redis's CPU per delivered event of each run. */
const cpuOf = (runs: Delivery[]) =>
  runs.map((run) => run.cpuPerEvent.servers + run.cpuPerEvent.redis);

/** Per pair of runs, the memory store's CPU per delivered event over that of the run on Redis. */
function memoryOver(runs: Delivery[], memory: Delivery[]): number[] {
  return cpuOf(runs).map((cpu, i) => memory[i].cpuPerEvent.servers / cpu);
}

/** Prints the CPU per delivered event of one process on Redis, beside the memory store's. */
function printSingle(count: number, runs: Delivery[], memory: Delivery[]): void {
  process.stdout.write(
    `  one process on Redis with all ${count} queues (median, min-max over ${runs.length} runs): CPU per delivered event ${withSpread(cpuOf(runs), 1)} us, server and Redis; memory store / it ${withSpread(memoryOver(runs, memory), 2)}\n`,
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
  const databaseUrl = withSchema(postgresUrl, schema);
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
  const figures: string[] = [];
  const owner = first.info as BenchUser;
  try {
    const second = await startServer('peer', env);
    // One process keeping its queues in memory, on the same database, for comparison.
    const alone = await startServer('peer', { ...env, REDIS_URL: '' });
    const redis = new Redis(redisUrl);
    try {
      const users = first.info.users!;
      await subscribeAll(first.info.port, new Agent(), owner, 'bench', users);
      const shared = { servers: [first, second], redis, logKey: `${env.REDIS_KEY_PREFIX}log` };
      const memory = { servers: [alone], redis: null, logKey: '' };
      // The first process alone on Redis, at the smallest number of queues:
      // what the Redis store costs apart from sharing the queues between processes.
      const single = { ...shared, servers: [first] };
      for (const count of queueCounts) {
        // A machine too small for a number of queues fails it; the others are still measured.
        try {
          const [runs, alone, one] = await alternately(repeats, [
            () => delivery(shared, owner, users, count),
            () => delivery(memory, owner, users, count),
            ...(count === queueCounts[0] ? [() => delivery(single, owner, users, count)] : []),
          ]);
          figures.push(...printDelivery(count, runs, alone));
          if (one) printSingle(count, one, alone);
        } catch (error) {
          figures.push(`delivery to ${count} queues failed: ${(error as Error).message}`);
          process.stdout.write(`${figures[figures.length - 1]}\n`);
        }
      }
    } finally {
      redis.disconnect();
      second.child.kill('SIGTERM');
      alone.child.kill('SIGTERM');
    }
    first.child.kill('SIGTERM');
    await scaling(env, owner);
    process.stdout.write(`${figures.join('\n')}\n`);
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
