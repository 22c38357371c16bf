// Channel folders: POST /channel_folders/create, GET and PATCH /channel_folders,
// and PATCH /channel_folders/{channel_folder_id}.
import {
  doCreateChannelFolder,
  doReorderChannelFolders,
  doUpdateChannelFolder,
} from '../actions/channels/channel-folders';
import { listChannelFolders, presentChannelFolder } from '../lib/channels/channel-folders';
import type { Handler, HandlerMap } from './types';

/** An administrator creates a folder. */
export const createChannelFolder: Handler<'create-channel-folder'> = async ({
  params,
  services,
  realm,
  user,
}) => ({
  channel_folder_id: await doCreateChannelFolder(services, realm, user, {
    name: params.name,
    description: params.description,
  }),
});

/** Lists the organization's folders in display order. */
export const getChannelFolders: Handler<'get-channel-folders'> = async ({
  params,
  services,
  realm,
}) => {
  const folders = await services.db.read((db) =>
    listChannelFolders(db, realm.id, params.include_archived ?? false),
  );
  return { channel_folders: folders.map(presentChannelFolder) };
};

/** An administrator renames, describes, archives or unarchives a folder. */
export const updateChannelFolder: Handler<'update-channel-folder'> = async ({
  params,
  services,
  realm,
  user,
}) => {
  await doUpdateChannelFolder(services, realm, user, params.channel_folder_id, {
    name: params.name,
    description: params.description,
    isArchived: params.is_archived,
  });
  return {};
};

/** An administrator sets the order of the folders. */
export const reorderChannelFolders: Handler<'patch-channel-folders'> = async ({
  params,
  services,
  realm,
  user,
}) => {
  await doReorderChannelFolders(services, realm, user, params.order);
  return {};
};

/** The operations of this area, by operationId. */
export const channelFolderHandlers = {
  'create-channel-folder': createChannelFolder,
  'get-channel-folders': getChannelFolders,
  'update-channel-folder': updateChannelFolder,
  'patch-channel-folders': reorderChannelFolders,
} satisfies Partial<HandlerMap>;
