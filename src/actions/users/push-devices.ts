// Registering and removing devices for push notifications.
import type { User } from '../../../generated/prisma/sqlite/client';
import { badRequest } from '../../errors';
import type { Services } from '../../services';

/** Device kinds, as stored. */
export const PushKind = { APNS: 1, FCM: 2 } as const;

/** Registers (or refreshes) `token` for `user`; registering it again changes nothing else. */
export async function doAddPushDeviceToken(
  services: Services,
  user: User,
  kind: number,
  token: string,
  appId: string | null,
): Promise<void> {
  await services.db.write(async (tx) => {
    await tx.pushDeviceToken.upsert({
      where: { userId_kind_token: { userId: user.id, kind, token } },
      create: { userId: user.id, kind, token, appId },
      update: { appId, lastUpdated: new Date() },
    });
  });
}

/** Removes `token` of `kind` from `user`'s devices; "Token does not exist" when they have not registered it. */
export async function doRemovePushDeviceToken(
  services: Services,
  user: User,
  kind: number,
  token: string,
): Promise<void> {
  await services.db.write(async (tx) => {
    const { count } = await tx.pushDeviceToken.deleteMany({
      where: { userId: user.id, kind, token },
    });
    if (count === 0) throw badRequest('Token does not exist');
  });
}
