// Three faults under a steady load of sends, polls and registrations (the
// drill of test/support/faults.ts), on PostgreSQL and Redis; figures, not a
// pass/fail test:
//  - Redis cut for BENCH_FAULT_SECONDS (default 3), then restored, under two
//    server processes reaching it through a TCP proxy (test/support/proxy.ts);
//  - the database cut the same way;
//  - a worker of `npm run cluster` (two workers) killed with SIGKILL.
// For each: requests answered, 503s, 500s (goal 0), requests left without an
// answer, the longest answer during the fault, how long after the return the
// processes served again, acknowledged messages missing from the database
// (goal 0) and events silently missed: acknowledged messages that a queue
// still answering its polls never received (goal 0).
//   BENCH_POSTGRES_URL=postgresql://... BENCH_REDIS_URL=redis://... npm run bench:faults
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { doCreateRealm } from '../src/actions/realm/realms';
import { doCreateUser } from '../src/actions/users/users';
import { loadConfig } from '../src/config';
import { Role } from '../src/lib/constants';
import { createLogger } from '../src/log';
import { startServer, type RunningServer } from '../src/server';
import {
  FaultDrill,
  storedMessageIds,
  type DrillClient,
  type DrillReply,
  type DrillUser,
} from '../test/support/faults';
import { TcpProxy } from '../test/support/proxy';
import { waitFor } from '../test/support/wait';

const postgresUrl = process.env.BENCH_POSTGRES_URL || '';
const redisUrl = process.env.BENCH_REDIS_URL || '';
const faultMs = Number(process.env.BENCH_FAULT_SECONDS || 3) * 1000;
const killSends = Number(process.env.BENCH_KILL_SENDS || 2000);

