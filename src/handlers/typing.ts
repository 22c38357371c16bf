// Typing notifications: POST /typing and POST /messages/{message_id}/typing.
import { doSetMessageEditTypingStatus, doSetTypingStatus } from '../actions/messages/typing';
import type { Handler, HandlerMap } from './types';

/** Announces that the user started or stopped composing to a conversation. */
export const setTypingStatus: Handler<'set-typing-status'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  const to =
    params.to === undefined ? undefined : Array.isArray(params.to) ? params.to : [params.to];
  await doSetTypingStatus(services, realm, user, {
    op: params.op,
    type: params.type ?? 'direct',
    to,
    streamId: params.stream_id,
    topic: params.topic,
  });
  return {};
};

/** Announces that the user started or stopped editing one of their messages. */
export const setTypingStatusForMessageEdit: Handler<'set-typing-status-for-message-edit'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  await doSetMessageEditTypingStatus(services, realm, user, params.message_id, params.op);
  return {};
};

/** The operations of this area, by operationId. */
export const typingHandlers = {
  'set-typing-status': setTypingStatus,
  'set-typing-status-for-message-edit': setTypingStatusForMessageEdit,
} satisfies Partial<HandlerMap>;
