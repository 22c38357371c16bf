// Reads the models of prisma/schema.prisma: scalar fields with their type and
// nullability, primary keys, unique constraints and indexes. The schema drift
// test compares this with what the migrated database holds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One scalar column of a model. */
export interface SchemaField {
  name: string;
  type: 'Int' | 'String' | 'Boolean' | 'DateTime' | 'BigInt' | 'Float';
  optional: boolean;
  autoincrement: boolean;
  /** The @default argument as written (`now()`, `"en"`, `600`), if any. */
  defaultValue?: string;
}

/** One model: its table, columns, key and indexes (each a list of column names). */
export interface SchemaModel {
  name: string;
  fields: SchemaField[];
  primaryKey: string[];
  uniques: string[][];
  indexes: string[][];
  /** Foreign keys: the local columns and the referenced table. */
  relations: { fields: string[]; references: string }[];
}

const scalarTypes = new Set(['Int', 'String', 'Boolean', 'DateTime', 'BigInt', 'Float']);

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parses the models of the project's schema.prisma. */
export function readSchemaModels(
  path = join(__dirname, '..', '..', 'prisma', 'schema.prisma'),
): SchemaModel[] {
  const source = readFileSync(path, 'utf8');
  const models: SchemaModel[] = [];
  for (const match of source.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const model: SchemaModel = {
      name: match[1],
      fields: [],
      primaryKey: [],
      uniques: [],
      indexes: [],
      relations: [],
    };
    for (const raw of match[2].split('\n')) {
      const line = raw.replace(/\/\/.*$/, '').trim();
      if (!line) continue;
      const block = /^@@(id|unique|index)\(\[([^\]]*)\]/.exec(line);
      if (block) {
        const cols = list(block[2]);
        if (block[1] === 'id') model.primaryKey = cols;
        else (block[1] === 'unique' ? model.uniques : model.indexes).push(cols);
        continue;
      }
      const field = /^(\w+)\s+(\w+)(\?|\[\])?\s*(.*)$/.exec(line);
      if (!field) continue;
      const [, name, type, modifier, attrs] = field;
      const relation = /@relation\([^)]*fields:\s*\[([^\]]*)\]/.exec(attrs);
      if (relation) model.relations.push({ fields: list(relation[1]), references: type });
      if (!scalarTypes.has(type) || modifier === '[]') continue;
      model.fields.push({
        name,
        type: type as SchemaField['type'],
        optional: modifier === '?',
        autoincrement: attrs.includes('@default(autoincrement())'),
        defaultValue: /@default\(((?:[^()]|\([^)]*\))*)\)/.exec(attrs)?.[1],
      });
      if (/@id\b/.test(attrs)) model.primaryKey = [name];
      if (/@unique\b/.test(attrs)) model.uniques.push([name]);
    }
    models.push(model);
  }
  return models;
}
