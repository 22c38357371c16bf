// A process of its own that keeps a long-poll waiting on each given event
// queue, re-polling as soon as an answer arrives (a second after an error
// answer; or, with `stream`, follows each queue with one GET
// /events/stream), until it gets SIGTERM; then it prints one JSON line: how
// many message events it received, and for each message ID how many polls
// received it and when the last one did. The benchmarks run it beside the
// load generator, so that neither starves the other.
//   echo '{"port": ..., "polls": [{"email", "apiKey", "queueId"}], "stream": false}' | node dist/bench/pollers.js
import { Agent, request } from 'node:http';
import type { Deliveries, Poll } from './pollers-client';

let running = true;
const deliveries: Deliveries = { received: 0, byMessage: {} };

/** Counts one event received. */
function received(event: { type: string; message?: { id: number } }, now: number): void {
  if (event.type !== 'message') return;
  deliveries.received++;
  const seen = (deliveries.byMessage[event.message!.id] ??= [0, 0]);
  seen[0]++;
  seen[1] = now;
}

function get(
  agent: Agent,
  port: number,
  poll: Poll,
  lastEventId: number,
): Promise<{
  result?: string;
  events?: { id: number; type: string; message?: { id: number } }[];
} | null> {
  const auth = `Basic ${Buffer.from(`${poll.email}:${poll.apiKey}`).toString('base64')}`;
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/v1/events?queue_id=${poll.queueId}&last_event_id=${lastEventId}`,
        agent,
        headers: { authorization: auth },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          const now = performance.timeOrigin + performance.now();
          try {
            const answer = JSON.parse(text);
            for (const event of answer.events ?? []) received(event, now);
            resolve(answer);
          } catch {
            resolve(null);
          }
        });
      },
    );
    req.on('error', () => resolve(null));
    req.end();
  });
}

/**
 * Polls one queue again and again: 100 ms after a failed request, and, as
 * Zulip's clients do, a second after an error answer (a queue dropped, a
 * server refusing), so that a queue gone does not turn into a stream of
 * requests that starves the server the trial measures.
 */
async function loop(agent: Agent, port: number, poll: Poll): Promise<void> {
  let last = -1;
  while (running) {
    const res = await get(agent, port, poll, last);
    const pause = !res ? 100 : res.result === 'success' ? 0 : 1000;
    if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
    for (const event of res?.events ?? []) last = Math.max(last, event.id);
  }
}

/** Follows a queue with one GET /events/stream, counting the events of its `data:` lines. */
function follow(agent: Agent, port: number, poll: Poll): void {
  const auth = `Basic ${Buffer.from(`${poll.email}:${poll.apiKey}`).toString('base64')}`;
  const req = request(
    {
      host: '127.0.0.1',
      port,
      path: `/api/v1/events/stream?queue_id=${poll.queueId}`,
      agent,
      headers: { authorization: auth, accept: 'text/event-stream' },
    },
    (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        const end = buffer.lastIndexOf('\n\n');
        if (end === -1) return;
        const now = performance.timeOrigin + performance.now();
        for (const line of buffer.slice(0, end).split('\n'))
          if (line.startsWith('data: ')) received(JSON.parse(line.slice(6)), now);
        buffer = buffer.slice(end + 2);
      });
    },
  );
  req.on('error', () => undefined);
  req.end();
}

process.on('SIGTERM', () => {
  running = false;
  // A pipe is written asynchronously: exit once the whole line is out.
  process.stdout.write(`${JSON.stringify(deliveries)}\n`, () => process.exit(0));
});

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => (input += chunk));
process.stdin.on('end', () => {
  const { port, polls, stream } = JSON.parse(input) as {
    port: number;
    polls: Poll[];
    stream?: boolean;
  };
  const agent = new Agent({ keepAlive: true, maxSockets: polls.length });
  for (const poll of polls) {
    if (stream) follow(agent, port, poll);
    else void loop(agent, port, poll);
  }
  process.stdout.write('ready\n');
});
