// Exports of an organization requested through the API. A request records a
// pending export and returns; the archive is written in the background, in
// this process, then stored through the file store, and the export marked
// done (or failed). Each change sends the organization's administrators a
// `realm_export` event with the whole list, after it commits.
import { rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Realm, RealmExport, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { ApiError } from '../../errors';
import { Role } from '../../lib/constants';
import { exportRealm } from '../../lib/export/realm-export';
import {
  ExportType,
  EXPORTS_PER_WEEK,
  listRealmExports,
  newExportKey,
} from '../../lib/export/realm-exports';
import { requireAdministrator } from '../../lib/realm/admin';
import type { Services } from '../../services';

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** Sends the administrators the organization's exports, once committed. */
async function announce(services: Services, tx: Db, realm: Realm, onCommit: OnCommit) {
  const exports = await listRealmExports(tx, realm, services.config.externalUrl);
  const admins = await tx.user.findMany({
    where: { realmId: realm.id, isActive: true, isBot: false, role: { lte: Role.ADMINISTRATOR } },
    select: { id: true },
  });
  onCommit(() =>
    services.bus.publish(
      { type: 'realm_export', exports },
      admins.map((a) => a.id),
    ),
  );
}

async function realmOf(tx: Db, realmId: number): Promise<Realm> {
  return tx.realm.findUniqueOrThrow({ where: { id: realmId } });
}

/** Writes the archive of `row`, stores it, and marks the export done or failed. */
async function runExport(services: Services, row: RealmExport): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'realm-export-api-'));
  let key: string | null = null;
  try {
    const file = join(dir, 'export.tar.gz');
    await exportRealm(
      services,
      row.realmId,
      file,
      undefined,
      row.exportType === ExportType.PUBLIC ? 'public' : 'consent',
    );
    const newKey = newExportKey(row.realmId);
    await services.files.put(newKey, file, 'application/gzip');
    key = newKey;
  } catch (error) {
    services.log.error('realm export failed', { export_id: row.id, error: String(error) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const storedKey = key;
  await services.db.write(async (tx, onCommit) => {
    const current = await tx.realmExport.findUnique({ where: { id: row.id } });
    // Deleted meanwhile (it could not be: pending exports are not deletable),
    // or the organization is gone: nothing to record.
    if (!current) return;
    await tx.realmExport.update({
      where: { id: row.id },
      data: storedKey
        ? { dateSucceeded: new Date(), exportPath: storedKey }
        : { dateFailed: new Date() },
    });
    await announce(services, tx, await realmOf(tx, row.realmId), onCommit);
  });
}

/** Exports still being written by this process, for a clean shutdown and for tests. */
export const runningExports = new Set<Promise<void>>();

/**
 * An administrator requests an export of their organization; returns its ID
 * at once, while the archive is written in the background.
 */
export async function doStartRealmExport(
  services: Services,
  actor: User,
  exportType: number,
): Promise<number> {
  requireAdministrator(actor);
  if (exportType !== ExportType.PUBLIC && exportType !== ExportType.FULL_WITH_CONSENT)
    throw new ApiError('Invalid export_type');
  const row = await services.db.write(async (tx, onCommit) => {
    const recent = await tx.realmExport.count({
      where: { realmId: actor.realmId, dateRequested: { gte: new Date(Date.now() - WEEK_MS) } },
    });
    if (recent >= EXPORTS_PER_WEEK) throw new ApiError('Exceeded rate limit.');
    const created = await tx.realmExport.create({
      data: { realmId: actor.realmId, actingUserId: actor.id, exportType },
    });
    await announce(services, tx, await realmOf(tx, actor.realmId), onCommit);
    return created;
  });
  const job = runExport(services, row).catch((error) =>
    services.log.error('realm export bookkeeping failed', { error: String(error) }),
  );
  runningExports.add(job);
  void job.finally(() => runningExports.delete(job));
  return row.id;
}

/** An administrator deletes a finished export: its archive leaves the file store. */
export async function doDeleteRealmExport(
  services: Services,
  actor: User,
  exportId: number,
): Promise<void> {
  requireAdministrator(actor);
  const path = await services.db.write(async (tx, onCommit) => {
    const row = await tx.realmExport.findFirst({
      where: { id: exportId, realmId: actor.realmId },
    });
    if (!row) throw new ApiError('Invalid data export ID');
    if (row.dateDeleted) throw new ApiError('Export already deleted');
    if (row.dateFailed) throw new ApiError('Export failed, nothing to delete');
    if (!row.dateSucceeded) throw new ApiError('Export still in progress');
    await tx.realmExport.update({ where: { id: row.id }, data: { dateDeleted: new Date() } });
    await announce(services, tx, await realmOf(tx, actor.realmId), onCommit);
    return row.exportPath;
  });
  if (path) await services.files.delete(path);
}
