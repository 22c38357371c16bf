// Every model of prisma/schema.prisma is either exported with its
// organization or deliberately left out, and every column of an exported
// table that holds another row's ID is known, so that an import shifting IDs
// rewrites it: a new model or reference column fails here until it is listed.
import { exportTables, skippedModels } from '../src/lib/export/tables';
import { readSchemaModels } from './support/prisma-schema';

const models = readSchemaModels();
const exported = new Map(exportTables.map((t) => [t.model, t]));

test('every model is exported or listed as skipped, never both', () => {
  const uncovered = models
    .map((m) => m.name)
    .filter((name) => !exported.has(name) && !(name in skippedModels));
  expect(uncovered).toEqual([]);
  const both = [...exported.keys()].filter((name) => name in skippedModels);
  expect(both).toEqual([]);
  const names = new Set(models.map((m) => m.name));
  expect([...exported.keys(), ...Object.keys(skippedModels)].filter((n) => !names.has(n))).toEqual(
    [],
  );
});

test('tables are inserted after the tables their foreign keys point to', () => {
  const order = exportTables.map((t) => t.model);
  for (const model of models.filter((m) => exported.has(m.name))) {
    for (const relation of model.relations) {
      if (relation.references === model.name) continue;
      expect([model.name, order.indexOf(relation.references)]).not.toEqual([model.name, -1]);
      expect(order.indexOf(relation.references)).toBeLessThan(order.indexOf(model.name));
    }
  }
});

test.each(models.filter((m) => exported.has(m.name)).map((m) => [m.name, m] as const))(
  '%s: its key is the primary key and every ID column is a known reference',
  (name, model) => {
    const table = exported.get(name)!;
    expect(table.key).toEqual(model.primaryKey);
    const known = new Set([...Object.keys(table.refs), ...(table.notRefs ?? [])]);
    const idColumns = model.fields
      .filter((f) => f.type === 'Int' && (f.name === 'id' || /Id$/.test(f.name)))
      .map((f) => f.name);
    expect(idColumns.filter((c) => !known.has(c))).toEqual([]);
    const foreignKeys = model.relations.flatMap((r) => r.fields);
    expect(foreignKeys.filter((c) => !(c in table.refs))).toEqual([]);
    // A model whose rows have their own autoincrement ID maps it to itself.
    if (model.fields.some((f) => f.name === 'id' && f.autoincrement))
      expect(table.refs.id).toBe(name);
  },
);
