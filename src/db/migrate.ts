// Applies the SQL migrations in prisma/migrations/<provider>/ that the database
// has not seen, recording each in Prisma's own `_prisma_migrations` table (same
// columns and checksums), so `prisma migrate status` agrees wherever it runs.
// Runs on the raw driver, before the Prisma client opens.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Client as PgClient } from 'pg';
import { projectRoot } from '../paths';
import { parseDatabaseUrl, type DatabaseTarget } from './url';

/** A migration folder: its name and SQL. */
interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** The folder holding the migrations of each provider. */
export const migrationsRoot = resolve(projectRoot, 'prisma', 'migrations');

function readMigrations(provider: DatabaseTarget['provider']): Migration[] {
  const dir = join(migrationsRoot, provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** The names of the migrations this code brings, in order, for the database `provider`. */
export function migrationNames(provider: DatabaseTarget['provider']): string[] {
  return readMigrations(provider).map((m) => m.name);
}

const sqliteLedger = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "checksum" TEXT NOT NULL,
    "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL,
    "logs" TEXT,
    "rolled_back_at" DATETIME,
    "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

const pgLedger = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Thrown when an applied migration's file changed afterwards. */
export class MigrationError extends Error {}

function pending(
  all: Migration[],
  applied: { migration_name: string; checksum: string }[],
): Migration[] {
  const done = new Map(applied.map((row) => [row.migration_name, row.checksum]));
  for (const m of all) {
    const checksum = done.get(m.name);
    if (checksum !== undefined && checksum !== m.checksum) {
      throw new MigrationError(`migration ${m.name} was changed after it was applied`);
    }
  }
  return all.filter((m) => !done.has(m.name));
}

function migrateSqlite(file: string): string[] {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(sqliteLedger);
    const applied = db
      .prepare(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      )
      .all() as { migration_name: string; checksum: string }[];
    const todo = pending(readMigrations('sqlite'), applied);
    for (const m of todo) {
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare(
          'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, current_timestamp, ?, current_timestamp, 1)',
        ).run(randomUUID(), m.checksum, m.name);
      })();
    }
    return todo.map((m) => m.name);
  } finally {
    db.close();
  }
}

async function migratePostgres(
  target: Extract<DatabaseTarget, { provider: 'postgresql' }>,
): Promise<string[]> {
  const client = new PgClient({ connectionString: target.connectionString });
  await client.connect();
  try {
    if (target.schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${target.schema}"`);
      await client.query(`SET search_path TO "${target.schema}"`);
    }
    // The same advisory lock number Prisma takes, so two processes never migrate at once.
    await client.query('SELECT pg_advisory_lock(72707369)');
    try {
      await client.query(pgLedger);
      const { rows } = await client.query(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      const todo = pending(readMigrations('postgresql'), rows);
      for (const m of todo) {
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query(
            'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)',
            [randomUUID(), m.checksum, m.name],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
      return todo.map((m) => m.name);
    } finally {
      await client.query('SELECT pg_advisory_unlock(72707369)');
    }
  } finally {
    await client.end();
  }
}

/** Brings the database at `url` up to date; returns the names of the migrations applied. */
export async function migrate(url: string): Promise<string[]> {
  const target = parseDatabaseUrl(url);
  return target.provider === 'sqlite' ? migrateSqlite(target.file) : migratePostgres(target);
}
