// Throughput of an authenticated GET /api/v1/users/me against a bare node:http
// server answering fixed JSON, under the same load (autocannon), measured in
// the same run. Prints both figures and the ratio; it is not a pass/fail test.
//   npm run bench        (BENCH_SECONDS, BENCH_CONNECTIONS to change the load)
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS || 10);
const connections = Number(process.env.BENCH_CONNECTIONS || 50);

/** Starts `servers.js <kind>` and resolves with the JSON line it prints when ready. */
function start(kind: string): Promise<{ child: ChildProcess; info: { port: number; email?: string; apiKey?: string } }> {
  const child = spawn(process.execPath, [join(__dirname, 'servers.js'), kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, info: JSON.parse(line) }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

async function load(url: string, headers: Record<string, string>): Promise<autocannon.Result> {
  // A short warm-up, then the measured run.
  await autocannon({ url, headers, connections, duration: 2 });
  return autocannon({ url, headers, connections, duration: seconds });
}

function summary(name: string, r: autocannon.Result): string {
  return `${name.padEnd(22)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
}

async function main(): Promise<void> {
  const bare = await start('bare');
  const chat = await start('chat');
  try {
    const baseline = await load(`http://127.0.0.1:${bare.info.port}/api/v1/users/me`, {});
    const auth = `Basic ${Buffer.from(`${chat.info.email}:${chat.info.apiKey}`).toString('base64')}`;
    const ours = await load(`http://127.0.0.1:${chat.info.port}/api/v1/users/me`, { authorization: auth });
    process.stdout.write(`GET /users/me, ${connections} connections, ${seconds} s each\n`);
    process.stdout.write(`${summary('bare node:http', baseline)}\n`);
    process.stdout.write(`${summary('chat server', ours)}\n`);
    process.stdout.write(`ratio (chat / bare): ${(ours.requests.average / baseline.requests.average).toFixed(3)}\n`);
  } finally {
    bare.child.kill();
    chat.child.kill();
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
