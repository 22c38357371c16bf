// Reporting a message (POST /messages/{message_id}/report): Notification Bot
// posts the report in the organization's moderation request channel, in a
// topic gathering the reports about the message's sender.
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { accessMessage } from '../../lib/messages/message-access';
import { reminderSubject } from '../../lib/messages/reminders';
import { reportContent, reportTopic, type ReportType } from '../../lib/messages/reports';
import type { Services } from '../../services';
import { sendMessageIn } from './messages';
import { doEnsureSystemBot } from '../users/users';

const reportingOff = () =>
  new ApiError('Moderation request channel must be specified to enable message reporting.');

/** `reporter` reports a message they can read; returns the ID of the moderation request. */
export async function doReportMessage(
  services: Services,
  reporter: User,
  messageId: number,
  reportType: ReportType,
  description: string,
): Promise<number> {
  const explanation = description.trim();
  if (reportType === 'other' && !explanation) throw new ApiError('An explanation is required.');
  const realm = await services.db.read((db) =>
    db.realm.findUniqueOrThrow({ where: { id: reporter.realmId } }),
  );
  if (realm.moderationRequestChannelId === null) throw reportingOff();
  const bot = await doEnsureSystemBot(services, realm, 'notification');
  return services.db.write(async (tx, onCommit) => {
    const { message } = await accessMessage(tx, reporter, messageId);
    const current = await tx.realm.findUniqueOrThrow({ where: { id: realm.id } });
    const channel =
      current.moderationRequestChannelId === null
        ? null
        : await tx.stream.findFirst({
            where: { id: current.moderationRequestChannelId, realmId: realm.id, isArchived: false },
          });
    if (!channel) throw reportingOff();
    const subject = await reminderSubject(tx, message);
    return sendMessageIn(tx, onCommit, services, current, bot, {
      type: 'stream',
      to: channel.id,
      topic: reportTopic(subject.sender),
      content: reportContent(
        current,
        services.config.externalUrl,
        reporter,
        subject,
        reportType,
        explanation,
      ),
      byServer: true,
    });
  });
}
