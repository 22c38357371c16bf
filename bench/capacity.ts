// The capacity of one server process on SQLite under a model of an
// organization's use, load generator included on the same machine. Each of N
// users holds a long-poll on an event queue and, from a random start:
//  - reports presence every 60 s and reads everyone's (POST /users/me/presence);
//  - sends a message every 2 minutes to their channel (channels of 50);
//  - reads the newest 50 messages of a topic of that channel every 5 minutes.
// Each trial runs BENCH_CAPACITY_SECONDS (60) of that load, open-loop, and
// passes when the p99 of sends (due -> answered) is under 200 ms and the p99
// from a send being due to the last of its 50 polls answered is under 500 ms.
// The benchmark doubles N from 100 while trials pass, then halves the gap
// twice, and prints the largest N that passed beside the machine's cores.
//   npm run bench:capacity   (BENCH_CAPACITY_SECONDS, BENCH_CAPACITY_MAX: 4,000 users)
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { sleep, startServer, subscribeAll, type BenchUser } from './load';
import { fire, figure, formShot, getShot, percentile, percentiles, type Shot } from './open-loop';
import { deliveryTimes, registerQueues, startPollers, type Poll } from './pollers-client';

const seconds = Number(process.env.BENCH_CAPACITY_SECONDS || 60);
const maxUsers = Number(process.env.BENCH_CAPACITY_MAX || 4000);
const channelSize = 50;
const goals = { sendP99: 200, deliveryP99: 500 };

/** One scheduled request of a user. */
interface Action {
  at: number;
  kind: 'presence' | 'send' | 'read';
  user: number;
}

/** The actions of users 0..n-1 over the trial, each kind at its period from a random start. */
function schedule(n: number): Action[] {
  const actions: Action[] = [];
  const periods = { presence: 60, send: 120, read: 300 } as const;
  for (let user = 0; user < n; user++)
    for (const [kind, period] of Object.entries(periods) as [Action['kind'], number][])
      for (let at = Math.random() * period; at < seconds; at += period)
        actions.push({ at: at * 1000, kind, user });
  return actions.sort((a, b) => a.at - b.at);
}

async function main(): Promise<void> {
  const chat = await startServer('chat', { BENCH_USERS: String(maxUsers - 1) });
  const users: BenchUser[] = [chat.info as BenchUser, ...chat.info.users!];
  const port = chat.info.port;
  const setup = new Agent({ keepAlive: true, maxSockets: 16 });
  const channelOf = (user: number) => `team ${Math.floor(user / channelSize)}`;
  const subscribed = new Set<number>();
  const queues: Poll[] = [];

  /** Channels for users 0..n-1 and a queue for each, made as trials first need them. */
  async function prepare(n: number): Promise<void> {
    for (let first = 0; first < n; first += channelSize) {
      const channel = first / channelSize;
      if (subscribed.has(channel)) continue;
      await subscribeAll(
        port,
        setup,
        users[0],
        channelOf(first),
        users.slice(first, first + channelSize),
      );
      subscribed.add(channel);
    }
    if (queues.length < n)
      queues.push(...(await registerQueues(port, users.slice(queues.length, n))));
  }

  /** One trial with users 0..n-1: the send and delivery percentiles, and whether they meet the goals. */
  async function trial(n: number) {
    await prepare(n);
    const pollers = await startPollers(port, queues.slice(0, n));
    await sleep(Math.max(1000, n));
    const agent = new Agent({ keepAlive: true, maxSockets: 512 });
    const shots: Record<Action['kind'], (user: number) => Shot> = {
      // As the web app asks each minute: everyone's presence, in the slim format.
      presence: (user) =>
        formShot(users[user], '/users/me/presence', {
          status: 'active',
          new_user_input: 'true',
          slim_presence: 'true',
        }),
      send: (user) =>
        formShot(users[user], '/messages', {
          type: 'stream',
          to: channelOf(user),
          topic: 'work',
          content: 'An update on **the work**, as usual.',
        }),
      read: (user) =>
        getShot(users[user], '/messages', {
          anchor: 'newest',
          num_before: '50',
          num_after: '0',
          narrow: JSON.stringify([
            { operator: 'channel', operand: channelOf(user) },
            { operator: 'topic', operand: 'work' },
          ]),
        }),
    };
    const sends: { due: number; ms: number; id?: number }[] = [];
    let failed = 0;
    const start = performance.now() + 50;
    const pending: Promise<void>[] = [];
    for (const action of schedule(n)) {
      const due = start + action.at;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      pending.push(
        fire(port, agent, shots[action.kind](action.user)).then(({ status, text }) => {
          if (status !== 200) failed++;
          if (action.kind === 'send')
            sends.push({
              due: performance.timeOrigin + due,
              ms: performance.now() - due,
              id: status === 200 ? JSON.parse(text).id : undefined,
            });
        }),
      );
    }
    await Promise.all(pending);
    await sleep(1000);
    const seen = await pollers.stop();
    agent.destroy();
    const sendTimes = sends.map((s) => s.ms).sort((a, b) => a - b);
    const { times: delivery, missing: short } = deliveryTimes(sends, seen, channelSize);
    const passed =
      failed === 0 &&
      short === 0 &&
      percentile(sendTimes, 99) < goals.sendP99 &&
      percentile(delivery, 99) < goals.deliveryP99;
    process.stdout.write(
      `${String(n).padStart(5)} users: ${sends.length} sends, ${failed} failed requests, ${short} not delivered to all; send ${percentiles(sendTimes)}; delivered ${percentiles(delivery)} -> ${passed ? 'pass' : 'fail'}\n`,
    );
    return passed;
  }

  try {
    process.stdout.write(
      `capacity: trials of ${seconds} s; a pass needs send p99 < ${goals.sendP99} ms and send -> delivered p99 < ${goals.deliveryP99} ms\n`,
    );
    let good = 0;
    let bad = 0;
    for (let n = 100; n <= maxUsers; n *= 2) {
      if (await trial(n)) good = n;
      else {
        bad = n;
        break;
      }
    }
    // Two halvings of the gap between the last pass and the first failure.
    for (let step = 0; step < 2 && bad && bad - good > channelSize; step++) {
      const n = Math.round((good + bad) / 2 / channelSize) * channelSize;
      if (await trial(n)) good = n;
      else bad = n;
    }
    const cores = availableParallelism();
    process.stdout.write(
      `${figure(`capacity on ${cores} cores, SQLite, load generator included`, `${good} users${bad ? '' : ' (the most tried)'}`, `2000 users on 2 cores`)}\n`,
    );
  } finally {
    setup.destroy();
    chat.child.kill();
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
