// Two benchmarks of the messages area, each beside a bare node:http server
// measured in the same run under the same load:
//  - sending: POST /messages to a channel of 50 subscribers, each of whom has
//    an event queue with a long-poll waiting on it;
//  - reading: GET /messages of one topic (100 messages, newest first) from a
//    database holding 100,000 messages.
// Beside the bare server, the sending benchmark measures what bounds it:
//  - a bare fan-out server (servers.ts) under the same pollers: node:http
//    answering the waiting polls and nothing else, the ceiling for any server
//    that delivers each message to 50 long-polls;
//  - this server sending before any event queue exists (the cost of a send
//    without the cost of answering polls);
//  - the database alone: the message row and its 51 recipient rows written
//    and committed directly with better-sqlite3, as the send path writes them.
// Prints throughput, latency and the ratios; it is not a pass/fail test.
//   npm run bench:messages   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_MESSAGES)
import BetterSqlite3 from 'better-sqlite3';
import { Agent } from 'node:http';
import { parseDatabaseUrl } from '../src/db/url';
import { basicAuth, call, load, startServer, subscribeAll, summary, type BenchUser } from './load';
import { startPollers } from './pollers-client';
import { seed } from './seed';

const seconds = Number(process.env.BENCH_SECONDS || 10);
const connections = Number(process.env.BENCH_CONNECTIONS || 10);
const totalMessages = Number(process.env.BENCH_MESSAGES || 100_000);
const subscribers = 50;

/**
 * Writes `count` messages to the channel the way the send path does (one
 * message row, one row per recipient, one commit each) with the server's
 * pragmas, straight through better-sqlite3; returns the wall-clock and CPU
 * microseconds per message.
 */
