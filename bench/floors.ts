// This server against its floor (floor.ts: node:http and better-sqlite3 doing
// the same work by hand, on the same database) on the hot paths, under the
// same open-loop load in the same run. The figure is the floor's CPU time
// divided by this server's for the same requests (1.0: no overhead), with the
// latency percentiles beside it:
//  - send: POST /messages to a channel of 50 subscribers at BENCH_RATE (50)
//    a second, before any event queue exists;
//  - send with polls: the same while each subscriber holds a waiting
//    long-poll; also the p99 from a send being due to the last of its 50
//    polls answered;
//  - read: GET /messages of one topic (100 of BENCH_MESSAGES, 100,000),
//    newest first, at BENCH_RATE a second.
// Each run lasts BENCH_SECONDS (10) after a 2-second warm-up. Prints figures;
// it is not a pass/fail test.
//   npm run bench:floors
import { Agent } from 'node:http';
import { call, sleep, startServer, subscribeAll, type BenchUser, type Started } from './load';
import {
  figure,
  formShot,
  getShot,
  measured,
  openLoop,
  percentile,
  percentiles,
  type OpenLoopResult,
  type Shot,
} from './open-loop';
import { deliveryTimes, registerQueues, startPollers } from './pollers-client';
import { seed } from './seed';

const seconds = Number(process.env.BENCH_SECONDS || 10);
const rate = Number(process.env.BENCH_RATE || 50);
const totalMessages = Number(process.env.BENCH_MESSAGES || 100_000);
const subscribers = 50;

/** A warm-up, then the measured run: the server's CPU microseconds per request and the run's result. */
async function run(server: Started, shot: (i: number) => Shot) {
  await openLoop(server.info.port, rate, Math.min(2, seconds), shot);
  const { cpu, result } = await measured(server, () =>
    openLoop(server.info.port, rate, seconds, shot),
  );
  if (result.failed) throw new Error(`${result.failed} requests failed`);
  return { perRequest: cpu / (rate * seconds), result };
}

function line(
  name: string,
  ours: { perRequest: number; result: { latencies: number[] } },
  floor: typeof ours,
) {
  return `${name.padEnd(22)} this server ${ours.perRequest.toFixed(0).padStart(6)} us CPU/request (${percentiles(ours.result.latencies)})   floor ${floor.perRequest.toFixed(0).padStart(5)} us (${percentiles(floor.result.latencies)})`;
}

/** The sends of an open-loop run: when each was due, and the ID it was answered with. */
function sendsOf(result: OpenLoopResult) {
  return result.answers.map(({ due, body }) => ({ due, id: body.id }));
}

async function main(): Promise<void> {
  const chat = await startServer('chat', { BENCH_USERS: String(subscribers - 1) });
  const owner = chat.info as BenchUser;
  const users = [owner, ...chat.info.users!];
  const agent = new Agent({ keepAlive: true });
  const floor = await startServer('floor', { BENCH_DATABASE_URL: chat.info.databaseUrl! });
  const figures: string[] = [];
  try {
    await subscribeAll(chat.info.port, agent, owner, 'bench', users);
    const send = formShot(owner, '/messages', {
      type: 'stream',
      to: 'bench',
      topic: 'benchmark',
      content:
        'Hello **everyone**, a message of ordinary length with a [link](https://example.com).',
    });
    process.stdout.write(
      `open loop, ${rate} requests/s for ${seconds} s after a warm-up; CPU of the server process\n`,
    );

    const quietOurs = await run(chat, () => send);
    const quietFloor = await run(floor, () => send);
    process.stdout.write(`${line('send, no queues', quietOurs, quietFloor)}\n`);
    figures.push(
      figure(
        'send to 50 subscribers, no queues',
        `ratio ${(quietFloor.perRequest / quietOurs.perRequest).toFixed(3)}`,
        '0.7',
      ),
    );

    const queues = await registerQueues(chat.info.port, users);
    const oursPolls = await startPollers(chat.info.port, queues);
    const pollingOurs = await run(chat, () => send);
    await sleep(500);
    const oursSeen = await oursPolls.stop();
    const floorPolls = await startPollers(
      floor.info.port,
      queues.map((q, i) => ({ ...q, queueId: `floor-${i}` })),
    );
    await sleep(200);
    const pollingFloor = await run(floor, () => send);
    await sleep(500);
    const floorSeen = await floorPolls.stop();
    const oursDelivery = deliveryTimes(sendsOf(pollingOurs.result), oursSeen, subscribers);
    const floorDelivery = deliveryTimes(sendsOf(pollingFloor.result), floorSeen, subscribers);
    process.stdout.write(`${line('send, 50 waiting polls', pollingOurs, pollingFloor)}\n`);
    process.stdout.write(
      `${''.padEnd(22)} due -> last of 50 polls answered: this server ${percentiles(oursDelivery.times)} (${oursDelivery.missing} not delivered to all)   floor ${percentiles(floorDelivery.times)} (${floorDelivery.missing})\n`,
    );
    figures.push(
      figure(
        'send to 50 waiting polls',
        `ratio ${(pollingFloor.perRequest / pollingOurs.perRequest).toFixed(3)}`,
        '0.7',
      ),
      figure(
        'send to 50 waiting polls, p99 send -> delivered',
        `${percentile(oursDelivery.times, 99).toFixed(1)} ms`,
        '10 ms',
      ),
    );

    const stream = (await call(chat.info.port, agent, owner, 'GET', '/streams')).streams.find(
      (s: { name: string }) => s.name === 'bench',
    );
    const realmId = (
      await call(chat.info.port, agent, owner, 'POST', '/register', {
        event_types: '[]',
        fetch_event_types: '["realm"]',
      })
    ).realm_id;
    agent.destroy();
    await seed(chat.info.databaseUrl!, realmId, stream.stream_id, owner.id, totalMessages, 100);
    const read = getShot(owner, '/messages', {
      anchor: 'newest',
      num_before: '100',
      num_after: '0',
      narrow: JSON.stringify([
        { operator: 'channel', operand: 'bench' },
        { operator: 'topic', operand: 'target' },
      ]),
    });
    const readOurs = await run(chat, () => read);
    const readFloor = await run(floor, () => read);
    process.stdout.write(`${line(`read 100 of ${totalMessages}`, readOurs, readFloor)}\n`);
    figures.push(
      figure(
        `GET /messages, 100 of ${totalMessages}`,
        `ratio ${(readFloor.perRequest / readOurs.perRequest).toFixed(3)}`,
        '0.7',
      ),
    );
    process.stdout.write(`${figures.join('\n')}\n`);
  } finally {
    agent.destroy();
    chat.child.kill();
    floor.child.kill();
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
