// The content side of a message edit: the recipients' mention flags, and
// which uploads the edit claims or detaches.
import type { User } from '../../generated/prisma/sqlite/client';
import type { Db } from '../db/client';
import type { RenderResult } from '../lib/markdown';

/** Resets the recipients' mention flags of `messageId` to what `rendered` mentions. */
export async function updateMentionFlags(db: Db, messageId: number, rendered: RenderResult): Promise<void> {
  const mentioned = [...rendered.mentionedUserIds];
  await db.userMessage.updateMany({
    where: { messageId },
    data: { mentioned: false, streamWildcardMentioned: rendered.streamWildcard, topicWildcardMentioned: rendered.topicWildcard },
  });
  if (mentioned.length > 0) await db.userMessage.updateMany({ where: { messageId, userId: { in: mentioned } }, data: { mentioned: true } });
}

/** An entry of `detached_uploads` (Part 2.10). */
export interface DetachedUpload {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: { id: number; date_sent: number }[];
}

/**
 * Links the sender's uploads the new content names, unlinks those it no
 * longer names, and returns the sender's unlinked files that no message
 * references any more.
 */
export async function reattachUploads(db: Db, sender: Pick<User, 'id'>, messageId: number, pathIds: string[]): Promise<DetachedUpload[]> {
  const linked = await db.attachmentMessage.findMany({ where: { messageId }, include: { attachment: true } });
  const named = new Set(pathIds);
  const dropped = linked.filter((l) => !named.has(l.attachment.pathId));
  if (dropped.length > 0) await db.attachmentMessage.deleteMany({ where: { messageId, attachmentId: { in: dropped.map((l) => l.attachmentId) } } });
  const have = new Set(linked.map((l) => l.attachment.pathId));
  const fresh = await db.attachment.findMany({ where: { pathId: { in: pathIds.filter((p) => !have.has(p)) }, ownerId: sender.id }, select: { id: true } });
  if (fresh.length > 0) await db.attachmentMessage.createMany({ data: fresh.map((a) => ({ attachmentId: a.id, messageId })) });
  const detached: DetachedUpload[] = [];
  for (const { attachment: a } of dropped) {
    if (a.ownerId !== sender.id) continue;
    if ((await db.attachmentMessage.count({ where: { attachmentId: a.id } })) > 0) continue;
    detached.push({ id: a.id, name: a.fileName, path_id: a.pathId, size: a.size, create_time: a.createTime.getTime(), messages: [] });
  }
  return detached;
}
