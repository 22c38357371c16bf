// POST /users/me/presence.
import { doUpdatePresence } from '../actions/presence';
import { ApiError } from '../errors';
import { readPresences } from '../lib/users/presence';
import type { Handler, HandlerMap, Result } from './types';

/** Records the requester's status and, unless ping_only, returns everyone's presence. */
export const updatePresence: Handler<'update-presence'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  if (user.isBot) throw new ApiError('Presence is not supported for bots.');
  await doUpdatePresence(services, realm, user, params.status);
  const lastUpdateId = params.last_update_id ?? null;
  const { presences, lastUpdateId: newest } = await services.db.read((db) =>
    readPresences(db, realm, {
      lastUpdateId,
      historyLimitDays: params.history_limit_days ?? 14,
      modern: lastUpdateId !== null || (params.slim_presence ?? false),
      externalUrl: services.config.externalUrl,
    }),
  );
  if (params.ping_only) return { presence_last_update_id: newest };
  // The legacy entry's `aggregated` key sits beside per-client keys; TypeScript
  // cannot express that index signature exactly, the contract check can.
  return {
    presences: presences as NonNullable<Result<'update-presence'>['presences']>,
    server_timestamp: Date.now() / 1000,
    presence_last_update_id: newest,
    zephyr_mirror_active: false,
  };
};

/** The operations of this area, by operationId. */
export const presenceHandlers = {
  'update-presence': updatePresence,
} satisfies Partial<HandlerMap>;
