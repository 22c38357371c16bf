// Notification emails about messages a person missed while away. After a
// message commits, doRecordEmailNotifications keeps one row per recipient to
// be told (see lib/notifications/email-rules.ts), due after that person's
// batching period; the periodic task's doSendDueEmailNotifications then
// claims each person's rows once the earliest is due, and sends one email per
// conversation with the messages still unread, so that reading them first
// cancels the email. Claims make several processes send each email once.
import { randomUUID } from 'node:crypto';
import {
  Prisma,
  type Message,
  type User,
  type UserPresence,
} from '../../../generated/prisma/sqlite/client';
import { executeRows, queryRows, type Db } from '../../db/client';
import { sendOrLog } from '../../lib/mail/mailer';
import { emailTrigger, isActiveAt, type EmailTrigger } from '../../lib/notifications/email-rules';
import { notificationEmail, strongestTrigger } from '../../lib/notifications/message-email';
import { missedConversations } from '../../lib/notifications/missed-messages';
import {
  UNSUBSCRIBE_SECRET,
  unsubscribeKindFor,
  unsubscribeUrl,
} from '../../lib/notifications/unsubscribe';
import { realmUrl } from '../../lib/realm/realms';
import type { Services } from '../../services';
import { doGetServerSecret } from '../users/server-secrets';

/** How long a sending run holds a person's rows before another run may take them. */
export const EMAIL_CLAIM_MS = 5 * 60 * 1000;

/** People handled by one run at most; the rest wait for the next run. */
const USERS_PER_RUN = 100;

/** A committed message with its recipients and their flags, as the send path knows them. */
export interface CommittedMessage {
  message: Pick<Message, 'id' | 'realmId' | 'senderId' | 'streamId' | 'dateSent'>;
  userIds: number[];
  flagsOf: (userId: number) => {
    read: boolean;
    mentioned: boolean;
    streamWildcardMentioned: boolean;
    topicWildcardMentioned: boolean;
  };
  /** Recipients for whom the channel or topic is muted. */
  mutedFor: number[];
  /** Recipients who follow the topic. */
  followedBy: number[];
}

/** What this process's notification emails have done, for tests and logs. */
export interface EmailNotificationStats {
  /** Committed messages the recording has finished with. */
  recorded: number;
  /** Runs of the sending task finished, and the time the last one ran for. */
  runs: number;
  lastRunAt: Date | null;
  /** Emails sent. */
  sent: number;
}

const statsOf = new WeakMap<Services['db'], EmailNotificationStats>();

/** The notification email figures of the server whose database connection `services.db` is. */
export function emailNotificationStats(services: Pick<Services, 'db'>): EmailNotificationStats {
  let stats = statsOf.get(services.db);
  if (!stats)
    statsOf.set(services.db, (stats = { recorded: 0, runs: 0, lastRunAt: null, sent: 0 }));
  return stats;
}

interface CandidateRow {
  userId: number | bigint;
  emailNotifications: boolean | number | null;
  wildcardMentionsNotify: boolean | number | null;
}

const asBool = (v: boolean | number | null | undefined): boolean | null =>
  v === null || v === undefined ? null : Boolean(v);

/**
 * Records the notification emails `committed` calls for: one row for each
 * recipient who is away and is to be told about it. Failures are logged, never
 * thrown: the message stands whatever happens here.
 */
export async function doRecordEmailNotifications(
  services: Services,
  committed: CommittedMessage,
): Promise<void> {
  try {
    await recordEmailNotifications(services, committed, new Date());
  } catch (error) {
    services.log.error('recording notification emails failed', {
      message_id: committed.message.id,
      error: error instanceof Error ? error.message : String(error),
    });
  } finally {
    emailNotificationStats(services).recorded += 1;
  }
}

/** What deciding on and keeping a recipient's email reads of them. */
type Recipient = Pick<
  User,
  | 'id'
  | 'emailNotificationsBatchingPeriodSeconds'
  | 'enableOfflineEmailNotifications'
  | 'wildcardMentionsNotify'
  | 'enableFollowedTopicEmailNotifications'
  | 'enableFollowedTopicWildcardMentionsNotify'
  | 'enableStreamEmailNotifications'
>;

/** A recipient to be told about a message, and why. */
interface WantedEmail {
  user: Recipient;
  trigger: EmailTrigger;
}

/** Records the notification emails `committed` calls for at `now`, in four steps. */
async function recordEmailNotifications(
  services: Services,
  committed: CommittedMessage,
  now: Date,
): Promise<void> {
  const { message } = committed;
  const recipients = committed.userIds.filter(
    (id) => id !== message.senderId && !committed.flagsOf(id).read,
  );
  if (recipients.length === 0) return;
  const candidates = flaggedCandidates(committed, recipients);
  const subscription = await services.db.read(async (db) =>
    message.streamId === null
      ? new Map<number, CandidateRow>()
      : channelCandidates(db, message.streamId, recipients, candidates),
  );
  if (candidates.size === 0) return;
  const wanted = await wantedEmails(services, committed, candidates, subscription, now);
  if (wanted.length === 0) return;
  await keepEmailNotifications(services, message.id, wanted, now);
}

