// What SQLite's and PostgreSQL's prepared statements share: the one
// interface `queryRows` and `executeRows` of client.ts run raw queries
// through on either database, so that no caller asks which one it is on, and
// the building of row objects.

/** How many distinct SQL texts stay prepared (on PostgreSQL: on each connection). */
export const STATEMENT_CACHE_SIZE = 500;

/** A raw query as Prisma.sql builds it: `?` placeholders in `sql`, `$1` ones in `text`. */
export interface RawQuery {
  readonly sql: string;
  readonly text: string;
  readonly values: unknown[];
}

/**
 * Raw queries run on prepared statements, past Prisma's client, with the
 * values Prisma's raw queries give on the same database. On SQLite the
 * answers come at once; on PostgreSQL after the round trip.
 */
export interface Statements {
  /** The rows a query returns, as objects with Prisma's value types. */
  rows<T>(query: RawQuery): T[] | Promise<T[]>;
  /** Runs a statement that returns no rows; answers how many rows it changed. */
  run(query: RawQuery): number | Promise<number>;
}

/** A row as an object, by column name. */
export type RowObject = Record<string, unknown>;

const same = (value: unknown) => value;

/**
 * A function making each row's object with one literal, so that all rows of a
 * statement share one shape; built as code from the column names (quoted by
 * JSON.stringify, so that a name cannot break out of its string). Adding the
 * properties one by one in a loop cost a third of the time of reading them.
 * `converters` turn each value into Prisma's type for its column (none: as read).
 */
export function objectBuilder(
  names: string[],
  converters: ((value: unknown) => unknown)[] = names.map(() => same),
): (values: unknown[]) => RowObject {
  // A computed key for "__proto__", which as a plain key would set the prototype.
  const fields = names.map(
    (name, i) =>
      `${name === '__proto__' ? '["__proto__"]' : JSON.stringify(name)}: convert[${i}](values[${i}])`,
  );
  return new Function('convert', `return (values) => ({ ${fields.join(', ')} });`)(converters) as (
    values: unknown[],
  ) => RowObject;
}
