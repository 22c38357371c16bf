// Subscriptions: GET, POST, PATCH and DELETE /users/me/subscriptions,
// POST /users/me/subscriptions/properties, PATCH
// /users/me/subscriptions/{stream_id} and
// GET /users/{user_id}/subscriptions/{stream_id}; and POST /channels/create.
import { doCreateChannel } from '../actions/channels/create-channel';
import type { NewStreamSettings } from '../actions/channels/streams';
import {
  doSubscribe,
  doUnsubscribe,
  doUpdateSubscriptionProperties,
  type PropertyChange,
} from '../actions/channels/subscriptions';
import { doUpdateSubscriptions } from '../actions/channels/subscriptions-update';
import { badRequest } from '../errors';
import type { GroupSettingValue } from '../lib/groups/group-settings';
import { ChannelAccess, isAdmin } from '../lib/channels/stream-access';
import { accessUserById } from '../lib/users/users';
import { streamGroupSettings, type StreamGroupSetting } from '../lib/channels/streams';
import {
  activeSubscriptions,
  presentSubscriptions,
  subscriptionProperties,
} from '../lib/channels/subscriptions';
import type { Handler, HandlerMap } from './types';

/** The user's subscriptions with their personal settings. */
export const getSubscriptions: Handler<'get-subscriptions'> = async ({
  params,
  services,
  user,
}) => {
  const subscriptions = await services.db.read(async (db) =>
    presentSubscriptions(
      db,
      await activeSubscriptions(db, user.id),
      params.include_subscribers ?? false,
      new ChannelAccess(db, user),
    ),
  );
  return { subscriptions };
};

/** `message_retention_days` as stored: null follows the organization, -1 keeps forever. */
function retentionDays(value: string | number | undefined): number | null {
  if (value === undefined || value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  return value as number;
}

/** The settings of channels a request creates, from its parameters. */
function newStreamSettings(params: {
  invite_only?: boolean;
  is_web_public?: boolean;
  is_default_stream?: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
  topics_policy?: string;
  folder_id?: number;
}): NewStreamSettings {
  const groups: Partial<Record<StreamGroupSetting, GroupSettingValue>> = {};
  for (const name of Object.keys(streamGroupSettings) as StreamGroupSetting[]) {
    const value = (params as Record<string, unknown>)[name];
    if (value !== undefined) groups[name] = value as GroupSettingValue;
  }
  return {
    inviteOnly: params.invite_only ?? false,
    isWebPublic: params.is_web_public ?? false,
    isDefault: params.is_default_stream ?? false,
    historyPublicToSubscribers: params.history_public_to_subscribers ?? null,
    messageRetentionDays: retentionDays(params.message_retention_days),
    topicsPolicy: params.topics_policy ?? 'inherit',
    folderId: params.folder_id ?? null,
    groups,
  };
}

/** Subscribes to (and creates) channels. */
export const subscribe: Handler<'subscribe'> = async ({ params, services, user, realm }) => {
  const settings = newStreamSettings(params);
  return doSubscribe(services, realm, user, {
    items: params.subscriptions.map((s) => ({
      name: s.name,
      description: s.description,
      color: s.color,
    })),
    principals: params.principals ?? [],
    authorizationErrorsFatal: params.authorization_errors_fatal ?? true,
    settings,
  });
};

/** Leaves channels, or removes `principals` from them. */
export const unsubscribe: Handler<'unsubscribe'> = async ({ params, services, user, realm }) => {
  return doUnsubscribe(services, realm, user, params.subscriptions, params.principals ?? []);
};

/** Joins and leaves channels in one request. */
export const updateSubscriptions: Handler<'update-subscriptions'> = async ({
  params,
  services,
  user,
  realm,
}) =>
  doUpdateSubscriptions(
    services,
    realm,
    user,
    (params.add ?? []).map((item) => ({
      name: item.name,
      color: item.color,
      description: item.description,
    })),
    params.delete ?? [],
  );

/** Whether a user is subscribed to a channel the requester may see. */
export const getSubscriptionStatus: Handler<'get-subscription-status'> = async ({
  params,
  services,
  user,
}) =>
  services.db.read(async (db) => {
    const target = await accessUserById(db, user, params.user_id, { forAdmin: false });
    const stream = await db.stream.findFirst({
      where: { id: params.stream_id, realmId: user.realmId },
    });
    const visible =
      stream !== null &&
      (isAdmin(user) || (await new ChannelAccess(db, user).hasContentAccess(stream)));
    if (!visible) throw badRequest('Invalid channel ID');
    const sub = await db.subscription.findFirst({
      where: { userId: target.id, streamId: stream.id, active: true },
      select: { id: true },
    });
    return { is_subscribed: sub !== null };
  });

const booleanProperties = new Set(Object.keys(subscriptionProperties).filter((p) => p !== 'color'));

/** One requested change of a personal setting, checked: a known property and a value of its type. */
function propertyChange(streamId: number, property: string, value: unknown): PropertyChange {
  if (property === 'color') {
    if (typeof value !== 'string' || !/^#[0-9a-fA-F]{3,6}$/.test(value))
      throw badRequest('color is not a valid hex color code');
  } else if (booleanProperties.has(property)) {
    if (typeof value !== 'boolean') throw badRequest(`${property} is not a boolean`);
  } else {
    throw badRequest(`Unknown subscription property: ${property}`);
  }
  return { streamId, property: property as PropertyChange['property'], value };
}

/** Changes personal settings of subscriptions; every change is checked before any is made. */
export const updateSubscriptionSettings: Handler<'update-subscription-settings'> = async ({
  params,
  services,
  user,
}) => {
  const changes = params.subscription_data.map(({ stream_id, property, value }) =>
    propertyChange(stream_id, property, value),
  );
  await doUpdateSubscriptionProperties(services, user, changes);
  return {};
};

/** Changes one personal setting of one subscription, as the bulk operation does. */
export const updateSubscriptionProperty: Handler<'update-subscription-property'> = async ({
  params,
  services,
  user,
}) => {
  const change = propertyChange(params.stream_id, params.property, params.value);
  await doUpdateSubscriptionProperties(services, user, [change]);
  return {};
};

/** Creates one channel with its first subscribers (POST /channels/create). */
export const createChannel: Handler<'create-channel'> = async ({
  params,
  services,
  user,
  realm,
}) => ({
  id: await doCreateChannel(services, realm, user, {
    name: params.name,
    description: params.description ?? '',
    subscribers: params.subscribers,
    settings: newStreamSettings(params),
  }),
});

/** The operations of this area, by operationId. */
export const subscriptionHandlers = {
  'get-subscriptions': getSubscriptions,
  subscribe: subscribe,
  unsubscribe: unsubscribe,
  'create-channel': createChannel,
  'update-subscriptions': updateSubscriptions,
  'get-subscription-status': getSubscriptionStatus,
  'update-subscription-settings': updateSubscriptionSettings,
  'update-subscription-property': updateSubscriptionProperty,
} satisfies Partial<HandlerMap>;
