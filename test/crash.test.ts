// A server process killed with SIGKILL in the middle of sends loses no
// acknowledged message: after a restart, every message the server answered
// with an ID is readable by its sender and its recipients, with one
// UserMessage row per recipient, and no message was stored half-written.
import { TestCluster, type ChildServer } from './support/cluster';
import type { Cast } from './support/server';

let cluster: TestCluster;
let cast: Cast;

beforeAll(async () => {
  cluster = await TestCluster.start(1, { SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0' });
  cast = await cluster.servers[0].createCast();
  const res = await cluster.servers[0].call('POST', '/users/me/subscriptions', {
    as: cast.admin,
    params: {
      subscriptions: [{ name: 'crash' }],
      principals: [cast.admin.id, cast.member.id, cast.member2.id],
    },
  });
  expect(res.status).toBe(200);
}, 60_000);
afterAll(() => cluster?.stop());

interface Sent {
  id: number;
  content: string;
  /** Who must read it: the sender and its recipients. */
  readers: number[];
}

/** Sends messages in four parallel loops, killing the server after `killAfter` acknowledgements; returns those acknowledged. */
async function sendUntilKilled(server: ChildServer, round: number, killAfter: number) {
  const acknowledged: Sent[] = [];
  let stopped = false;
  let n = 0;
  const loop = async (lane: number) => {
    while (!stopped) {
      const content = `round ${round} lane ${lane} message ${n++}`;
      const direct = n % 2 === 0;
      try {
        const res = await server.send('POST', '/messages', {
          as: cast.member,
          params: direct
            ? { type: 'direct', to: [cast.member2.id], content }
            : { type: 'stream', to: 'crash', topic: `round ${round}`, content },
        });
        if (res.status !== 200) throw new Error(`send answered ${res.status}`);
        acknowledged.push({
          id: res.body.id,
          content,
          readers: direct
            ? [cast.member.id, cast.member2.id]
            : [cast.admin.id, cast.member.id, cast.member2.id],
        });
        if (acknowledged.length === killAfter) server.kill('SIGKILL');
      } catch (error) {
        // The connection died with the process: that send was never acknowledged.
        if (!/ECONNRESET|ECONNREFUSED|socket hang up|EPIPE/.test(String(error))) throw error;
        stopped = true;
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(loop));
  return acknowledged;
}

test('every acknowledged message survives SIGKILL with its recipients', async () => {
  const acknowledged: Sent[] = [];
  for (let round = 0; round < 2; round++) {
    const server = await cluster.spawn();
    acknowledged.push(...(await sendUntilKilled(server, round, 15 + round * 10)));
    expect(await server.exited).toBe('SIGKILL');
  }
  expect(acknowledged.length).toBeGreaterThanOrEqual(25);

  // Restarted, the server answers every acknowledged message to every reader.
  const restarted = await cluster.spawn();
  const users = [cast.admin, cast.member, cast.member2];
  for (const sent of acknowledged) {
    for (const id of sent.readers) {
      const reader = users.find((u) => u.id === id)!;
      const res = await restarted.call('GET', `/messages/${sent.id}`, {
        as: reader,
        params: { apply_markdown: false },
      });
      expect({ id: sent.id, status: res.status, content: res.body.message?.content }).toEqual({
        id: sent.id,
        status: 200,
        content: sent.content,
      });
    }
  }
  // And each message stored, acknowledged or not, has all its recipients' rows.
  const db = cluster.servers[0].services.db;
  const rows = await db.read((tx) =>
    tx.userMessage.groupBy({ by: ['messageId'], _count: { userId: true } }),
  );
  const stored = await db.read((tx) =>
    tx.message.findMany({
      where: { senderId: cast.member.id },
      select: { id: true, content: true },
    }),
  );
  // Message k of a round went as a direct message (2 rows) when k is odd, else to the channel (3).
  const expectedRows = (content: string) =>
    Number(/message (\d+)$/.exec(content)![1]) % 2 ? 2 : 3;
  const count = new Map(rows.map((r) => [r.messageId, r._count.userId]));
  for (const message of stored)
    expect({ id: message.id, rows: count.get(message.id) }).toEqual({
      id: message.id,
      rows: expectedRows(message.content),
    });
  // The restarted server takes new messages.
  const after = await restarted.call('POST', '/messages', {
    as: cast.member,
    params: { type: 'direct', to: [cast.member2.id], content: 'after the crash' },
  });
  expect(after.status).toBe(200);
  expect(after.body.id).toBeGreaterThan(Math.max(...acknowledged.map((s) => s.id)));
}, 120_000);
