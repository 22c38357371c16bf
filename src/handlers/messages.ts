// Messages: POST and GET /messages, GET /messages/{message_id},
// and GET /messages/matches_narrow (flags are message-flags.ts).
import { doReportMessage } from '../actions/messages/message-report';
import { doSendMessage } from '../actions/messages/messages';
import { ApiError } from '../errors';
import { accessMessage } from '../lib/messages/message-access';
import {
  defaultReadBySender,
  holdsCanForgeSender,
  topicParameter,
} from '../lib/messages/message-send';
import { fetchMessages, messagesMatchingNarrow } from '../lib/messages/message-fetch';
import { flagList } from '../lib/messages/flags';
import { presentMessages } from '../lib/messages/messages';
import { presentMessagesJson } from '../lib/messages/message-json';
import { jsonText } from '../events/queues';
import { parseNarrow } from '../lib/narrow/narrow';
import { realmHost } from '../lib/users/users';
import type { Handler, HandlerMap } from './types';

/** Sends a channel or direct message. */
export const sendMessage: Handler<'send-message'> = async ({
  params,
  services,
  user,
  realm,
  client,
}) => {
  const forged = params.forged === true || params.forged === 'true' || params.forged === 'yes';
  if (forged && !(await services.db.read((db) => holdsCanForgeSender(db, user.id))))
    throw new ApiError('User not authorized for this query');
  const id = await doSendMessage(services, realm, user, {
    type: params.type,
    to: params.to,
    topic: topicParameter(params),
    content: params.content,
    readBySender: params.read_by_sender ?? defaultReadBySender(client),
    localId: params.local_id,
    client,
    forgedTime: forged && params.time !== undefined ? new Date(params.time * 1000) : undefined,
  });
  return { id };
};

/** Messages of a narrow around an anchor, or by ID. */
export const getMessages: Handler<'get-messages'> = async ({ params, services, user, realm }) => {
  const result = await services.db.read(async (db) => {
    const fetched = await fetchMessages(db, services.db.provider, user, {
      // The older way of asking for anchor=first_unread, which wins over `anchor`.
      anchor: params.use_first_unread_anchor ? 'first_unread' : params.anchor,
      numBefore: params.num_before ?? 0,
      numAfter: params.num_after ?? 0,
      includeAnchor: params.include_anchor ?? true,
      narrow: parseNarrow(params.narrow),
      messageIds: params.message_ids,
    });
    const messages = await presentMessagesJson(
      db,
      user,
      realm,
      realmHost(realm, services.config.externalUrl),
      fetched.messages,
      fetched.flags,
      {
        applyMarkdown: params.apply_markdown ?? true,
        clientGravatar: params.client_gravatar ?? true,
        allowEmptyTopicName: params.allow_empty_topic_name ?? false,
      },
      fetched.matches,
      fetched.streamNames,
    );
    return { fetched, messages };
  });
  const { fetched, messages } = result;
  return {
    // Written as JSON already (message-json.ts).
    messages: jsonText(messages),
    found_anchor: fetched.foundAnchor,
    found_oldest: fetched.foundOldest,
    found_newest: fetched.foundNewest,
    history_limited: fetched.historyLimited,
    ...(fetched.anchor !== undefined ? { anchor: fetched.anchor } : {}),
  };
};

/** One message the user may read, with its raw Markdown. */
export const getMessage: Handler<'get-message'> = async ({ params, services, user, realm }) => {
  return services.db.read(async (db) => {
    const { message, userMessage } = await accessMessage(db, user, params.message_id);
    const [presented] = await presentMessages(
      db,
      user,
      realm,
      realmHost(realm, services.config.externalUrl),
      [message],
      new Map([[message.id, flagList(userMessage)]]),
      {
        applyMarkdown: params.apply_markdown ?? true,
        clientGravatar: false,
        allowEmptyTopicName: params.allow_empty_topic_name ?? false,
      },
    );
    return { raw_content: message.content, message: presented };
  });
};

/** Which of the given messages match a narrow. */
export const checkMessagesMatchNarrow: Handler<'check-messages-match-narrow'> = async ({
  params,
  services,
  user,
}) => {
  const messages = await services.db.read((db) =>
    messagesMatchingNarrow(
      db,
      services.db.provider,
      user,
      params.msg_ids,
      parseNarrow(params.narrow),
    ),
  );
  return { messages };
};

/** Reports a message to the organization's moderators. */
export const reportMessage: Handler<'report-message'> = async ({ params, services, user }) => {
  await doReportMessage(
    services,
    user,
    params.message_id,
    params.report_type,
    params.description ?? '',
  );
  return {};
};

/** The operations of this area, by operationId. */
export const messageHandlers = {
  'report-message': reportMessage,
  'send-message': sendMessage,
  'get-messages': getMessages,
  'get-message': getMessage,
  'check-messages-match-narrow': checkMessagesMatchNarrow,
} satisfies Partial<HandlerMap>;
