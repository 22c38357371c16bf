// Default channels (which new users join) and default channel groups (sets of
// channels offered together at sign-up): reading them, Zulip's checks of a
// group's name, and their register state, which guests get empty, as in Zulip.
import type { DefaultStreamGroup } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { Role } from '../constants';
import type { StateProvider } from '../state';

/** Longest name of a default channel group, in characters. */
export const MAX_DEFAULT_STREAM_GROUP_NAME_LENGTH = 60;

/** The IDs of the organization's default channels, ascending. */
export async function defaultStreamIds(db: Db, realmId: number): Promise<number[]> {
  const rows = await db.stream.findMany({
    where: { realmId, isDefault: true, isArchived: false },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return rows.map((s) => s.id);
}

/** A default channel group as the API shows it: its channels by ID, in channel-name order. */
export type DefaultStreamGroupObject = {
  name: string;
  id: number;
  description: string;
  streams: number[];
};

/** The organization's default channel groups, sorted by name. */
export async function listDefaultStreamGroups(
  db: Db,
  realmId: number,
): Promise<DefaultStreamGroupObject[]> {
  const groups = await db.defaultStreamGroup.findMany({
    where: { realmId },
    include: { streams: { include: { stream: { select: { id: true, name: true } } } } },
  });
  return groups
    .map((g) => ({
      name: g.name,
      id: g.id,
      description: g.description,
      streams: g.streams
        .map((m) => m.stream)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))
        .map((s) => s.id),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The organization's default channel group `groupId`, or Zulip's refusal. */
export async function defaultStreamGroupById(
  db: Db,
  realmId: number,
  groupId: number,
): Promise<DefaultStreamGroup> {
  const group = await db.defaultStreamGroup.findFirst({ where: { id: groupId, realmId } });
  if (!group) throw new ApiError(`Default channel group with id '${groupId}' does not exist.`);
  return group;
}

/** Refuses a name a default channel group may not have. */
export function checkDefaultStreamGroupName(name: string): void {
  if (name.trim() === '') throw new ApiError(`Invalid default channel group name '${name}'`);
  if ([...name].length > MAX_DEFAULT_STREAM_GROUP_NAME_LENGTH)
    throw new ApiError(
      `Default channel group name too long (limit: ${MAX_DEFAULT_STREAM_GROUP_NAME_LENGTH} characters)`,
    );
  if (name.includes('\u0000'))
    throw new ApiError(`Default channel group name '${name}' contains NULL (0x00) characters.`);
}

/** `default_streams`: the channels new users join (none for guests). */
export const defaultStreamsState: StateProvider = async ({ db, realm, user }) => ({
  realm_default_streams: user.role === Role.GUEST ? [] : await defaultStreamIds(db, realm.id),
});

/** `default_stream_groups`: the organization's default channel groups (none for guests). */
export const defaultStreamGroupsState: StateProvider = async ({ db, realm, user }) => ({
  realm_default_stream_groups:
    user.role === Role.GUEST ? [] : await listDefaultStreamGroups(db, realm.id),
});
