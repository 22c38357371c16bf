// Storing an uploaded file: copy it into the upload store under a new path id
// and record it as an Attachment of its uploader (no event: Zulip sends none
// until a message claims the file).
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import {
  contentTypeOf,
  newPathId,
  storedFilePath,
  type UploadedFile,
} from '../lib/uploads/uploads';
import type { Services } from '../services';

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
  const target = storedFilePath(services.config.uploadsDir, pathId);
  if (!target) throw new Error(`path id ${pathId} falls outside the upload store`);
  await mkdir(dirname(target), { recursive: true });
  await copyFile(file.path, target);
  // The body parser's temporary copy is no longer needed.
  await rm(file.path, { force: true });
  try {
    await services.db.write(async (tx) => {
      await tx.attachment.create({
        data: {
          realmId: realm.id,
          ownerId: user.id,
          fileName,
          pathId,
          size: file.size,
          contentType: contentTypeOf(file.type, file.name),
        },
      });
    });
  } catch (error) {
    await rm(dirname(target), { recursive: true, force: true });
    throw error;
  }
  return { pathId, fileName };
}
