// User statuses (Part 2.13): how a status appears in the API and in the
// initial state (its emoji are checked as reactions' are: lib/emoji/lookup.ts).
import type { UserStatus } from '../../../generated/prisma/sqlite/client';
import type { StateProvider } from '../state';

/** A status as the API shows it: only the parts that are set, and `away` when the user is invisible. */
export function presentUserStatus(
  row: Pick<UserStatus, 'statusText' | 'emojiName' | 'emojiCode' | 'reactionType'> | null,
  presenceEnabled: boolean,
) {
  const out: {
    away?: true;
    status_text?: string;
    emoji_name?: string;
    emoji_code?: string;
    reaction_type?: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
  } = {};
  if (!presenceEnabled) out.away = true;
  if (row?.statusText) out.status_text = row.statusText;
  if (row?.emojiName) {
    out.emoji_name = row.emojiName;
    out.emoji_code = row.emojiCode;
    out.reaction_type = row.reactionType as 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
  }
  return out;
}

/** `user_status`: the statuses of the organization's active users, keyed by user ID. */
export const userStatusState: StateProvider = async ({ db, realm }) => {
  const users = await db.user.findMany({
    where: {
      realmId: realm.id,
      isActive: true,
      OR: [{ presenceEnabled: false }, { status: { isNot: null } }],
    },
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
