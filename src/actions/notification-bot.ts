// Notification Bot: the bot that sends an organization's automated messages
// (message reminders). Zulip shares one across organizations; here each
// organization gets its own, created the first time it is needed, a bot
// of the organization like any other (listed with its users).
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import type { Db } from '../db/client';
import { Role } from '../lib/constants';
import { BotType } from '../lib/users/bots';
import type { Services } from '../services';
import { insertUser } from './users';

/** The address of Notification Bot, as in Zulip. */
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';

/** Notification Bot of `realmId`, or null before it is first needed. */
export function findNotificationBot(db: Db, realmId: number): Promise<User | null> {
  return db.user.findUnique({
    where: { realmId_emailLower: { realmId, emailLower: NOTIFICATION_BOT_EMAIL } },
  });
}

/**
 * Notification Bot of `realm`, created (in its own transaction, with the
 * `realm_user` events of any new user) when the organization has none yet.
 * Two processes creating it at once: the loser reads the winner's.
 */
export async function doEnsureNotificationBot(services: Services, realm: Realm): Promise<User> {
  const existing = await services.db.read((db) => findNotificationBot(db, realm.id));
  if (existing) return existing;
  try {
    return await services.db.write(async (tx, onCommit) => {
      const again = await findNotificationBot(tx, realm.id);
      if (again) return again;
      return insertUser(
        tx,
        onCommit,
        services,
        realm,
        {
          email: NOTIFICATION_BOT_EMAIL,
          fullName: 'Notification Bot',
          password: null,
          role: Role.MEMBER,
          isBot: true,
          botType: BotType.GENERIC,
          botOwnerId: null,
        },
        null,
      );
    });
  } catch (error) {
    const winner = await services.db.read((db) => findNotificationBot(db, realm.id));
    if (winner) return winner;
    throw error;
  }
}
