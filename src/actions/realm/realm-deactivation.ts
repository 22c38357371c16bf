// Deactivating an organization (POST /realm/deactivate), reactivating it (the
// reactivate-realm admin command), and deleting the data of deactivated
// organizations once their deletion date has come (the server's periodic task):
// every row the organization's export would hold, deleted in one transaction
// together with its invitations and the records of its exports, then its
// stored files. The organization's subdomain is free afterwards.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { MIN_DEACTIVATED_REALM_DELETION_DAYS, Role } from '../../lib/constants';
import { requireOwner } from '../../lib/realm/admin';
import { deactivationMail } from '../../lib/realm/deactivation-mail';
import { sendOrLog } from '../../lib/mail/mailer';
import { delegateOf } from '../../lib/export/delegates';
import { deletionTables, realmFileKeys, type RealmDeletion } from '../../lib/export/realm-deletion';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * An owner deactivates their organization: every login and request of its
 * users is refused from then on (their clients get a realm `deactivated`
 * event first), and each owner is told by mail. With `deletionDelayDays`, the organization's data is deleted
 * for good that many days later (at least MIN_DEACTIVATED_REALM_DELETION_DAYS);
 * with null it is kept until an administrator of the server reactivates it.
 */
export async function doDeactivateRealm(
  services: Services,
  actor: User,
  deletionDelayDays: number | null,
  now: Date,
): Promise<void> {
  requireOwner(actor);
  if (deletionDelayDays !== null && deletionDelayDays < MIN_DEACTIVATED_REALM_DELETION_DAYS)
    throw new ApiError(
      `Data deletion time must be at least ${MIN_DEACTIVATED_REALM_DELETION_DAYS} days in the future.`,
    );
  const scheduledDeletionDate =
    deletionDelayDays === null ? null : new Date(now.getTime() + deletionDelayDays * DAY_MS);
  const { realm, owners } = await services.db.write(async (tx, onCommit) => {
    const realm = await tx.realm.update({
      where: { id: actor.realmId },
      data: { deactivated: true, scheduledDeletionDate },
    });
    const everyone = new EveryoneIn(realm.id);
    const owners = await tx.user.findMany({
      where: { realmId: realm.id, role: Role.OWNER, isActive: true, isBot: false },
      select: { email: true },
      orderBy: { id: 'asc' },
    });
    onCommit(() => {
      services.bus.publish({ type: 'realm', op: 'deactivated', realm_id: realm.id }, everyone);
      services.auth.forgetRealm(realm.id);
    });
    return { realm, owners };
  });
  // Each owner is told by mail; a failure is logged, the deactivation stands.
  for (const owner of owners) {
    const mail = deactivationMail({
      to: owner.email,
      realmName: realm.name,
      actorName: actor.fullName,
      deletionDate: scheduledDeletionDate,
    });
    await sendOrLog(services.mail, services.log, mail, 'deactivation mail failed', {
      realm_id: realm.id,
    });
  }
}

/** Reactivates a deactivated organization and cancels the deletion of its data. */
export async function doReactivateRealm(services: Services, realm: Realm): Promise<Realm> {
  return services.db.write(async (tx, onCommit) => {
    const updated = await tx.realm.update({
      where: { id: realm.id },
      data: { deactivated: false, scheduledDeletionDate: null },
    });
    onCommit(() => services.auth.forgetRealm(realm.id));
    return updated;
  });
}

/** Deletes every deactivated organization whose deletion date has come. */
export async function doDeleteDueRealms(
  services: Services,
  now: Date,
): Promise<(RealmDeletion & { realm_id: number; string_id: string })[]> {
  const due = await services.db.read((db) =>
    db.realm.findMany({
      where: { deactivated: true, scheduledDeletionDate: { lte: now } },
      select: { id: true, stringId: true },
    }),
  );
  const deleted = [];
  for (const realm of due) {
    const result = await deleteRealmData(services, realm.id);
    services.auth.forgetRealm(realm.id);
    services.log.info('deactivated organization deleted', {
      realm_id: realm.id,
      string_id: realm.stringId,
      ...result,
    });
    deleted.push({ realm_id: realm.id, string_id: realm.stringId, ...result });
  }
  return deleted;
}

/**
 * Deletes the organization `realmId` and everything it holds. Running it
 * again, or in two processes at once, deletes nothing more.
 */
async function deleteRealmData(services: Services, realmId: number): Promise<RealmDeletion> {
  const { keys, rows } = await services.db.write(async (tx) => {
    const { tables, scope } = await deletionTables(tx, realmId);
    const keys = await realmFileKeys(tx, realmId);
    let rows = (await tx.invite.deleteMany({ where: { realmId } })).count;
    rows += (await tx.realmExport.deleteMany({ where: { realmId } })).count;
    for (const table of tables)
      rows += (await delegateOf(tx, table.model).deleteMany({ where: table.where(scope) })).count;
    return { keys, rows };
  });
  for (const key of keys) await services.files.delete(key);
  return { rows, files: keys.length };
}
