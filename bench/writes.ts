// The fixed cost of a write: `Database.write` around one UPDATE, in a process
// of its own on a fresh migrated database (SQLite, and with BENCH_POSTGRES_URL
// a schema of its own on PostgreSQL, dropped at the end), without HTTP. Each round
// runs BENCH_WRITES writes one after another (after as many of warm-up) and
// takes the process's CPU time per write, worker threads included (SQLite's
// checkpoints run in one). With BENCH_COMPARE_DIST naming the dist/bench
// folder of another build, that build's data layer runs beside this one's in
// a process of its own, the two taking turns BENCH_ROUNDS times, and this
// build's CPU over the other's is printed, median (range), for each database.
// Not a pass/fail test.
//   npm run bench:writes
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withSchema } from './load';
import { alternately, ratios, withSpread } from './open-loop';

const writes = Number(process.env.BENCH_WRITES || 2000);
const rounds = Number(process.env.BENCH_ROUNDS || 5);
const compareDir = process.env.BENCH_COMPARE_DIST || '';
const postgresUrl = process.env.BENCH_POSTGRES_URL || '';

/**
 * In a child: loads the data layer of the build whose dist folder is `dist`,
 * on a fresh SQLite file or, when `postgres` names a server, a fresh schema
 * there, and runs rounds when asked.
 */
async function child(dist: string, postgres: string): Promise<void> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { migrate } = require(join(dist, 'src/db/migrate')) as typeof import('../src/db/migrate');
  const client = require(join(dist, 'src/db/client')) as typeof import('../src/db/client');
  const { Prisma } = require(
    join(dist, 'generated/prisma/sqlite/client'),
  ) as typeof import('../generated/prisma/sqlite/client');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dir = mkdtempSync(join(tmpdir(), 'bench-writes-'));
  const schema = `bench_writes_${randomBytes(4).toString('hex')}`;
  const url = postgres ? withSchema(postgres, schema) : `file:${join(dir, 'chat.db')}`;
  await migrate(url);
  const db = await client.openDatabase(url);
  await db.write((tx) =>
    client.executeRows(
      tx,
      Prisma.sql`CREATE TABLE "BenchCounter" ("id" INTEGER PRIMARY KEY, "n" INTEGER)`,
    ),
  );
  await db.write((tx) =>
    client.executeRows(tx, Prisma.sql`INSERT INTO "BenchCounter" VALUES (1, 0)`),
  );
  const write = () =>
    db.write((tx) =>
      client.executeRows(tx, Prisma.sql`UPDATE "BenchCounter" SET "n" = "n" + 1 WHERE "id" = 1`),
    );
  for (let i = 0; i < writes; i++) await write();
  process.on('message', (message) => {
    if (message !== 'round') {
      const dropped = postgres
        ? db.client.$executeRawUnsafe(`DROP SCHEMA "${schema}" CASCADE`)
        : Promise.resolve(0);
      void dropped
        .then(() => db.close())
        .then(() => {
          rmSync(dir, { recursive: true, force: true });
          process.exit(0);
        });
      return;
    }
    void (async () => {
      const before = process.cpuUsage();
      for (let i = 0; i < writes; i++) await write();
      const used = process.cpuUsage(before);
      process.send!((used.user + used.system) / writes);
    })();
  });
  process.send!('ready');
}

/** Starts a child on the build whose dist folder is `dist`; resolves once it is warm. */
function start(dist: string, postgres: string): Promise<ChildProcess> {
  const worker = fork(__filename, ['child', dist, postgres], { stdio: 'inherit' });
  return new Promise((done, fail) => {
    worker.once('message', () => done(worker));
    worker.once('exit', (code) => fail(new Error(`the writer for ${dist} exited with ${code}`)));
  });
}

/** One round of `worker`: its CPU microseconds per write. */
function round(worker: ChildProcess): Promise<number> {
  return new Promise((done) => {
    worker.once('message', (perWrite) => done(perWrite as number));
    worker.send('round');
  });
}

/** The writes of each build on one database, taking turns; prints CPU per write and the ratio. */
async function series(name: string, postgres: string, dists: string[]): Promise<void> {
  const workers: ChildProcess[] = [];
  try {
    for (const dist of dists) workers.push(await start(dist, postgres));
    process.stdout.write(
      `${name}, Database.write around one UPDATE, ${writes} a round, ${rounds} rounds taking turns; CPU per write, median (range)\n`,
    );
    const results = await alternately(
      rounds,
      workers.map((worker) => () => round(worker)),
    );
    dists.forEach((dist, i) =>
      process.stdout.write(`${dist.padEnd(40)} ${withSpread(results[i], 1)} us\n`),
    );
    if (compareDir)
      process.stdout.write(
        `${name} write, this build over the compared one: ratio ${withSpread(ratios(results[0], results[1]))}\n`,
      );
  } finally {
    for (const worker of workers) worker.send('stop');
  }
}

async function main(): Promise<void> {
  const dists = [resolve(__dirname, '..')];
  if (compareDir) dists.push(resolve(compareDir, '..'));
  await series('SQLite', '', dists);
  if (postgresUrl) await series('PostgreSQL', postgresUrl, dists);
}

if (process.argv[2] === 'child') void child(process.argv[3], process.argv[4] ?? '');
else
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
