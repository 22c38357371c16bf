// Who may mention whom, for sending and editing alike: a group mention needs
// the group's can_mention_group, and a wildcard mention (@**all**,
// @**topic**) in a channel or topic of more than WILDCARD_MENTION_THRESHOLD
// people needs the organization's can_mention_many_users_group.
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import type { ChannelAccess } from '../channels/stream-access';
import type { RenderResult } from '../markdown';

/** Channels and topics with more subscribers or participants than this restrict wildcard mentions. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/** The channel conversation a message is in, for its wildcard mentions. */
export interface MentionScope {
  streamId: number;
  topicLower: string;
  /** The channel's active subscribers, when the caller has counted them already. */
  subscriberCount?: number;
}

/** Users who sent or reacted to messages in a topic. */
async function topicParticipants(
  db: Db,
  streamId: number,
  topicLower: string,
): Promise<Set<number>> {
  const [senders, reactors] = await Promise.all([
    db.message.findMany({
      where: { streamId, topicLower },
      distinct: ['senderId'],
      select: { senderId: true },
    }),
    db.reaction.findMany({
      where: { message: { streamId, topicLower } },
      distinct: ['userId'],
      select: { userId: true },
    }),
  ]);
  return new Set([...senders.map((s) => s.senderId), ...reactors.map((r) => r.userId)]);
}

/**
 * Refuses the group and wildcard mentions of `rendered` that `access.user`
 * may not make in `scope` (null for a direct message, where only group
 * mentions are checked), with Zulip's messages. When the content mentions the
 * topic, returns the topic's participants (the author included): those get
 * the topic wildcard flag.
 */
export async function checkMentions(
  db: Db,
  access: ChannelAccess,
  realm: Realm,
  rendered: RenderResult,
  scope: MentionScope | null,
): Promise<Set<number> | null> {
  if (rendered.mentionedGroupIds.size > 0) {
    const groups = await db.userGroup.findMany({
      where: { id: { in: [...rendered.mentionedGroupIds] } },
      select: { name: true, canMentionGroupId: true },
    });
    for (const g of groups) {
      if (g.canMentionGroupId !== null && !(await access.holds(g.canMentionGroupId)))
        throw badRequest(`You are not allowed to mention user group '${g.name}'.`);
    }
  }
  if (scope === null) return null;
  const mayMentionMany = () => access.holds(realm.canMentionManyUsersGroupId);
  if (rendered.streamWildcard) {
    const subscribers =
      scope.subscriberCount ??
      (await db.subscription.count({
        where: { streamId: scope.streamId, active: true, user: { isActive: true } },
      }));
    if (subscribers > WILDCARD_MENTION_THRESHOLD && !(await mayMentionMany())) {
      throw new ApiError(
        'You do not have permission to use channel wildcard mentions in this channel.',
        'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      );
    }
  }
  if (!rendered.topicWildcard) return null;
  const participants = await topicParticipants(db, scope.streamId, scope.topicLower);
  participants.add(access.user.id);
  if (participants.size > WILDCARD_MENTION_THRESHOLD && !(await mayMentionMany())) {
    throw new ApiError(
      'You do not have permission to use topic wildcard mentions in this topic.',
      'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
    );
  }
  return participants;
}
