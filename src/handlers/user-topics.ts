// Topic visibility policies: POST /user_topics and the legacy
// PATCH /users/me/subscriptions/muted_topics.
import { doMuteTopic, doSetUserTopicVisibilityPolicy } from '../actions/users/user-topics';
import type { Handler, HandlerMap } from './types';

/** Sets the user's visibility policy for a topic. */
export const updateUserTopic: Handler<'update-user-topic'> = async ({ params, services, user }) => {
  await doSetUserTopicVisibilityPolicy(
    services,
    user,
    params.stream_id,
    params.topic,
    params.visibility_policy,
  );
  return {};
};

/** Mutes or unmutes a topic, the older way. */
export const muteTopic: Handler<'mute-topic'> = async ({ params, services, user }) => {
  await doMuteTopic(
    services,
    user,
    { streamId: params.stream_id, streamName: params.stream },
    params.topic,
    params.op,
  );
  return {};
};

/** The operations of this area, by operationId. */
export const userTopicHandlers = {
  'update-user-topic': updateUserTopic,
  'mute-topic': muteTopic,
} satisfies Partial<HandlerMap>;
