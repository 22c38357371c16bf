// Event queues in one process, on SQLite; figures, not a pass/fail test:
//  - fan-out: 1,000 queues (20 for each of 50 subscribers of a channel) each
//    with a waiting long-poll, and one message sent at BENCH_FANOUT_RATE (5)
//    a second for BENCH_SECONDS (10). Prints the p99 from a send being due to
//    the last of its 1,000 polls answered, and the CPU of the bare fan-out
//    server (servers.ts) over the same sends and polls divided by this
//    server's; the two take turns BENCH_ROUNDS (3) times, and each figure is
//    the median with its range;
//  - memory: the heap, after a full collection, per idle queue
//    (BENCH_IDLE_QUEUES, 10,000, registered and never polled) on a fresh
//    server, then per waiting long-poll on those queues, beside what the bare
//    fan-out server holds per waiting poll; BENCH_ROUNDS times, taking turns.
//   npm run bench:queues
import { Agent } from 'node:http';
import { sleep, startServer, subscribeAll, type BenchUser, type Started } from './load';
import {
  alternately,
  figure,
  formShot,
  measured,
  openLoop,
  percentile,
  percentiles,
  ratios,
  withSpread,
  type Shot,
} from './open-loop';
import { deliveryTimes, registerQueues, startPollers, type Poll } from './pollers-client';

const seconds = Number(process.env.BENCH_SECONDS || 10);
const rate = Number(process.env.BENCH_FANOUT_RATE || 5);
const idleQueues = Number(process.env.BENCH_IDLE_QUEUES || 10_000);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const subscribers = 50;
const queuesPerUser = 20;

/** Sends at `rate` a second through `server` with `polls` waiting; CPU, send latencies and delivery times. */
async function fanout(server: Started, polls: Poll[], send: Shot) {
  const pollers = await startPollers(server.info.port, polls);
  await sleep(1000);
  await openLoop(server.info.port, rate, Math.min(2, seconds), () => send);
  const { cpu, result } = await measured(server, () =>
    openLoop(server.info.port, rate, seconds, () => send),
  );
  await sleep(1000);
  const seen = await pollers.stop();
  const { times, missing } = deliveryTimes(
    result.answers.map(({ due, body }) => ({ due, id: body.id })),
    seen,
    polls.length,
  );
  return { cpu, sends: result.latencies, times, short: missing };
}

/** The fan-out figures: this server and the bare fan-out server taking turns. */
async function fanouts(): Promise<string[]> {
  const chat = await startServer('chat', { BENCH_USERS: String(subscribers - 1) });
  const owner = chat.info as BenchUser;
  const users = [owner, ...chat.info.users!];
  const agent = new Agent({ keepAlive: true });
  const bare = await startServer('fanout');
  try {
    await subscribeAll(chat.info.port, agent, owner, 'bench', users);
    const send = formShot(owner, '/messages', {
      type: 'stream',
      to: 'bench',
      topic: 'fan-out',
      content: 'Hello **all**.',
    });
    const polls = await registerQueues(
      chat.info.port,
      Array.from({ length: subscribers * queuesPerUser }, (_, i) => users[i % users.length]),
    );
    const [ours, floor] = await alternately(rounds, [
      () => fanout(chat, polls, send),
      () => fanout(bare, polls, send),
    ]);
    const p99 = (runs: { times: number[] }[]) => runs.map((r) => percentile(r.times, 99));
    const last = (runs: { times: number[]; sends: number[] }[]) => runs[runs.length - 1];
    process.stdout.write(
      `one message to ${polls.length} waiting queues, ${rate}/s for ${seconds} s, ${rounds} rounds taking turns; median (range)\n` +
        `this server: due -> last poll answered p99 ${withSpread(p99(ours), 1)} ms; CPU ${withSpread(
          ours.map((r) => r.cpu / 1000),
          0,
        )} ms; ${ours.reduce((sum, r) => sum + r.short, 0)} not delivered to all; last round: send ${percentiles(last(ours).sends)}, delivered ${percentiles(last(ours).times)}\n` +
        `bare fan-out: due -> last poll answered p99 ${withSpread(p99(floor), 1)} ms; CPU ${withSpread(
          floor.map((r) => r.cpu / 1000),
          0,
        )} ms\n`,
    );
    return [
      figure(
        'one message to 1,000 waiting queues, p99 send -> last answered',
        `${withSpread(p99(ours), 1)} ms`,
        '<= 50 ms',
      ),
      figure(
        'one message to 1,000 waiting queues',
        `ratio ${withSpread(
          ratios(
            floor.map((r) => r.cpu),
            ours.map((r) => r.cpu),
          ),
        )}`,
        '>= 0.5',
      ),
    ];
  } finally {
    agent.destroy();
    chat.child.kill();
    bare.child.kill();
  }
}

/** Heap bytes a server gains while a long-poll waits on each of `polls`. */
async function heapPerPoll(server: Started, polls: Poll[]): Promise<number> {
  const before = await server.usage();
  const pollers = await startPollers(server.info.port, polls);
  await sleep(Math.max(3000, polls.length / 2));
  const held = await server.usage();
  await pollers.stop();
  return (held.heap - before.heap) / polls.length;
}

/** One round of the memory figures: a fresh server's heap per idle queue and per waiting poll. */
async function memory(): Promise<{ perIdle: number; perPoll: number; polls: Poll[] }> {
  // A server of its own, so that no other queue counts.
  const fresh = await startServer('chat', { BENCH_USERS: String(subscribers - 1) });
  try {
    const members = [fresh.info as BenchUser, ...fresh.info.users!];
    const before = await fresh.usage();
    const polls = await registerQueues(
      fresh.info.port,
      Array.from({ length: idleQueues }, (_, i) => members[i % members.length]),
    );
    const idle = await fresh.usage();
    const perPoll = await heapPerPoll(fresh, polls);
    return { perIdle: (idle.heap - before.heap) / idleQueues, perPoll, polls };
  } finally {
    fresh.child.kill();
  }
}

/** The same polls held by the bare fan-out server: what node:http itself keeps per waiting request. */
async function bareMemory(polls: Poll[]): Promise<number> {
  const bare = await startServer('fanout');
  try {
    return await heapPerPoll(bare, polls);
  } finally {
    bare.child.kill();
  }
}

async function main(): Promise<void> {
  const figures = await fanouts();
  const ours: { perIdle: number; perPoll: number }[] = [];
  const bare: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const measuredRound = await memory();
    ours.push(measuredRound);
    bare.push(await bareMemory(measuredRound.polls));
  }
  const kb = (values: number[]) =>
    `${withSpread(
      values.map((v) => v / 1024),
      2,
    )} KB`;
  process.stdout.write(
    `heap after a full collection, ${idleQueues} queues, ${rounds} rounds, median (range): per idle queue ${kb(ours.map((r) => r.perIdle))}; per waiting poll ${kb(ours.map((r) => r.perPoll))}; the bare fan-out server holding the same polls ${kb(bare)} per waiting poll\n`,
  );
  figures.push(
    figure('heap per idle queue', kb(ours.map((r) => r.perIdle)), '<= 2 KB'),
    figure('heap per waiting poll', kb(ours.map((r) => r.perPoll)), '<= 6 KB'),
  );
  process.stdout.write(`${figures.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
