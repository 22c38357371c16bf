// Reads about uploaded files: the API's Attachment object, a user's uploads,
// the space an organization's uploads use, and who may download a file.
import type { User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { Role } from '../constants';

type AttachmentRow = {
  id: number;
  fileName: string;
  pathId: string;
  size: number;
  createTime: Date;
  messages: { message: { id: number; dateSent: Date } }[];
};

/** The API's Attachment: the upload and the messages that link to it (times in ms). */
export function presentAttachment(row: AttachmentRow) {
  return {
    id: row.id,
    name: row.fileName,
    path_id: row.pathId,
    size: row.size,
    create_time: row.createTime.getTime(),
    messages: row.messages
      .map(({ message }) => ({ id: message.id, date_sent: message.dateSent.getTime() }))
      .sort((a, b) => a.id - b.id),
  };
}

/** Every file `userId` uploaded, oldest first. */
export async function attachmentsOf(
  db: Db,
  userId: number,
): Promise<ReturnType<typeof presentAttachment>[]> {
  const rows = await db.attachment.findMany({
    where: { ownerId: userId },
    orderBy: { id: 'asc' },
    include: { messages: { select: { message: { select: { id: true, dateSent: true } } } } },
  });
  return rows.map(presentAttachment);
}

/** The attachments of `ids`, presented, with their owners' IDs. */
export async function attachmentsByIds(
  db: Db,
  ids: number[],
): Promise<
  { ownerId: number; realmId: number; attachment: ReturnType<typeof presentAttachment> }[]
> {
  if (ids.length === 0) return [];
  const rows = await db.attachment.findMany({
    where: { id: { in: ids } },
    orderBy: { id: 'asc' },
    include: { messages: { select: { message: { select: { id: true, dateSent: true } } } } },
  });
  return rows.map((row) => ({
    ownerId: row.ownerId,
    realmId: row.realmId,
    attachment: presentAttachment(row),
  }));
}

/** Bytes used by all the uploads of the organization. */
export async function uploadSpaceUsed(db: Db, realmId: number): Promise<number> {
  const sum = await db.attachment.aggregate({ where: { realmId }, _sum: { size: true } });
  return sum._sum.size ?? 0;
}

/** The stored facts needed to serve a file. */
export interface ServableAttachment {
  pathId: string;
  fileName: string;
  contentType: string;
}

/**
 * The attachment at `pathId` when `user` may download it: they uploaded it,
 * or received a message linking to it, or (not being a guest) it is linked
 * from a message in a public channel of their organization. Undefined otherwise.
 */
export async function readableAttachment(
  db: Db,
  user: Pick<User, 'id' | 'realmId' | 'role'>,
  pathId: string,
): Promise<ServableAttachment | undefined> {
  const found = await attachmentForUser(db, user, pathId);
  return found.readable ? found.attachment : undefined;
}

/**
 * The attachment at `pathId` in `user`'s organization, if any, and whether
 * they may download it (by the rules of readableAttachment).
 */
export async function attachmentForUser(
  db: Db,
  user: Pick<User, 'id' | 'realmId' | 'role'>,
  pathId: string,
): Promise<{ attachment?: ServableAttachment; readable: boolean }> {
  const row = await db.attachment.findUnique({ where: { pathId } });
  if (!row || row.realmId !== user.realmId) return { readable: false };
  const attachment = { pathId: row.pathId, fileName: row.fileName, contentType: row.contentType };
  return { attachment, readable: await mayDownload(db, user, row) };
}

/** Whether `user` may download the attachment `row` of their organization. */
async function mayDownload(
  db: Db,
  user: Pick<User, 'id' | 'realmId' | 'role'>,
  row: { id: number; ownerId: number },
): Promise<boolean> {
  if (row.ownerId === user.id) return true;
  const received = await db.attachmentMessage.findFirst({
    where: { attachmentId: row.id, message: { userMessages: { some: { userId: user.id } } } },
    select: { messageId: true },
  });
  if (received) return true;
  if (user.role === Role.GUEST) return false;
  const inPublic = await db.attachmentMessage.findFirst({
    where: {
      attachmentId: row.id,
      message: { realmId: user.realmId, stream: { inviteOnly: false } },
    },
    select: { messageId: true },
  });
  return Boolean(inPublic);
}
