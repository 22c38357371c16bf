// A fresh, empty database for one test file: a temporary SQLite file, or a new
// schema on the PostgreSQL server named by TEST_POSTGRES_URL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** A database URL and how to remove what it names. */
export interface TestDatabase {
  provider: 'sqlite' | 'postgresql';
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database of the kind this test project runs on. */
export function createTestDatabase(): TestDatabase {
  if (process.env.TEST_DATABASE === 'postgresql') {
    const server = process.env.TEST_POSTGRES_URL;
    if (!server) throw new Error('TEST_POSTGRES_URL is not set');
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const url = new URL(server);
    url.searchParams.set('schema', schema);
    return {
      provider: 'postgresql',
      url: url.toString(),
      async drop() {
        const client = new Client({ connectionString: server });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'chat-test-'));
  return {
    provider: 'sqlite',
    url: `file:${join(dir, 'chat.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
