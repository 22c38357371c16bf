// Servers the benchmarks measure, each started in a child process of its own
// so that the load generator does not share its event loop:
//   node dist/bench/servers.js bare   -> a bare node:http server answering fixed JSON
//                                        (BENCH_BODY, the chat server's own answer)
//   node dist/bench/servers.js koa    -> a bare Koa + @koa/router app answering the
//                                        same bytes at GET /api/v1/users/me
//   node dist/bench/servers.js fanout -> a bare node:http server that adds a fixed
//                                        event to every queue on each POST and
//                                        answers each GET /api/v1/events with the
//                                        events its queue holds (waiting for one if
//                                        none): the least work any server does to
//                                        deliver every message to every poll
//   node dist/bench/servers.js chat   -> this project's server on a fresh SQLite
//                                        (or BENCH_DATABASE_URL) with one organization
//                                        and BENCH_USERS members besides its owner
//   node dist/bench/servers.js peer   -> this project's server on the existing
//                                        BENCH_DATABASE_URL, creating nothing
//   node dist/bench/servers.js floor  -> the hand-written floor on the existing
//                                        BENCH_DATABASE_URL: floor.ts on SQLite,
//                                        floor-pg.ts on PostgreSQL
// Each prints one JSON line with its port (and credentials) when ready, and
// answers "usage" on its IPC channel (or SIGUSR2, on stdout) with its CPU
// microseconds (user + system) before and after a full garbage collection,
// and the heap after it; chat and peer answer "waiting" with the polls
// waiting in them.
import { createServer, type ServerResponse } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../src/actions/realm/realms';
import { doCreateUser } from '../src/actions/users/users';
import { Role } from '../src/lib/constants';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/log';
import { startServer } from '../src/server';
import type { Services } from '../src/services';
import type { Realm } from '../generated/prisma/sqlite/client';
import { floor } from './floor';
import { floorPostgres } from './floor-pg';

/** The answer of the bare servers: BENCH_BODY (the chat server's own answer), or a small user object. */
function fixedBody(): Buffer {
  return Buffer.from(
    process.env.BENCH_BODY ||
      JSON.stringify({
        result: 'success',
        msg: '',
        user_id: 1,
        email: 'owner@example.com',
        full_name: 'Owner',
        role: 100,
      }),
  );
}

async function bare(): Promise<void> {
  const body = fixedBody();
  const server = createServer((req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
    });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () =>
    process.stdout.write(
      `${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`,
    ),
  );
}

/** A bare Koa + @koa/router app answering GET /api/v1/users/me with the same bytes as `bare`. */
async function koa(): Promise<void> {
  const body = fixedBody();
  const app = new Koa();
  const router = new Router({ prefix: '/api/v1' });
  router.get('/users/me', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  app.use(router.routes());
  const server = app.listen(0, '127.0.0.1', () =>
    process.stdout.write(
      `${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`,
    ),
  );
}

async function fanout(): Promise<void> {
  // Each queue (by queue_id, made on its first poll) keeps the events its
  // poll has not taken yet, so that every message reaches every queue.
  const queues = new Map<string, { pending: string[]; waiting: ServerResponse | null }>();
  let nextId = 0;
  const reply = (res: ServerResponse, body: string) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  };
  const answer = (
    queue: { pending: string[]; waiting: ServerResponse | null },
    res: ServerResponse,
  ) => {
    reply(res, `{"result":"success","msg":"","events":[${queue.pending.join(',')}]}`);
    queue.pending = [];
  };
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/api/v1/events')) {
      const id = new URL(req.url, 'http://x').searchParams.get('queue_id') ?? '';
      let queue = queues.get(id);
      if (!queue) queues.set(id, (queue = { pending: [], waiting: null }));
      if (queue.pending.length) answer(queue, res);
      else queue.waiting = res;
      return;
    }
    req.resume();
    req.on('end', () => {
      const id = ++nextId;
      const event = JSON.stringify({
        type: 'message',
        id,
        message: { id, content: '<p>Hello</p>' },
        flags: [],
      });
      for (const queue of queues.values()) {
        queue.pending.push(event);
        const waiting = queue.waiting;
        if (waiting) {
          queue.waiting = null;
          answer(queue, waiting);
        }
      }
      reply(res, JSON.stringify({ result: 'success', msg: '', id }));
    });
  });
  server.listen(0, '127.0.0.1', () =>
    process.stdout.write(
      `${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`,
    ),
  );
}

