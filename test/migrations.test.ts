// The migrations in prisma/migrations/<provider>/ build exactly the schema of
// prisma/schema.prisma: every model's table, every field's column with its
// type and nullability, primary keys, unique constraints, indexes and foreign
// keys. Runs against an empty database of the kind this project tests on.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Client } from 'pg';
import { Prisma } from '../generated/prisma/sqlite/client';
import { migrate, migrationsRoot } from '../src/db/migrate';
import { parseDatabaseUrl } from '../src/db/url';
import { createTestDatabase, type TestDatabase } from './support/database';
import { readSchemaModels, type SchemaField } from './support/prisma-schema';

/** A column as the database describes it. */
interface Column {
  type: string;
  nullable: boolean;
}
/** A table as the database describes it. */
interface Table {
  columns: Map<string, Column>;
  primaryKey: string[];
  uniques: string[][];
  indexes: string[][];
  foreignKeys: { columns: string[]; references: string }[];
}

async function introspectSqlite(file: string): Promise<Map<string, Table>> {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const tables = new Map<string, Table>();
    const names = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      .all() as { name: string }[];
    for (const { name } of names) {
      const info = db.prepare(`PRAGMA table_info("${name}")`).all() as {
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }[];
      const table: Table = {
        columns: new Map(
          info.map((c) => [
            c.name,
            { type: c.type.toUpperCase(), nullable: c.notnull === 0 && c.pk === 0 },
          ]),
        ),
        primaryKey: info
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        uniques: [],
        indexes: [],
        foreignKeys: [],
      };
      for (const index of db.prepare(`PRAGMA index_list("${name}")`).all() as {
        name: string;
        unique: number;
        origin: string;
      }[]) {
        if (index.origin === 'pk') continue;
        const cols = (
          db.prepare(`PRAGMA index_info("${index.name}")`).all() as {
            seqno: number;
            name: string;
          }[]
        )
          .sort((a, b) => a.seqno - b.seqno)
          .map((c) => c.name);
        (index.unique ? table.uniques : table.indexes).push(cols);
      }
      const fks = db.prepare(`PRAGMA foreign_key_list("${name}")`).all() as {
        id: number;
        seq: number;
        table: string;
        from: string;
      }[];
      for (const id of new Set(fks.map((f) => f.id))) {
        const parts = fks.filter((f) => f.id === id).sort((a, b) => a.seq - b.seq);
        table.foreignKeys.push({ columns: parts.map((p) => p.from), references: parts[0].table });
      }
      tables.set(name, table);
    }
    return tables;
  } finally {
    db.close();
  }
}

