// Event queues in one process, on SQLite; figures, not a pass/fail test:
//  - fan-out: 1,000 queues (20 for each of 50 subscribers of a channel) each
//    with a waiting long-poll, and one message sent at BENCH_FANOUT_RATE (5)
//    a second for BENCH_SECONDS (10). Prints the p99 from a send being due to
//    the last of its 1,000 polls answered, and the CPU of the bare fan-out
//    server (servers.ts) over the same sends and polls divided by this
//    server's;
//  - memory: the heap, after a full collection, per idle queue
//    (BENCH_IDLE_QUEUES, 10,000, registered and never polled), then per
//    waiting long-poll on those queues, beside what the bare fan-out server
//    holds per waiting poll.
//   npm run bench:queues
import { Agent } from 'node:http';
import { sleep, startServer, subscribeAll, type BenchUser, type Started } from './load';
import {
  figure,
  formShot,
  measured,
  openLoop,
  percentile,
  percentiles,
  type Shot,
} from './open-loop';
import { deliveryTimes, registerQueues, startPollers, type Poll } from './pollers-client';

const seconds = Number(process.env.BENCH_SECONDS || 10);
const rate = Number(process.env.BENCH_FANOUT_RATE || 5);
const idleQueues = Number(process.env.BENCH_IDLE_QUEUES || 10_000);
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

async function main(): Promise<void> {
  const figures: string[] = [];
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
    const ours = await fanout(chat, polls, send);
    const floor = await fanout(bare, polls, send);
    process.stdout.write(
      `one message to ${polls.length} waiting queues, ${rate}/s for ${seconds} s\n` +
        `this server: send ${percentiles(ours.sends)}; due -> last poll answered ${percentiles(ours.times)}; ${ours.short} not delivered to all; CPU ${(ours.cpu / 1000).toFixed(0)} ms\n` +
        `bare fan-out: due -> last poll answered ${percentiles(floor.times)}; CPU ${(floor.cpu / 1000).toFixed(0)} ms\n`,
    );
    figures.push(
      figure(
        'one message to 1,000 waiting queues, p99 send -> last answered',
        `${percentile(ours.times, 99).toFixed(1)} ms`,
        '50 ms',
      ),
      figure(
        'one message to 1,000 waiting queues',
        `ratio ${(floor.cpu / ours.cpu).toFixed(3)}`,
        '0.5',
      ),
    );
  } finally {
    agent.destroy();
    chat.child.kill();
    bare.child.kill();
  }

  // Memory, on a server of its own so that the queues above do not count.
  const fresh = await startServer('chat', { BENCH_USERS: String(subscribers - 1) });
  try {
    const members = [fresh.info as BenchUser, ...fresh.info.users!];
    const before = await fresh.usage();
    const polls = await registerQueues(
      fresh.info.port,
      Array.from({ length: idleQueues }, (_, i) => members[i % members.length]),
    );
    const idle = await fresh.usage();
    const pollers = await startPollers(fresh.info.port, polls);
    await sleep(Math.max(3000, idleQueues / 2));
    const waiting = await fresh.usage();
    await pollers.stop();
    const perIdle = (idle.heap - before.heap) / idleQueues;
    const perPoll = (waiting.heap - idle.heap) / idleQueues;
    process.stdout.write(
      `heap: ${(before.heap / 1e6).toFixed(1)} MB, with ${idleQueues} idle queues ${(idle.heap / 1e6).toFixed(1)} MB, with a poll waiting on each ${(waiting.heap / 1e6).toFixed(1)} MB\n`,
    );
    // The same polls held by the bare fan-out server: what node:http itself keeps per waiting request.
    const bare = await startServer('fanout');
    try {
      const empty = await bare.usage();
      const barePollers = await startPollers(bare.info.port, polls);
      await sleep(Math.max(3000, idleQueues / 2));
      const held = await bare.usage();
      await barePollers.stop();
      process.stdout.write(
        `bare fan-out server holding the same polls: ${((held.heap - empty.heap) / idleQueues / 1024).toFixed(2)} KB of heap per waiting poll\n`,
      );
    } finally {
      bare.child.kill();
    }
    figures.push(
      figure('heap per idle queue', `${(perIdle / 1024).toFixed(2)} KB`, '2 KB'),
      figure('heap per waiting poll', `${(perPoll / 1024).toFixed(2)} KB`, '6 KB'),
    );
  } finally {
    fresh.child.kill();
  }
  process.stdout.write(`${figures.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
