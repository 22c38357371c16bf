// Fails when generated/api.d.ts is not what openapi-typescript makes of the
// current openapi.yaml (someone edited the contract and forgot `npm run generate`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'api-types-'));
try {
  const fresh = join(dir, 'api.d.ts');
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
      join(root, 'openapi.yaml'),
      '-o',
      fresh,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (readFileSync(fresh, 'utf8') !== readFileSync(join(root, 'generated', 'api.d.ts'), 'utf8')) {
    process.stderr.write(
      'generated/api.d.ts is stale: run `npm run generate` and commit the result.\n',
    );
    process.exit(1);
  }
  process.stdout.write('generated/api.d.ts matches openapi.yaml\n');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
