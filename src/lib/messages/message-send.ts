// Where a new message goes, read from POST /messages parameters with Zulip's
// rules and messages: a channel and topic, or a set of users.
import {
  Prisma,
  type Realm,
  type Stream,
  type User,
} from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { MAX_MESSAGE_LENGTH, SystemGroup } from '../constants';
import { ChannelAccess, isGuest } from '../channels/stream-access';
import { checkTopicAllowed, normalizeTopic, truncate } from '../channels/topics';
import { containsAlertWord } from '../users/alert-words';

/** A resolved destination. */
export type Addressee =
  { kind: 'stream'; stream: Stream; topic: string } | { kind: 'dm'; recipients: User[] };

/** The message text as stored: trailing whitespace and leading newlines removed, cut to the limit. */
export function normalizeContent(raw: string): string {
  const content = raw.replace(/\s+$/u, '').replace(/^\n+/, '');
  if (content.length === 0) throw badRequest('Message must not be empty');
  if (content.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  return truncate(content, MAX_MESSAGE_LENGTH, '\n[message truncated]');
}

/** Whether stored content is a /me message (one line starting with "/me "). */
export function isMeMessage(content: string): boolean {
  return /^\/me\s/.test(content) && !content.includes('\n');
}

/** The single channel named by `to` (a name, an ID, or a one-element list of either). */
function channelIndicator(to: unknown): string | number {
  if (Array.isArray(to)) {
    if (to.length !== 1) throw badRequest('Expected exactly one channel');
    to = to[0];
  }
  if (typeof to === 'string' || typeof to === 'number') return to;
  throw badRequest('Invalid data type for channel');
}

/** The users named by `to`: IDs, emails, or a comma-separated string of emails. */
function recipientIndicators(to: unknown): (string | number)[] {
  if (typeof to === 'number') return [to];
  if (typeof to === 'string')
    return to
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
  if (!Array.isArray(to)) throw badRequest('Invalid data type for recipients');
  const kinds = new Set(to.map((x) => typeof x));
  if (kinds.size > 1)
    throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
  return to as (string | number)[];
}

/** Loads the recipients of a direct message, refusing unknown and deactivated users. */
async function directRecipients(
  db: Db,
  realmId: number,
  indicators: (string | number)[],
): Promise<User[]> {
  if (indicators.length === 0) throw badRequest('Message must have recipients');
  const ids = [...new Set(indicators.filter((x): x is number => typeof x === 'number'))];
  const emails = [
    ...new Set(
      indicators.filter((x): x is string => typeof x === 'string').map((e) => e.toLowerCase()),
    ),
  ];
  const users = await db.user.findMany({
    where: { realmId, OR: [{ id: { in: ids } }, { emailLower: { in: emails } }] },
  });
  for (const id of ids)
    if (!users.some((u) => u.id === id)) throw badRequest(`Invalid user ID ${id}`);
  for (const email of emails)
    if (!users.some((u) => u.emailLower === email)) throw badRequest(`Invalid email '${email}'`);
  const inactive = users.find((u) => !u.isActive);
  if (inactive) throw badRequest(`'${inactive.email}' is no longer using Zulip.`);
  return users;
}

/** Whether `userId` holds the server-level can_forge_sender permission, as stored now. */
export async function holdsCanForgeSender(db: Db, userId: number): Promise<boolean> {
  const row = await db.user.findUnique({ where: { id: userId }, select: { canForgeSender: true } });
  return row?.canForgeSender ?? false;
}

/** Whether group `groupId` is the role:everyone system group (posting open to all). */
async function isEveryoneGroup(db: Db, groupId: number): Promise<boolean> {
  const [group] = await queryRows<{ name: string | null; isSystemGroup: boolean }>(
    db,
    Prisma.sql`SELECT "name", "isSystemGroup" FROM "UserGroup" WHERE "id" = ${groupId}`,
  );
  return Boolean(group?.isSystemGroup) && group.name === SystemGroup.EVERYONE;
}

/**
 * Refuses a sender who may not post in `stream`, with Zulip's messages.
 * `openToAll` says, when the caller already knows, whether role:everyone may post.
 */
export async function checkCanPost(
  db: Db,
  access: ChannelAccess,
  stream: Stream,
  openToAll?: boolean,
): Promise<void> {
  const sender = access.user;
  const open = openToAll ?? (await isEveryoneGroup(db, stream.canSendMessageGroupId));
  if (!open && !(await access.holds(stream.canSendMessageGroupId))) {
    const owner =
      sender.isBot && sender.botOwnerId !== null
        ? new ChannelAccess(db, { ...sender, id: sender.botOwnerId, isBot: false })
        : null;
    if (!owner || !(await owner.holds(stream.canSendMessageGroupId)))
      throw badRequest('You do not have permission to post in this channel.');
  }
  // Made only when thrown: an error captures a stack trace, which costs more than this whole check.
  const refused = () => badRequest(`Not authorized to send to channel '${stream.name}'`);
  if (stream.isArchived) throw refused();
  if (stream.isWebPublic) return;
  if (!stream.inviteOnly && !isGuest(sender)) return;
  if (await access.isSubscribed(stream)) return;
  // A server-granted power of mirroring integrations: any channel of the
  // organization. Read afresh: it is granted from the command line, and this
  // is only reached on the way to a refusal.
  if (await holdsCanForgeSender(db, sender.id)) return;
  if (sender.isBot && sender.botOwnerId !== null) {
    const ownerSub = await db.subscription.findFirst({
      where: { userId: sender.botOwnerId, streamId: stream.id, active: true },
      select: { id: true },
    });
    if (ownerSub) return;
  }
  if (stream.historyPublicToSubscribers && !isGuest(sender)) {
    if (
      (await access.holds(stream.canSubscribeGroupId)) ||
      (await access.holds(stream.canAddSubscribersGroupId))
    )
      return;
  }
  throw refused();
}

/** Resolves the destination of POST /messages, checking that the sender may post there. */
export async function resolveAddressee(
  db: Db,
  access: ChannelAccess,
  realm: Realm,
  type: string,
  to: unknown,
  topic: string | undefined,
  /** A message the server sends itself (from Notification Bot): the sender's right to post is not asked. */
  byServer = false,
): Promise<Addressee> {
  if (type === 'stream' || type === 'channel') {
    const indicator = channelIndicator(to);
    if (topic === undefined) throw badRequest('Missing topic');
    // A raw query: this is the hot path of sending, and Prisma's query building
    // costs more than the lookup. It also tells whether everyone may post.
    const where =
      typeof indicator === 'number'
        ? Prisma.sql`s."id" = ${indicator}`
        : Prisma.sql`s."nameLower" = ${indicator.trim().toLowerCase()}`;
    const [row] = await queryRows<Stream & { openToAll: boolean | number }>(
      db,
      Prisma.sql`
      SELECT s.*, CASE WHEN g."isSystemGroup" = true AND g."name" = ${SystemGroup.EVERYONE} THEN 1 ELSE 0 END AS "openToAll"
      FROM "Stream" s JOIN "UserGroup" g ON g."id" = s."canSendMessageGroupId"
      WHERE s."realmId" = ${realm.id} AND ${where}`,
    );
    const { openToAll, ...stream } = row ?? { openToAll: 0 };
    if (!row) {
      if (typeof indicator === 'number')
        throw new ApiError(
          `Channel with ID '${indicator}' does not exist`,
          'STREAM_DOES_NOT_EXIST',
          400,
          { stream_id: indicator },
        );
      throw new ApiError(`Channel '${indicator}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, {
        stream: indicator,
      });
    }
    if (!byServer) await checkCanPost(db, access, stream as Stream, Number(openToAll) === 1);
    const normalized = normalizeTopic(topic);
    checkTopicAllowed(realm, stream as Stream, normalized);
    return { kind: 'stream', stream: stream as Stream, topic: normalized };
  }
  if (type === 'private' || type === 'direct') {
    return {
      kind: 'dm',
      recipients: await directRecipients(db, realm.id, recipientIndicators(to)),
    };
  }
  throw badRequest('Invalid message type');
}

// Clients that are full user interfaces: a message sent from one of them is
// the user's own typing, and so is read for its sender unless the client says
// otherwise. Messages sent through the API by integrations stay unread.
const INTERACTIVE_CLIENTS = new Set([
  'zulipandroid',
  'zulipios',
  'zulipdesktop',
  'zulipmobile',
  'zulipelectron',
  'zulipterminal',
  'snipe',
  'website',
  'ios',
  'android',
]);

/** Whether a message from client `client` is read for its sender when `read_by_sender` is not given. */
export function defaultReadBySender(client: string): boolean {
  const name = client.toLowerCase();
  return INTERACTIVE_CLIENTS.has(name) || name.includes('desktop app');
}

/**
 * The topic a request names as `topic` or, as older clients do, `subject`;
 * naming both is refused (REQUEST_CONFUSING_VAR).
 */
export function topicParameter(params: { topic?: string; subject?: string }): string | undefined {
  if (params.topic !== undefined && params.subject !== undefined) {
    throw new ApiError(
      "Can't decide between 'topic' and 'subject' arguments",
      'REQUEST_CONFUSING_VAR',
      400,
      { var_name1: 'topic', var_name2: 'subject' },
    );
  }
  return params.topic ?? params.subject;
}

/**
 * Who muted the sender (their copy arrives read), and which of `userIds` have
 * an alert word in `content`: one statement for both, since every send asks
 * (a row of MutedUser comes with a null word).
 */
export async function mutersAndAlerted(
  db: Db,
  realmId: number,
  senderId: number,
  userIds: number[],
  content: string,
): Promise<{ muters: Set<number>; alerted: Set<number> }> {
  const rows = await queryRows<{ userId: number | bigint; word: string | null }>(
    db,
    Prisma.sql`
    SELECT "userId", NULL AS "word" FROM "MutedUser" WHERE "mutedUserId" = ${senderId}
    UNION ALL
    SELECT "userId", "word" FROM "AlertWord" WHERE "realmId" = ${realmId}`,
  );
  const recipients = new Set(userIds);
  const muters = new Set<number>();
  const alerted = new Set<number>();
  for (const row of rows) {
    const userId = Number(row.userId);
    if (row.word === null) muters.add(userId);
    else if (recipients.has(userId) && !alerted.has(userId) && containsAlertWord(content, row.word))
      alerted.add(userId);
  }
  return { muters, alerted };
}
