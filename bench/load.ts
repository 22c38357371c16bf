// What the benchmarks share: starting the servers of servers.ts in child
// processes, driving them with autocannon, and printing results.
import { spawn, type ChildProcess } from 'node:child_process';
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

/**
 * Starts `servers.js <kind>` with extra environment and resolves when it is
 * ready. With BENCH_PROFILE_DIR set, the chat server writes a CPU profile
 * there when it stops.
 */
export function startServer(
  kind: 'bare' | 'fanout' | 'chat',
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const profile =
    kind === 'chat' && process.env.BENCH_PROFILE_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
      : [];
  const child = spawn(process.execPath, [...profile, join(__dirname, 'servers.js'), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, info: JSON.parse(line) }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
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
