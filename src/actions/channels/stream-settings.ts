// The settings part of PATCH /streams/{stream_id}: retention, topic policy,
// folder and the group-valued permissions, each changed inside the caller's
// transaction with a `stream` update event per property after the commit.
import type { Realm, Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { EMPTY_TOPIC_DISPLAY_NAME, Role, SystemGroup } from '../../lib/constants';
import {
  checkMessageDeletionGrant,
  readGroupSettingValue,
  requestedSettingValue,
  type SettingChange,
} from '../../lib/groups/group-settings';
import { resolveGroupSettingValue } from '../groups/group-settings';
import { channelFolderById } from '../../lib/channels/channel-folders';
import type { ChannelAccess } from '../../lib/channels/stream-access';
import { metadataAccessUserIds } from '../../lib/channels/stream-audience';
import {
  everyoneAllowed,
  streamGroupSettings,
  systemGroupIds,
  type StreamGroupSetting,
} from '../../lib/channels/streams';
import type { Services } from '../../services';
import type { EventOf } from '../../events/queues';

/** A channel property change, as the stream update event carries it. */
type StreamUpdateEvent = EventOf<'stream', 'update'>;

/** A `{new, old}` change of one permission setting. */
export type GroupSettingChange = SettingChange;

/** The setting changes PATCH /streams/{stream_id} may carry. */
export interface StreamSettingChanges {
  /** null follows the organization, -1 keeps forever. */
  messageRetentionDays?: number | null;
  topicsPolicy?: string;
  /** null takes the channel out of its folder. */
  folderId?: number | null;
  groups?: Partial<Record<StreamGroupSetting, GroupSettingChange>>;
}

/** Settings that also need content access to change (they grant it). */
const contentGranting = new Set<StreamGroupSetting>([
  'can_add_subscribers_group',
  'can_subscribe_group',
]);

/** Applies setting changes to `stream` (already checked administrable); returns the updated row. */
export async function applyStreamSettings(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  user: User,
  access: ChannelAccess,
  stream: Stream,
  changes: StreamSettingChanges,
): Promise<Stream> {
  const events: StreamUpdateEvent[] = [];
  const event = (property: string, value: StreamUpdateEvent['value']) =>
    events.push({
      type: 'stream',
      op: 'update',
      stream_id: stream.id,
      name: stream.name,
      property,
      value,
    });
  if (changes.messageRetentionDays !== undefined) {
    if (user.role !== Role.OWNER)
      throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
    stream = await tx.stream.update({
      where: { id: stream.id },
      data: { messageRetentionDays: changes.messageRetentionDays },
    });
    event('message_retention_days', changes.messageRetentionDays);
  }
  if (changes.topicsPolicy !== undefined) {
    if (user.role > Role.MEMBER) throw badRequest('Insufficient permission');
    if (
      changes.topicsPolicy === 'empty_topic_only' &&
      (await tx.message.findFirst({
        where: { streamId: stream.id, topic: { not: '' } },
        select: { id: true },
      }))
    ) {
      throw badRequest(
        `To enable this configuration, all messages in this channel must be in the ${EMPTY_TOPIC_DISPLAY_NAME} topic. Consider renaming or deleting other topics.`,
      );
    }
    stream = await tx.stream.update({
      where: { id: stream.id },
      data: { topicsPolicy: changes.topicsPolicy },
    });
    event('topics_policy', changes.topicsPolicy);
  }
  if (changes.folderId !== undefined && changes.folderId !== stream.folderId) {
    if (changes.folderId !== null) await channelFolderById(tx, realm.id, changes.folderId);
    stream = await tx.stream.update({
      where: { id: stream.id },
      data: { folderId: changes.folderId },
    });
    event('folder_id', changes.folderId);
  }
  const requested = Object.entries(changes.groups ?? {}) as [
    StreamGroupSetting,
    GroupSettingChange,
  ][];
  if (requested.length > 0) {
    const nobodyId = (await systemGroupIds(tx, realm.id)).get(SystemGroup.NOBODY)!;
    for (const [setting, change] of requested) {
      const column = streamGroupSettings[setting];
      const next = await requestedSettingValue(tx, stream[column], change, nobodyId);
      if (next === null) continue;
      if (contentGranting.has(setting) && !(await access.hasContentAccess(stream)))
        throw badRequest('Channel content access is required.');
      checkMessageDeletionGrant(setting, next, nobodyId, user);
      const groupId = await resolveGroupSettingValue(
        tx,
        realm.id,
        setting,
        { allowNobody: true, allowEveryone: everyoneAllowed.has(setting) },
        next,
        stream[column],
      );
      stream = await tx.stream.update({ where: { id: stream.id }, data: { [column]: groupId } });
      event(setting, await readGroupSettingValue(tx, groupId));
    }
  }
  if (events.length > 0) {
    const audience = await metadataAccessUserIds(tx, stream);
    onCommit(() => {
      for (const e of events) services.bus.publish(e, audience);
    });
  }
  return stream;
}
