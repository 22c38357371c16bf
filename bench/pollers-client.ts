// Driving pollers.js from a benchmark.
import { spawn } from 'node:child_process';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { call, type BenchUser } from './load';

/** One long-poll to keep waiting: whose credentials, on which queue. */
export interface Poll {
  email: string;
  apiKey: string;
  queueId: string;
}

/** What the pollers saw: message events received, and per message ID how many polls got it and when the last did (ms, performance.timeOrigin based). */
export interface Deliveries {
  received: number;
  byMessage: Record<string, [count: number, last: number]>;
}

/**
 * Starts pollers.js: a waiting long-poll on each queue (with `stream`, a
 * stream following it), in a process of its own, so that neither it nor the
 * load generator starves the other. `stop()` answers what they received.
 */
export async function startPollers(port: number, polls: Poll[], stream = false) {
  const child = spawn(process.execPath, [join(__dirname, 'pollers.js')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin!.end(JSON.stringify({ port, polls, stream }));
  const lines = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  await next(); // ready
  return {
    stop: async (): Promise<Deliveries> => {
      const answer = next();
      child.kill('SIGTERM');
      return JSON.parse(await answer);
    },
  };
}

/** Registers a queue for message events as each of `owners` (a user may appear more than once), `parallel` at a time. */
export async function registerQueues(
  port: number,
  owners: BenchUser[],
  parallel = 16,
): Promise<Poll[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: parallel });
  const polls: Poll[] = new Array(owners.length);
  let next = 0;
  const worker = async () => {
    while (next < owners.length) {
      const i = next++;
      const user = owners[i];
      const answer = await call(port, agent, user, 'POST', '/register', {
        event_types: '["message"]',
        fetch_event_types: '[]',
      });
      if (answer.result !== 'success') throw new Error(`register: ${JSON.stringify(answer)}`);
      polls[i] = { email: user.email, apiKey: user.apiKey, queueId: answer.queue_id };
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  agent.destroy();
  return polls;
}

/**
 * For each sent message (when it was due, and its ID once answered), the
 * milliseconds to the last poll that received it, sorted; and how many were
 * not received by all `expected` polls.
 */
export function deliveryTimes(
  sends: { due: number; id?: number }[],
  seen: Deliveries,
  expected: number,
): { times: number[]; missing: number } {
  const times: number[] = [];
  let missing = 0;
  for (const { due, id } of sends) {
    const got = id === undefined ? undefined : seen.byMessage[String(id)];
    if (!got || got[0] < expected) missing++;
    if (got) times.push(got[1] - due);
  }
  return { times: times.sort((a, b) => a - b), missing };
}
