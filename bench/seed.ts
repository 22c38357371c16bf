// Filling a benchmark's channel with messages, written straight to the
// database in batches (sending them one by one would take minutes).
import { openDatabase } from '../src/db/client';

/** Adds `count` messages to the channel directly in the database, `target` of them in topic "target". */
export async function seed(
  databaseUrl: string,
  realmId: number,
  streamId: number,
  senderId: number,
  count: number,
  target: number,
): Promise<void> {
  const db = await openDatabase(databaseUrl);
  try {
    const batch = 1000;
    for (let start = 0; start < count; start += batch) {
      await db.write(async (tx) => {
        const rows = [];
        for (let i = start; i < Math.min(count, start + batch); i++) {
          const topic = i >= count - target ? 'target' : `filler ${i % 500}`;
          const content = `message ${i} about the quarterly numbers`;
          rows.push({
            realmId,
            senderId,
            streamId,
            topic,
            topicLower: topic,
            content,
            renderedContent: `<p>${content}</p>`,
          });
        }
        await tx.message.createMany({ data: rows });
        const ids = await tx.message.findMany({
          where: { streamId },
          orderBy: { id: 'desc' },
          take: rows.length,
          select: { id: true },
        });
        await tx.userMessage.createMany({
          data: ids.map(({ id }) => ({ userId: senderId, messageId: id, read: true })),
        });
      });
    }
  } finally {
    await db.close();
  }
}
