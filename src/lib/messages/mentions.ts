// Who may mention whom: wildcard mentions (@**all**, @**topic**) in large
// channels and topics need the organization's can_mention_many_users_group,
// and a group mention needs the group's can_mention_group.
import type { Message, Realm } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import type { ChannelAccess } from '../channels/stream-access';
import type { RenderResult } from '../markdown';

/** Channels and topics with more subscribers or participants than this restrict wildcard mentions. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/** Refuses wildcard and group mentions the editor may not make, as sending does. */
export async function checkEditMentions(db: Db, access: ChannelAccess, realm: Realm, message: Message, rendered: RenderResult): Promise<void> {
  if (rendered.mentionedGroupIds.size > 0) {
    const groups = await db.userGroup.findMany({ where: { id: { in: [...rendered.mentionedGroupIds] } }, select: { name: true, canMentionGroupId: true } });
    for (const g of groups) {
      if (g.canMentionGroupId !== null && !(await access.holds(g.canMentionGroupId))) throw badRequest(`You are not allowed to mention user group '${g.name}'.`);
    }
  }
  if (message.streamId === null) return;
  const mayMentionMany = () => access.holds(realm.canMentionManyUsersGroupId);
  if (rendered.streamWildcard) {
    const subscribers = await db.subscription.count({ where: { streamId: message.streamId, active: true, user: { isActive: true } } });
    if (subscribers > WILDCARD_MENTION_THRESHOLD && !(await mayMentionMany())) {
      throw new ApiError('You do not have permission to use channel wildcard mentions in this channel.', 'STREAM_WILDCARD_MENTION_NOT_ALLOWED');
    }
  }
  if (rendered.topicWildcard) {
    const where = { streamId: message.streamId, topicLower: message.topicLower };
    const [senders, reactors] = await Promise.all([
      db.message.findMany({ where, distinct: ['senderId'], select: { senderId: true } }),
      db.reaction.findMany({ where: { message: where }, distinct: ['userId'], select: { userId: true } }),
    ]);
    const participants = new Set([...senders.map((s) => s.senderId), ...reactors.map((r) => r.userId), access.user.id]);
    if (participants.size > WILDCARD_MENTION_THRESHOLD && !(await mayMentionMany())) {
      throw new ApiError('You do not have permission to use topic wildcard mentions in this topic.', 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED');
    }
  }
}
