// Bot storage: a user's key-value entries (GET, PUT and DELETE /bot_storage),
// where interactive bots keep their state between messages. Keys and values
// are text; all of one user's entries together hold at most
// BOT_STORAGE_LIMIT characters, counting keys and values.
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { ApiError } from '../../errors';
import type { Services } from '../../services';

/** Most characters (keys and values together) one user's storage may hold. */
export const BOT_STORAGE_LIMIT = 10_000_000;

const missingKey = () => new ApiError('Key does not exist.');

/** The length of `text` in characters (code points), as the database counts them. */
function characters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) count--;
  }
  return count;
}

/** The entries of `userId` named by `keys`, or all of them; a missing key is refused. */
export async function readBotStorage(
  db: Db,
  userId: number,
  keys: string[] | undefined,
): Promise<Record<string, string>> {
  const rows = await db.botStorageData.findMany({
    where: { userId, ...(keys ? { key: { in: keys } } : {}) },
    select: { key: true, value: true },
    orderBy: { key: 'asc' },
  });
  // Without a prototype, so that any text (`__proto__` too) is a plain key.
  const storage: Record<string, string> = Object.create(null);
  for (const row of rows) storage[row.key] = row.value;
  if (keys?.some((key) => !Object.hasOwn(storage, key))) throw missingKey();
  return storage;
}

/** Characters (keys and values) held by the entries of `userId` whose keys are not in `keys`. */
async function sizeWithout(tx: Db, userId: number, keys: string[]): Promise<number> {
  const [row] = await queryRows<{ size: bigint | number | null }>(
    tx,
    Prisma.sql`SELECT SUM(LENGTH("key") + LENGTH("value")) AS "size"
      FROM "BotStorageData" WHERE "userId" = ${userId} AND "key" NOT IN (${Prisma.join(keys)})`,
  );
  return Number(row?.size ?? 0);
}

/**
 * Adds or replaces entries of `userId`. The request is refused, and nothing
 * stored, when the storage would then pass BOT_STORAGE_LIMIT. On PostgreSQL
 * the user's row is locked first, so that two requests are counted one
 * after the other (SQLite runs one write at a time).
 */
export async function doUpdateBotStorage(
  services: Services,
  userId: number,
  entries: Record<string, string>,
): Promise<void> {
  const keys = Object.keys(entries);
  if (keys.length === 0) return;
  await services.db.write(async (tx) => {
    if (services.db.provider === 'postgresql')
      await queryRows(tx, Prisma.sql`SELECT "id" FROM "User" WHERE "id" = ${userId} FOR UPDATE`);
    const adding = keys.reduce((n, key) => n + characters(key) + characters(entries[key]), 0);
    // The entries kept as they are, and the new ones (replaced entries count at their new size).
    const size = (await sizeWithout(tx, userId, keys)) + adding;
    if (size > BOT_STORAGE_LIMIT)
      throw new ApiError(
        `Request exceeds storage limit by ${size - BOT_STORAGE_LIMIT} characters. The limit is ${BOT_STORAGE_LIMIT} characters.`,
      );
    for (const key of keys)
      await tx.botStorageData.upsert({
        where: { userId_key: { userId, key } },
        create: { userId, key, value: entries[key] },
        update: { value: entries[key] },
      });
  });
}

/** Removes the entries of `userId` named by `keys`, or all of them; a missing key refuses the request. */
export async function doRemoveBotStorage(
  services: Services,
  userId: number,
  keys: string[] | undefined,
): Promise<void> {
  await services.db.write(async (tx) => {
    if (keys === undefined) {
      await tx.botStorageData.deleteMany({ where: { userId } });
      return;
    }
    const wanted = [...new Set(keys)];
    const { count } = await tx.botStorageData.deleteMany({
      where: { userId, key: { in: wanted } },
    });
    if (count !== wanted.length) throw missingKey();
  });
}
