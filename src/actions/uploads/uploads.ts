// Uploaded files: storing one (copied into the upload store under a new path
// id, recorded as an Attachment of its uploader), deleting one, and the
// `attachment` events that keep the uploader's clients up to date: `add` on
// upload, `update` when the messages linking to a file change (sent, edited
// or deleted), `remove` on deletion. Each carries the organization's
// upload_space_used.
import { rm } from 'node:fs/promises';
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { badRequest } from '../../errors';
import { attachmentsByIds, uploadSpaceUsed } from '../../lib/uploads/attachments';
import { contentTypeOf, newPathId, type UploadedFile } from '../../lib/uploads/uploads';
import type { Services } from '../../services';

/** Stores `file` for `user` and returns its path id and stored name. */
export async function doUploadFile(
  services: Services,
  realm: Realm,
  user: User,
  file: UploadedFile,
): Promise<{ pathId: string; fileName: string }> {
  // The name as the client sent it is kept for display; the path holds a safe copy.
  const fileName = file.name.split(/[\\/]/).pop() || 'uploaded-file';
  const pathId = newPathId(realm.id, file.name);
  const contentType = contentTypeOf(file.type, file.name);
  try {
    await services.files.put(pathId, file.path, contentType);
  } finally {
    // The body parser's temporary copy is no longer needed.
    await rm(file.path, { force: true });
  }
  try {
    await services.db.write(async (tx, onCommit) => {
      const created = await tx.attachment.create({
        data: {
          realmId: realm.id,
          ownerId: user.id,
          fileName,
          pathId,
          size: file.size,
          contentType,
        },
      });
      await publishAttachmentEvents(tx, onCommit, services, 'add', [created.id]);
    });
  } catch (error) {
    await services.files.delete(pathId);
    throw error;
  }
  return { pathId, fileName };
}

/**
 * Deletes one of `user`'s uploads: the file and its record. Messages that
 * link to it keep their link, which no longer leads anywhere.
 */
export async function doDeleteAttachment(
  services: Services,
  user: User,
  attachmentId: number,
): Promise<void> {
  const pathId = await services.db.write(async (tx, onCommit) => {
    const found = await tx.attachment.findFirst({
      where: { id: attachmentId, ownerId: user.id },
    });
    if (!found) throw badRequest('Invalid attachment');
    await tx.attachmentMessage.deleteMany({ where: { attachmentId: found.id } });
    await tx.attachment.delete({ where: { id: found.id } });
    const used = await uploadSpaceUsed(tx, found.realmId);
    onCommit(() =>
      services.bus.publish(
        { type: 'attachment', op: 'remove', attachment: { id: found.id }, upload_space_used: used },
        [user.id],
      ),
    );
    return found.pathId;
  });
  await services.files.delete(pathId);
}

/**
 * Tells the owners of `attachmentIds` (inside an open transaction, on commit)
 * that the messages linking to those files changed.
 */
export function publishAttachmentUpdates(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  attachmentIds: number[],
): Promise<void> {
  return publishAttachmentEvents(tx, onCommit, services, 'update', attachmentIds);
}

/** Publishes an `add` or `update` attachment event per attachment to its owner, on commit. */
async function publishAttachmentEvents(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  op: 'add' | 'update',
  attachmentIds: number[],
): Promise<void> {
  const found = await attachmentsByIds(tx, attachmentIds);
  if (found.length === 0) return;
  const spaceUsed = new Map<number, number>();
  for (const { realmId } of found)
    if (!spaceUsed.has(realmId)) spaceUsed.set(realmId, await uploadSpaceUsed(tx, realmId));
  onCommit(() => {
    for (const { ownerId, realmId, attachment } of found)
      services.bus.publish(
        { type: 'attachment', op, attachment, upload_space_used: spaceUsed.get(realmId)! },
        [ownerId],
      );
  });
}
