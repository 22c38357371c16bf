// What the permanent deletion of an organization reads before it deletes
// (the deletion itself is doDeleteDueRealms's, in actions/realm/): the rows
// to delete are those the organization's export would hold (tables.ts lists
// them all, referenced rows first), and the files its stored uploads, custom
// emoji images, uploaded avatars and export archives.
import type { Db } from '../../db/client';
import { emojiImageKey } from '../emoji/realm-emoji';
import { avatarImageKey } from '../users/avatars';
import { exportTables, type ExportScope, type ExportTable } from './tables';

/** What a deletion removed. */
export interface RealmDeletion {
  rows: number;
  files: number;
}

/**
 * The organization's tables in the order their rows can be deleted (a row
 * before any row it references), with the scope that selects its rows.
 */
export async function deletionTables(
  db: Db,
  realmId: number,
): Promise<{ tables: ExportTable[]; scope: ExportScope }> {
  const users = await db.user.findMany({ where: { realmId }, select: { id: true } });
  const scope: ExportScope = { realmId, privacy: 'full', userIds: users.map((u) => u.id) };
  return { tables: [...exportTables].reverse(), scope };
}

/** The keys of every file the organization has in the store. */
export async function realmFileKeys(db: Db, realmId: number): Promise<string[]> {
  const [uploads, emoji, exports, avatars] = await Promise.all([
    db.attachment.findMany({ where: { realmId }, select: { pathId: true } }),
    db.realmEmoji.findMany({ where: { realmId }, select: { fileName: true } }),
    db.realmExport.findMany({
      where: { realmId, exportPath: { not: null } },
      select: { exportPath: true },
    }),
    db.user.findMany({
      where: { realmId, avatarHash: { not: null } },
      select: { avatarHash: true },
    }),
  ]);
  return [
    ...uploads.map((u) => u.pathId),
    ...emoji.map((e) => emojiImageKey(realmId, e.fileName)),
    ...exports.map((e) => e.exportPath!),
    ...avatars.flatMap((u) => [
      avatarImageKey(realmId, u.avatarHash!, false),
      avatarImageKey(realmId, u.avatarHash!, true),
    ]),
  ];
}
