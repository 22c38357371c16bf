// Changing messages after sending: PATCH /messages/{message_id} (edit or move),
// GET /messages/{message_id}/history and DELETE /messages/{message_id}.
import type { components } from '../../generated/api';
import { doDeleteMessage } from '../actions/messages/message-delete';
import { doUpdateMessage } from '../actions/messages/message-edit';
import {} from '../errors';
import { messageSnapshots } from '../lib/messages/edit-history';
import { accessMessage } from '../lib/messages/message-access';
import { topicParameter } from '../lib/messages/message-send';
import type { Handler, HandlerMap } from './types';

type Attachment = components['schemas']['Attachment'];

/** Edits a message's content, or moves it (and maybe its topic) to another topic or channel. */
export const updateMessage: Handler<'update-message'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const detached = await doUpdateMessage(services, realm, user, params.message_id, {
    content: params.content,
    topic: topicParameter(params),
    streamId: params.stream_id,
    propagateMode: params.propagate_mode ?? 'change_one',
    prevContentSha256: params.prev_content_sha256,
  });
  return { detached_uploads: detached as Attachment[] };
};

/** The states a message went through, oldest first. */
export const getMessageHistory: Handler<'get-message-history'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const { message } = await services.db.read((db) => accessMessage(db, user, params.message_id));
  const snapshots = messageSnapshots(
    message,
    realm.messageEditHistoryVisibilityPolicy,
    params.allow_empty_topic_name ?? false,
  );
  return { message_history: snapshots };
};

/** Deletes a message. */
export const deleteMessage: Handler<'delete-message'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  await doDeleteMessage(services, realm, user, params.message_id);
  return {};
};

/** The operations of this area, by operationId. */
export const messageEditHandlers = {
  'update-message': updateMessage,
  'get-message-history': getMessageHistory,
  'delete-message': deleteMessage,
} satisfies Partial<HandlerMap>;