/**
 * A function creating `count` more members of `realm` (user0@example.com,
 * user1@..., numbered on from the previous call), without passwords (hashing
 * would only slow the setup), a few at a time (on PostgreSQL, their round
 * trips overlap).
 */
function createMembers(services: Services, realm: Realm) {
  let created = 0;
  return async (count: number) => {
    const first = created;
    created += count;
    const users: { id: number; email: string; apiKey: string }[] = new Array(count);
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const user = await doCreateUser(services, realm, {
          email: `user${first + i}@example.com`,
          fullName: `User ${first + i}`,
          password: null,
          role: Role.MEMBER,
        });
        users[i] = { id: user.id, email: user.email, apiKey: user.apiKey };
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    return users;
  };
}

async function chat(): Promise<void> {
  const url =
    process.env.BENCH_DATABASE_URL ||
    `file:${join(mkdtempSync(join(tmpdir(), 'chat-bench-')), 'chat.db')}`;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_REQUESTS: '100000000',
  });
  const server = await startServer({ ...config, port: 0 }, createLogger(config.logLevel));
  answerWaiting(server.services);
  const { realm, owner } = await doCreateRealm(server.services, {
    name: 'Bench',
    owner: { email: 'owner@example.com', fullName: 'Owner', password: 'bench-password' },
  });
  const members = createMembers(server.services, realm);
  const users = await members(Number(process.env.BENCH_USERS || 0));
  // Asked over the IPC channel for more ({ addUsers: count }), it answers { users }.
  process.on('message', (message: { addUsers?: number }) => {
    if (typeof message === 'object' && message?.addUsers)
      void members(message.addUsers).then((added) => process.send?.({ users: added }));
  });
  process.stdout.write(
    `${JSON.stringify({ port: Number(new URL(server.url).port), databaseUrl: url, id: owner.id, email: owner.email, apiKey: owner.apiKey, users })}\n`,
  );
}

/** This server on the existing BENCH_DATABASE_URL (another process of a deployment): nothing is created. */
async function peer(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_REQUESTS: '100000000',
  });
  const server = await startServer({ ...config, port: 0 }, createLogger(config.logLevel));
  answerWaiting(server.services);
  process.stdout.write(`${JSON.stringify({ port: Number(new URL(server.url).port) })}\n`);
}

/** Asked "waiting" over the IPC channel, answers { waiting } with the polls waiting in this process. */
function answerWaiting(services: Services): void {
  process.on('message', (message) => {
    if (message === 'waiting') process.send?.({ waiting: services.queues.waitingPolls() });
  });
}

async function floorServer(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL!;
  const port = await (url.startsWith('file:') ? floor : floorPostgres)(url, 'http://127.0.0.1');
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}

/** CPU microseconds before and after a full garbage collection, and the heap after it. */
function usage() {
  const before = process.cpuUsage();
  (globalThis as { gc?: () => void }).gc?.();
  const after = process.cpuUsage();
  return {
    cpu: before.user + before.system,
    cpuAfter: after.user + after.system,
    heap: process.memoryUsage().heapUsed,
  };
}
// Asked over the IPC channel (startServer of load.ts), or by SIGUSR2 with the answer on stdout.
process.on('message', (message) => {
  if (message === 'usage') process.send?.(usage());
});
process.on('SIGUSR2', () => process.stdout.write(`${JSON.stringify(usage())}\n`));

// Exit normally on a signal, so that profilers (node --cpu-prof) write their output.
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));

const kinds: Record<string, () => Promise<void>> = {
  bare,
  koa,
  fanout,
  chat,
  peer,
  floor: floorServer,
};
const run = kinds[process.argv[2] ?? ''];
if (!run) {
  process.stderr.write('usage: servers.js bare|koa|fanout|chat|peer|floor\n');
  process.exit(2);
}
run().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
