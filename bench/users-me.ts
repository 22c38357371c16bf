// The fixed cost of a request: GET /api/v1/users/me on this server against a
// bare node:http server and a bare Koa + @koa/router app answering the same
// bytes (the server's own answer), and, with BENCH_POSTGRES_URL, the same
// request on PostgreSQL. Each server gets the same fixed open-loop work
// (BENCH_RATE requests a second for BENCH_SECONDS), and the figure is the
// server process's CPU time per request as a ratio to a baseline measured in
// the same run: the servers take turns, BENCH_ROUNDS times, and the median
// ratio is printed with its range. Absolute times depend on what else the
// machine runs; the ratios much less. With BENCH_COMPARE_DIST naming the
// dist/bench folder of another build (an earlier commit's), that build's
// server takes its turns too, on each database, and PostgreSQL's CPU over
// SQLite's is printed for both builds. Not a pass/fail test.
//   npm run bench:users-me
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { basicAuth, startServer, withSchema, type BenchUser, type Started } from './load';
import {
  alternately,
  figure,
  fire,
  measured,
  openLoop,
  percentiles,
  ratios,
  withSpread,
  type Shot,
} from './open-loop';
import { Agent } from 'node:http';

const seconds = Number(process.env.BENCH_SECONDS || 3);
const rate = Number(process.env.BENCH_RATE || 400);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const postgresUrl = process.env.BENCH_POSTGRES_URL || '';
const compareDir = process.env.BENCH_COMPARE_DIST || '';

/** CPU microseconds per request of `server` over one open-loop run, after a short warm-up. */
async function cpuPerRequest(server: Started, user?: Pick<BenchUser, 'email' | 'apiKey'>) {
  const shot: Shot = {
    method: 'GET',
    path: '/api/v1/users/me',
    headers: user ? { authorization: basicAuth(user) } : {},
  };
  await openLoop(server.info.port, rate, 0.5, () => shot);
  const { cpu, result } = await measured(server, () =>
    openLoop(server.info.port, rate, seconds, () => shot),
  );
  if (result.failed) throw new Error(`${result.failed} requests failed`);
  return { perRequest: cpu / (rate * seconds), latencies: result.latencies };
}

async function main(): Promise<void> {
  const sqlite = await startServer('chat');
  const started: Started[] = [sqlite];
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  try {
    const owner = sqlite.info as BenchUser;
    const agent = new Agent({ keepAlive: true });
    const answer = await fire(sqlite.info.port, agent, {
      method: 'GET',
      path: '/api/v1/users/me',
      headers: { authorization: basicAuth(owner) },
    });
    agent.destroy();
    const env = { BENCH_BODY: answer.text };
    const bare = await startServer('bare', env);
    const koa = await startServer('koa', env);
    started.push(bare, koa);
    const servers: { name: string; run: () => ReturnType<typeof cpuPerRequest> }[] = [
      { name: 'bare node:http', run: () => cpuPerRequest(bare) },
      { name: 'bare Koa + @koa/router', run: () => cpuPerRequest(koa) },
      { name: 'this server, SQLite', run: () => cpuPerRequest(sqlite, owner) },
    ];
    if (postgresUrl) {
      const databaseUrl = withSchema(postgresUrl, schema);
      const postgres = await startServer('chat', { BENCH_DATABASE_URL: databaseUrl });
      started.push(postgres);
      servers.push({
        name: 'this server, PostgreSQL',
        run: () => cpuPerRequest(postgres, postgres.info as BenchUser),
      });
    }
    if (compareDir) {
      // The other build on its own databases (a fresh SQLite file; a schema of its own).
      const other = await startServer('chat', {}, compareDir);
      started.push(other);
      servers.push({
        name: 'compared build, SQLite',
        run: () => cpuPerRequest(other, other.info as BenchUser),
      });
      if (postgresUrl) {
        const url = withSchema(postgresUrl, `${schema}_compared`);
        const otherPostgres = await startServer('chat', { BENCH_DATABASE_URL: url }, compareDir);
        started.push(otherPostgres);
        servers.push({
          name: 'compared build, PostgreSQL',
          run: () => cpuPerRequest(otherPostgres, otherPostgres.info as BenchUser),
        });
      }
    }
    process.stdout.write(
      `GET /users/me (${answer.text.length} bytes answered), open loop ${rate}/s for ${seconds} s each, ${rounds} rounds taking turns; CPU of the server process per request, median (range)\n`,
    );
    const results = await alternately(
      rounds,
      servers.map((s) => s.run),
    );
    const cpu = results.map((runs) => runs.map((r) => r.perRequest));
    servers.forEach((s, i) =>
      process.stdout.write(
        `${s.name.padEnd(26)} ${withSpread(cpu[i], 0).padStart(16)} us   ${percentiles(results[i][results[i].length - 1].latencies)} (last round)\n`,
      ),
    );
    const lines = [
      figure(
        'GET /users/me, SQLite, vs bare node:http',
        `ratio ${withSpread(ratios(cpu[0], cpu[2]))}`,
        '>= 0.5',
      ),
      figure(
        'GET /users/me, SQLite, vs bare Koa',
        `ratio ${withSpread(ratios(cpu[1], cpu[2]))}`,
        '>= 0.7',
      ),
    ];
    if (postgresUrl)
      lines.push(
        figure(
          'GET /users/me, PostgreSQL, vs bare node:http',
          `ratio ${withSpread(ratios(cpu[0], cpu[3]))}`,
          '>= 0.5',
        ),
        figure(
          'GET /users/me, PostgreSQL, vs bare Koa',
          `ratio ${withSpread(ratios(cpu[1], cpu[3]))}`,
          '>= 0.7',
        ),
        figure(
          'GET /users/me, PostgreSQL CPU over SQLite',
          `ratio ${withSpread(ratios(cpu[3], cpu[2]))}`,
          '<= 1.5',
        ),
      );
    else process.stdout.write('PostgreSQL: not measured (set BENCH_POSTGRES_URL)\n');
    if (compareDir) {
      const other = postgresUrl ? 4 : 3;
      lines.push(
        `GET /users/me, this build's CPU over the compared build's, SQLite: ratio ${withSpread(ratios(cpu[2], cpu[other]))}`,
      );
      if (postgresUrl)
        lines.push(
          `GET /users/me, this build's CPU over the compared build's, PostgreSQL: ratio ${withSpread(ratios(cpu[3], cpu[5]))}`,
          `GET /users/me, PostgreSQL CPU over SQLite, compared build: ratio ${withSpread(ratios(cpu[5], cpu[4]))}`,
        );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const s of started) s.child.kill();
    if (postgresUrl) {
      const pg = new Client({ connectionString: postgresUrl });
      await pg.connect();
      await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pg.query(`DROP SCHEMA IF EXISTS "${schema}_compared" CASCADE`);
      await pg.end();
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
