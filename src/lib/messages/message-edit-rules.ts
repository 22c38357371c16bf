// Who may edit or move a message, with Zulip's messages: content edits by the
// sender within the edit window, topic and channel moves by the holders of
// the organization's or the channel's move settings within the move windows,
// and resolving by the holders of the resolve settings.
import type { Message, Realm, Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { Role } from '../constants';
import type { ChannelAccess } from '../channels/stream-access';

/** Seconds of grace Zulip adds to every edit and move time limit. */
export const EDIT_GRACE_SECONDS = 20;
/** The prefix of a resolved topic. */
export const RESOLVED_TOPIC_PREFIX = '✔ ';

/** Whether `user` is a moderator, administrator or owner (exempt from move time limits). */
export function isModeratorOrAbove(user: Pick<User, 'role'>): boolean {
  return user.role <= Role.MODERATOR;
}

/** Whether `message`, sent `dateSent`, is older than `limit` seconds (plus grace) at `now`. */
export function pastLimit(
  message: Pick<Message, 'dateSent'>,
  limit: number | null,
  now: Date,
): boolean {
  return (
    limit !== null &&
    (now.getTime() - message.dateSent.getTime()) / 1000 > limit + EDIT_GRACE_SECONDS
  );
}

/** Refuses a content edit `user` may not make (organization switch, sender only, time limit). */
export function checkContentEdit(realm: Realm, user: User, message: Message, now: Date): void {
  if (!realm.allowMessageEditing)
    throw badRequest('Your organization has turned off message editing');
  if (message.senderId !== user.id)
    throw badRequest("You don't have permission to edit this message");
  if (pastLimit(message, realm.messageContentEditLimitSeconds, now))
    throw badRequest('The time limit for editing this message has passed');
}

/** How a topic change relates to resolving: marks the topic resolved, unresolved, or neither. */
export function resolveKind(oldTopic: string, newTopic: string): 'resolve' | 'unresolve' | null {
  const p = RESOLVED_TOPIC_PREFIX;
  if (newTopic.startsWith(p) && !oldTopic.startsWith(p) && newTopic.slice(p.length) === oldTopic)
    return 'resolve';
  // Zulip strips any leading run of the prefix's characters.
  if (
    oldTopic.startsWith(p) &&
    !newTopic.startsWith(p) &&
    oldTopic.replace(/^[✔ ]+/u, '') === newTopic
  )
    return 'unresolve';
  return null;
}

/** Refuses a topic change (resolve or rename) of `message` in `stream` that `user` may not make. */
export async function checkTopicEdit(
  access: ChannelAccess,
  realm: Realm,
  stream: Stream,
  message: Message,
  resolving: boolean,
  checkTime: boolean,
  now: Date,
): Promise<void> {
  if (resolving) {
    if (
      !(await access.holds(realm.canResolveTopicsGroupId)) &&
      !(await access.holds(stream.canResolveTopicsGroupId))
    ) {
      throw badRequest("You don't have permission to resolve topics.");
    }
    return;
  }
  if (
    !(await access.holds(realm.canMoveMessagesBetweenTopicsGroupId)) &&
    !(await access.holds(stream.canMoveMessagesWithinChannelGroupId))
  ) {
    throw badRequest("You don't have permission to edit this message");
  }
  if (
    checkTime &&
    !isModeratorOrAbove(access.user) &&
    pastLimit(message, realm.moveMessagesWithinStreamLimitSeconds, now)
  ) {
    throw badRequest("The time limit for editing this message's topic has passed.");
  }
}

/** Refuses a channel move out of `stream` that `user` may not make. */
export async function checkChannelMove(
  access: ChannelAccess,
  realm: Realm,
  stream: Stream,
  message: Message,
  checkTime: boolean,
  now: Date,
): Promise<void> {
  if (
    !(await access.holds(realm.canMoveMessagesBetweenChannelsGroupId)) &&
    !(await access.holds(stream.canMoveMessagesOutOfChannelGroupId))
  ) {
    throw badRequest("You don't have permission to move this message");
  }
  if (
    checkTime &&
    !isModeratorOrAbove(access.user) &&
    pastLimit(message, realm.moveMessagesBetweenStreamsLimitSeconds, now)
  ) {
    throw badRequest("The time limit for editing this message's channel has passed.");
  }
}

/**
 * For a whole-topic move by a non-moderator: refuses with
 * MOVE_MESSAGES_TIME_LIMIT_EXCEEDED when some of `messages` (the accessible
 * messages of the topic, by ID) are older than `limit`.
 */
export function checkWholeTopicLimit(
  messages: Pick<Message, 'id' | 'dateSent'>[],
  limit: number | null,
  now: Date,
): void {
  const allowed = messages.filter((m) => !pastLimit(m, limit, now)).sort((a, b) => a.id - b.id);
  if (allowed.length === messages.length) return;
  throw new ApiError(
    'You only have permission to move the ' +
      allowed.length +
      '/' +
      messages.length +
      ' most recent messages in this topic.',
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    400,
    {
      first_message_id_allowed_to_move: allowed.length > 0 ? allowed[0].id : null,
      total_messages_in_topic: messages.length,
      total_messages_allowed_to_move: allowed.length,
    },
  );
}

/** IDs of the active users subscribed to `streamId`. */
export async function subscribersAmong(db: Db, streamId: number): Promise<Set<number>> {
  const subs = await db.subscription.findMany({
    where: { streamId, active: true, user: { isActive: true } },
    select: { userId: true },
  });
  return new Set(subs.map((s) => s.userId));
}
