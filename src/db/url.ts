// Turns DATABASE_URL into what the drivers need.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Where the data lives: a SQLite file, or a PostgreSQL database and schema. */
export type DatabaseTarget =
  | { provider: 'sqlite'; file: string }
  | { provider: 'postgresql'; connectionString: string; schema?: string };

/**
 * Reads `file:PATH` (SQLite; the folder is created) or `postgresql://...`,
 * where a `schema` query parameter selects a PostgreSQL schema.
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('file:')) {
    const file = resolve(url.slice('file:'.length));
    mkdirSync(dirname(file), { recursive: true });
    return { provider: 'sqlite', file };
  }
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { provider: 'postgresql', connectionString: parsed.toString(), schema };
}