/** A plain HTTP client for the drill: form bodies, basic credentials, keep-alive. */
function httpClient(base: string): DrillClient {
  return {
    send(method, path, { as, params }) {
      const form = new URLSearchParams(
        Object.entries(params).map(([k, v]): [string, string] => [
          k,
          typeof v === 'string' ? v : JSON.stringify(v),
        ]),
      ).toString();
      const inQuery = method === 'GET' || method === 'DELETE';
      const target = `${base}/api/v1${path}${inQuery && form ? `?${form}` : ''}`;
      const body = inQuery ? undefined : Buffer.from(form);
      return new Promise<DrillReply>((resolve, reject) => {
        const req = request(
          target,
          {
            method,
            headers: {
              authorization: `Basic ${Buffer.from(`${as.email}:${as.apiKey}`).toString('base64')}`,
              ...(body
                ? {
                    'content-type': 'application/x-www-form-urlencoded',
                    'content-length': String(body.length),
                  }
                : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const headers = new Headers();
              for (const [name, value] of Object.entries(res.headers))
                if (value !== undefined) headers.set(name, String(value));
              let parsed: unknown = null;
              try {
                parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
              } catch {
                // counted by its status
              }
              resolve({ status: res.statusCode ?? 0, headers, body: parsed });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
  };
}

/** A fresh schema on the benchmark's PostgreSQL, and how to drop it. */
function freshSchema(): { url: string; drop: () => Promise<void> } {
  const schema = `bench_faults_${randomBytes(4).toString('hex')}`;
  const url = new URL(postgresUrl);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** Removes the keys under `prefix` from the benchmark's Redis. */
async function dropKeys(prefix: string): Promise<void> {
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
  await redis.quit();
}

/** Starts a server of this process on `databaseUrl`, with `env` added. */
function serverOn(databaseUrl: string, env: Record<string, string>): Promise<RunningServer> {
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_USER_REQUESTS: '100000000',
    RATE_LIMIT_IP_REQUESTS: '100000000',
    SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0',
    WELCOME_MESSAGES: '0',
    ...env,
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
  });
  return startServer(config, createLogger(config.logLevel));
}

/** An organization with a sender and two recipients. */
async function makeUsers(
  server: RunningServer,
): Promise<{ sender: DrillUser; recipients: DrillUser[] }> {
  const { realm, owner } = await doCreateRealm(server.services, {
    name: 'Faults',
    stringId: '',
    owner: { email: 'owner@faults.example.com', fullName: 'Owner', password: 'owner-password' },
  });
  const recipients = [];
  for (const name of ['ada', 'bob'])
    recipients.push(
      await doCreateUser(server.services, realm, {
        email: `${name}@faults.example.com`,
        fullName: name,
        role: Role.MEMBER,
        password: 'password',
      }),
    );
  return { sender: owner, recipients };
}

interface Figures {
  fault: string;
  answered: number;
  unavailable: number;
  errors500: number;
  otherErrors: number;
  unanswered: number;
  longestMs: number;
  backAfterMs: number | null;
  acknowledged: number;
  lost: number;
  missed: number;
  queuesLost: number;
}

/** The figures of `drill` for a fault from `from` to `to` (the moment the processes served again). */
async function figures(
  fault: string,
  drill: FaultDrill,
  databaseUrl: string,
  from: number,
  to: number,
  backAfterMs: number | null,
): Promise<Figures> {
  const answered = drill.answers.filter((a) => a.status !== 0);
  const during = drill.answersBetween(from, to);
  const acknowledged = drill.acknowledged.map((m) => m.id);
  const stored = await storedMessageIds(databaseUrl, acknowledged);
  // Each queue still polled gets a last chance to catch up.
  await waitFor(
    'queues to catch up',
    () => drill.queues.every((q) => q.lost || drill.missing(q).length === 0),
    5000,
  ).catch(() => undefined);
  await drill.stop();
  return {
    fault,
    answered: answered.length,
    unavailable: answered.filter((a) => a.status === 503).length,
    errors500: answered.filter((a) => a.status >= 500 && a.status !== 503).length,
    otherErrors: answered.filter(
      (a) => a.status >= 400 && a.status < 500 && a.code !== 'BAD_EVENT_QUEUE_ID',
    ).length,
    unanswered: drill.answers.length - answered.length,
    longestMs: Math.round(Math.max(0, ...during.map((a) => a.ms))),
    backAfterMs,
    acknowledged: acknowledged.length,
    lost: acknowledged.filter((id) => !stored.has(id)).length,
    missed: drill.queues.reduce((sum, q) => sum + (q.lost ? 0 : drill.missing(q).length), 0),
    queuesLost: drill.queues.filter((q) => q.lost).length,
  };
}

/** Cuts `proxy` under the drill for the fault's time, restores it, and measures the return. */
async function cutFault(fault: string, which: 'redis' | 'database'): Promise<Figures> {
  const schema = freshSchema();
  const pg = await TcpProxy.start(
    new URL(postgresUrl).hostname,
    Number(new URL(postgresUrl).port || 5432),
  );
  const redis = await TcpProxy.start(
    new URL(redisUrl).hostname,
    Number(new URL(redisUrl).port || 6379),
  );
  const prefix = `bench-faults-${randomBytes(4).toString('hex')}:`;
  const env = { REDIS_URL: redis.rewrite(redisUrl), REDIS_KEY_PREFIX: prefix };
  const servers = [await serverOn(pg.rewrite(schema.url), env)];
  servers.push(await serverOn(pg.rewrite(schema.url), env));
  try {
    const { sender, recipients } = await makeUsers(servers[0]);
    const drill = new FaultDrill({
      clients: servers.map((s) => httpClient(s.url)),
      sender,
      recipients,
      senders: 4,
    });
    await drill.start();
    await waitFor('a steady load', () => drill.acknowledged.length >= 50, 120_000);
    const proxy = which === 'redis' ? redis : pg;
    const cutAt = Date.now();
    proxy.cutOff();
    await new Promise((done) => setTimeout(done, faultMs));
    const restoredAt = Date.now();
    proxy.restore();
    let backAt: number | null = null;
    await waitFor(
      'both processes to serve again',
      () =>
        drill.answersBetween(restoredAt, Infinity, 'register').some((a) => a.status === 200) &&
        drill.acknowledged.some((m) => m.startedAt >= restoredAt),
      30_000,
    ).then(
      () => (backAt = Date.now()),
      () => undefined,
    );
    await waitFor('a little more load', () => drill.acknowledged.length >= 100, 60_000).catch(
      () => undefined,
    );
    await drill.stopSending();
    return await figures(
      fault,
      drill,
      schema.url,
      cutAt,
      backAt ?? Infinity,
      backAt === null ? null : backAt - restoredAt,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop(0)));
    await pg.close();
    await redis.close();
    await schema.drop();
    await dropKeys(prefix);
  }
}

/** Kills one of two workers of dist/src/cluster.js under the drill. */
async function killFault(): Promise<Figures> {
  const schema = freshSchema();
  const prefix = `bench-faults-${randomBytes(4).toString('hex')}:`;
  const child = spawn(
    process.execPath,
    [join(__dirname, '..', 'src', 'cluster.js'), '--workers', '2'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        DATABASE_URL: schema.url,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        RATE_LIMIT_USER_REQUESTS: '100000000',
        RATE_LIMIT_IP_REQUESTS: '100000000',
        SCHEDULED_MESSAGES_INTERVAL_SECONDS: '0',
        WELCOME_MESSAGES: '0',
      },
    },
  );
  const lines: { msg?: string; pid?: number; url?: string; workers?: number[] }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      const parsed = JSON.parse(line);
      if (parsed.msg !== 'request') lines.push(parsed);
    } catch {
      // not a log line
    }
  });
  try {
    await waitFor('the cluster', () => lines.some((l) => l.msg === 'cluster listening'), 300_000);
    const listening = lines.find((l) => l.msg === 'cluster listening')!;
    const helper = await serverOn(schema.url, { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix });
    const { sender, recipients } = await makeUsers(helper);
    await helper.stop(0);
    const drill = new FaultDrill({
      clients: [httpClient(String(listening.url).replace(/\/api\/v1$/, ''))],
      sender,
      recipients,
      senders: 6,
      maxSends: killSends,
    });
    await drill.start();
    await waitFor('a steady load', () => drill.acknowledged.length >= killSends / 10, 300_000);
    const workers = listening.workers as number[];
    const killedAt = Date.now();
    process.kill(workers[0], 'SIGKILL');
    let backAt: number | null = null;
    await waitFor(
      'a replacement worker',
      () => lines.some((l) => l.msg === 'listening' && !workers.includes(l.pid ?? 0)),
      60_000,
    ).then(
      () => (backAt = Date.now()),
      () => undefined,
    );
    await waitFor('every send', () => drill.sendsDone, 900_000);
    await drill.stopSending();
    return await figures(
      'worker SIGKILL',
      drill,
      schema.url,
      killedAt,
      backAt ?? Infinity,
      backAt === null ? null : backAt - killedAt,
    );
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    await schema.drop();
    await dropKeys(prefix);
  }
}

async function main(): Promise<void> {
  if (!postgresUrl || !redisUrl) {
    process.stderr.write('set BENCH_POSTGRES_URL and BENCH_REDIS_URL\n');
    process.exit(2);
  }
  const results = [
    await cutFault(`Redis cut ${faultMs / 1000} s`, 'redis'),
    await cutFault(`database cut ${faultMs / 1000} s`, 'database'),
    await killFault(),
  ];
  const header =
    'fault                 answered   503s   500s  other 4xx  no answer  longest during (ms)  served again after (ms)  acknowledged  lost  events missed  queues lost';
  process.stdout.write(`${header}\n`);
  for (const r of results)
    process.stdout.write(
      `${r.fault.padEnd(20)} ${String(r.answered).padStart(9)} ${String(r.unavailable).padStart(6)} ${String(r.errors500).padStart(6)} ${String(r.otherErrors).padStart(10)} ${String(r.unanswered).padStart(10)} ${String(r.longestMs).padStart(20)} ${String(r.backAfterMs ?? 'never').padStart(24)} ${String(r.acknowledged).padStart(13)} ${String(r.lost).padStart(5)} ${String(r.missed).padStart(14)} ${String(r.queuesLost).padStart(12)}\n`,
    );
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
