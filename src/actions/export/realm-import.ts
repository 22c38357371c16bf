// Loads an organization's export archive (see lib/export/archive.ts) into a
// database that does not have that organization yet: every table in one
// transaction, then the stored files. IDs are kept where the database does
// not use them yet; otherwise each table's IDs are shifted past the largest
// one in use, the same shift for every reference to them, so that the order
// of messages (and of everything else) is kept too.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import * as tar from 'tar';
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { executeRows, type Db } from '../../db/client';
import { badRequest } from '../../errors';
import { emojiImageKey } from '../../lib/emoji/realm-emoji';
import { avatarImageKey } from '../../lib/users/avatars';
import { ARCHIVE_FORMAT, readBatches, tableFile, type Manifest } from '../../lib/export/archive';
import { delegateOf } from '../../lib/export/delegates';
import { silentProgress, type Progress } from '../../lib/export/progress';
import {
  exportTables,
  type IdModel,
  type ImportContext,
  type MapId,
  type Row,
} from '../../lib/export/tables';
import { isSafeKey } from '../../lib/uploads/file-store';
import type { Services } from '../../services';

/** How long the loading transaction may run. */
const IMPORT_TIMEOUT_MS = 60 * 60 * 1000;
/** Bound parameters per insert, below both databases' limits. */
const PARAMETERS_PER_INSERT = 10_000;

/** What an import loaded. */
export interface ImportSummary {
  realm_id: number;
  string_id: string;
  /** Rows per table. */
  rows: Record<string, number>;
  /** Files put in the store. */
  files: number;
  /** Per table whose IDs had to move: the amount added to each. */
  id_shifts: Record<string, number>;
}

const emojiTypes: Record<string, string> = {
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

/**
 * Inserts rows of `model` as they are (IDs included), many per statement:
 * Prisma's createMany costs a few milliseconds a row, ten times as much. On
 * PostgreSQL a batch travels as one JSON parameter that the server unpacks
 * into rows of the table; on SQLite as a multi-row VALUES list. Every row has
 * the same columns, in the same order; columns left out get their defaults.
 */
export async function insertRows(
  tx: Db,
  provider: 'sqlite' | 'postgresql',
  model: string,
  rows: Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const table = Prisma.raw(`"${model}"`);
  const names = Prisma.raw(columns.map((c) => `"${c}"`).join(', '));
  if (provider === 'postgresql') {
    await executeRows(
      tx,
      Prisma.sql`INSERT INTO ${table} (${names}) SELECT ${names}
        FROM json_populate_recordset(NULL::${table}, ${JSON.stringify(rows)}::json)`,
    );
    return;
  }
  const perStatement = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / columns.length));
  for (let i = 0; i < rows.length; i += perStatement) {
    const values = rows
      .slice(i, i + perStatement)
      .map((row) => Prisma.sql`(${Prisma.join(columns.map((c) => row[c] ?? null))})`);
    await executeRows(
      tx,
      Prisma.sql`INSERT INTO ${table} (${names}) VALUES ${Prisma.join(values)}`,
    );
  }
}

/** Unpacks the archive at `input` into `dir` and reads its manifest. */
async function unpack(input: string, dir: string): Promise<Manifest> {
  try {
    await tar.x({ file: input, cwd: dir, strict: true });
  } catch (error) {
    throw badRequest(`${input} is not a readable archive: ${(error as Error).message}`);
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    throw badRequest(`${input} is not an organization export (no manifest.json)`);
  }
  if (manifest.format !== ARCHIVE_FORMAT)
    throw badRequest(
      `unsupported export format ${manifest.format} (this server reads ${ARCHIVE_FORMAT})`,
    );
  const known = new Set(exportTables.map((t) => t.model));
  const unknown = Object.keys(manifest.tables).filter((m) => !known.has(m));
  if (unknown.length > 0)
    throw badRequest(`the archive holds tables this server does not have: ${unknown.join(', ')}`);
  return manifest;
}

/** The shift of each table's IDs: 0 when none of the archive's IDs is in use. */
async function idShifts(tx: Db, manifest: Manifest): Promise<Record<string, number>> {
  const shifts: Record<string, number> = {};
  for (const table of exportTables) {
    const entry = manifest.tables[table.model];
    if (table.key[0] !== 'id' || table.key.length !== 1 || !entry || entry.min_id === null)
      continue;
    const { _max } = await delegateOf(tx, table.model).aggregate({ _max: { id: true } });
    const inUse = _max.id ?? 0;
    if (inUse >= entry.min_id) shifts[table.model] = inUse - entry.min_id + 1;
  }
  return shifts;
}

/** Whether `error` is SQLite's or PostgreSQL's refusal of a duplicate key. */
function isUniqueViolation(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    code === 'P2002' ||
    (code === 'P2010' && /unique|23505/i.test(String(message))) ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint failed|duplicate key value/.test(String(message))
  );
}

