// Which messages a person is emailed about while away, following Zulip's
// rules: direct messages and personal or group mentions (when offline email
// notifications are on), wildcard mentions (when wildcard mentions notify,
// and not in a muted channel or topic), followed topics, and channels whose
// email notifications are on (not muted). Whether the person is away is read
// from their presence.
import type { UserPresence } from '../../../generated/prisma/sqlite/client';
import { OFFLINE_THRESHOLD_SECONDS } from '../users/presence';

/** Why a person is emailed about a message, strongest first. */
export const EMAIL_TRIGGERS = [
  'private_message',
  'mentioned',
  'followed_topic_wildcard_mentioned',
  'wildcard_mentioned',
  'followed_topic',
  'stream',
] as const;
export type EmailTrigger = (typeof EMAIL_TRIGGERS)[number];

/** What decides whether one recipient is emailed about one message. */
export interface RecipientFacts {
  isPrivate: boolean;
  read: boolean;
  /** Mentioned personally or through a group they belong to. */
  mentioned: boolean;
  /** Flagged by @**all** (channel) or @**topic** (topic participants). */
  wildcardMentioned: boolean;
  /** The message's channel or topic is muted for them. */
  muted: boolean;
  /** They follow the message's topic. */
  followed: boolean;
  /** The person's settings, with the channel's own overrides already applied. */
  settings: {
    enableOfflineEmailNotifications: boolean;
    wildcardMentionsNotify: boolean;
    enableFollowedTopicEmailNotifications: boolean;
    enableFollowedTopicWildcardMentionsNotify: boolean;
    streamEmailNotifications: boolean;
  };
}

/** The reason to email the recipient about the message, or null when there is none. */
export function emailTrigger(f: RecipientFacts): EmailTrigger | null {
  if (f.read) return null;
  const s = f.settings;
  if (f.isPrivate) return s.enableOfflineEmailNotifications ? 'private_message' : null;
  if (f.mentioned && s.enableOfflineEmailNotifications) return 'mentioned';
  if (
    f.wildcardMentioned &&
    f.followed &&
    s.enableFollowedTopicWildcardMentionsNotify &&
    s.enableFollowedTopicEmailNotifications
  )
    return 'followed_topic_wildcard_mentioned';
  if (
    f.wildcardMentioned &&
    !f.muted &&
    s.wildcardMentionsNotify &&
    s.enableOfflineEmailNotifications
  )
    return 'wildcard_mentioned';
  if (f.followed && s.enableFollowedTopicEmailNotifications) return 'followed_topic';
  if (!f.muted && s.streamEmailNotifications) return 'stream';
  return null;
}

/**
 * Whether a person counts as active at `now` (and so is not emailed): their
 * clients reported presence within the offline threshold. A person who never
 * reported is away.
 */
export function isActiveAt(
  presence: Pick<UserPresence, 'lastActiveTime' | 'lastConnectedTime'> | undefined,
  now: Date,
): boolean {
  if (!presence) return false;
  const last = Math.max(
    presence.lastActiveTime?.getTime() ?? 0,
    presence.lastConnectedTime?.getTime() ?? 0,
  );
  return now.getTime() - last <= OFFLINE_THRESHOLD_SECONDS * 1000;
}

/** The sentence that tells the reader why they got the email, as Zulip words it. */
export function reasonText(trigger: EmailTrigger): string {
  switch (trigger) {
    case 'private_message':
      return 'You are receiving this because you received a direct message.';
    case 'mentioned':
      return 'You are receiving this because you were personally mentioned, or a group you belong to was.';
    case 'followed_topic_wildcard_mentioned':
      return 'You are receiving this because you have wildcard mention notifications enabled for topics you follow.';
    case 'wildcard_mentioned':
      return 'You are receiving this because everyone was mentioned.';
    case 'followed_topic':
      return 'You are receiving this because you have email notifications enabled for topics you follow.';
    case 'stream':
      return 'You are receiving this because you have email notifications enabled for this channel.';
  }
}
