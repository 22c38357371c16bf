// What the benchmarks share: starting the servers of servers.ts in child
// processes, driving them with autocannon, and printing results.
import { spawn, type ChildProcess, type Serializable } from 'node:child_process';
import { request, type Agent } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

/** Credentials of a user of the benchmark organization. */
export interface BenchUser {
  id: number;
  email: string;
  apiKey: string;
}

/** What a server child prints when it is ready. */
export interface ServerInfo extends Partial<BenchUser> {
  port: number;
  databaseUrl?: string;
  users?: BenchUser[];
}

/** A server child's CPU time (user + system, microseconds) and its heap after a full collection (bytes). */
export interface Usage {
  cpu: number;
  /** The CPU time after the collection, from which a measured window starts. */
  cpuAfter: number;
  heap: number;
}

/** A started server child. */
export interface Started {
  child: ChildProcess;
  info: ServerInfo;
  /** Asks the child for its usage (over the IPC channel). */
  usage(): Promise<Usage>;
  /** Asks a chat or peer child how many polls wait in it (over the IPC channel). */
  waiting(): Promise<number>;
}

/** How many log lines of a server child are shown. */
const LOG_LINES_SHOWN = 20;

/**
 * Starts `servers.js <kind>` with extra environment and resolves when it is
 * ready. With BENCH_PROFILE_DIR set, chat and peer servers write a CPU
 * profile there when they stop.
 */
export function startServer(
  kind: 'bare' | 'koa' | 'fanout' | 'chat' | 'peer' | 'floor',
  env: Record<string, string> = {},
  /** The dist/bench folder of the build to start (another build's, to compare with this one). */
  benchDir = __dirname,
): Promise<Started> {
  const profile =
    (kind === 'chat' || kind === 'peer') && process.env.BENCH_PROFILE_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
      : [];
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...profile, join(benchDir, 'servers.js'), kind],
    { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, ...env } },
  );
  const lines = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  // What the server logs after its first line (warnings and errors) is
  // shown on stderr, the first LOG_LINES_SHOWN of it, the rest counted.
  let logged = -1;
  lines.on('line', (line) => {
    if (++logged > 0 && logged <= LOG_LINES_SHOWN) process.stderr.write(`[${kind}] ${line}\n`);
  });
  lines.once('close', () => {
    if (logged > LOG_LINES_SHOWN)
      process.stderr.write(`[${kind}] ${logged - LOG_LINES_SHOWN} more log lines\n`);
  });
  // Usage and waiting polls travel over the IPC channel, apart from anything the child prints.
  const usage = () => ask<Usage>(child, 'usage', (reply) => reply?.heap !== undefined);
  const waiting = async () =>
    (await ask<{ waiting: number }>(child, 'waiting', (reply) => reply?.waiting !== undefined))
      .waiting;
  return new Promise((resolve, reject) => {
    next().then((line) => resolve({ child, info: JSON.parse(line), usage, waiting }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

/** Sends `question` to a child over its IPC channel; resolves with the first reply that `isAnswer`. */
function ask<T>(
  child: ChildProcess,
  question: Serializable,
  isAnswer: (reply: Partial<T> | undefined) => boolean,
): Promise<T> {
  return new Promise((resolve) => {
    const listener = (reply: Partial<T> | undefined) => {
      if (!isAnswer(reply)) return;
      child.off('message', listener);
      resolve(reply as T);
    };
    child.on('message', listener);
    child.send(question);
  });
}

/** Asks a chat server child for `count` more members; answers their credentials. */
export async function addUsers(server: Started, count: number): Promise<BenchUser[]> {
  const reply = await ask<{ users: BenchUser[] }>(
    server.child,
    { addUsers: count },
    (message) => message?.users !== undefined,
  );
  return reply.users;
}

/** `url` (a PostgreSQL server) with `?schema=NAME` (or `&schema=`) added: the benchmark's own schema there. */
export function withSchema(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
}

/** HTTP basic credentials for `user`. */
export function basicAuth(user: Pick<BenchUser, 'email' | 'apiKey'>): string {
  return `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
}

/** A warm-up, then the measured autocannon run. */
export async function load(
  options: autocannon.Options,
  seconds: number,
): Promise<autocannon.Result> {
  await autocannon({ ...options, duration: Math.min(2, seconds) });
  return autocannon({ ...options, duration: seconds });
}

/** One line of results. */
export function summary(name: string, r: autocannon.Result): string {
  return `${name.padEnd(24)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
}

/** A parsed JSON answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several operations, each read for a field or two
export type Answer = any;

/** One API request as `user` (form fields urlencoded), answered with its parsed JSON. */
export function call(
  port: number,
  agent: Agent,
  user: Pick<BenchUser, 'email' | 'apiKey'>,
  method: string,
  path: string,
  form?: Record<string, string>,
): Promise<Answer> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `/api/v1${path}`,
        agent,
        headers: {
          authorization: basicAuth(user),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', (error) => reject(new Error(`${method} ${path}: ${error.message}`)));
    req.end(body);
  });
}

/** Subscribes `members` to `channel` (creating it) as `owner`; throws unless it succeeds. */
export async function subscribeAll(
  port: number,
  agent: Agent,
  owner: Pick<BenchUser, 'email' | 'apiKey'>,
  channel: string,
  members: Pick<BenchUser, 'id'>[],
): Promise<void> {
  const answer = await call(port, agent, owner, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: channel }]),
    principals: JSON.stringify(members.map((u) => u.id)),
  });
  if (answer.result !== 'success') throw new Error(`subscribe: ${JSON.stringify(answer)}`);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** Starts dist/src/cluster.js with `workers` workers and resolves once it answers /ready. */
export async function startCluster(env: Record<string, string>, workers: number) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(__dirname, '..', 'src', 'cluster.js'), '--workers', String(workers)],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    },
  );
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  // Leave the other workers time to listen too.
  await new Promise((done) => setTimeout(done, 2000));
  return { port, child };
}

/** Stops `child` with SIGTERM and resolves once it has exited. */
export function stopped(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}
