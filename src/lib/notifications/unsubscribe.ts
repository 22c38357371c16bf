// Unsubscribe links of notification emails: /accounts/unsubscribe/<kind>/<token>,
// where the token names the user and is signed with a server secret, so that
// the link works without logging in and cannot be made up for someone else.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EmailTrigger } from './email-rules';

/** The name of the server secret unsubscribe tokens are signed with. */
export const UNSUBSCRIBE_SECRET = 'email_unsubscribe';

/** What an unsubscribe link turns off, by the kind its path names. */
export const UNSUBSCRIBE_KINDS = {
  missed_messages: {
    setting: 'enable_offline_email_notifications',
    what: 'emails about direct messages and mentions',
  },
  followed_topics: {
    setting: 'enable_followed_topic_email_notifications',
    what: 'emails about topics you follow',
  },
  channels: {
    setting: 'enable_stream_email_notifications',
    what: 'emails about messages in channels',
  },
  digest: { setting: 'enable_digest_emails', what: 'digest emails' },
} as const;
export type UnsubscribeKind = keyof typeof UNSUBSCRIBE_KINDS;

/** The kind of link an email sent for `trigger` carries. */
export function unsubscribeKindFor(trigger: EmailTrigger): UnsubscribeKind {
  if (trigger === 'followed_topic' || trigger === 'followed_topic_wildcard_mentioned')
    return 'followed_topics';
  if (trigger === 'stream') return 'channels';
  return 'missed_messages';
}

function signature(secret: Buffer, kind: string, userId: number): string {
  return createHmac('sha256', secret).update(`${kind}:${userId}`).digest('base64url').slice(0, 32);
}

/** The token of `userId`'s link of `kind`. */
export function unsubscribeToken(secret: Buffer, kind: UnsubscribeKind, userId: number): string {
  return `${userId}-${signature(secret, kind, userId)}`;
}

/** The user a token of `kind` names, or null when it is not one this server signed. */
export function userOfToken(secret: Buffer, kind: string, token: string): number | null {
  const match = /^([1-9][0-9]{0,9})-([A-Za-z0-9_-]{32})$/.exec(token);
  if (!match || !(kind in UNSUBSCRIBE_KINDS)) return null;
  const userId = Number(match[1]);
  const expected = Buffer.from(signature(secret, kind, userId));
  const given = Buffer.from(match[2]);
  return expected.length === given.length && timingSafeEqual(expected, given) ? userId : null;
}

/** The unsubscribe link of `kind` for `userId` under the organization's address `base`. */
export function unsubscribeUrl(
  base: string,
  secret: Buffer,
  kind: UnsubscribeKind,
  userId: number,
): string {
  return `${base}/accounts/unsubscribe/${kind}/${unsubscribeToken(secret, kind, userId)}`;
}
