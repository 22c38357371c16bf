// User statuses (Part 2.13): how a status appears in the API and in the
// initial state, and the checks its emoji passes in each of the three
// namespaces (Unicode, the organization's own emoji, and service extras).
import type { UserStatus } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { extraEmoji, ReactionType, unicodeEmojiCode, unicodeEmojiName } from '../emoji/emoji';
import type { StateProvider } from '../state';

/** A status as the API shows it: only the parts that are set, and `away` when the user is invisible. */
export function presentUserStatus(row: Pick<UserStatus, 'statusText' | 'emojiName' | 'emojiCode' | 'reactionType'> | null, presenceEnabled: boolean) {
  const out: { away?: true; status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji' } = {};
  if (!presenceEnabled) out.away = true;
  if (row?.statusText) out.status_text = row.statusText;
  if (row?.emojiName) {
    out.emoji_name = row.emojiName;
    out.emoji_code = row.emojiCode;
    out.reaction_type = row.reactionType as 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji';
  }
  return out;
}

/** The code and namespace of the emoji called `name`: the organization's emoji first, then `zulip`, then Unicode. */
export async function emojiByName(db: Db, realmId: number, name: string): Promise<{ code: string; type: string }> {
  const custom = await db.realmEmoji.findFirst({ where: { realmId, name, deactivated: false }, orderBy: { id: 'desc' } });
  if (custom) return { code: String(custom.id), type: ReactionType.REALM };
  if (extraEmoji.has(name)) return { code: name, type: ReactionType.EXTRA };
  const code = unicodeEmojiCode(name);
  if (code) return { code, type: ReactionType.UNICODE };
  throw new ApiError(`Emoji '${name}' does not exist`);
}

/** Checks that `name`, `code` and `type` agree, with Zulip's message for each mismatch. */
export async function checkEmoji(db: Db, realmId: number, name: string, code: string, type: string): Promise<void> {
  if (type === ReactionType.REALM) {
    const id = /^\d+$/.test(code) ? Number(code) : -1;
    const custom = await db.realmEmoji.findFirst({ where: { id, realmId } });
    if (!custom) throw new ApiError('Invalid custom emoji.');
    if (custom.name !== name) throw new ApiError('Invalid custom emoji name.');
    if (custom.deactivated) throw new ApiError('This custom emoji has been deactivated.');
  } else if (type === ReactionType.EXTRA) {
    if (!extraEmoji.has(code)) throw new ApiError('Invalid emoji code.');
    if (name !== code) throw new ApiError('Invalid emoji name.');
  } else if (type === ReactionType.UNICODE) {
    if (!unicodeEmojiName(code)) throw new ApiError('Invalid emoji code.');
    if (unicodeEmojiCode(name) !== code) throw new ApiError('Invalid emoji name.');
  } else {
    throw new ApiError('Invalid emoji type.');
  }
}

/** `user_status`: the statuses of the organization's active users, keyed by user ID. */
export const userStatusState: StateProvider = async ({ db, realm }) => {
  const users = await db.user.findMany({
    where: { realmId: realm.id, isActive: true, OR: [{ presenceEnabled: false }, { status: { isNot: null } }] },
    include: { status: true },
    orderBy: { id: 'asc' },
  });
  const statuses: Record<string, ReturnType<typeof presentUserStatus>> = {};
  for (const user of users) {
    const status = presentUserStatus(user.status, user.presenceEnabled);
    if (Object.keys(status).length > 0) statuses[String(user.id)] = status;
  }
  return { user_status: statuses };
};
