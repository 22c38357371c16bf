// Narrows (Part 2.15): lists of {operator, operand, negated} filters. This file
// parses the two accepted shapes and resolves operands (channel names,
// user emails, ...) into IDs, refusing unknown operators and operands with
// BAD_NARROW and Zulip's messages. narrow-sql.ts turns the result into SQL.
import { Prisma, type Stream, type User } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import type { NarrowTerm } from '../../events/queues';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../constants';

/** A term whose operands are resolved to what the database stores. */
export type ResolvedTerm = { negated: boolean } & (
  | { kind: 'stream'; streamId: number; stream: Stream }
  | { kind: 'streams'; streamIds: number[] }
  | { kind: 'topic'; topicLower: string }
  | { kind: 'sender'; userId: number }
  | { kind: 'dm'; dmKey: string }
  | { kind: 'dm-including'; userId: number; groupOnly: boolean }
  | { kind: 'is'; operand: string }
  | { kind: 'has'; operand: string }
  | { kind: 'id'; messageId: number }
  | { kind: 'search'; text: string }
  | { kind: 'in'; operand: 'home' | 'all' }
);

/** 400 BAD_NARROW: "Invalid narrow operator: ...". */
export function badNarrow(description: string): ApiError {
  return new ApiError(`Invalid narrow operator: ${description}`, 'BAD_NARROW');
}

const channelOperators = new Set(['channel', 'stream']);
const dmOperators = new Set(['dm', 'pm-with']);
const isOperands = new Set([
  'dm',
  'private',
  'starred',
  'mentioned',
  'unread',
  'alerted',
  'resolved',
  'followed',
  'muted',
]);
const hasOperands = new Set(['link', 'attachment', 'image', 'reaction']);
const knownOperators = new Set([
  'channel',
  'stream',
  'channels',
  'streams',
  'topic',
  'subject',
  'sender',
  'dm',
  'pm-with',
  'dm-including',
  'group-pm-with',
  'is',
  'has',
  'id',
  'near',
  'with',
  'search',
  'in',
]);

/**
 * Parses a narrow as a request brings it in: terms as objects or as legacy
 * [operator, operand] pairs, into the one form the rest of the server uses.
 * No narrow is the empty one.
 */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((term: unknown, i) => {
    if (Array.isArray(term) && term.length === 2 && typeof term[0] === 'string')
      return { operator: term[0], operand: term[1], negated: false };
    if (
      term &&
      typeof term === 'object' &&
      typeof (term as NarrowTerm).operator === 'string' &&
      'operand' in term
    ) {
      const { operator, operand, negated } = term as NarrowTerm;
      return { operator, operand, negated: Boolean(negated) };
    }
    throw badRequest(`narrow[${i}] is not a valid narrow term`);
  });
}

/** The user IDs an operand names: a list of IDs, a single ID, or comma-separated emails. */
async function usersOfOperand(
  db: Db,
  realmId: number,
  operand: unknown,
  description: string,
): Promise<number[]> {
  if (typeof operand === 'number') operand = [operand];
  if (typeof operand === 'string')
    operand = operand
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
  if (!Array.isArray(operand)) throw badNarrow(description);
  const ids = operand.filter((x): x is number => typeof x === 'number');
  const emails = operand
    .filter((x): x is string => typeof x === 'string')
    .map((e) => e.toLowerCase());
  const users = await db.user.findMany({
    where: { realmId, OR: [{ id: { in: ids } }, { emailLower: { in: emails } }] },
    select: { id: true, emailLower: true },
  });
  if (users.length !== new Set([...ids, ...emails]).size) throw badNarrow(description);
  return users.map((u) => u.id);
}

/** The canonical key of a direct-message conversation: its participants' IDs, sorted, joined by commas. */
export function dmKeyOf(userIds: Iterable<number>): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(',');
}

/** Looks up the channel an operand names (a name or an ID); null when there is none. */
export async function streamOfOperand(
  db: Db,
  realmId: number,
  operand: unknown,
): Promise<Stream | null> {
  // Raw queries: narrows to a channel are the most common reads.
  if (typeof operand === 'number')
    return (
      (
        await queryRows<Stream>(
          db,
          Prisma.sql`SELECT * FROM "Stream" WHERE "id" = ${operand} AND "realmId" = ${realmId}`,
        )
      )[0] ?? null
    );
  if (typeof operand === 'string') {
    return (
      (
        await queryRows<Stream>(
          db,
          Prisma.sql`SELECT * FROM "Stream" WHERE "realmId" = ${realmId} AND "nameLower" = ${operand.trim().toLowerCase()}`,
        )
      )[0] ?? null
    );
  }
  return null;
}

