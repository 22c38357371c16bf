// This server against its floor (floor.ts: node:http and better-sqlite3 doing
// the same work by hand, on the same database) on the hot paths, under the
// same open-loop load in the same run, on a channel seeded with
// BENCH_MESSAGES (100,000) messages. The two take turns BENCH_ROUNDS (3) times;
// the figure is the median of the floor's CPU time divided by this server's
// for the same requests (1.0: no overhead), with its range, and the latency
// percentiles beside it:
//  - send: POST /messages to a channel of 50 subscribers at BENCH_RATE (50)
//    a second, while no event queue exists;
//  - send with polls: the same while each subscriber holds a waiting
//    long-poll; also the p99 from a send being due to the last of its 50
//    polls answered (each round's, median with range);
//  - read: GET /messages of one topic (100 of the seeded messages), newest
//    first, at BENCH_RATE a second; both answers' sizes are printed.
// Each run lasts BENCH_SECONDS (4) after a 1-second warm-up. With
// BENCH_POSTGRES_URL the same series runs again on PostgreSQL, against the
// floor of floor-pg.ts (node:http and pg). Prints figures; it is not a
// pass/fail test.
//   npm run bench:floors
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { Client } from 'pg';
import {
  call,
  sleep,
  startServer,
  subscribeAll,
  withSchema,
  type BenchUser,
  type Started,
} from './load';
import {
  alternately,
  figure,
  fire,
  formShot,
  getShot,
  measured,
  openLoop,
  percentile,
  percentiles,
  ratios,
  withSpread,
  type OpenLoopResult,
  type Shot,
} from './open-loop';
import { deliveryTimes, registerQueues, startPollers } from './pollers-client';
import { seed } from './seed';

const seconds = Number(process.env.BENCH_SECONDS || 4);
const rate = Number(process.env.BENCH_RATE || 50);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const totalMessages = Number(process.env.BENCH_MESSAGES || 100_000);
const subscribers = 50;
const postgresUrl = process.env.BENCH_POSTGRES_URL || '';

interface Run {
  perRequest: number;
  result: OpenLoopResult;
}

/** A warm-up, then the measured run: the server's CPU microseconds per request and the run's result. */
async function run(server: Started, shot: (i: number) => Shot): Promise<Run> {
  await openLoop(server.info.port, rate, 1, shot);
  const { cpu, result } = await measured(server, () =>
    openLoop(server.info.port, rate, seconds, shot),
  );
  if (result.failed) throw new Error(`${result.failed} requests failed`);
  return { perRequest: cpu / (rate * seconds), result };
}

/** This server and the floor taking turns `rounds` times: the runs of each. */
async function compare(chat: Started, floor: Started, shot: Shot) {
  const [ours, floors] = await alternately(rounds, [
    () => run(chat, () => shot),
    () => run(floor, () => shot),
  ]);
  return {
    ours,
    floors,
    ratio: withSpread(
      ratios(
        floors.map((r) => r.perRequest),
        ours.map((r) => r.perRequest),
      ),
    ),
  };
}

function line(name: string, ours: Run[], floor: Run[]) {
  const cpu = (runs: Run[]) =>
    withSpread(
      runs.map((r) => r.perRequest),
      0,
    );
  const last = (runs: Run[]) => percentiles(runs[runs.length - 1].result.latencies);
  return `${name.padEnd(22)} this server ${cpu(ours)} us CPU/request (${last(ours)})   floor ${cpu(floor)} us (${last(floor)})`;
}

/** The sends of open-loop runs: when each was due, and the ID it was answered with. */
function sendsOf(runs: Run[]) {
  return runs.flatMap((r) => r.result.answers.map(({ due, body }) => ({ due, id: body.id })));
}

/**
 * One series of the figures on one database: the chat server on a fresh
 * database (`env`), and the floor on the same one once it is seeded.
 * `suffix` follows each figure's name.
 */
