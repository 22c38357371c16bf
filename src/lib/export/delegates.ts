// Prisma's per-model query objects, reached by model name, for the code that
// walks every table of an organization without naming each one (export,
// import, and the deletion of a deactivated organization).
import type { Db } from '../../db/client';
import type { Row } from './tables';

/** The part of a Prisma model delegate the export, import and deletion use. */
export interface TableDelegate {
  findMany(args: object): Promise<Row[]>;
  deleteMany(args: object): Promise<{ count: number }>;
  count(args: object): Promise<number>;
  createMany(args: { data: Row[] }): Promise<unknown>;
  aggregate(args: object): Promise<{ _max: { id: number | null } }>;
}

/** The delegate of `model` (`UserMessage` is `db.userMessage`). */
export function delegateOf(db: Db, model: string): TableDelegate {
  const name = model[0].toLowerCase() + model.slice(1);
  // Prisma's client types each model's delegate as its own property; looked up by
  // name, they are read through the one shape the export and import use.
  const delegate = (db as unknown as Record<string, TableDelegate | undefined>)[name];
  if (!delegate) throw new Error(`no Prisma model ${model}`);
  return delegate;
}
