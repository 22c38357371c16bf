// Default channels and default channel groups: POST and DELETE
// /default_streams, POST /default_stream_groups/create, PATCH and DELETE
// /default_stream_groups/{group_id}, PATCH /default_stream_groups/{group_id}/streams.
import {
  doAddDefaultStream,
  doCreateDefaultStreamGroup,
  doRemoveDefaultStream,
  doRemoveDefaultStreamGroup,
  doUpdateDefaultStreamGroup,
  doUpdateDefaultStreamGroupStreams,
} from '../actions/channels/default-streams';
import type { Handler, HandlerMap } from './types';

/** An administrator makes a channel a default channel. */
export const addDefaultStream: Handler<'add-default-stream'> = async ({
  params,
  services,
  user,
}) => {
  await doAddDefaultStream(services, user, params.stream_id);
  return {};
};

/** An administrator takes a channel out of the default channels. */
export const removeDefaultStream: Handler<'remove-default-stream'> = async ({
  params,
  services,
  user,
}) => {
  await doRemoveDefaultStream(services, user, params.stream_id);
  return {};
};

/** An administrator creates a default channel group. */
export const createDefaultStreamGroup: Handler<'create-default-stream-group'> = async ({
  params,
  services,
  user,
}) => {
  await doCreateDefaultStreamGroup(services, user, {
    name: params.group_name,
    description: params.description,
    streamNames: params.stream_names,
  });
  return {};
};

/** An administrator renames a default channel group or changes its description. */
export const updateDefaultStreamGroupInfo: Handler<'update-default-stream-group-info'> = async ({
  params,
  services,
  user,
}) => {
  await doUpdateDefaultStreamGroup(services, user, params.group_id, {
    name: params.new_group_name,
    description: params.new_description,
  });
  return {};
};

/** An administrator adds channels to a default channel group or removes them. */
export const updateDefaultStreamGroupStreams: Handler<
  'update-default-stream-group-streams'
> = async ({ params, services, user }) => {
  await doUpdateDefaultStreamGroupStreams(
    services,
    user,
    params.group_id,
    params.op,
    params.stream_names,
  );
  return {};
};

/** An administrator deletes a default channel group. */
export const removeDefaultStreamGroup: Handler<'remove-default-stream-group'> = async ({
  params,
  services,
  user,
}) => {
  await doRemoveDefaultStreamGroup(services, user, params.group_id);
  return {};
};

/** The operations of this area, by operationId. */
export const defaultStreamHandlers = {
  'add-default-stream': addDefaultStream,
  'remove-default-stream': removeDefaultStream,
  'create-default-stream-group': createDefaultStreamGroup,
  'update-default-stream-group-info': updateDefaultStreamGroupInfo,
  'update-default-stream-group-streams': updateDefaultStreamGroupStreams,
  'remove-default-stream-group': removeDefaultStreamGroup,
} satisfies Partial<HandlerMap>;
