// The weekly digest email, as Zulip describes it: sent to people who have
// been away for several days, with the busiest conversations of the past week
// in the channels they follow and the channels created meanwhile.
import { Prisma, type User } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { Role } from '../constants';
import { escapeHtml, type OutgoingMail } from '../mail/mailer';
import { channelSlug, encodeHashComponent } from '../markdown/channels';
import { VisibilityPolicy } from '../users/user-topics';
import { absoluteLinks } from './message-email';

/** Days without activity after which a person gets digests, as in Zulip. */
export const DIGEST_CUTOFF_DAYS = 5;
/** The period a digest covers, and the least time between two digests of a person. */
export const DIGEST_PERIOD_DAYS = 7;
/** Conversations and new channels a digest shows at most. */
const HOT_CONVERSATIONS = 4;
const NEW_CHANNELS = 5;

/** One of the week's busiest conversations. */
export interface HotConversation {
  streamName: string;
  topic: string;
  count: number;
  url: string;
  /** The first message of the week there. */
  firstSender: string;
  firstHtml: string;
  firstContent: string;
}

/** What a digest tells. */
export interface DigestContent {
  hot: HotConversation[];
  newChannels: { name: string; url: string; description: string }[];
}

/** The digest of `user` for the week before `now`, read under the organization's address `base`. */
export async function digestContent(
  db: Db,
  user: User,
  now: Date,
  base: string,
): Promise<DigestContent> {
  const since = new Date(now.getTime() - DIGEST_PERIOD_DAYS * 86_400_000);
  const rows = await queryRows<{
    streamId: number | bigint;
    topicLower: string;
    count: number | bigint;
    firstId: number | bigint;
  }>(
    db,
    Prisma.sql`
    SELECT m."streamId" AS "streamId", m."topicLower" AS "topicLower",
           COUNT(*) AS "count", MIN(m."id") AS "firstId", MAX(m."id") AS "lastId"
    FROM "Message" m
    JOIN "Subscription" s ON s."streamId" = m."streamId" AND s."userId" = ${user.id}
      AND s."active" = true AND s."isMuted" = false
    WHERE m."realmId" = ${user.realmId} AND m."dateSent" > ${since} AND m."dateSent" <= ${now}
      AND NOT EXISTS (
        SELECT 1 FROM "UserTopic" t WHERE t."userId" = ${user.id} AND t."streamId" = m."streamId"
          AND t."topicLower" = m."topicLower" AND t."visibilityPolicy" = ${VisibilityPolicy.MUTED})
    GROUP BY m."streamId", m."topicLower"
    ORDER BY COUNT(*) DESC, MAX(m."id") DESC
    LIMIT ${HOT_CONVERSATIONS}`,
  );
  const firstIds = rows.map((r) => Number(r.firstId));
  const firsts = await db.message.findMany({
    where: { id: { in: firstIds } },
    include: { sender: { select: { fullName: true } }, stream: { select: { name: true } } },
  });
  const firstOf = new Map(firsts.map((m) => [m.id, m]));
  const hot: HotConversation[] = [];
  for (const row of rows) {
    const first = firstOf.get(Number(row.firstId));
    if (!first || first.streamId === null) continue;
    const name = first.stream?.name ?? '';
    hot.push({
      streamName: name,
      topic: first.topic,
      count: Number(row.count),
      url: `${base}/#narrow/channel/${channelSlug(first.streamId, name)}/topic/${encodeHashComponent(first.topic)}`,
      firstSender: first.sender.fullName,
      firstHtml: first.renderedContent,
      firstContent: first.content,
    });
  }
  const channels =
    user.role === Role.GUEST
      ? []
      : await db.stream.findMany({
          where: {
            realmId: user.realmId,
            inviteOnly: false,
            isArchived: false,
            dateCreated: { gt: since, lte: now },
          },
          orderBy: { id: 'asc' },
          take: NEW_CHANNELS,
        });
  return {
    hot,
    newChannels: channels.map((c) => ({
      name: c.name,
      url: `${base}/#narrow/channel/${channelSlug(c.id, c.name)}`,
      description: c.description,
    })),
  };
}

/** The digest email, or null when there is nothing to tell. */
export function digestEmail(
  reader: {
    email: string;
    fullName: string;
    realmName: string;
    realmUrl: string;
    showContent: boolean;
    unsubscribeUrl: string;
  },
  content: DigestContent,
): OutgoingMail | null {
  if (content.hot.length === 0 && content.newChannels.length === 0) return null;
  const html: string[] = [`<p>Hello ${escapeHtml(reader.fullName)},</p>`];
  const text: string[] = [`Hello ${reader.fullName},`, ''];
  const intro = `Here is what happened in ${reader.realmName} while you were away.`;
  html.push(`<p>${escapeHtml(intro)}</p>`);
  text.push(intro, '');
  if (content.hot.length > 0) {
    html.push('<h2>Hot conversations</h2>');
    text.push('Hot conversations', '');
    for (const c of content.hot) {
      const title = `#${c.streamName} > ${c.topic}`;
      const count = `${c.count} ${c.count === 1 ? 'message' : 'messages'}`;
      html.push(
        '<div class="conversation">',
        `<p><a href="${escapeHtml(c.url)}">${escapeHtml(title)}</a> (${count})</p>`,
      );
      text.push(`${title} (${count}): ${c.url}`);
      if (reader.showContent) {
        html.push(
          `<p><strong>${escapeHtml(c.firstSender)}</strong></p>`,
          `<div class="content">${absoluteLinks(c.firstHtml, reader.realmUrl)}</div>`,
        );
        text.push(`${c.firstSender}:`, c.firstContent);
      }
      html.push('</div>');
      text.push('');
    }
  }
  if (content.newChannels.length > 0) {
    html.push('<h2>New channels</h2>', '<ul>');
    text.push('New channels', '');
    for (const c of content.newChannels) {
      html.push(`<li><a href="${escapeHtml(c.url)}">#${escapeHtml(c.name)}</a></li>`);
      text.push(`#${c.name}: ${c.url}`);
    }
    html.push('</ul>');
    text.push('');
  }
  const settingsUrl = `${reader.realmUrl}/#settings/notifications`;
  html.push(
    `<p class="footer">You are receiving this because you have been away from ${escapeHtml(reader.realmName)}. ` +
      `<a href="${escapeHtml(settingsUrl)}">Manage email preferences</a> or ` +
      `<a href="${escapeHtml(reader.unsubscribeUrl)}">unsubscribe from digest emails</a>.</p>`,
  );
  text.push(
    `You are receiving this because you have been away from ${reader.realmName}.`,
    `Manage email preferences: ${settingsUrl}`,
    `Unsubscribe: ${reader.unsubscribeUrl}`,
  );
  return {
    to: reader.email,
    subject: `${reader.realmName} digest`,
    text: text.join('\n'),
    html: html.join('\n'),
  };
}
