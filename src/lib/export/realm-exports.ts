// Exports of an organization requested through the API: the API object of
// GET /export/realm and of the `realm_export` event, the archive's key in the
// file store and its URL, and the consents of GET /export/realm/consents.
import { randomBytes } from 'node:crypto';
import type { Realm, RealmExport } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { realmUrl } from '../realm/realms';

/** export_type: public data only, or with the private data of consenting users. */
export const ExportType = { PUBLIC: 1, FULL_WITH_CONSENT: 2 } as const;

/** Exports an organization may request within a week (Zulip's limit). */
export const EXPORTS_PER_WEEK = 5;

/** A new, unguessable file-store key for an export archive of `realmId`. */
export function newExportKey(realmId: number): string {
  return `exports/${realmId}/${randomBytes(12).toString('hex')}/realm-export-${realmId}.tar.gz`;
}

/** Whether `key` has the shape of `newExportKey`'s keys. */
export function isExportKey(key: string): boolean {
  return /^exports\/\d+\/[0-9a-f]{24}\/realm-export-\d+\.tar\.gz$/.test(key);
}

const seconds = (date: Date | null) => (date ? date.getTime() / 1000 : null);

/** The API's export object. */
export function presentRealmExport(
  row: RealmExport,
  realm: Pick<Realm, 'stringId'>,
  externalUrl: string,
) {
  const ready = row.dateSucceeded !== null && row.dateDeleted === null && row.exportPath !== null;
  return {
    id: row.id,
    acting_user_id: row.actingUserId,
    export_time: seconds(row.dateRequested)!,
    deleted_timestamp: seconds(row.dateDeleted),
    failed_timestamp: seconds(row.dateFailed),
    export_url: ready ? `${realmUrl(realm, externalUrl)}/user_avatars/${row.exportPath}` : null,
    pending: row.dateSucceeded === null && row.dateFailed === null,
    export_type: row.exportType as 1 | 2,
  };
}

/** The organization's exports, oldest first. */
export async function listRealmExports(
  db: Db,
  realm: Pick<Realm, 'id' | 'stringId'>,
  externalUrl: string,
) {
  const rows = await db.realmExport.findMany({
    where: { realmId: realm.id },
    orderBy: { id: 'asc' },
  });
  return rows.map((row) => presentRealmExport(row, realm, externalUrl));
}

/** Whether each active human user consents to exports of their private data. */
export async function exportConsents(db: Db, realmId: number) {
  const users = await db.user.findMany({
    where: { realmId, isActive: true, isBot: false },
    select: { id: true, allowPrivateDataExport: true },
    orderBy: { id: 'asc' },
  });
  return users.map((u) => ({ user_id: u.id, consented: u.allowPrivateDataExport }));
}
