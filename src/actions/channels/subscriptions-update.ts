// PATCH /users/me/subscriptions: joining and leaving channels in one request,
// in one transaction, so that either both halves happen or neither does. Each
// half is the same as POST and DELETE /users/me/subscriptions for the
// requester, events included.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { badRequest } from '../../errors';
import type { NewStreamSettings } from './streams';
import type { Services } from '../../services';
import { subscribeIn, unsubscribeIn, type SubscribeItem } from './subscriptions';

/** Settings of channels this request creates: those of a plain subscribe request. */
const DEFAULT_SETTINGS: NewStreamSettings = {
  inviteOnly: false,
  isWebPublic: false,
  isDefault: false,
  historyPublicToSubscribers: null,
  messageRetentionDays: null,
  topicsPolicy: 'inherit',
  folderId: null,
  groups: {},
};

/** What was joined and left. */
export interface UpdateSubscriptionsResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  removed: string[];
  not_removed: string[];
}

/** Joins the channels of `add`, then leaves those named in `remove`. */
export async function doUpdateSubscriptions(
  services: Services,
  realm: Realm,
  user: User,
  add: SubscribeItem[],
  remove: string[],
): Promise<UpdateSubscriptionsResult> {
  if (add.length === 0 && remove.length === 0)
    throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  return services.db.write(async (tx, onCommit) => {
    const joined =
      add.length > 0
        ? await subscribeIn(tx, onCommit, services, realm, user, {
            items: add,
            principals: [],
            authorizationErrorsFatal: true,
            settings: DEFAULT_SETTINGS,
          })
        : { subscribed: {}, already_subscribed: {} };
    const left =
      remove.length > 0
        ? await unsubscribeIn(tx, onCommit, services, realm, user, remove, [])
        : { removed: [], not_removed: [] };
    return {
      subscribed: joined.subscribed,
      already_subscribed: joined.already_subscribed,
      removed: left.removed,
      not_removed: left.not_removed,
    };
  });
}
