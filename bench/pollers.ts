// A process of its own that keeps a long-poll waiting on each given event
// queue, re-polling as soon as an answer arrives, until it gets SIGTERM; then
// it prints how many message events it received. The messages benchmark runs
// it beside the load generator, so that neither starves the other.
//   node dist/bench/pollers.js '<json {port, polls: [{email, apiKey, queueId}]}>'
import { Agent, request } from 'node:http';

interface Poll {
  email: string;
  apiKey: string;
  queueId: string;
}

const { port, polls } = JSON.parse(process.argv[2] ?? '{}') as { port: number; polls: Poll[] };
const agent = new Agent({ keepAlive: true, maxSockets: polls.length });
let running = true;
let received = 0;

function get(
  poll: Poll,
  lastEventId: number,
): Promise<{ events?: { id: number; type: string }[] } | null> {
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
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', () => resolve(null));
    req.end();
  });
}

async function loop(poll: Poll): Promise<void> {
  let last = -1;
  while (running) {
    const res = await get(poll, last);
    for (const event of res?.events ?? []) {
      last = Math.max(last, event.id);
      if (event.type === 'message') received++;
    }
  }
}

process.on('SIGTERM', () => {
  running = false;
  process.stdout.write(`${JSON.stringify({ received })}\n`);
  process.exit(0);
});
for (const poll of polls) void loop(poll);
process.stdout.write('ready\n');
