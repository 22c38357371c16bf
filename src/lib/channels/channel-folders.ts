// Channel folders: the named groups administrators sort an organization's
// channels into. Reading them, the rules for names, and the API's shape.
import type { ChannelFolder } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';
import type { StateProvider } from '../state';

/** Longest folder name and description, in characters (as Zulip). */
export const MAX_CHANNEL_FOLDER_NAME_LENGTH = 60;
export const MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH = 1024;

/** A channel folder as the API shows it. */
export function presentChannelFolder(folder: ChannelFolder) {
  return {
    id: folder.id,
    name: folder.name,
    description: folder.description,
    rendered_description: folder.renderedDescription,
    creator_id: folder.creatorId,
    date_created: Math.floor(folder.dateCreated.getTime() / 1000),
    is_archived: folder.isArchived,
    order: folder.order,
  };
}

/** The organization's folders in display order (archived ones only when asked). */
export function listChannelFolders(
  db: Db,
  realmId: number,
  includeArchived: boolean,
): Promise<ChannelFolder[]> {
  return db.channelFolder.findMany({
    where: { realmId, ...(includeArchived ? {} : { isArchived: false }) },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
}

/** The folder `id` of the organization; refused as Zulip does when there is none. */
export async function channelFolderById(
  db: Db,
  realmId: number,
  id: number,
): Promise<ChannelFolder> {
  const folder = await db.channelFolder.findFirst({ where: { id, realmId } });
  if (!folder) throw badRequest('Invalid channel folder ID');
  return folder;
}

/**
 * Checks a new folder name: not blank, printable, and used by no other folder
 * of the organization (archived ones included), whatever the case.
 */
export async function checkChannelFolderName(db: Db, realmId: number, name: string): Promise<void> {
  if (name.trim() === '') throw badRequest("Channel folder name can't be empty.");
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    if (/[\p{Cc}\p{Cs}\p{Cn}]/u.test(chars[i]))
      throw badRequest(`Invalid character in channel folder name, at position ${i + 1}.`);
  }
  const clash = await db.channelFolder.findUnique({
    where: { realmId_nameLower: { realmId, nameLower: name.toLowerCase() } },
  });
  if (clash) throw badRequest(`Channel folder '${name}' already exists`);
}

/** `channel_folders`: the organization's folders, archived ones included, as Zulip sends them. */
export const channelFoldersState: StateProvider = async ({ db, user }) => ({
  channel_folders: (await listChannelFolders(db, user.realmId, true)).map(presentChannelFolder),
});
