// Drafts: messages a user started composing, stored so that every client of
// the user can pick them up. Checking a draft sent by a client, and showing one.
import type { Draft, Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';
import { MAX_TOPIC_LENGTH } from '../constants';
import { normalizeContent, resolveAddressee } from './message-send';
import { ChannelAccess } from '../channels/stream-access';
import type { StateProvider } from '../state';
import { truncate } from '../channels/topics';

/** A draft as a client sends it (the Draft schema without `id`). */
export interface DraftInput {
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp?: number;
}

/** The columns of a checked draft. */
export type DraftRow = Pick<Draft, 'type' | 'recipients' | 'topic' | 'content' | 'lastEditTime'>;

/** The gate of every drafts endpoint. */
export function checkDraftsEnabled(user: Pick<User, 'enableDraftsSynchronization'>): void {
  if (!user.enableDraftsSynchronization)
    throw badRequest('User has disabled synchronizing drafts.');
}

/**
 * The recipients of a direct conversation as Zulip shows them to `senderId`:
 * the other participants by ID, or the sender alone for a note to self.
 */
export function conversationPeers(senderId: number, userIds: number[]): number[] {
  const others = [...new Set(userIds)].filter((id) => id !== senderId).sort((a, b) => a - b);
  return others.length > 0 ? others : [senderId];
}

/**
 * Checks a draft against Zulip's rules and returns the columns to store. A
 * channel draft names exactly one channel the user can read; a direct draft
 * names existing, active users (none is allowed, and stores an unaddressed draft).
 */
export async function checkDraft(
  db: Db,
  realm: Realm,
  user: User,
  input: DraftInput,
  now: Date,
): Promise<DraftRow> {
  const content = normalizeContent(input.content);
  if (input.timestamp !== undefined && input.timestamp < 0)
    throw badRequest('Timestamp must not be negative.');
  const lastEditTime = input.timestamp === undefined ? now : new Date(input.timestamp * 1000);
  if (input.type === 'stream') {
    if (input.topic.includes('\u0000')) throw badRequest('Topic must not contain null bytes');
    if (input.to.length !== 1)
      throw badRequest('Must specify exactly 1 channel ID for channel messages');
    const stream = await db.stream.findFirst({ where: { id: input.to[0], realmId: realm.id } });
    if (
      !stream ||
      stream.isArchived ||
      !(await new ChannelAccess(db, user).hasContentAccess(stream))
    )
      throw badRequest('Invalid channel ID');
    const topic = truncate(input.topic, MAX_TOPIC_LENGTH, '...');
    return {
      type: 'stream',
      recipients: JSON.stringify([stream.id]),
      topic,
      content,
      lastEditTime,
    };
  }
  if (input.type === 'private' && input.to.length > 0) {
    const to = await resolveAddressee(
      db,
      new ChannelAccess(db, user),
      realm,
      'private',
      input.to,
      undefined,
    );
    if (to.kind !== 'dm') throw new Error('a direct draft resolved to a channel');
    const peers = conversationPeers(
      user.id,
      to.recipients.map((u) => u.id),
    );
    return { type: 'private', recipients: JSON.stringify(peers), topic: '', content, lastEditTime };
  }
  // Unaddressed, as Zulip stores a direct draft without recipients.
  return { type: '', recipients: '[]', topic: '', content, lastEditTime };
}

/** A draft as the API shows it. */
export function presentDraft(draft: Draft) {
  return {
    id: draft.id,
    type: draft.type as DraftInput['type'],
    to: JSON.parse(draft.recipients) as number[],
    topic: draft.topic,
    content: draft.content,
    timestamp: Math.floor(draft.lastEditTime.getTime() / 1000),
  };
}

/** The user's drafts, least recently edited first. */
export async function listDrafts(db: Db, userId: number): Promise<Draft[]> {
  return db.draft.findMany({
    where: { userId },
    orderBy: [{ lastEditTime: 'asc' }, { id: 'asc' }],
  });
}

/** `drafts`: the user's stored drafts (none when synchronization is off, since turning it off deletes them). */
export const draftsState: StateProvider = async ({ db, user }) => ({
  drafts: (await listDrafts(db, user.id)).map(presentDraft),
});
