// Open-loop load: requests started at a fixed rate whatever the answers do,
// each timed from the moment it was due (so a slow answer delays no later
// request and hides no queueing), and the CPU a server child spent on them.
import { Agent, request } from 'node:http';
import { basicAuth, type BenchUser, type Started, type Usage } from './load';

/** One request of an open-loop run. */
export interface Shot {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What an open-loop run measured. */
export interface OpenLoopResult {
  /** Milliseconds from due to answered, sorted. */
  latencies: number[];
  failed: number;
  /** Each answer's parsed body with the time (performance.timeOrigin based, ms) it was due. */
  answers: { due: number; body: { id?: number; result?: string } }[];
}

/** A POST of urlencoded `fields` to the API path as `user`. */
export function formShot(
  user: Pick<BenchUser, 'email' | 'apiKey'>,
  path: string,
  fields: Record<string, string>,
): Shot {
  return {
    method: 'POST',
    path: `/api/v1${path}`,
    headers: {
      authorization: basicAuth(user),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(fields).toString(),
  };
}

/** A GET of the API path with `query` as `user`. */
export function getShot(
  user: Pick<BenchUser, 'email' | 'apiKey'>,
  path: string,
  query: Record<string, string>,
): Shot {
  return {
    method: 'GET',
    path: `/api/v1${path}?${new URLSearchParams(query).toString()}`,
    headers: { authorization: basicAuth(user) },
  };
}

export function fire(
  port: number,
  agent: Agent,
  shot: Shot,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: shot.method,
        path: shot.path,
        agent,
        headers: shot.headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', (error) => resolve({ status: 0, text: error.message }));
    req.end(shot.body);
  });
}

/** Starts `rate * seconds` requests, `rate` a second, and waits for every answer. */
export async function openLoop(
  port: number,
  rate: number,
  seconds: number,
  shot: (i: number) => Shot,
): Promise<OpenLoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(rate * seconds);
  const start = performance.now() + 20;
  const pending: Promise<void>[] = [];
  const result: OpenLoopResult = { latencies: [], failed: 0, answers: [] };
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      fire(port, agent, shot(i)).then(({ status, text }) => {
        result.latencies.push(performance.now() - due);
        if (status !== 200) {
          result.failed++;
          return;
        }
        result.answers.push({ due: performance.timeOrigin + due, body: JSON.parse(text) });
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  result.latencies.sort((a, b) => a - b);
  return result;
}

/** The p-th percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** p50 and p99 of sorted milliseconds, for printing. */
export function percentiles(sorted: number[]): string {
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`;
}

/** Runs `work` and answers the CPU microseconds `server` spent meanwhile, beside its result. */
export async function measured<T>(
  server: Started,
  work: () => Promise<T>,
): Promise<{ cpu: number; result: T }> {
  const before: Usage = await server.usage();
  const result = await work();
  const after: Usage = await server.usage();
  return { cpu: after.cpu - before.cpuAfter, result };
}

/** The line every benchmark ends with, read by `npm run bench`. */
export function figure(name: string, value: string, goal: string): string {
  return `${name}: ${value} (goal ${goal})`;
}

/** Whether an output line is a figure: one that starts its line (detail lines are indented) and ends with its goal. */
export function isFigure(line: string): boolean {
  return /^\S.* \(goal [^)]+\)$/.test(line);
}

/** The median of values, with their smallest and largest. */
export function spread(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** "0.512 (0.498-0.530)": the median and the range of values, `digits` decimals. */
export function withSpread(values: number[], digits = 3): string {
  const { median, min, max } = spread(values);
  return `${median.toFixed(digits)} (${min.toFixed(digits)}-${max.toFixed(digits)})`;
}

/**
 * Runs each of `runs` in turn, `rounds` times over (a, b, c, a, b, c, ...),
 * so that a change in the machine's load over time falls on all of them
 * alike; answers each run's results in order.
 */
export async function alternately<T>(rounds: number, runs: (() => Promise<T>)[]): Promise<T[][]> {
  const results: T[][] = runs.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < runs.length; i++) results[i].push(await runs[i]());
  return results;
}

/** The pairwise ratios a[i] / b[i]. */
export function ratios(a: number[], b: number[]): number[] {
  return a.map((value, i) => value / b[i]);
}
