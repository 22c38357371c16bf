// The CPU of delivering an event over each transport, in one process on
// SQLite, in the same run; figures, not a pass/fail test. 500 queues (10 for
// each of 50 subscribers of a channel) are each read by a long-poll, re-polled
// as soon as it is answered (pollers.js), or by one stream (GET
// /events/stream), while messages go to the channel at BENCH_STREAM_RATE (5)
// a second for BENCH_SECONDS (10). The same sends with
// the queues read by nobody cost the server the sends and their appends to
// the queues alone; what a transport costs beyond that, divided by the events
// it delivered, is its CPU per delivered event. Fresh queues for each run,
// deleted after it; the three runs alternate BENCH_ROUNDS (3) times.
//   npm run bench:streams
import { Agent } from 'node:http';
import { call, sleep, startServer, subscribeAll, type BenchUser, type Started } from './load';
import { alternately, figure, formShot, measured, openLoop, ratios, withSpread } from './open-loop';
import { registerQueues, startPollers, type Poll } from './pollers-client';

const seconds = Number(process.env.BENCH_SECONDS || 10);
const rate = Number(process.env.BENCH_STREAM_RATE || 5);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const subscribers = 50;
const queuesPerUser = 10;

/** How a run's queues are read. */
type Reading = 'none' | 'long-poll' | 'stream';

/** One run: server CPU (µs) over the measured sends, and the message events delivered for them. */
interface Run {
  cpu: number;
  delivered: number;
}

async function main(): Promise<void> {
  const chat = await startServer('chat', { BENCH_USERS: String(subscribers - 1) });
  const owner = chat.info as BenchUser;
  const users = [owner, ...chat.info.users!];
  const agent = new Agent({ keepAlive: true });
  try {
    await subscribeAll(chat.info.port, agent, owner, 'bench', users);
    const send = formShot(owner, '/messages', {
      type: 'stream',
      to: 'bench',
      topic: 'transports',
      content: 'Hello **all**.',
    });
    const owners = Array.from(
      { length: subscribers * queuesPerUser },
      (_, i) => users[i % users.length],
    );
    const run = (reading: Reading) => () => measure(chat, agent, owners, reading, send);
    const [none, polled, streamed] = await alternately(rounds, [
      run('none'),
      run('long-poll'),
      run('stream'),
    ]);
    // CPU beyond the sends' own, per delivered event (µs).
    const perEvent = (runs: Run[]) =>
      runs.map((r, i) => Math.max(0, r.cpu - none[i].cpu) / Math.max(1, r.delivered));
    const poll = perEvent(polled);
    const stream = perEvent(streamed);
    process.stdout.write(
      `${owners.length} queues, one message to all of them ${rate}/s for ${seconds} s, ${rounds} rounds\n` +
        `sends alone (queues read by nobody): CPU ${withSpread(
          none.map((r) => r.cpu / 1000),
          0,
        )} ms\n` +
        `long-poll: ${withSpread(
          polled.map((r) => r.delivered),
          0,
        )} events delivered, ${withSpread(poll, 1)} µs of CPU per delivered event beyond the sends\n` +
        `stream:    ${withSpread(
          streamed.map((r) => r.delivered),
          0,
        )} events delivered, ${withSpread(stream, 1)} µs of CPU per delivered event beyond the sends\n`,
    );
    process.stdout.write(
      `${figure('SSE: CPU per delivered event / long-poll cycle', `ratio ${withSpread(ratios(stream, poll))}`, '<= 0.5')}\n`,
    );
  } finally {
    agent.destroy();
    chat.child.kill();
  }
}

/** Registers fresh queues, reads them as `reading` says while sending, and deletes them. */
async function measure(
  server: Started,
  agent: Agent,
  owners: BenchUser[],
  reading: Reading,
  send: ReturnType<typeof formShot>,
): Promise<Run> {
  const port = server.info.port;
  const polls = await registerQueues(port, owners);
  const readers = reading === 'none' ? null : await startPollers(port, polls, reading === 'stream');
  await sleep(1000);
  const { cpu, result } = await measured(server, () => openLoop(port, rate, seconds, () => send));
  await sleep(1000);
  const seen = await readers?.stop();
  let delivered = 0;
  for (const { body } of result.answers) delivered += seen?.byMessage[String(body.id)]?.[0] ?? 0;
  await deleteQueues(port, agent, owners, polls);
  return { cpu, delivered };
}

/** Deletes the queues of a run, so that the next run's sends append to its own alone. */
async function deleteQueues(
  port: number,
  agent: Agent,
  owners: BenchUser[],
  polls: Poll[],
): Promise<void> {
  for (let i = 0; i < polls.length; i += 16)
    await Promise.all(
      polls
        .slice(i, i + 16)
        .map((poll, j) =>
          call(
            port,
            agent,
            owners[i + j],
            'DELETE',
            `/events?queue_id=${encodeURIComponent(poll.queueId)}`,
          ),
        ),
    );
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