/**
 * The unread recipients who may be told whatever their settings: everyone of
 * a direct message; in a channel, those flagged or following the topic.
 */
function flaggedCandidates(committed: CommittedMessage, recipients: number[]): Set<number> {
  const isPrivate = committed.message.streamId === null;
  const followed = new Set(committed.followedBy);
  const candidates = new Set<number>();
  for (const id of recipients) {
    const f = committed.flagsOf(id);
    if (
      isPrivate ||
      f.mentioned ||
      f.streamWildcardMentioned ||
      f.topicWildcardMentioned ||
      followed.has(id)
    )
      candidates.add(id);
  }
  return candidates;
}

/**
 * Adds to `candidates` the unread recipients subscribed to channel `streamId`
 * with channel emails on; answers the subscription settings of every
 * candidate subscribed to it.
 */
async function channelCandidates(
  db: Db,
  streamId: number,
  recipients: number[],
  candidates: Set<number>,
): Promise<Map<number, CandidateRow>> {
  const subscription = new Map<number, CandidateRow>();
  const rows = await queryRows<CandidateRow>(
    db,
    Prisma.sql`
        SELECT s."userId" AS "userId", s."emailNotifications" AS "emailNotifications",
               s."wildcardMentionsNotify" AS "wildcardMentionsNotify"
        FROM "Subscription" s JOIN "User" u ON u."id" = s."userId"
        WHERE s."streamId" = ${streamId} AND s."active" = true AND (
          s."emailNotifications" = true
          OR (s."emailNotifications" IS NULL AND u."enableStreamEmailNotifications" = true)
          OR s."userId" IN (${Prisma.join(candidates.size > 0 ? [...candidates] : [0])}))`,
  );
  const unread = new Set(recipients);
  for (const row of rows) {
    const id = Number(row.userId);
    if (!unread.has(id)) continue;
    subscription.set(id, row);
    candidates.add(id);
  }
  return subscription;
}

/** The active human candidates away at `now` whose settings call for an email, with its trigger. */
async function wantedEmails(
  services: Services,
  committed: CommittedMessage,
  candidates: Set<number>,
  subscription: Map<number, CandidateRow>,
  now: Date,
): Promise<WantedEmail[]> {
  const users = await services.db.read((db) =>
    queryRows<Recipient & Pick<UserPresence, 'lastActiveTime' | 'lastConnectedTime'>>(
      db,
      Prisma.sql`
      SELECT u."id", u."emailNotificationsBatchingPeriodSeconds", u."enableOfflineEmailNotifications",
             u."wildcardMentionsNotify", u."enableFollowedTopicEmailNotifications",
             u."enableFollowedTopicWildcardMentionsNotify", u."enableStreamEmailNotifications",
             p."lastActiveTime", p."lastConnectedTime"
      FROM "User" u LEFT JOIN "UserPresence" p ON p."userId" = u."id"
      WHERE u."id" IN (${Prisma.join([...candidates])}) AND u."isActive" = true AND u."isBot" = false`,
    ),
  );
  const followed = new Set(committed.followedBy);
  const muted = new Set(committed.mutedFor);
  const wanted: WantedEmail[] = [];
  for (const user of users) {
    if (isActiveAt(user, now)) continue;
    const f = committed.flagsOf(user.id);
    const sub = subscription.get(user.id);
    const trigger = emailTrigger({
      isPrivate: committed.message.streamId === null,
      read: f.read,
      mentioned: f.mentioned,
      wildcardMentioned: f.streamWildcardMentioned || f.topicWildcardMentioned,
      muted: muted.has(user.id),
      followed: followed.has(user.id),
      settings: {
        enableOfflineEmailNotifications: user.enableOfflineEmailNotifications,
        wildcardMentionsNotify: asBool(sub?.wildcardMentionsNotify) ?? user.wildcardMentionsNotify,
        enableFollowedTopicEmailNotifications: user.enableFollowedTopicEmailNotifications,
        enableFollowedTopicWildcardMentionsNotify: user.enableFollowedTopicWildcardMentionsNotify,
        streamEmailNotifications:
          asBool(sub?.emailNotifications) ?? user.enableStreamEmailNotifications,
      },
    });
    if (trigger) wanted.push({ user, trigger });
  }
  return wanted;
}

