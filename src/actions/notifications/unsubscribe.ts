// Following an unsubscribe link of a notification or digest email: the signed
// token names the person, and the link's kind the setting turned off.
import {
  userOfToken,
  UNSUBSCRIBE_KINDS,
  UNSUBSCRIBE_SECRET,
} from '../../lib/notifications/unsubscribe';
import type { Services } from '../../services';
import { doGetServerSecret } from '../users/server-secrets';
import { doUpdateUserSettings } from '../users/user-settings';

/**
 * Turns off the emails a link of `kind` with `token` is about; answers what
 * was turned off and for which organization, or null when the link is not
 * valid (unknown kind, a token this server did not sign, or a deactivated
 * account).
 */
export async function doUnsubscribe(
  services: Services,
  kind: string,
  token: string,
): Promise<{ what: string; realmName: string } | null> {
  const secret = await doGetServerSecret(services, UNSUBSCRIBE_SECRET);
  const userId = userOfToken(secret, kind, token);
  if (userId === null) return null;
  const user = await services.db.read((db) =>
    db.user.findUnique({ where: { id: userId }, include: { realm: true } }),
  );
  if (!user || !user.isActive || user.realm.deactivated) return null;
  const { setting, what } = UNSUBSCRIBE_KINDS[kind as keyof typeof UNSUBSCRIBE_KINDS];
  await doUpdateUserSettings(services, user, { settings: { [setting]: false } });
  return { what, realmName: user.realm.name };
}
