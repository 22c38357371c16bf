// npm test: the static checks (`npm run check`: spec lint, generated/
// freshness, type checks, import check, ESLint, Prettier) and the suite
// (Jest, with the arguments given to npm test) at the same time. The checks
// take under a minute of one core; beside the suite they cost little of its
// time. Exits with the first failure's status, and names what failed last,
// so that a failed check is not lost in the suite's output.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const jest = require.resolve('jest/bin/jest');

/** Runs a command with this process's output; answers its exit status. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const [check, suite] = await Promise.all([
  run(npm, ['run', '--silent', 'check']),
  run(process.execPath, [jest, ...process.argv.slice(2)]),
]);
if (check !== 0) console.error(`npm test: npm run check failed (status ${check})`);
if (suite !== 0) console.error(`npm test: the suite failed (status ${suite})`);
process.exit(check || suite);