/** Keeps one pending row per wanted email about message `messageId`. */
async function keepEmailNotifications(
  services: Services,
  messageId: number,
  wanted: WantedEmail[],
  now: Date,
): Promise<void> {
  await services.db.write(async (tx) => {
    // A message joins the batch already waiting for its person, as in Zulip:
    // it goes out with the earliest pending row, or after a full period.
    const waiting = await queryRows<{ userId: number | bigint; dueAt: Date | string | number }>(
      tx,
      Prisma.sql`
      SELECT "userId", MIN("dueAt") AS "dueAt" FROM "EmailNotification"
      WHERE "userId" IN (${Prisma.join(wanted.map((w) => w.user.id))}) AND "claimToken" IS NULL
      GROUP BY "userId"`,
    );
    // SQLite gives an aggregate of dates as stored, not as a date.
    const dueOf = new Map(waiting.map((w) => [Number(w.userId), new Date(w.dueAt)]));
    const rows = wanted.map(({ user, trigger }) => {
      const dueAt =
        dueOf.get(user.id) ??
        new Date(now.getTime() + user.emailNotificationsBatchingPeriodSeconds * 1000);
      return Prisma.sql`(${user.id}, ${messageId}, ${trigger}, ${dueAt})`;
    });
    await executeRows(
      tx,
      Prisma.sql`INSERT INTO "EmailNotification" ("userId", "messageId", "trigger", "dueAt") VALUES ${Prisma.join(rows)}`,
    );
  });
}

/** Takes `userId`'s pending rows for a run of token `token`; false when another run holds them. */
async function claim(tx: Db, userId: number, token: string, now: Date): Promise<boolean> {
  const claimed = await tx.emailNotification.updateMany({
    where: { userId, OR: [{ claimedUntil: null }, { claimedUntil: { lte: now } }] },
    data: { claimToken: token, claimedUntil: new Date(now.getTime() + EMAIL_CLAIM_MS) },
  });
  return claimed.count > 0;
}

/**
 * Sends the notification emails due at `now`: for each person whose earliest
 * pending row is due, one email per conversation with every pending message
 * still unread. Answers how many emails were sent.
 */
export async function doSendDueEmailNotifications(services: Services, now: Date): Promise<number> {
  const stats = emailNotificationStats(services);
  let sent = 0;
  try {
    const due = await services.db.read((db) =>
      db.emailNotification.findMany({
        where: {
          dueAt: { lte: now },
          OR: [{ claimedUntil: null }, { claimedUntil: { lte: now } }],
        },
        distinct: ['userId'],
        select: { userId: true },
        take: USERS_PER_RUN,
      }),
    );
    for (const { userId } of due) sent += await sendForUser(services, userId, now);
  } finally {
    stats.runs += 1;
    stats.lastRunAt = now;
    stats.sent += sent;
  }
  return sent;
}

/** Sends `userId`'s emails if this run can claim their rows; answers how many were sent. */
async function sendForUser(services: Services, userId: number, now: Date): Promise<number> {
  const token = randomUUID();
  if (!(await services.db.write((tx) => claim(tx, userId, token, now)))) return 0;
  const pending = await services.db.read((db) =>
    db.emailNotification.findMany({ where: { claimToken: token }, orderBy: { messageId: 'asc' } }),
  );
  const user = await services.db.read((db) =>
    db.user.findUnique({ where: { id: userId }, include: { realm: true } }),
  );
  let mails: Parameters<Services['mail']['send']>[0][] = [];
  if (user && user.isActive && !user.realm.deactivated) {
    const base = realmUrl(user.realm, services.config.externalUrl);
    const conversations = await services.db.read((db) =>
      missedConversations(db, user, pending, base),
    );
    const secret = await doGetServerSecret(services, UNSUBSCRIBE_SECRET);
    const showRealmName = await realmNameShown(services, user);
    mails = conversations.map((conversation) =>
      notificationEmail(
        {
          email: user.email,
          fullName: user.fullName,
          realmName: user.realm.name,
          showRealmName,
          showContent:
            user.realm.messageContentAllowedInEmailNotifications &&
            user.messageContentInEmailNotifications,
          realmUrl: base,
          unsubscribeUrl: unsubscribeUrl(
            base,
            secret,
            unsubscribeKindFor(strongestTrigger(conversation.messages)),
            user.id,
          ),
        },
        conversation,
      ),
    );
  }
  // The rows go before the mail does, and only while this run still holds
  // them: a run whose claim lapsed and was taken sends nothing.
  const removed = await services.db.write((tx) =>
    tx.emailNotification.deleteMany({ where: { claimToken: token } }),
  );
  if (removed.count !== pending.length) return 0;
  for (const mail of mails)
    await sendOrLog(services.mail, services.log, mail, 'notification email refused', {
      user_id: userId,
    });
  return mails.length;
}

/**
 * Whether the organization's name goes in the subject: the person's
 * `realm_name_in_email_notifications_policy` (1 automatic: when their address
 * has accounts in several organizations; 2 always; 3 never).
 */
async function realmNameShown(
  services: Services,
  user: Pick<User, 'realmNameInEmailNotificationsPolicy' | 'emailLower'>,
): Promise<boolean> {
  if (user.realmNameInEmailNotificationsPolicy === 2) return true;
  if (user.realmNameInEmailNotificationsPolicy === 3) return false;
  const accounts = await services.db.read((db) =>
    db.user.count({ where: { emailLower: user.emailLower, isActive: true } }),
  );
  return accounts > 1;
}
