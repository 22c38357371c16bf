// Setting a user's visibility policy for a topic (muted, unmuted, followed,
// or none). A change goes to the user's clients as a user_topic event, and as
// the deprecated muted_topics event (the whole list) to clients that did not
// ask for user_topic by name; setting the policy a topic already has changes
// nothing and sends nothing.
import type { Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { ChannelAccess } from '../../lib/channels/stream-access';
import { streamById, streamByName } from '../../lib/channels/streams';
import { mutedTopicsOf, VisibilityPolicy } from '../../lib/users/user-topics';
import type { Services } from '../../services';

/** How a request names the channel: by ID or by name. */
export type ChannelRef = { id: number } | { name: string };

/**
 * The channel a user may set a policy in: one whose messages they may read,
 * not archived (Zulip's access_stream_by_id / _by_name errors otherwise).
 */
async function channelToSetPolicyIn(db: Db, user: User, ref: ChannelRef): Promise<Stream> {
  const stream =
    'id' in ref
      ? await streamById(db, user.realmId, ref.id)
      : await streamByName(db, user.realmId, ref.name);
  if (!stream || stream.isArchived || !(await new ChannelAccess(db, user).hasContentAccess(stream)))
    throw badRequest('id' in ref ? 'Invalid channel ID' : `Invalid channel name '${ref.name}'`);
  return stream;
}

/**
 * The channel a user may remove a policy in: any channel of the organization,
 * so that policies outlive access to the channel; `error` otherwise.
 */
async function channelToRemovePolicyIn(
  db: Db,
  user: User,
  ref: ChannelRef,
  error: string,
): Promise<Stream> {
  const stream =
    'id' in ref
      ? await streamById(db, user.realmId, ref.id)
      : await streamByName(db, user.realmId, ref.name);
  if (!stream) throw badRequest(error);
  return stream;
}

/** Stores `policy` for the topic and publishes the change; nothing when the topic already has it. */
async function setPolicy(
  services: Services,
  user: User,
  ref: ChannelRef,
  topic: string,
  policy: number,
  removeError: string,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const stream =
      policy === VisibilityPolicy.INHERIT
        ? await channelToRemovePolicyIn(tx, user, ref, removeError)
        : await channelToSetPolicyIn(tx, user, ref);
    const key = { userId: user.id, streamId: stream.id, topicLower: topic.toLowerCase() };
    const row = await tx.userTopic.findUnique({ where: { userId_streamId_topicLower: key } });
    const now = new Date();
    if (policy === VisibilityPolicy.INHERIT) {
      if (!row) return;
      await tx.userTopic.delete({ where: { id: row.id } });
    } else if (!row) {
      await tx.userTopic.create({
        data: { ...key, topicName: topic, visibilityPolicy: policy, lastUpdated: now },
      });
    } else {
      if (row.visibilityPolicy === policy) return;
      await tx.userTopic.update({
        where: { id: row.id },
        data: { visibilityPolicy: policy, lastUpdated: now },
      });
    }
    const mutedTopics = await mutedTopicsOf(tx, user.id);
    onCommit(() => {
      services.bus.publishSuperseded(
        { type: 'muted_topics', muted_topics: mutedTopics },
        [user.id],
        'user_topic',
      );
      services.bus.publish(
        {
          type: 'user_topic',
          stream_id: stream.id,
          topic_name: topic,
          last_updated: Math.floor(now.getTime() / 1000),
          visibility_policy: policy as 0 | 1 | 2 | 3,
        },
        [user.id],
      );
    });
  });
}

/** POST /user_topics: sets the user's policy for a topic of a channel. */
export async function doSetUserTopicVisibilityPolicy(
  services: Services,
  user: User,
  streamId: number,
  topic: string,
  policy: number,
): Promise<void> {
  await setPolicy(services, user, { id: streamId }, topic, policy, 'Invalid channel ID');
}

/**
 * The legacy PATCH /users/me/subscriptions/muted_topics: `add` mutes the
 * topic, `remove` takes any policy off it. The channel is named by exactly one
 * of `streamId` and `streamName`.
 */
export async function doMuteTopic(
  services: Services,
  user: User,
  channel: { streamId?: number; streamName?: string },
  topic: string,
  op: 'add' | 'remove',
): Promise<void> {
  const { streamId, streamName } = channel;
  if (streamId === undefined && streamName === undefined)
    throw badRequest("Missing 'stream_id' argument");
  if (streamId !== undefined && streamName !== undefined)
    throw incompatible(['stream_id', 'stream']);
  const ref: ChannelRef = streamId !== undefined ? { id: streamId } : { name: streamName! };
  const policy = op === 'add' ? VisibilityPolicy.MUTED : VisibilityPolicy.INHERIT;
  await setPolicy(services, user, ref, topic, policy, 'Topic is not muted');
}

/** Zulip's refusal of parameters that may not be sent together. */
function incompatible(parameters: string[]): ApiError {
  const joined = parameters.join(', ');
  return new ApiError(`Unsupported parameter combination: ${joined}`, 'BAD_REQUEST', 400, {
    parameters: joined,
  });
}
