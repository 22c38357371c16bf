// Topic visibility policies: a user's muted, unmuted and followed topics, as
// the API shows them and in the initial state (`user_topic`, and the
// deprecated `muted_topics` of muted ones).
import type { UserTopic } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import type { StateProvider } from '../state';

/** The visibility policies of a topic, as the API numbers them. */
export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** One topic's policy as the API shows it (register `user_topics` and `user_topic` events). */
export function presentUserTopic(
  row: Pick<UserTopic, 'streamId' | 'topicName' | 'lastUpdated' | 'visibilityPolicy'>,
) {
  return {
    stream_id: row.streamId,
    topic_name: row.topicName,
    last_updated: seconds(row.lastUpdated),
    visibility_policy: row.visibilityPolicy,
  };
}

/**
 * The user's topic policies (of one policy, when given) in channels that are
 * not archived, oldest first, with the names of those channels.
 */
async function liveUserTopics(db: Db, userId: number, policy?: number) {
  const rows = await db.userTopic.findMany({
    where: { userId, ...(policy === undefined ? {} : { visibilityPolicy: policy }) },
    orderBy: { id: 'asc' },
  });
  const streams =
    rows.length === 0
      ? []
      : await db.stream.findMany({
          where: { id: { in: [...new Set(rows.map((r) => r.streamId))] }, isArchived: false },
          select: { id: true, name: true },
        });
  const names = new Map(streams.map((s) => [s.id, s.name]));
  return { rows: rows.filter((r) => names.has(r.streamId)), names };
}

/**
 * The deprecated `muted_topics` list: [channel name, topic, time muted] for
 * each muted topic of a channel that is not archived.
 */
export async function mutedTopicsOf(db: Db, userId: number): Promise<[string, string, number][]> {
  const { rows, names } = await liveUserTopics(db, userId, VisibilityPolicy.MUTED);
  return rows.map((r) => [names.get(r.streamId)!, r.topicName, seconds(r.lastUpdated)]);
}

/** `user_topic`: every topic the user set a policy for. */
export const userTopicsState: StateProvider = async ({ db, user }) => ({
  user_topics: (await liveUserTopics(db, user.id)).rows.map(presentUserTopic),
});

/** `muted_topics` (deprecated): left out when `user_topic` is asked for by name, as Zulip does. */
export const mutedTopicsState: StateProvider = async ({ db, user, fetchEventTypes }) =>
  fetchEventTypes !== null && fetchEventTypes.includes('user_topic')
    ? {}
    : { muted_topics: await mutedTopicsOf(db, user.id) };
