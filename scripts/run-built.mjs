// Runs a program of the built server (dist/), building it first only when the
// TypeScript it comes from changed since the last build: `npm start` and the
// admin commands start at once on an unchanged tree, and a fresh clone builds
// on its first start.
//   node scripts/run-built.mjs src/main.js [args...]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const stamp = join(root, 'dist', '.built');
/** What the build reads: its sources and its settings. */
const inputs = [
  'src',
  'generated',
  'bench',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
];

/** The newest modification time under `path`, in milliseconds. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function fresh() {
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return inputs.every((input) => newest(join(root, input)) <= built);
}

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/run-built.mjs <program under dist/> [args...]\n');
  process.exit(2);
}
if (!fresh()) {
  // The stamp carries the time the build started, so an edit made during the
  // build still counts as newer next time.
  const started = new Date();
  process.stderr.write('building the server (tsc -p tsconfig.build.json)...\n');
  try {
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        join(root, 'tsconfig.build.json'),
      ],
      { cwd: root, stdio: 'inherit' },
    );
  } catch {
    process.exit(1);
  }
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(stamp, '');
  utimesSync(stamp, started, started);
}
// The program runs as the main module, with its own path and arguments, as if
// started with `node dist/<program>`.
process.argv = [process.argv[0], join(root, 'dist', entry), ...args];
Module.runMain();
