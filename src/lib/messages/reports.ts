// Reports of messages (POST /messages/{message_id}/report): the reasons a
// user may give, and the message Notification Bot posts about a report in the
// organization's moderation request channel.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { truncate } from '../channels/topics';
import { MAX_TOPIC_LENGTH } from '../constants';
import { messagePlace, silentMention, withQuote, type ReminderSubject } from './reminders';

/** The reasons of a report, by API name, as moderators read them. */
export const reportReasons = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
} as const;

/** A report's reason by API name. */
export type ReportType = keyof typeof reportReasons;

/** The topic that gathers the reports about `sender`'s messages. */
export function reportTopic(sender: Pick<User, 'fullName'>): string {
  return truncate(`Reports about ${sender.fullName}`, MAX_TOPIC_LENGTH, '…');
}

/**
 * The moderation request: who reported which message of whom and why, the
 * reporter's explanation quoted line by line, then the message itself in a
 * quote block.
 */
export function reportContent(
  realm: Pick<Realm, 'stringId'>,
  externalUrl: string,
  reporter: Pick<User, 'id' | 'fullName'>,
  subject: ReminderSubject,
  reportType: ReportType,
  description: string,
): string {
  const { url, where } = messagePlace(realm, externalUrl, subject);
  let content =
    `${silentMention(reporter)} reported [a message](${url}) that ` +
    `${silentMention(subject.sender)} sent ${where}.\n\n` +
    `**Reason:** ${reportReasons[reportType]}\n`;
  if (description)
    content += `**Explanation:**\n${description
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n')}\n`;
  return withQuote(`${content}\n**The message:**\n`, subject.message.content);
}
