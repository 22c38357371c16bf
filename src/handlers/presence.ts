// POST /users/me/presence, GET /realm/presence and
// GET /users/{user_id_or_email}/presence.
import { doUpdatePresence } from '../actions/users/presence';
import { ApiError } from '../errors';
import { jsonText } from '../events/queues';
import { readPresences, singleUserPresence } from '../lib/users/presence';
import { accessUserByEmail, realmHost } from '../lib/users/users';
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
  const {
    presences,
    presencesText,
    lastUpdateId: newest,
  } = await services.db.read((db) =>
    readPresences(
      db,
      services.presence,
      realm,
      {
        lastUpdateId,
        historyLimitDays: params.history_limit_days ?? 14,
        modern: lastUpdateId !== null || (params.slim_presence ?? false),
        externalUrl: services.config.externalUrl,
      },
      // Nearly everyone's entry goes into each answer: as JSON text, made once per change.
      { entries: !params.ping_only, text: true },
    ),
  );
  if (params.ping_only) return { presence_last_update_id: newest };
  return {
    presences:
      presencesText !== undefined
        ? jsonText(presencesText)
        : // The legacy entry's `aggregated` key sits beside per-client keys; TypeScript
          // cannot express that index signature exactly, the contract check can.
          (presences as NonNullable<Result<'update-presence'>['presences']>),
    server_timestamp: Date.now() / 1000,
    presence_last_update_id: newest,
    zephyr_mirror_active: false,
  };
};

/** Everyone's presence of the last two weeks, keyed by email, in the legacy form. */
export const getPresence: Handler<'get-presence'> = async ({ services, realm }) => {
  const { presences } = await services.db.read((db) =>
    readPresences(db, services.presence, realm, {
      lastUpdateId: null,
      historyLimitDays: 14,
      modern: false,
      externalUrl: services.config.externalUrl,
    }),
  );
  return {
    // The legacy entry's `aggregated` key sits beside per-client keys, which
    // TypeScript cannot express exactly; the contract check can.
    presences: presences as unknown as Result<'get-presence'>['presences'],
    server_timestamp: Date.now() / 1000,
  };
};

/** One user's presence, the user named by ID or email address. */
export const getUserPresence: Handler<'get-user-presence'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const named = params.user_id_or_email;
  const presence = await services.db.read(async (db) => {
    // Zulip shows every user's availability, even to a guest who may not see the user.
    const lookup = {
      forAdmin: false,
      allowBots: true,
      allowDeactivated: true,
      ignoreVisibility: true,
    };
    // Digits are an ID; one past the IDs the database holds names nobody.
    const id = /^\d+$/.test(named) ? Number(named) : undefined;
    const target =
      id !== undefined
        ? id <= 2 ** 31 - 1
          ? await db.user.findFirst({ where: { id, realmId: realm.id } })
          : null
        : await accessUserByEmail(
            db,
            user,
            named,
            realmHost(realm, services.config.externalUrl),
            lookup,
          ).catch(() => null);
    if (!target || !target.isActive) throw new ApiError('No such user');
    if (target.isBot) throw new ApiError('Presence is not supported for bot users.');
    return singleUserPresence(db, target, new Date());
  });
  if (!presence) throw new ApiError(`No presence data for ${named}`);
  return { presence };
};

/** The operations of this area, by operationId. */
export const presenceHandlers = {
  'update-presence': updatePresence,
  'get-presence': getPresence,
  'get-user-presence': getUserPresence,
} satisfies Partial<HandlerMap>;
