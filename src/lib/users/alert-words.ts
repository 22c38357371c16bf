// Alert words: words and phrases whose appearance in a message flags it
// `has_alert_word` for the user who chose them. A word matches without regard
// to case, and only as a whole: what comes before and after it must be the
// message's edge, a space or a line break, or one of Zulip's punctuation marks.
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import type { StateProvider } from '../state';

/** The longest alert word accepted, in characters. */
export const MAX_ALERT_WORD_LENGTH = 100;

/** Characters that may come just before a match (Zulip's list). */
const BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
/** Characters that may come just after a match (Zulip's list). */
const AFTER = new Set([' ', '\n', ')', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

/** The user's alert words, in the order they were added. */
export async function alertWordsOf(db: Db, userId: number): Promise<string[]> {
  const rows = await db.alertWord.findMany({ where: { userId }, orderBy: { id: 'asc' } });
  return rows.map((r) => r.word);
}

/** Whether `word` appears in `content` as a whole word, in any case. */
export function containsAlertWord(content: string, word: string): boolean {
  const haystack = content.toLowerCase();
  const needle = word.toLowerCase();
  if (needle === '') return false;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (
      (at === 0 || BEFORE.has(haystack[at - 1])) &&
      (end >= haystack.length || AFTER.has(haystack[end]))
    )
      return true;
  }
  return false;
}

/** The users among `userIds` (of organization `realmId`) with an alert word in `content`. */
export async function usersAlerted(
  db: Db,
  realmId: number,
  userIds: number[],
  content: string,
): Promise<Set<number>> {
  const recipients = new Set(userIds);
  const rows = await queryRows<{ userId: number | bigint; word: string }>(
    db,
    Prisma.sql`SELECT "userId", "word" FROM "AlertWord" WHERE "realmId" = ${realmId}`,
  );
  const alerted = new Set<number>();
  for (const row of rows) {
    const userId = Number(row.userId);
    if (recipients.has(userId) && !alerted.has(userId) && containsAlertWord(content, row.word))
      alerted.add(userId);
  }
  return alerted;
}

/** `alert_words`: the user's alert words. */
export const alertWordsState: StateProvider = async ({ db, user }) => ({
  alert_words: await alertWordsOf(db, user.id),
});
