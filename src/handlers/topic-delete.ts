// POST /streams/{stream_id}/delete_topic.
import { doDeleteTopic } from '../actions/messages/message-delete';
import type { Handler, HandlerMap } from './types';

/** Deletes the messages of a topic, batch by batch; `complete` is false when time ran out first. */
export const deleteTopic: Handler<'delete-topic'> = async ({ params, services, user }) => ({
  complete: await doDeleteTopic(services, user, params.stream_id, params.topic_name),
});

/** The operations of this area, by operationId. */
export const topicDeleteHandlers = {
  'delete-topic': deleteTopic,
} satisfies Partial<HandlerMap>;
