// Driving pollers.js from a benchmark.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

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
 * Starts pollers.js: a waiting long-poll on each queue, in a process of its
 * own, so that neither it nor the load generator starves the other. `stop()`
 * answers what they received.
 */
export async function startPollers(port: number, polls: Poll[]) {
  const child = spawn(process.execPath, [join(__dirname, 'pollers.js')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin!.end(JSON.stringify({ port, polls }));
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
