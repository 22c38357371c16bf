// Runs a program of the built server (dist/), building it first only when the
// TypeScript it comes from changed since the last build: `npm start` and the
// admin commands start at once on an unchanged tree, and a fresh clone builds
// on its first start. The web client (web/, built by Vite into web/dist) is
// built the same way, when its sources changed.
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

/** Whether the build stamped by `stampFile` is newer than every one of `sources`. */
function fresh(stampFile = stamp, sources = inputs) {
  if (!existsSync(stampFile)) return false;
  const built = statSync(stampFile).mtimeMs;
  return sources.every((input) => newest(join(root, input)) <= built);
}

const webStamp = join(root, 'web', 'dist', '.built');
/** What the web client's build reads. */
const webInputs = [
  'web/src',
  'web/index.html',
  'web/vite.config.mjs',
  'web/tsconfig.json',
  'generated/api.d.ts',
  'package.json',
];

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
if (!fresh(webStamp, webInputs)) {
  const started = new Date();
  process.stderr.write('building the web client (vite build web)...\n');
  try {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', join(root, 'web')],
      { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    writeFileSync(webStamp, '');
    utimesSync(webStamp, started, started);
  } catch {
    // The server still starts: its page at / says that the web client is not built.
    process.stderr.write('the web client could not be built\n');
  }
}
// The program runs as the main module, with its own path and arguments, as if
// started with `node dist/<program>`.
process.argv = [process.argv[0], join(root, 'dist', entry), ...args];
Module.runMain();
