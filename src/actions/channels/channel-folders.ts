// Creating, changing, archiving and reordering an organization's channel
// folders (administrators only). Everyone in the organization learns of each
// change through a `channel_folder` event after it commits.
import { refuseDuplicate } from '../../db/client';
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import { ApiError, badRequest } from '../../errors';
import {
  channelFolderById,
  checkChannelFolderName,
  presentChannelFolder,
} from '../../lib/channels/channel-folders';
import { render } from '../../lib/markdown/render-context';
import { requireAdministrator } from '../../lib/realm/admin';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

// Two requests racing to create the same name: the loser is refused like a plain duplicate.
function duplicateOnRace(name: string) {
  return refuseDuplicate(() => badRequest(`Channel folder '${name}' already exists`));
}

/** An administrator creates a folder, placed last; returns its ID. */
export async function doCreateChannelFolder(
  services: Services,
  realm: Realm,
  actor: User,
  input: { name: string; description: string },
): Promise<number> {
  requireAdministrator(actor);
  return services.db
    .write(async (tx, onCommit) => {
      await checkChannelFolderName(tx, realm.id, input.name);
      const { html } = await render(tx, realm, input.description, services.config.externalUrl);
      const created = await tx.channelFolder.create({
        data: {
          realmId: realm.id,
          name: input.name,
          nameLower: input.name.toLowerCase(),
          description: input.description,
          renderedDescription: html,
          creatorId: actor.id,
        },
      });
      // As in Zulip, a new folder's place is its ID, which sorts it after the others.
      const folder = await tx.channelFolder.update({
        where: { id: created.id },
        data: { order: created.id },
      });
      const everyone = new EveryoneIn(realm.id);
      onCommit(() =>
        services.bus.publish(
          { type: 'channel_folder', op: 'add', channel_folder: presentChannelFolder(folder) },
          everyone,
        ),
      );
      return folder.id;
    })
    .catch(duplicateOnRace(input.name));
}

/** What PATCH /channel_folders/{id} asks to change; absent fields stay. */
export interface ChannelFolderChange {
  name?: string;
  description?: string;
  isArchived?: boolean;
}

/**
 * An administrator renames a folder, changes its description, or archives or
 * unarchives it (a folder still holding channels cannot be archived). Each
 * change that alters something is its own `update` event, as in Zulip.
 */
export async function doUpdateChannelFolder(
  services: Services,
  realm: Realm,
  actor: User,
  id: number,
  change: ChannelFolderChange,
): Promise<void> {
  requireAdministrator(actor);
  await services.db
    .write(async (tx, onCommit) => {
      const folder = await channelFolderById(tx, realm.id, id);
      const updates: Record<string, string | boolean>[] = [];
      if (change.name !== undefined && change.name !== folder.name) {
        // As in Zulip, the folder's own name counts too: a change of case alone is refused.
        await checkChannelFolderName(tx, realm.id, change.name);
        await tx.channelFolder.update({
          where: { id },
          data: { name: change.name, nameLower: change.name.toLowerCase() },
        });
        updates.push({ name: change.name });
      }
      if (change.description !== undefined && change.description !== folder.description) {
        const { html } = await render(tx, realm, change.description, services.config.externalUrl);
        await tx.channelFolder.update({
          where: { id },
          data: { description: change.description, renderedDescription: html },
        });
        updates.push({ description: change.description, rendered_description: html });
      }
      if (change.isArchived !== undefined && change.isArchived !== folder.isArchived) {
        if (
          change.isArchived &&
          (await tx.stream.findFirst({
            where: { folderId: id, isArchived: false },
            select: { id: true },
          }))
        )
          throw new ApiError('You need to remove all the channels from this folder to archive it.');
        await tx.channelFolder.update({ where: { id }, data: { isArchived: change.isArchived } });
        updates.push({ is_archived: change.isArchived });
      }
      if (updates.length === 0) return;
      const everyone = new EveryoneIn(realm.id);
      onCommit(() => {
        for (const data of updates)
          services.bus.publish(
            { type: 'channel_folder', op: 'update', channel_folder_id: id, data },
            everyone,
          );
      });
    })
    .catch(duplicateOnRace(change.name ?? ''));
}

/**
 * An administrator sets the order of the organization's folders: `order`
 * must name every folder (archived ones too); each takes its index there.
 */
export async function doReorderChannelFolders(
  services: Services,
  realm: Realm,
  actor: User,
  order: number[],
): Promise<void> {
  requireAdministrator(actor);
  const position = new Map(order.map((id, index) => [id, index]));
  await services.db.write(async (tx, onCommit) => {
    const folders = await tx.channelFolder.findMany({
      where: { realmId: realm.id },
      select: { id: true },
    });
    if (folders.some((f) => !position.has(f.id))) throw badRequest('Invalid order mapping.');
    for (const f of folders)
      await tx.channelFolder.update({ where: { id: f.id }, data: { order: position.get(f.id)! } });
    const everyone = new EveryoneIn(realm.id);
    onCommit(() =>
      services.bus.publish({ type: 'channel_folder', op: 'reorder', order }, everyone),
    );
  });
}
