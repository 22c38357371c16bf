// Read receipts: who has read a message. Users who turned off
// send_read_receipts are never listed, nor is the sender (who read it by
// writing it), nor deactivated users. Bots are listed like anyone else.
import type { Message } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';

/** The IDs of the users who have read `message`, ascending. */
export async function readReceipts(
  db: Db,
  message: Pick<Message, 'id' | 'senderId'>,
): Promise<number[]> {
  const rows = await db.userMessage.findMany({
    where: {
      messageId: message.id,
      read: true,
      userId: { not: message.senderId },
      user: { isActive: true, sendReadReceipts: true },
    },
    select: { userId: true },
    orderBy: { userId: 'asc' },
  });
  return rows.map((r) => r.userId);
}
