// Resolved narrow terms as SQL conditions over "Message" m and the user's
// "UserMessage" um, for both databases. Full-text search uses the database's
// own facility: FTS5 ("MessageSearch") on SQLite, a GIN-indexed tsvector on
// PostgreSQL (see the message_search migrations).
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { VisibilityPolicy } from '../users/user-topics';
import type { ResolvedTerm } from './narrow';

type Sql = Prisma.Sql;
const { sql, join, empty } = Prisma;

/** What building conditions needs beyond the terms. */
export interface SqlContext {
  provider: 'sqlite' | 'postgresql';
  /** The user whose topic preferences is:followed, is:muted and in:home read. */
  userId: number;
  /** Channels the user muted (for is:muted and in:home). */
  mutedStreamIds: number[];
}

const TRUE = sql`1 = 1`;
const FALSE = sql`1 = 0`;

function inList(column: Sql, ids: number[]): Sql {
  return ids.length === 0 ? FALSE : sql`${column} IN (${join(ids)})`;
}

/** The user's visibility policy for the message's topic is one of `policies` (see user_topic). */
function topicPolicyIn(userId: number, policies: number[]): Sql {
  return sql`EXISTS (SELECT 1 FROM "UserTopic" ut WHERE ut."userId" = ${userId} AND ut."streamId" = m."streamId" AND ut."topicLower" = m."topicLower" AND ut."visibilityPolicy" IN (${join(policies)}))`;
}

/**
 * Muted for the user, as Zulip reckons it: in a muted topic, or in a muted
 * channel unless the user unmuted or follows the topic.
 */
function mutedCondition(ctx: SqlContext): Sql {
  const inMutedChannel = inList(sql`COALESCE(m."streamId", 0)`, ctx.mutedStreamIds);
  const kept = topicPolicyIn(ctx.userId, [VisibilityPolicy.UNMUTED, VisibilityPolicy.FOLLOWED]);
  return sql`((${inMutedChannel} AND NOT ${kept}) OR ${topicPolicyIn(ctx.userId, [VisibilityPolicy.MUTED])})`;
}

/** The words of a search, as the full-text engines see them. */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** The condition that a message matches the full-text search `text`. */
export function searchCondition(text: string, provider: SqlContext['provider']): Sql {
  const words = searchWords(text);
  if (words.length === 0) return TRUE;
  if (provider === 'sqlite') {
    const query = words.map((w) => `"${w}"`).join(' ');
    return sql`m."id" IN (SELECT rowid FROM "MessageSearch" WHERE "MessageSearch" MATCH ${query})`;
  }
  return sql`to_tsvector('english'::regconfig, m."content" || ' ' || m."topic") @@ plainto_tsquery('english'::regconfig, ${words.join(' ')})`;
}

/** The condition of one term, before negation. */
function positive(term: ResolvedTerm, ctx: SqlContext): Sql {
  // Negated terms must hold for direct messages too, whose "streamId" is NULL;
  // positive ones compare the bare column so that indexes apply.
  const streamColumn = term.negated ? sql`COALESCE(m."streamId", 0)` : sql`m."streamId"`;
  switch (term.kind) {
    case 'stream':
      return sql`${streamColumn} = ${term.streamId}`;
    case 'streams':
      return inList(streamColumn, term.streamIds);
    case 'topic':
      return sql`(m."streamId" IS NOT NULL AND m."topicLower" = ${term.topicLower})`;
    case 'sender':
      return sql`m."senderId" = ${term.userId}`;
    case 'dm':
      return sql`(m."streamId" IS NULL AND m."dmKey" = ${term.dmKey})`;
    case 'dm-including': {
      const pattern = `%,${term.userId},%`;
      const group = term.groupOnly ? sql` AND m."dmKey" LIKE '%,%,%'` : empty;
      return sql`(m."streamId" IS NULL AND (',' || m."dmKey" || ',') LIKE ${pattern}${group})`;
    }
    case 'is':
      switch (term.operand) {
        case 'dm':
        case 'private':
          return sql`m."streamId" IS NULL`;
        case 'starred':
          return sql`um."starred" = true`;
        case 'mentioned':
          return sql`(um."mentioned" = true OR um."streamWildcardMentioned" = true OR um."topicWildcardMentioned" = true)`;
        case 'unread':
          return sql`um."read" = false`;
        case 'alerted':
          return sql`um."hasAlertWord" = true`;
        case 'resolved':
          return sql`(m."streamId" IS NOT NULL AND m."topic" LIKE ${'✔ %'})`;
        case 'muted':
          return mutedCondition(ctx);
        default:
          return topicPolicyIn(ctx.userId, [VisibilityPolicy.FOLLOWED]); // followed
      }
    case 'has':
      switch (term.operand) {
        case 'link':
          return sql`m."hasLink" = true`;
        case 'attachment':
          return sql`m."hasAttachment" = true`;
        case 'image':
          return sql`m."hasImage" = true`;
        default:
          return sql`EXISTS (SELECT 1 FROM "Reaction" r WHERE r."messageId" = m."id")`;
      }
    case 'id':
      return sql`m."id" = ${term.messageId}`;
    case 'search':
      return searchCondition(term.text, ctx.provider);
    case 'in':
      return term.operand === 'home' ? sql`NOT ${mutedCondition(ctx)}` : TRUE;
  }
}

/** The conjunction of all terms (negated ones wrapped in NOT). */
export function narrowCondition(terms: ResolvedTerm[], ctx: SqlContext): Sql {
  if (terms.length === 0) return TRUE;
  return join(
    terms.map((t) => (t.negated ? sql`NOT (${positive(t, ctx)})` : sql`(${positive(t, ctx)})`)),
    ' AND ',
  );
}
