// Throughput of an authenticated GET /api/v1/users/me against a bare node:http
// server answering fixed JSON, under the same load (autocannon), measured in
// the same run. Prints both figures and the ratio; it is not a pass/fail test.
//   npm run bench:users-me   (BENCH_SECONDS, BENCH_CONNECTIONS to change the load)
import { basicAuth, load, startServer, summary } from './load';
import { figure } from './open-loop';

const seconds = Number(process.env.BENCH_SECONDS || 10);
const connections = Number(process.env.BENCH_CONNECTIONS || 32);

async function main(): Promise<void> {
  const bare = await startServer('bare');
  const chat = await startServer('chat');
  try {
    const baseline = await load(
      { url: `http://127.0.0.1:${bare.info.port}/api/v1/users/me`, connections },
      seconds,
    );
    const ours = await load(
      {
        url: `http://127.0.0.1:${chat.info.port}/api/v1/users/me`,
        connections,
        headers: { authorization: basicAuth(chat.info as { email: string; apiKey: string }) },
      },
      seconds,
    );
    process.stdout.write(`GET /users/me, ${connections} connections, ${seconds} s each\n`);
    process.stdout.write(`${summary('bare node:http', baseline)}\n`);
    process.stdout.write(`${summary('chat server', ours)}\n`);
    process.stdout.write(
      `${figure(`GET /users/me, ${connections} connections`, `ratio ${(ours.requests.average / baseline.requests.average).toFixed(3)}`, '0.5')}\n`,
    );
  } finally {
    bare.child.kill();
    chat.child.kill();
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
