// POST /realm/test_welcome_bot_custom_message: an administrator previews what
// a newcomer would read from Welcome Bot with a custom message, by receiving
// those direct messages themself.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { requireAdministrator } from '../../lib/realm/admin';
import { welcomeMessageContent } from '../../lib/users/welcome';
import type { Services } from '../../services';
import { sendMessageIn } from '../messages/messages';
import { doEnsureSystemBot } from '../users/users';

/** The longest custom welcome message, in characters, as in Zulip. */
export const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;

/**
 * Sends `actor` Welcome Bot's welcome message followed by `customText`, as a
 * newcomer invited with that text would receive them; returns the IDs of the
 * two messages, oldest first.
 */
export async function doSendTestWelcomeMessages(
  services: Services,
  realm: Realm,
  actor: User,
  customText: string,
): Promise<number[]> {
  requireAdministrator(actor);
  const text = customText.trim();
  if (text === '') throw new ApiError('Message must not be empty');
  if (text.length > MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH)
    throw new ApiError(
      `welcome_message_custom_text is too long (limit: ${MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH} characters)`,
    );
  const bot = await doEnsureSystemBot(services, realm, 'welcome');
  return services.db.write(async (tx, onCommit) => {
    const ids: number[] = [];
    for (const content of [welcomeMessageContent(realm), text])
      ids.push(
        await sendMessageIn(tx, onCommit, services, realm, bot, {
          type: 'private',
          to: [actor.id],
          content,
          byServer: true,
        }),
      );
    return ids;
  });
}