/** Resolves every term of `narrow` for `user`; `with` terms must already be rewritten. */
export async function resolveNarrow(
  db: Db,
  user: Pick<User, 'id' | 'realmId'>,
  narrow: NarrowTerm[],
): Promise<ResolvedTerm[]> {
  const out: ResolvedTerm[] = [];
  for (const term of narrow) {
    const { operator, operand, negated } = term;
    if (!knownOperators.has(operator)) throw badNarrow(`unknown operator ${operator}`);
    if (channelOperators.has(operator)) {
      const stream = await streamOfOperand(db, user.realmId, operand);
      if (!stream) throw badNarrow(`unknown channel ${String(operand)}`);
      out.push({ kind: 'stream', streamId: stream.id, stream, negated });
    } else if (operator === 'channels' || operator === 'streams') {
      if (operand !== 'public' && operand !== 'web-public')
        throw badNarrow(`unknown channels operand ${String(operand)}`);
      const streams = await db.stream.findMany({
        where: {
          realmId: user.realmId,
          inviteOnly: false,
          ...(operand === 'web-public' ? { isWebPublic: true } : {}),
        },
        select: { id: true },
      });
      out.push({ kind: 'streams', streamIds: streams.map((s) => s.id), negated });
    } else if (operator === 'topic' || operator === 'subject') {
      if (typeof operand !== 'string') throw badNarrow(`invalid topic ${String(operand)}`);
      const topic = operand === EMPTY_TOPIC_DISPLAY_NAME ? '' : operand;
      out.push({ kind: 'topic', topicLower: topic.toLowerCase(), negated });
    } else if (operator === 'sender') {
      const ids =
        operand === 'me'
          ? [user.id]
          : await usersOfOperand(db, user.realmId, operand, `unknown user ${String(operand)}`);
      if (ids.length !== 1) throw badNarrow(`unknown user ${String(operand)}`);
      out.push({ kind: 'sender', userId: ids[0], negated });
    } else if (dmOperators.has(operator)) {
      const ids = await usersOfOperand(
        db,
        user.realmId,
        operand,
        `unknown user in ${String(operand)}`,
      );
      const others = ids.filter((id) => id !== user.id);
      out.push({
        kind: 'dm',
        dmKey: dmKeyOf(others.length === 0 ? [user.id] : [...others, user.id]),
        negated,
      });
    } else if (operator === 'dm-including' || operator === 'group-pm-with') {
      const ids = await usersOfOperand(
        db,
        user.realmId,
        operand,
        `unknown user ${String(operand)}`,
      );
      if (ids.length !== 1) throw badNarrow(`unknown user ${String(operand)}`);
      out.push({
        kind: 'dm-including',
        userId: ids[0],
        groupOnly: operator === 'group-pm-with',
        negated,
      });
    } else if (operator === 'is') {
      if (typeof operand !== 'string' || !isOperands.has(operand))
        throw badNarrow(`unknown 'is' operand ${String(operand)}`);
      out.push({ kind: 'is', operand, negated });
    } else if (operator === 'has') {
      if (typeof operand !== 'string' || !hasOperands.has(operand))
        throw badNarrow(`unknown 'has' operand ${String(operand)}`);
      out.push({ kind: 'has', operand, negated });
    } else if (operator === 'id') {
      if (!/^\d+$/.test(String(operand))) throw badNarrow('Invalid message ID');
      out.push({ kind: 'id', messageId: Number(operand), negated });
    } else if (operator === 'search') {
      if (typeof operand !== 'string') throw badNarrow(`invalid search ${String(operand)}`);
      out.push({ kind: 'search', text: operand, negated });
    } else if (operator === 'in') {
      if (operand !== 'home' && operand !== 'all')
        throw badNarrow(`unknown 'in' operand ${String(operand)}`);
      out.push({ kind: 'in', operand, negated });
    }
    // `near` only positions the client's view; it filters nothing.
  }
  return out;
}

/** The search text of a narrow (non-negated `search` terms), or null. */
export function searchText(terms: ResolvedTerm[]): string | null {
  const texts = terms
    .filter(
      (t): t is Extract<ResolvedTerm, { kind: 'search' }> => t.kind === 'search' && !t.negated,
    )
    .map((t) => t.text);
  return texts.length ? texts.join(' ') : null;
}
