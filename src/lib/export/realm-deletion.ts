// The permanent deletion of an organization: every row the organization's
// export would hold (tables.ts lists them all, referenced rows first),
// deleted in the reverse order so that no row outlives one it references,
// together with its invitations and the records of its exports, in one
// transaction; then its stored files (uploads, custom emoji images, export
// archives). The organization's subdomain is free afterwards.
import type { Database, Db } from '../../db/client';
import { emojiImageKey } from '../emoji/realm-emoji';
import { delegateOf } from './delegates';
import { exportTables, type ExportScope } from './tables';
import type { FileStore } from '../uploads/file-store';

/** What a deletion removed. */
export interface RealmDeletion {
  rows: number;
  files: number;
}

/** The keys of every file the organization has in the store. */
async function fileKeys(tx: Db, realmId: number): Promise<string[]> {
  const [uploads, emoji, exports] = await Promise.all([
    tx.attachment.findMany({ where: { realmId }, select: { pathId: true } }),
    tx.realmEmoji.findMany({ where: { realmId }, select: { fileName: true } }),
    tx.realmExport.findMany({
      where: { realmId, exportPath: { not: null } },
      select: { exportPath: true },
    }),
  ]);
  return [
    ...uploads.map((u) => u.pathId),
    ...emoji.map((e) => emojiImageKey(realmId, e.fileName)),
    ...exports.map((e) => e.exportPath!),
  ];
}

/**
 * Deletes the organization `realmId` and everything it holds. Running it
 * again, or in two processes at once, deletes nothing more.
 */
export async function deleteRealmData(
  services: { db: Database; files: FileStore },
  realmId: number,
): Promise<RealmDeletion> {
  const { keys, rows } = await services.db.write(async (tx) => {
    const users = await tx.user.findMany({ where: { realmId }, select: { id: true } });
    const scope: ExportScope = { realmId, privacy: 'full', userIds: users.map((u) => u.id) };
    const keys = await fileKeys(tx, realmId);
    let rows = (await tx.invite.deleteMany({ where: { realmId } })).count;
    rows += (await tx.realmExport.deleteMany({ where: { realmId } })).count;
    for (const table of [...exportTables].reverse())
      rows += (await delegateOf(tx, table.model).deleteMany({ where: table.where(scope) })).count;
    return { keys, rows };
  });
  for (const key of keys) await services.files.delete(key);
  return { rows, files: keys.length };
}
