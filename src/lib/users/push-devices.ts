// Reads of the push-notification devices users register.
import type { Db } from '../../db/client';

/** Whether `userId` has registered a device with this push token (Apple or Google). */
export async function hasPushDevice(db: Db, userId: number, token: string): Promise<boolean> {
  const found = await db.pushDeviceToken.findFirst({
    where: { userId, token },
    select: { id: true },
  });
  return found !== null;
}
