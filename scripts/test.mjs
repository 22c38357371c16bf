// npm test: the static checks (`npm run check`: spec lint, generated/
// freshness, type checks, import check, ESLint, Prettier) and the suite
// (Jest, with the arguments given to npm test) at the same time. The checks
// take a minute and a half of one core. Exits with the first failure's
// status, and names what failed last, so that a failed check is not lost in
// the suite's output.
//
// After `npm ci --ignore-scripts` (how .ci/run installs) no install script
// has run yet, and this command runs them: the packages' and then the
// project's own (Prisma's clients, which the checks read). One is slow:
// better-sqlite3's, most of a minute of compiling SQLite on one core. It
// needs none of the others, and runs beside them, the project's script and
// the checks; the suite starts when it and the project's script are done.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const root = resolve(import.meta.dirname, '..');
const jest = require.resolve('jest/bin/jest');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command with this process's output; answers its exit status. */
function run(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', cwd: root, env });
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** The installed packages that have install scripts, as the lock file lists them. */
function packagesWithInstallScripts() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .filter((name, i, names) => names.indexOf(name) === i);
}

// The project's postinstall writes generated/prisma: without it, install scripts were skipped.
const NATIVE = 'better-sqlite3';
let native = 0;
let generated = 0;
if (!existsSync(join(root, 'generated', 'prisma'))) {
  // Optimized less than a release build (-O1 in place of -O3): SQLite behaves
  // the same and compiles in about three quarters of the time, which the
  // suite waits for. An ordinary `npm install` builds it as its package says.
  // It needs none of the other install scripts, and starts with them.
  native = run(npm, ['rebuild', NATIVE], {
    ...process.env,
    CFLAGS: `${process.env.CFLAGS ?? ''} -O1`.trim(),
  });
  const others = packagesWithInstallScripts().filter((name) => name !== NATIVE);
  const status = others.length > 0 ? await run(npm, ['rebuild', ...others]) : 0;
  if (status !== 0) {
    console.error(`npm test: the install scripts failed (status ${status})`);
    process.exit(status);
  }
  generated = run(process.execPath, [join(root, 'scripts', 'prisma-generate.mjs')]);
}
const built = Promise.all([native, generated]).then((statuses) => statuses.find((s) => s) ?? 0);

const checked = Promise.resolve(generated).then((status) =>
  status === 0 ? run(npm, ['run', '--silent', 'check']) : 0,
);
const suite = built.then((status) =>
  status === 0 ? run(process.execPath, [jest, ...process.argv.slice(2)]) : 0,
);
const [check, build, tested] = await Promise.all([checked, built, suite]);
if (check !== 0) console.error(`npm test: npm run check failed (status ${check})`);
if (build !== 0) console.error(`npm test: the install scripts failed (status ${build})`);
else if (tested !== 0) console.error(`npm test: the suite failed (status ${tested})`);
process.exit(check || build || tested);