function databaseFloor(
  databaseUrl: string,
  realmId: number,
  streamId: number,
  senderId: number,
  userIds: number[],
  count: number,
): { wall: number; cpu: number } | null {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.provider !== 'sqlite') return null;
  const db = new BetterSqlite3(target.file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    const message = db.prepare(
      `INSERT INTO "Message" ("realmId", "senderId", "streamId", "topic", "topicLower", "content", "renderedContent", "dateSent") VALUES (?, ?, ?, 'floor', 'floor', ?, ?, ?) RETURNING "id"`,
    );
    const recipients = db.prepare(
      `INSERT INTO "UserMessage" ("userId", "messageId", "read", "mentioned", "streamWildcardMentioned", "topicWildcardMentioned", "isPrivate") VALUES ${userIds.map(() => '(?, ?, 0, 0, 0, 0, 0)').join(', ')}`,
    );
    const send = db.transaction(() => {
      const { id } = message.get(
        realmId,
        senderId,
        streamId,
        'Hello **everyone**',
        '<p>Hello <strong>everyone</strong></p>',
        new Date().toISOString(),
      ) as { id: number };
      recipients.run(userIds.flatMap((userId) => [userId, id]));
    });
    for (let i = 0; i < count / 10; i++) send();
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    for (let i = 0; i < count; i++) send();
    const used = process.cpuUsage(cpu);
    return {
      wall: Number(process.hrtime.bigint() - started) / 1000 / count,
      cpu: (used.user + used.system) / count,
    };
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const bare = await startServer('bare');
  const chat = await startServer('chat', { BENCH_USERS: String(subscribers) });
  const { port } = chat.info;
  const owner = chat.info as BenchUser;
  const users = chat.info.users!;
  const agent = new Agent({ keepAlive: true });
  try {
    await subscribeAll(port, agent, owner, 'bench', users);
    const form =
      'type=stream&to=bench&topic=benchmark&content=' +
      encodeURIComponent(
        'Hello **everyone**, a message of ordinary length with a [link](https://example.com).',
      );
    const postOptions = {
      method: 'POST' as const,
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      connections,
    };
    const chatPost = {
      ...postOptions,
      url: `http://127.0.0.1:${port}/api/v1/messages`,
      headers: { ...postOptions.headers, authorization: basicAuth(owner) },
    };
    const marker = { type: 'stream', to: 'bench', topic: 'marker', content: 'marker' };
    const quietSend = await load(chatPost, seconds);

    const queues: string[] = [];
    for (const user of users)
      queues.push(
        (await call(port, agent, user, 'POST', '/register', { event_types: '["message"]' }))
          .queue_id,
      );
    const pollsOf = users.map((u, i) => ({ email: u.email, apiKey: u.apiKey, queueId: queues[i] }));
    const polls = await startPollers(port, pollsOf);
    const bareSend = await load(
      { ...postOptions, url: `http://127.0.0.1:${bare.info.port}/api/v1/messages` },
      seconds,
    );
    const fanout = await startServer('fanout');
    const fanoutPolls = await startPollers(fanout.info.port, pollsOf);
    const fanoutSend = await load(
      { ...postOptions, url: `http://127.0.0.1:${fanout.info.port}/api/v1/messages` },
      seconds,
    );
    await fanoutPolls.stop();
    fanout.child.kill();
    const before = (await call(port, agent, owner, 'POST', '/messages', marker)).id;
    const send = await load(chatPost, seconds);
    const after = (await call(port, agent, owner, 'POST', '/messages', marker)).id;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const sent = after - before + 1; // the warm-up, the measured run and the second marker
    const delivered = (await polls.stop()).received;

    const stream = (await call(port, agent, owner, 'GET', '/streams')).streams.find(
      (s: { name: string }) => s.name === 'bench',
    );
    const realmId = (
      await call(port, agent, owner, 'POST', '/register', {
        event_types: '[]',
        fetch_event_types: '["realm"]',
      })
    ).realm_id;
    const started = Date.now();
    await seed(chat.info.databaseUrl!, realmId, stream.stream_id, owner.id, totalMessages, 100);
    const seededIn = (Date.now() - started) / 1000;
    // Seeding can outlast the server's keep-alive timeout: start on new sockets.
    agent.destroy();

    const narrow = encodeURIComponent(
      JSON.stringify([
        { operator: 'channel', operand: 'bench' },
        { operator: 'topic', operand: 'target' },
      ]),
    );
    const path = `/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=${narrow}`;
    const check = await call(port, agent, owner, 'GET', path.replace('/api/v1', ''));
    const bareRead = await load(
      { url: `http://127.0.0.1:${bare.info.port}${path}`, connections },
      seconds,
    );
    const read = await load(
      {
        url: `http://127.0.0.1:${port}${path}`,
        connections,
        headers: { authorization: basicAuth(owner) },
      },
      seconds,
    );
    const floor = databaseFloor(
      chat.info.databaseUrl!,
      realmId,
      stream.stream_id,
      owner.id,
      [owner.id, ...users.map((u) => u.id)],
      2000,
    );

    process.stdout.write(
      `POST /messages to a channel of ${subscribers} subscribers with waiting long-polls, ${connections} connections, ${seconds} s each\n`,
    );
    const ratio = (a: { requests: { average: number } }, b: { requests: { average: number } }) =>
      (a.requests.average / b.requests.average).toFixed(4);
    process.stdout.write(
      `${summary('bare node:http', bareSend)}\n${summary('bare fan-out', fanoutSend)}\n${summary('chat, no event queues', quietSend)}\n${summary('chat server', send)}\n`,
    );
    process.stdout.write(
      `ratio (chat / bare): ${ratio(send, bareSend)}   (fan-out / bare): ${ratio(fanoutSend, bareSend)}   (chat, no queues / bare): ${ratio(quietSend, bareSend)}\n`,
    );
    process.stdout.write(
      `message events delivered to the waiting queues: ${delivered} of ${sent * subscribers} (${sent} messages x ${subscribers} subscribers)\n`,
    );
    if (floor)
      process.stdout.write(
        `the database alone, per message and its ${subscribers + 1} recipient rows: ${floor.wall.toFixed(0)} us wall, ${floor.cpu.toFixed(0)} us CPU\n`,
      );
    process.stdout.write('\n');
    process.stdout.write(
      `GET /messages, one topic of 100 in ${totalMessages} messages (seeded in ${seededIn.toFixed(1)} s; answer holds ${check.messages?.length} messages), ${connections} connections, ${seconds} s each\n`,
    );
    process.stdout.write(
      `${summary('bare node:http', bareRead)}\n${summary('chat server', read)}\n`,
    );
    process.stdout.write(`ratio (chat / bare): ${ratio(read, bareRead)}\n`);
  } finally {
    agent.destroy();
    bare.child.kill();
    chat.child.kill();
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
