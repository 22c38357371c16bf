// A fresh database for one test file: a temporary SQLite file, or a new
// database on the PostgreSQL server named by TEST_POSTGRES_URL. Each is a copy
// of the template that test/support/global-setup.js migrated once for the run
// (a file copy; CREATE DATABASE ... TEMPLATE), so that a file does not pay
// for the migrations; without a template (or when asked for an empty one) it
// starts empty, and the server migrates it.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';

/** A database URL and how to remove what it names. */
export interface TestDatabase {
  provider: 'sqlite' | 'postgresql';
  url: string;
  drop(): Promise<void>;
}

/** Where the connection of adminPool is kept: on the global, which a worker's test files share. */
const ADMIN_POOL = Symbol.for('chat.test.postgres-admin');

/**
 * One connection to the PostgreSQL server's own database (the one
 * TEST_POSTGRES_URL names) for all the test files a worker runs, since they
 * share its global (test/support/environment.js): a connection of its own
 * for each statement doubled the server's CPU for a file's database, from
 * about 150 ms to 320 ms for the creation and the drop. It does not keep the
 * worker from exiting, and a connection that fails is replaced.
 */
function adminPool(): Pool {
  const shared = globalThis as { [ADMIN_POOL]?: Pool };
  if (!shared[ADMIN_POOL]) {
    const pool = new Pool({
      connectionString: process.env.TEST_POSTGRES_URL,
      max: 1,
      idleTimeoutMillis: 0,
      allowExitOnIdle: true,
    });
    // An idle connection that breaks is dropped by the pool; the next query makes another.
    pool.on('error', () => undefined);
    shared[ADMIN_POOL] = pool;
  }
  return shared[ADMIN_POOL];
}

/** Runs `sql` on the PostgreSQL server's own database (the one TEST_POSTGRES_URL names). */
export async function onPostgresServer(sql: string): Promise<void> {
  await adminPool().query(sql);
}

/** The variables naming the run's templates (global-setup.js): migrated, and migrated with the cast. */
const TEMPLATES = {
  postgresql: { migrated: 'TEST_POSTGRES_TEMPLATE', cast: 'TEST_POSTGRES_CAST_TEMPLATE' },
  sqlite: { migrated: 'TEST_SQLITE_TEMPLATE', cast: 'TEST_SQLITE_CAST_TEMPLATE' },
} as const;

/**
 * Creates a database of the kind this test project runs on (or of
 * `provider`): migrated (a copy of the run's template), holding the cast as
 * well, or with `empty`, holding nothing.
 */
export async function createTestDatabase(
  options: { empty?: boolean; withCast?: boolean; provider?: TestDatabase['provider'] } = {},
): Promise<TestDatabase> {
  const provider =
    options.provider ?? (process.env.TEST_DATABASE === 'postgresql' ? 'postgresql' : 'sqlite');
  const template = options.empty
    ? undefined
    : process.env[TEMPLATES[provider][options.withCast ? 'cast' : 'migrated']];
  if (provider === 'postgresql') {
    const server = process.env.TEST_POSTGRES_URL;
    if (!server) throw new Error('TEST_POSTGRES_URL is not set');
    // Named after the run (global-setup.js), whose teardown drops what is left of it.
    const run = process.env.TEST_POSTGRES_RUN ?? 'solo';
    const name = `chat_test_${run}_${randomBytes(6).toString('hex')}`;
    // WAL_LOG copies the template's pages without the checkpoints FILE_COPY waits for.
    await onPostgresServer(
      template
        ? `CREATE DATABASE "${name}" TEMPLATE "${template}" STRATEGY WAL_LOG`
        : `CREATE DATABASE "${name}"`,
    );
    const url = new URL(server);
    url.pathname = `/${name}`;
    url.searchParams.set('schema', 'public');
    return {
      provider: 'postgresql',
      url: url.toString(),
      async drop() {
        await onPostgresServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'chat-test-'));
  const file = join(dir, 'chat.db');
  if (template) copyFileSync(template, file);
  return {
    provider: 'sqlite',
    url: `file:${file}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
