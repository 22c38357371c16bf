// Adding and removing a user's alert words. Each call sends the user's clients
// an alert_words event with the whole list, as Zulip does.
import type { User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { alertWordsOf } from '../../lib/users/alert-words';
import type { Services } from '../../services';

/** Publishes the user's words after the commit and returns them. */
async function publishAlertWords(
  db: Db,
  onCommit: OnCommit,
  services: Services,
  user: User,
): Promise<string[]> {
  const words = await alertWordsOf(db, user.id);
  onCommit(() => services.bus.publish({ type: 'alert_words', alert_words: words }, [user.id]));
  return words;
}

/**
 * Adds words (trimmed; empty ones dropped; those the user has in any case
 * skipped; of several differing only in case, the last kept); returns the
 * user's words.
 */
export async function doAddAlertWords(
  services: Services,
  user: User,
  words: string[],
): Promise<string[]> {
  return services.db.write(async (tx, onCommit) => {
    const existing = new Set((await alertWordsOf(tx, user.id)).map((w) => w.toLowerCase()));
    const added = new Map<string, string>();
    for (const word of words.map((w) => w.trim()).filter((w) => w !== '')) {
      const lower = word.toLowerCase();
      if (!existing.has(lower)) added.set(lower, word);
    }
    if (added.size > 0)
      await tx.alertWord.createMany({
        data: [...added.values()].map((word) => ({ realmId: user.realmId, userId: user.id, word })),
      });
    return publishAlertWords(tx, onCommit, services, user);
  });
}

/** Removes words, matched without regard to case; returns the user's words. */
export async function doRemoveAlertWords(
  services: Services,
  user: User,
  words: string[],
): Promise<string[]> {
  return services.db.write(async (tx, onCommit) => {
    const removed = new Set(words.map((w) => w.toLowerCase()));
    const rows = await tx.alertWord.findMany({ where: { userId: user.id } });
    const ids = rows.filter((r) => removed.has(r.word.toLowerCase())).map((r) => r.id);
    if (ids.length > 0) await tx.alertWord.deleteMany({ where: { id: { in: ids } } });
    return publishAlertWords(tx, onCommit, services, user);
  });
}
