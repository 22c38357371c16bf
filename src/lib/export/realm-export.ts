// Writes one organization, every table and every stored file, into a .tar.gz
// archive (layout in archive.ts). Rows are read a page at a time and written
// as they come, so the size of the organization does not matter to memory.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import type { Database, Db } from '../../db/client';
import { emojiImageKey } from '../emoji/realm-emoji';
import { avatarImageKey } from '../users/avatars';
import { isSafeKey, type FileStore } from '../uploads/file-store';
import { ARCHIVE_FORMAT, encodeRow, LineWriter, tableFile, type Manifest } from './archive';
import { delegateOf } from './delegates';
import { silentProgress, type Progress } from './progress';
import {
  exportTables,
  type ExportPrivacy,
  type ExportScope,
  type ExportTable,
  type Row,
} from './tables';

/** Rows read per query. */
const PAGE = 2000;

/** What an export wrote. */
export interface ExportSummary {
  realm_id: number;
  string_id: string;
  /** Rows per table. */
  rows: Record<string, number>;
  /** Files copied from the store, and files it no longer had. */
  files: number;
  missing_files: string[];
  /** The archive's size in bytes. */
  size: number;
}

/** Reads the rows of one table page by page, in primary-key order. */
async function* pages(db: Database, table: ExportTable, scope: ExportScope): AsyncGenerator<Row[]> {
  const where = table.where(scope);
  const orderBy = table.key.map((column) => ({ [column]: 'asc' }));
  const delegate = (tx: Db) => delegateOf(tx, table.model);
  let cursor: object | undefined;
  for (;;) {
    const rows = await db.read((tx) =>
      delegate(tx).findMany({
        where,
        orderBy,
        take: PAGE,
        ...(cursor ? { cursor, skip: 1 } : {}),
      }),
    );
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1];
    cursor =
      table.key.length === 1
        ? { [table.key[0]]: last[table.key[0]] }
        : { [table.key.join('_')]: Object.fromEntries(table.key.map((c) => [c, last[c]])) };
  }
}

/** Copies the file of `key` from the store to `path`; false when the store lacks it. */
async function copyOut(files: FileStore, key: string, path: string): Promise<boolean> {
  const file = await files.get(key);
  if (!file) return false;
  await mkdir(dirname(path), { recursive: true });
  await pipeline(file.body, createWriteStream(path));
  return true;
}

/** Writes the rows of `table` in `scope` into its file under `dir`; answers its manifest entry. */
async function writeTable(
  db: Database,
  table: ExportTable,
  scope: ExportScope,
  dir: string,
  progress: Progress,
): Promise<Manifest['tables'][string]> {
  const writer = new LineWriter(join(dir, tableFile(table.model)));
  const entry = { rows: 0, min_id: null as number | null, max_id: null as number | null };
  try {
    for await (const rows of pages(db, table, scope)) {
      for (const row of rows) {
        await writer.write(encodeRow(row));
        if (typeof row.id === 'number' && table.key[0] === 'id') {
          entry.min_id = Math.min(entry.min_id ?? row.id, row.id);
          entry.max_id = Math.max(entry.max_id ?? row.id, row.id);
        }
      }
      entry.rows += rows.length;
      progress.advance(rows.length, table.model);
    }
  } finally {
    await writer.close();
  }
  return entry;
}

/**
 * Copies the organization's uploads, custom emoji and avatar images from the store
 * into `dir`, listing each in `manifest`, or among its missing files when the
 * store no longer has it.
 */
