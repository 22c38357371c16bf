// Every benchmark, one after another, each in a process of its own; their
// output passes through, and the figure lines they end with
// ("<name>: ratio <r> (goal <g>)" or "<name>: <value> (goal <g>)", each at
// the start of its line) are repeated at the end, after the machine's core
// count, with how long each benchmark and the whole run took. With
// BENCH_POSTGRES_URL, every benchmark that has a PostgreSQL series runs it too.
//   npm run bench        (about 30 minutes on 2 cores with BENCH_POSTGRES_URL)
import { spawn } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isFigure } from './open-loop';

// With BENCH_REDIS_URL (a Redis of its own: the cluster benchmark counts every
// command it runs) as well, the several-process figures too.
const cluster = Boolean(process.env.BENCH_POSTGRES_URL && process.env.BENCH_REDIS_URL);
const benchmarks = [
  'users-me',
  'floors',
  'queues',
  'streams',
  'capacity',
  'logins',
  ...(cluster ? ['cluster'] : []),
];

function run(name: string): Promise<string[]> {
  const child = spawn(process.execPath, [join(__dirname, `${name}.js`)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const figures: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    if (isFigure(line)) figures.push(line);
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(figures) : reject(new Error(`bench ${name} exited with ${code}`)),
    ),
  );
}

/** Minutes since `start` (performance.now() milliseconds), for printing. */
const minutes = (start: number) => `${((performance.now() - start) / 60_000).toFixed(1)} min`;

async function main(): Promise<void> {
  const start = performance.now();
  // From the defaults: about 1 minute for users-me, 5 for the floors, 3 for the
  // queues, 2 for the streams, 8 to 10 for each capacity search (four of
  // them with the cluster's) and 10 for the cluster.
  const expected = cluster ? 60 : process.env.BENCH_POSTGRES_URL ? 30 : 20;
  process.stdout.write(
    `npm run bench: ${benchmarks.join(', ')}; expect about ${expected} minutes on 2 cores\n`,
  );
  const figures: string[] = [];
  const durations: string[] = [];
  for (const name of benchmarks) {
    process.stdout.write(`\n== ${name}\n`);
    const started = performance.now();
    figures.push(...(await run(name)));
    durations.push(`${name} ${minutes(started)}`);
    process.stdout.write(`${name} took ${minutes(started)}\n`);
  }
  process.stdout.write(
    `\n== figures (${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'})\n${figures.join('\n')}\n` +
      `bench duration: ${minutes(start)} (${durations.join(', ')})\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