async function series(suffix: string, env: Record<string, string>): Promise<string[]> {
  const chat = await startServer('chat', { ...env, BENCH_USERS: String(subscribers - 1) });
  const owner = chat.info as BenchUser;
  const users = [owner, ...chat.info.users!];
  const agent = new Agent({ keepAlive: true });
  let floor: Started | undefined;
  const figures: string[] = [];
  try {
    await subscribeAll(chat.info.port, agent, owner, 'bench', users);
    const stream = (await call(chat.info.port, agent, owner, 'GET', '/streams')).streams.find(
      (s: { name: string }) => s.name === 'bench',
    );
    const realmId = (
      await call(chat.info.port, agent, owner, 'POST', '/register', {
        event_types: '[]',
        fetch_event_types: '["realm"]',
      })
    ).realm_id;
    // Sends and reads alike are measured on the seeded database.
    await seed(chat.info.databaseUrl!, realmId, stream.stream_id, owner.id, totalMessages, 100);
    floor = await startServer('floor', { BENCH_DATABASE_URL: chat.info.databaseUrl! });
    const send = formShot(owner, '/messages', {
      type: 'stream',
      to: 'bench',
      topic: 'benchmark',
      content:
        'Hello **everyone**, a message of ordinary length with a [link](https://example.com).',
    });
    process.stdout.write(
      `${suffix ? suffix.slice(2) : 'SQLite'}: open loop, ${rate} requests/s for ${seconds} s after a warm-up, ${rounds} rounds taking turns, on ${totalMessages} seeded messages; CPU of the server process per request, median (range)\n`,
    );

    const quiet = await compare(chat, floor, send);
    process.stdout.write(`${line('send, no queues', quiet.ours, quiet.floors)}\n`);
    figures.push(
      figure(`send to 50 subscribers, no queues${suffix}`, `ratio ${quiet.ratio}`, '>= 0.8'),
    );

    const queues = await registerQueues(chat.info.port, users);
    const oursPolls = await startPollers(chat.info.port, queues);
    const floorPolls = await startPollers(
      floor.info.port,
      queues.map((q, i) => ({ ...q, queueId: `floor-${i}` })),
    );
    await sleep(200);
    const polling = await compare(chat, floor, send);
    await sleep(500);
    const oursSeen = await oursPolls.stop();
    const floorSeen = await floorPolls.stop();
    const oursDelivery = deliveryTimes(sendsOf(polling.ours), oursSeen, subscribers);
    const floorDelivery = deliveryTimes(sendsOf(polling.floors), floorSeen, subscribers);
    process.stdout.write(`${line('send, 50 waiting polls', polling.ours, polling.floors)}\n`);
    process.stdout.write(
      `${''.padEnd(22)} due -> last of 50 polls answered: this server ${percentiles(oursDelivery.times)} (${oursDelivery.missing} not delivered to all)   floor ${percentiles(floorDelivery.times)} (${floorDelivery.missing})\n`,
    );
    figures.push(
      figure(`send to 50 waiting polls${suffix}`, `ratio ${polling.ratio}`, '>= 0.8'),
      figure(
        `send to 50 waiting polls, p99 send -> delivered${suffix}`,
        `${withSpread(
          polling.ours.map((r) =>
            percentile(deliveryTimes(sendsOf([r]), oursSeen, subscribers).times, 99),
          ),
          1,
        )} ms`,
        '<= 10 ms',
      ),
    );

    const read = getShot(owner, '/messages', {
      anchor: 'newest',
      num_before: '100',
      num_after: '0',
      narrow: JSON.stringify([
        { operator: 'channel', operand: 'bench' },
        { operator: 'topic', operand: 'target' },
      ]),
    });
    const sizes = await Promise.all(
      [chat, floor].map(async (s) => (await fire(s.info.port, agent, read)).text.length),
    );
    process.stdout.write(`read answer: this server ${sizes[0]} bytes, floor ${sizes[1]} bytes\n`);
    const reading = await compare(chat, floor, read);
    process.stdout.write(`${line(`read 100 of ${totalMessages}`, reading.ours, reading.floors)}\n`);
    figures.push(
      figure(`GET /messages, 100 of ${totalMessages}${suffix}`, `ratio ${reading.ratio}`, '>= 0.8'),
    );
    return figures;
  } finally {
    agent.destroy();
    chat.child.kill();
    floor?.child.kill();
  }
}

async function main(): Promise<void> {
  const figures = await series('', {});
  if (postgresUrl) {
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    const databaseUrl = withSchema(postgresUrl, schema);
    try {
      figures.push(...(await series(', PostgreSQL', { BENCH_DATABASE_URL: databaseUrl })));
    } finally {
      const pg = new Client({ connectionString: postgresUrl });
      await pg.connect();
      await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pg.end();
    }
  } else process.stdout.write('PostgreSQL: not measured (set BENCH_POSTGRES_URL)\n');
  process.stdout.write(`${figures.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