async function introspectPostgres(
  connectionString: string,
  schema: string,
): Promise<Map<string, Table>> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    const tables = new Map<string, Table>();
    const columns = await client.query(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = $1`,
      [schema],
    );
    for (const row of columns.rows) {
      if (!tables.has(row.table_name))
        tables.set(row.table_name, {
          columns: new Map(),
          primaryKey: [],
          uniques: [],
          indexes: [],
          foreignKeys: [],
        });
      tables
        .get(row.table_name)!
        .columns.set(row.column_name, { type: row.data_type, nullable: row.is_nullable === 'YES' });
    }
    const indexes = await client.query(
      `SELECT t.relname AS table_name, i.indisunique AS is_unique, i.indisprimary AS is_primary,
              array_agg(a.attname::text ORDER BY k.n) AS columns
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_namespace ns ON ns.oid = t.relnamespace
         JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE ns.nspname = $1
        GROUP BY t.relname, i.indexrelid, i.indisunique, i.indisprimary`,
      [schema],
    );
    for (const row of indexes.rows) {
      const table = tables.get(row.table_name);
      if (!table) continue;
      if (row.is_primary) table.primaryKey = row.columns;
      else (row.is_unique ? table.uniques : table.indexes).push(row.columns);
    }
    const fks = await client.query(
      `SELECT src.relname AS table_name, dst.relname AS references,
              array_agg(a.attname::text ORDER BY k.n) AS columns
         FROM pg_constraint c
         JOIN pg_class src ON src.oid = c.conrelid
         JOIN pg_class dst ON dst.oid = c.confrelid
         JOIN pg_namespace ns ON ns.oid = src.relnamespace
         JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) ON true
         JOIN pg_attribute a ON a.attrelid = src.oid AND a.attnum = k.attnum
        WHERE c.contype = 'f' AND ns.nspname = $1
        GROUP BY src.relname, dst.relname, c.oid`,
      [schema],
    );
    for (const row of fks.rows)
      tables
        .get(row.table_name)
        ?.foreignKeys.push({ columns: row.columns, references: row.references });
    return tables;
  } finally {
    await client.end();
  }
}

const sqliteTypes: Record<SchemaField['type'], string> = {
  Int: 'INTEGER',
  String: 'TEXT',
  Boolean: 'BOOLEAN',
  DateTime: 'DATETIME',
  BigInt: 'BIGINT',
  Float: 'REAL',
};
const postgresTypes: Record<SchemaField['type'], string> = {
  Int: 'integer',
  String: 'text',
  Boolean: 'boolean',
  DateTime: 'timestamp without time zone',
  BigInt: 'bigint',
  Float: 'double precision',
};

const key = (cols: string[]) => cols.join(',');
const models = readSchemaModels();
let database: TestDatabase;
let tables: Map<string, Table>;

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
  await migrate(database.url);
  const target = parseDatabaseUrl(database.url);
  tables =
    target.provider === 'sqlite'
      ? await introspectSqlite(target.file)
      : await introspectPostgres(target.connectionString, target.schema!);
});
afterAll(() => database.drop());

test('the schema reader sees the same models and fields as the generated Prisma client', () => {
  const generated = Object.entries(Prisma)
    .filter(([name]) => name.endsWith('ScalarFieldEnum') && name !== 'TransactionIsolationLevel')
    .map(
      ([name, fields]) =>
        [name.replace(/ScalarFieldEnum$/, ''), Object.keys(fields as object).sort()] as const,
    );
  expect(Object.fromEntries(generated)).toEqual(
    Object.fromEntries(models.map((m) => [m.name, m.fields.map((f) => f.name).sort()])),
  );
});

test('every migration folder was applied once and recorded in _prisma_migrations', async () => {
  const folders = readdirSync(join(migrationsRoot, database.provider), {
    withFileTypes: true,
  }).filter((d) => d.isDirectory());
  expect(tables.has('_prisma_migrations')).toBe(true);
  expect(await migrate(database.url)).toEqual([]);
  expect(folders.length).toBeGreaterThan(0);
});

describe.each(models.map((m) => [m.name, m] as const))('model %s', (name, model) => {
  test('has its table with every field as a column of the right type and nullability', () => {
    const table = tables.get(name);
    expect(table).toBeDefined();
    const types = database.provider === 'sqlite' ? sqliteTypes : postgresTypes;
    for (const field of model.fields) {
      const column = table!.columns.get(field.name);
      expect({ field: field.name, column }).toEqual({
        field: field.name,
        column: { type: types[field.type], nullable: field.optional },
      });
    }
    expect([...table!.columns.keys()].sort()).toEqual(model.fields.map((f) => f.name).sort());
  });

  test('has its primary key, unique constraints, indexes and foreign keys', () => {
    const table = tables.get(name)!;
    expect(table.primaryKey).toEqual(model.primaryKey);
    expect(table.uniques.map(key).sort()).toEqual(model.uniques.map(key).sort());
    for (const index of model.indexes) expect(table.indexes.map(key)).toContain(key(index));
    expect(table.foreignKeys.map((f) => `${key(f.columns)}->${f.references}`).sort()).toEqual(
      model.relations.map((r) => `${key(r.fields)}->${r.references}`).sort(),
    );
  });
});
