// npm test: the static checks (`npm run check`: spec lint, generated/
// freshness, type checks, import check, ESLint, Prettier) and the suite
// (Jest, with the arguments given to npm test) at the same time. The checks
// take a minute and a half of one core. Exits with the first failure's
// status, and names what failed last, so that a failed check is not lost in
// the suite's output.
//
// After `npm ci --ignore-scripts` (how .ci/run installs) no install script
// has run yet, and this command runs them: the project's own first (Prisma's
// clients, which the checks read), then the packages' beside the checks.
// better-sqlite3's is a minute and a half of compiling SQLite on one core, so
// the checks use the other, and the suite starts once the packages are built.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const root = resolve(import.meta.dirname, '..');
const jest = require.resolve('jest/bin/jest');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command with this process's output; answers its exit status. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', cwd: root });
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
const scriptsPending = !existsSync(join(root, 'generated', 'prisma'));
if (scriptsPending) {
  const status = await run(process.execPath, [join(root, 'scripts', 'prisma-generate.mjs')]);
  if (status !== 0) {
    console.error(`npm test: generating Prisma's clients failed (status ${status})`);
    process.exit(status);
  }
}

const checked = run(npm, ['run', '--silent', 'check']);
const built = scriptsPending ? run(npm, ['rebuild', ...packagesWithInstallScripts()]) : 0;
const suite = Promise.resolve(built).then((status) =>
  status === 0 ? run(process.execPath, [jest, ...process.argv.slice(2)]) : status,
);
const [check, build, tested] = await Promise.all([checked, built, suite]);
if (check !== 0) console.error(`npm test: npm run check failed (status ${check})`);
if (build !== 0) console.error(`npm test: the packages' install scripts failed (status ${build})`);
else if (tested !== 0) console.error(`npm test: the suite failed (status ${tested})`);
process.exit(check || build || tested);
