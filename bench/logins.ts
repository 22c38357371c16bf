// Whether a wrong password costs the server as much for a username that has no
// account as for one that has: if it cost less, the answer's timing would tell
// who has an account. Measured as the server process's CPU time over the same
// number of wrong-password logins of each kind, sent one at a time in
// alternating batches so that both kinds see the same machine, over
// BENCH_ROUNDS (3) rounds. Prints both figures and the ratio of each round,
// median with its range; it is not a pass/fail test.
//   npm run bench:logins   (BENCH_LOGINS to change the logins of each kind)
import { Agent, request } from 'node:http';
import { startServer, type Started } from './load';
import { figure, withSpread } from './open-loop';

const logins = Number(process.env.BENCH_LOGINS || 240);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const batch = 20;

/** One POST /fetch_api_key with a wrong password; throws unless it is refused as such. */
function wrongLogin(port: number, agent: Agent, username: string): Promise<void> {
  const body = new URLSearchParams({ username, password: 'not the password' }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/fetch_api_key',
        agent,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 401 && text.includes('AUTHENTICATION_FAILED')
            ? resolve()
            : reject(new Error(`${username}: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU microseconds of the server over `count` wrong logins as `username`. */
async function cpuOver(
  server: Started,
  agent: Agent,
  username: string,
  count: number,
): Promise<number> {
  const before = await server.usage();
  for (let i = 0; i < count; i++) await wrongLogin(server.info.port, agent, username);
  const after = await server.usage();
  return after.cpu - before.cpuAfter;
}

async function main(): Promise<void> {
  // No lock and no limit: this measures the check itself.
  const server = await startServer('chat', {
    RATE_LIMIT_AUTH_ATTEMPTS: '100000000',
    RATE_LIMIT_IP_REQUESTS: '100000000',
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const existing = server.info.email!;
    const unknown = 'nobody@example.com';
    await cpuOver(server, agent, existing, batch);
    await cpuOver(server, agent, unknown, batch);
    // Each round's logins of each kind, in alternating batches: CPU microseconds of each kind.
    const perRound = Math.max(batch, Math.round(logins / rounds / batch) * batch);
    const existingCpu: number[] = [];
    const unknownCpu: number[] = [];
    for (let round = 0; round < rounds; round++) {
      let existingSum = 0;
      let unknownSum = 0;
      for (let done = 0; done < perRound; done += batch) {
        existingSum += await cpuOver(server, agent, existing, batch);
        unknownSum += await cpuOver(server, agent, unknown, batch);
      }
      existingCpu.push(existingSum);
      unknownCpu.push(unknownSum);
    }
    const perLogin = (cpu: number[]) =>
      `${withSpread(
        cpu.map((c) => c / perRound / 1000),
        2,
      )} ms CPU per login`;
    process.stdout.write(
      `Wrong password, ${perRound} logins of each kind in each of ${rounds} rounds, one at a time; median (range)\n`,
    );
    process.stdout.write(`existing account          ${perLogin(existingCpu)}\n`);
    process.stdout.write(`no such account           ${perLogin(unknownCpu)}\n`);
    process.stdout.write(
      `${figure('wrong password, no such account vs existing account', `ratio ${withSpread(unknownCpu.map((cpu, i) => cpu / existingCpu[i]))}`, '0.9 to 1.1')}\n`,
    );
  } finally {
    agent.destroy();
    server.child.kill();
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