async function copyStoredFiles(
  files: FileStore,
  realmId: number,
  stored: {
    attachments: { pathId: string }[];
    emoji: { fileName: string }[];
    avatars: { avatarHash: string | null }[];
  },
  dir: string,
  manifest: Manifest,
  progress: Progress,
): Promise<void> {
  for (const { pathId } of stored.attachments) {
    if (isSafeKey(pathId) && (await copyOut(files, pathId, join(dir, 'uploads', pathId))))
      manifest.uploads.push(pathId);
    else manifest.missing_files.push(pathId);
    progress.advance(1, 'uploads');
  }
  for (const { fileName } of stored.emoji) {
    const key = emojiImageKey(realmId, fileName);
    if (isSafeKey(key) && (await copyOut(files, key, join(dir, 'emoji', fileName))))
      manifest.emoji.push(fileName);
    else manifest.missing_files.push(key);
    progress.advance(1, 'emoji');
  }
  for (const { avatarHash } of stored.avatars) {
    for (const medium of [false, true]) {
      const key = avatarImageKey(realmId, avatarHash!, medium);
      const fileName = key.split('/').pop()!;
      if (isSafeKey(key) && (await copyOut(files, key, join(dir, 'avatars', fileName))))
        manifest.avatars!.push(fileName);
      else manifest.missing_files.push(key);
    }
    progress.advance(1, 'avatars');
  }
}

/** Exports the organization `realmId` into the archive `output`. */
export async function exportRealm(
  services: { db: Database; files: FileStore },
  realmId: number,
  output: string,
  progress: Progress = silentProgress,
  privacy: ExportPrivacy = 'full',
): Promise<ExportSummary> {
  const { db, files } = services;
  const realm = await db.read((tx) => tx.realm.findUnique({ where: { id: realmId } }));
  if (!realm) throw new Error(`no organization with ID ${realmId}`);
  const users = await db.read((tx) =>
    tx.user.findMany({ where: { realmId }, select: { id: true } }),
  );
  const scope: ExportScope = { realmId, privacy, userIds: users.map((u) => u.id) };
  const attachments = await db.read((tx) =>
    tx.attachment.findMany({
      where: { realmId },
      select: { pathId: true },
      orderBy: { id: 'asc' },
    }),
  );
  const emoji = await db.read((tx) =>
    tx.realmEmoji.findMany({ where: { realmId }, select: { fileName: true } }),
  );
  const avatars = await db.read((tx) =>
    tx.user.findMany({
      where: { realmId, avatarHash: { not: null } },
      select: { avatarHash: true },
    }),
  );
  const counts = await db.read(async (tx) => {
    const out: number[] = [];
    for (const table of exportTables)
      out.push(await delegateOf(tx, table.model).count({ where: table.where(scope) }));
    return out;
  });
  progress.start(
    counts.reduce((a, b) => a + b, 0) + attachments.length + emoji.length + avatars.length,
  );

  const dir = await mkdtemp(join(tmpdir(), 'realm-export-'));
  try {
    await mkdir(join(dir, 'tables'));
    await mkdir(join(dir, 'uploads'));
    await mkdir(join(dir, 'emoji'));
    await mkdir(join(dir, 'avatars'));
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      realm_id: realm.id,
      string_id: realm.stringId,
      exported_at: Math.floor(Date.now() / 1000),
      tables: {},
      uploads: [],
      emoji: [],
      avatars: [],
      missing_files: [],
    };
    for (const table of exportTables)
      manifest.tables[table.model] = await writeTable(db, table, scope, dir, progress);
    await copyStoredFiles(files, realmId, { attachments, emoji, avatars }, dir, manifest, progress);
    await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
    await mkdir(dirname(output), { recursive: true });
    await tar.c({ gzip: true, file: output, cwd: dir, portable: true }, [
      'manifest.json',
      'tables',
      'uploads',
      'emoji',
      'avatars',
    ]);
    progress.finish();
    return {
      realm_id: realm.id,
      string_id: realm.stringId,
      rows: Object.fromEntries(Object.entries(manifest.tables).map(([m, t]) => [m, t.rows])),
      files: manifest.uploads.length + manifest.emoji.length + manifest.avatars!.length,
      missing_files: manifest.missing_files,
      size: (await stat(output)).size,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