/** Loads every table of the archive unpacked in `dir`. */
async function loadTables(
  tx: Db,
  dir: string,
  manifest: Manifest,
  map: MapId,
  progress: Progress,
  contentTypes: Map<string, string>,
  provider: 'sqlite' | 'postgresql',
): Promise<Record<string, number>> {
  const context: ImportContext = { userListFields: new Set() };
  const counts: Record<string, number> = {};
  for (const table of exportTables) {
    counts[table.model] = 0;
    if (!manifest.tables[table.model]) continue;
    const refs = Object.entries(table.refs);
    for await (const rows of readBatches(join(dir, tableFile(table.model)), 1000)) {
      for (const row of rows) {
        // Rows that translate JSON by exported IDs read them before the shift.
        table.remap?.(row, map, context);
        for (const [column, model] of refs) {
          const value = row[column];
          if (typeof value === 'number' && value > 0) row[column] = map(model, value);
        }
        if (table.model === 'Attachment')
          contentTypes.set(row.pathId as string, row.contentType as string);
      }
      try {
        await insertRows(tx, provider, table.model, rows);
      } catch (error) {
        if (isUniqueViolation(error))
          throw badRequest(
            `the archive's ${table.model} rows clash with rows already in this database ` +
              '(the same API keys, file paths or keys): was this organization imported before?',
          );
        throw error;
      }
      counts[table.model] += rows.length;
      progress.advance(rows.length, table.model);
    }
  }
  return counts;
}

/** Moves PostgreSQL's ID sequences of `models` past the IDs written with explicit values. */
export async function advanceIdSequences(
  tx: Db,
  models: string[] = exportTables
    .filter((t) => t.key.length === 1 && t.key[0] === 'id')
    .map((t) => t.model),
): Promise<void> {
  for (const model of models) {
    await tx.$queryRawUnsafe(
      `SELECT setval(pg_get_serial_sequence('"${model}"', 'id'), ` +
        `(SELECT COALESCE(MAX(id), 0) + 1 FROM "${model}"), false)`,
    );
  }
}

/** Imports the organization in the archive `input`. */
export async function doImportRealm(
  services: Pick<Services, 'db' | 'files'>,
  input: string,
  progress: Progress = silentProgress,
): Promise<ImportSummary> {
  const dir = await mkdtemp(join(tmpdir(), 'realm-import-'));
  try {
    const manifest = await unpack(input, dir);
    const totalRows = Object.values(manifest.tables).reduce((sum, t) => sum + t.rows, 0);
    // Avatar images by file name; the users' rows name them by their random part.
    const avatars = (manifest.avatars ?? []).filter((name) =>
      /^[0-9a-f]{40}(-medium)?\.png$/.test(name),
    );
    const contentTypes = new Map<string, string>();
    let shifts: Record<string, number> = {};
    const map: MapId = (model: IdModel, id: number) => id + (shifts[model] ?? 0);
    const rows = await services.db.write(
      async (tx) => {
        const taken = await tx.realm.findUnique({ where: { stringId: manifest.string_id } });
        if (taken)
          throw badRequest(
            manifest.string_id === ''
              ? 'an organization at the root domain already exists in this database'
              : `an organization with the subdomain "${manifest.string_id}" already exists in this database`,
          );
        shifts = await idShifts(tx, manifest);
        progress.start(
          totalRows + manifest.uploads.length + manifest.emoji.length + avatars.length,
        );
        const counts = await loadTables(
          tx,
          dir,
          manifest,
          map,
          progress,
          contentTypes,
          services.db.provider,
        );
        if (services.db.provider === 'postgresql') await advanceIdSequences(tx);
        return counts;
      },
      { timeoutMs: IMPORT_TIMEOUT_MS },
    );
    const realmId = map('Realm', manifest.realm_id);
    let files = 0;
    for (const pathId of manifest.uploads) {
      if (isSafeKey(pathId)) {
        const type = contentTypes.get(pathId) ?? 'application/octet-stream';
        await services.files.put(pathId, join(dir, 'uploads', pathId), type);
        files += 1;
      }
      progress.advance(1, 'uploads');
    }
    for (const fileName of manifest.emoji) {
      const key = emojiImageKey(realmId, fileName);
      if (isSafeKey(key)) {
        const type = emojiTypes[extname(fileName).toLowerCase()] ?? 'application/octet-stream';
        await services.files.put(key, join(dir, 'emoji', fileName), type);
        files += 1;
      }
      progress.advance(1, 'emoji');
    }
    for (const fileName of avatars) {
      const [hash, medium] = fileName.replace(/\.png$/, '').split('-');
      await services.files.put(
        avatarImageKey(realmId, hash, medium !== undefined),
        join(dir, 'avatars', fileName),
        'image/png',
      );
      files += 1;
      progress.advance(1, 'avatars');
    }
    progress.finish();
    return { realm_id: realmId, string_id: manifest.string_id, rows, files, id_shifts: shifts };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
