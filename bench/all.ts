// Every benchmark, one after another, each in a process of its own; their
// output passes through, and the figure lines they end with
// ("<name>: ratio <r> (goal <g>)" or "<name>: <value> (goal <g>)") are
// repeated at the end, after the machine's core count.
//   npm run bench
import { spawn } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const benchmarks = ['users-me', 'floors', 'queues', 'streams', 'capacity', 'logins'];

function run(name: string): Promise<string[]> {
  const child = spawn(process.execPath, [join(__dirname, `${name}.js`)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const figures: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    if (/^[^:]+: .* \(goal [^)]+\)$/.test(line)) figures.push(line);
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(figures) : reject(new Error(`bench ${name} exited with ${code}`)),
    ),
  );
}

async function main(): Promise<void> {
  const figures: string[] = [];
  for (const name of benchmarks) {
    process.stdout.write(`\n== ${name}\n`);
    figures.push(...(await run(name)));
  }
  process.stdout.write(
    `\n== figures (${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'})\n${figures.join('\n')}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
