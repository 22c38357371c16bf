// Regenerates the figures of the README's Benchmarks section from one run of
// every benchmark (all.js) at the current commit: the lines between the
// "bench-figures" markers become the figure lines that run printed, under a
// line naming the commit, the date, the machine, the databases measured and
// how long the run took. Nothing else is written,
// so the README holds no figure the bench at its head did not print. With a
// file argument, the figures are read from a saved all.js output instead.
//   npm run bench:readme            (BENCH_POSTGRES_URL adds the PostgreSQL figures)
//   node dist/bench/readme.js saved-output.txt
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { isFigure } from './open-loop';

const readme = join(__dirname, '..', '..', 'README.md');
const start = '<!-- bench-figures:start -->';
const end = '<!-- bench-figures:end -->';

/** The names of the figures the project owes, on SQLite and on PostgreSQL. */
const owed = {
  sqlite: [
    /^GET \/users\/me, SQLite, vs bare node:http$/,
    /^GET \/users\/me, SQLite, vs bare Koa$/,
    /^send to 50 subscribers, no queues$/,
    /^send to 50 waiting polls$/,
    /^send to 50 waiting polls, p99 send -> delivered$/,
    /^GET \/messages, 100 of \d+$/,
    /^one message to 1,000 waiting queues, p99 send -> last answered$/,
    /^one message to 1,000 waiting queues$/,
    /^heap per idle queue$/,
    /^heap per waiting poll$/,
    /^SSE: CPU per delivered event \/ long-poll cycle$/,
    /^capacity sqlite$/,
    /^wrong password, no such account vs existing account$/,
  ],
  postgresql: [
    /^GET \/users\/me, PostgreSQL, vs bare node:http$/,
    /^GET \/users\/me, PostgreSQL, vs bare Koa$/,
    /^GET \/users\/me, PostgreSQL CPU over SQLite$/,
    /^send to 50 subscribers, no queues, PostgreSQL$/,
    /^send to 50 waiting polls, PostgreSQL$/,
    /^send to 50 waiting polls, p99 send -> delivered, PostgreSQL$/,
    /^GET \/messages, 100 of \d+, PostgreSQL$/,
    /^capacity postgresql$/,
  ],
  cluster: [
    /^redis commands per published event, event queues, upkeep apart, 1000 queues on 2 processes$/,
    /^cpu per delivered event, 1000 queues, memory store \/ 2 processes and Redis$/,
    /^capacity, npm run cluster with 2 workers on PostgreSQL and Redis, over one SQLite process$/,
  ],
};

/**
 * The owed figures that `figures` lacks, by pattern; PostgreSQL's only when
 * `postgres`, the cluster's only when `cluster`.
 */
function missing(figures: string[], postgres: boolean, cluster: boolean): string[] {
  const names = figures.map((line) => line.slice(0, line.lastIndexOf(': ')));
  return [...owed.sqlite, ...(postgres ? owed.postgresql : []), ...(cluster ? owed.cluster : [])]
    .filter((pattern) => !names.some((name) => pattern.test(name)))
    .map((pattern) => pattern.source);
}

/** The output of one `npm run bench` run: from a file, or run now (passing through as it goes). */
function benchOutput(): Promise<string> {
  const saved = process.argv[2];
  if (saved) return Promise.resolve(readFileSync(saved, 'utf8'));
  const run = spawn(process.execPath, [join(__dirname, 'all.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  run.stdout!.setEncoding('utf8');
  run.stdout!.on('data', (chunk: string) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  return new Promise((resolve, reject) =>
    run.once('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`npm run bench exited with ${code}`)),
    ),
  );
}

async function main(): Promise<void> {
  const output = await benchOutput();
  const mark = output.lastIndexOf('\n== figures');
  if (mark === -1) throw new Error('no figures block in the bench output');
  const block = output
    .slice(mark + 1)
    .split('\n')
    .slice(1);
  const figures = block.filter(isFigure);
  const duration = block.find((line) => line.startsWith('bench duration: '));
  const postgres =
    Boolean(process.env.BENCH_POSTGRES_URL) || figures.some((line) => /postgresql/i.test(line));
  const cluster =
    Boolean(process.env.BENCH_POSTGRES_URL && process.env.BENCH_REDIS_URL) ||
    figures.some((line) => /npm run cluster|2 processes/.test(line));
  const databases = postgres
    ? `SQLite and PostgreSQL${cluster ? ', and several processes on PostgreSQL and Redis' : ''}`
    : 'SQLite only (BENCH_POSTGRES_URL was not set)';
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB`;
  const text = [
    start,
    '',
    `One \`npm run bench\` at ${commit.stdout.trim() || 'an unknown commit'}, ${new Date().toISOString().slice(0, 10)}, on ${machine}, ${databases}; ${duration ?? 'bench duration: not printed'}:`,
    '',
    ...figures.map((line) => `    ${line}`),
    '',
    end,
  ].join('\n');
  const current = readFileSync(readme, 'utf8');
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`README.md has no ${start} ... ${end} block`);
  writeFileSync(readme, current.slice(0, from) + text + current.slice(to + end.length));
  process.stdout.write(`README.md: ${figures.length} figures written\n`);
  const lacking = missing(figures, postgres, cluster);
  if (lacking.length) {
    process.stderr.write(`figures missing from the run:\n${lacking.join('\n')}\n`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
