// The fixed cost of a write on SQLite: `Database.write` around one UPDATE, in
// a process of its own on a fresh migrated database, without HTTP. Each round
// runs BENCH_WRITES writes one after another (after as many of warm-up) and
// takes the process's CPU time per write, worker threads included (SQLite's
// checkpoints run in one). With BENCH_COMPARE_DIST naming the dist/bench
// folder of another build, that build's data layer runs beside this one's in
// a process of its own, the two taking turns BENCH_ROUNDS times, and this
// build's CPU over the other's is printed, median (range). Not a pass/fail
// test.
//   npm run bench:writes
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { alternately, ratios, withSpread } from './open-loop';

const writes = Number(process.env.BENCH_WRITES || 2000);
const rounds = Number(process.env.BENCH_ROUNDS || 5);
const compareDir = process.env.BENCH_COMPARE_DIST || '';

/** In a child: loads the data layer of the build whose dist folder is `dist`, and runs rounds when asked. */
async function child(dist: string): Promise<void> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { migrate } = require(join(dist, 'src/db/migrate')) as typeof import('../src/db/migrate');
  const client = require(join(dist, 'src/db/client')) as typeof import('../src/db/client');
  const { Prisma } = require(
    join(dist, 'generated/prisma/sqlite/client'),
  ) as typeof import('../generated/prisma/sqlite/client');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dir = mkdtempSync(join(tmpdir(), 'bench-writes-'));
  const url = `file:${join(dir, 'chat.db')}`;
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
      void db.close().then(() => {
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
function start(dist: string): Promise<ChildProcess> {
  const worker = fork(__filename, ['child', dist], { stdio: 'inherit' });
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

async function main(): Promise<void> {
  const dists = [resolve(__dirname, '..')];
  if (compareDir) dists.push(resolve(compareDir, '..'));
  const workers: ChildProcess[] = [];
  try {
    for (const dist of dists) workers.push(await start(dist));
    process.stdout.write(
      `SQLite, Database.write around one UPDATE, ${writes} a round, ${rounds} rounds taking turns; CPU per write, median (range)\n`,
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
        `SQLite write, this build over the compared one: ratio ${withSpread(ratios(results[0], results[1]))}\n`,
      );
  } finally {
    for (const worker of workers) worker.send('stop');
  }
}

if (process.argv[2] === 'child') void child(process.argv[3]);
else
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
