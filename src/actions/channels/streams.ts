// Creating, archiving and changing channels. Each change is one transaction;
// `stream` events go out after the commit to the users who may see the channel.
import type { Realm, Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import { MAX_STREAM_DESCRIPTION_LENGTH, Role, SystemGroup } from '../../lib/constants';
import {
  canonicalSettingValue,
  checkMessageDeletionGrant,
  type GroupSettingValue,
} from '../../lib/groups/group-settings';
import { resolveGroupSettingValue } from '../groups/group-settings';
import { renderDescription } from '../../lib/channels/stream-description';
import { ChannelAccess, isAdmin, isGuest } from '../../lib/channels/stream-access';
import { metadataAccessUserIds } from '../../lib/channels/stream-audience';
import {
  checkStreamName,
  everyoneAllowed,
  presentStreams,
  streamByName,
  streamGroupDefaults,
  streamGroupSettings,
  systemGroupIds,
  type StreamGroupSetting,
} from '../../lib/channels/streams';
import { requireAdministrator } from '../../lib/realm/admin';
import type { EventBody, EventOf } from '../../events/queues';
import type { Services } from '../../services';
import { announceDefaultStreams, forgetArchivedDefaultStream } from './default-streams';
import { applyStreamSettings, type StreamSettingChanges } from './stream-settings';

/** The settings of channels a subscribe request may create. */
export interface NewStreamSettings {
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefault: boolean;
  /** Null picks the default: public for public channels, protected for private ones. */
  historyPublicToSubscribers: boolean | null;
  /** Null follows the organization; -1 keeps forever. */
  messageRetentionDays: number | null;
  topicsPolicy: string;
  folderId: number | null;
  /** Requested permission values; settings left out get their defaults. */
  groups: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
}

/** A channel to create: its name and description. */
export interface NewStream {
  name: string;
  description: string;
}

/** Refuses settings the creator may not choose, with Zulip's messages (checked before creating anything). */
export async function checkCreationPermissions(
  access: ChannelAccess,
  realm: Realm,
  settings: NewStreamSettings,
): Promise<void> {
  const user = access.user;
  const holds = async (groupId: number) => !isGuest(user) && (await access.holds(groupId));
  if (settings.inviteOnly && !(await holds(realm.canCreatePrivateChannelGroupId)))
    throw badRequest('Insufficient permission');
  if (!settings.inviteOnly && !(await holds(realm.canCreatePublicChannelGroupId)))
    throw badRequest('Insufficient permission');
  if (settings.isDefault && !isAdmin(user)) throw badRequest('Insufficient permission');
  if (settings.inviteOnly && settings.isDefault)
    throw badRequest('A default channel cannot be private.');
  if (settings.isWebPublic && !(await holds(realm.canCreateWebPublicChannelGroupId)))
    throw badRequest('Insufficient permission');
  if (settings.isWebPublic && settings.inviteOnly) throw badRequest('Invalid parameters');
  if (settings.messageRetentionDays !== null && user.role !== Role.OWNER) {
    throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  }
  if (settings.topicsPolicy !== 'inherit' && user.role > Role.MEMBER)
    throw badRequest('Insufficient permission');
}

/**
 * Creates the channels of `wanted` inside an open transaction, with the
 * permission groups they need, and publishes `stream` create events after the
 * commit. Returns the created channels.
 */
export async function createStreams(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  creator: User,
  wanted: NewStream[],
  settings: NewStreamSettings,
): Promise<Stream[]> {
  const system = await systemGroupIds(tx, realm.id);
  const nobodyId = system.get(SystemGroup.NOBODY)!;
  const created: Stream[] = [];
  for (const item of wanted) {
    const groupIds: Record<string, number> = {};
    for (const [setting, column] of Object.entries(streamGroupSettings) as [
      StreamGroupSetting,
      string,
    ][]) {
      const requested = settings.groups[setting];
      const value: GroupSettingValue =
        requested !== undefined
          ? canonicalSettingValue(requested, nobodyId)
          : streamGroupDefaults[setting] === 'creator'
            ? { direct_members: [creator.id], direct_subgroups: [] }
            : system.get(streamGroupDefaults[setting] as never)!;
      checkMessageDeletionGrant(setting, value, nobodyId, creator);
      groupIds[column] = await resolveGroupSettingValue(
        tx,
        realm.id,
        setting,
        { allowNobody: true, allowEveryone: everyoneAllowed.has(setting) },
        value,
      );
    }
    const name = item.name.trim();
    const description = item.description.replace(/\n/g, ' ');
    const stream = await tx.stream.create({
      data: {
        realmId: realm.id,
        name,
        nameLower: name.toLowerCase(),
        description,
        renderedDescription: await renderDescription(
          tx,
          realm,
          description,
          services.config.externalUrl,
        ),
        inviteOnly: settings.inviteOnly,
        isWebPublic: settings.isWebPublic,
        historyPublicToSubscribers: settings.inviteOnly
          ? (settings.historyPublicToSubscribers ?? false)
          : true,
        messageRetentionDays: settings.messageRetentionDays,
        topicsPolicy: settings.topicsPolicy,
        folderId: settings.folderId,
        isDefault: settings.isDefault,
        creatorId: creator.id,
        ...(groupIds as Record<(typeof streamGroupSettings)[StreamGroupSetting], number>),
      },
    });
    created.push(stream);
  }
  if (created.length > 0) {
    const objects = await presentStreams(tx, created);
    const audiences = await Promise.all(created.map((s) => metadataAccessUserIds(tx, s)));
    if (settings.isDefault) await announceDefaultStreams(tx, onCommit, services, realm.id);
    onCommit(() => {
      created.forEach((_, i) => {
        const event: EventBody = {
          type: 'stream',
          op: 'create',
          streams: [{ ...objects[i], stream_weekly_traffic: null }],
        };
        services.bus.publish(event, audiences[i]);
      });
    });
  }
  return created;
}

/** Checks that `user` may administer `stream`; "Invalid channel ID" when they may not even see it. */
export async function checkCanAdminister(
  access: ChannelAccess,
  stream: Stream | null,
): Promise<Stream> {
  if (!stream) throw badRequest('Invalid channel ID');
  if (await access.canAdminister(stream)) return stream;
  if (await access.hasContentAccess(stream))
    throw badRequest('You do not have permission to administer this channel.');
  throw badRequest('Invalid channel ID');
}

/** Publishes a `stream` update event for one property to everyone who may see the channel. */
function publishStreamUpdate(
  onCommit: OnCommit,
  services: Services,
  stream: Stream,
  audience: number[],
  property: string,
  value: EventOf<'stream', 'update'>['value'],
  extra: Partial<EventOf<'stream', 'update'>> = {},
): void {
  onCommit(() =>
    services.bus.publish(
      {
        type: 'stream',
        op: 'update',
        stream_id: stream.id,
        name: stream.name,
        property,
        value,
        ...extra,
      },
      audience,
    ),
  );
}

/** Archives a channel: no new messages, out of the default channels; subscriptions stay. */
export async function doArchiveStream(
  services: Services,
  user: User,
  streamId: number,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const access = new ChannelAccess(tx, user);
    const stream = await checkCanAdminister(
      access,
      await tx.stream.findFirst({ where: { id: streamId, realmId: user.realmId } }),
    );
    if (stream.isArchived) throw badRequest('Channel is already deactivated');
    await forgetArchivedDefaultStream(tx, onCommit, services, stream);
    const updated = await tx.stream.update({
      where: { id: stream.id },
      data: { isArchived: true },
    });
    const audience = await metadataAccessUserIds(tx, updated);
    // Clients that understand archived channels see it change; others see it go.
    const gone: EventBody = {
      type: 'stream',
      op: 'delete',
      streams: [{ stream_id: stream.id }],
      stream_ids: [stream.id],
    };
    onCommit(() =>
      services.bus.publish(
        {
          type: 'stream',
          op: 'update',
          stream_id: stream.id,
          name: stream.name,
          property: 'is_archived',
          value: true,
        },
        audience,
        {
          capability: 'archived_channels',
          event: gone,
        },
      ),
    );
  });
}

/** What PATCH /streams/{stream_id} may change here. */
export interface StreamChanges {
  description?: string;
  newName?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isArchived?: boolean;
  /** Make the channel a default channel (true) or take it out of them (false); administrators only. */
  isDefault?: boolean;
  /** Retention, topic policy, folder and permission settings. */
  settings?: StreamSettingChanges;
}

/** Changes a channel's name, description, privacy, settings or archived state, with one event per property. */
export async function doUpdateStream(
  services: Services,
  realm: Realm,
  user: User,
  streamId: number,
  changes: StreamChanges,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const access = new ChannelAccess(tx, user);
    const step: UpdateStep = { tx, onCommit, services, realm, user, access };
    let stream = await checkCanAdminister(
      access,
      await tx.stream.findFirst({ where: { id: streamId, realmId: realm.id } }),
    );
    if (changes.isDefault !== undefined) requireAdministrator(user);
    if ((changes.isPrivate ?? stream.inviteOnly) && (changes.isDefault ?? stream.isDefault))
      throw badRequest('A default channel cannot be private.');
    if (
      changes.isPrivate !== undefined ||
      changes.isWebPublic !== undefined ||
      changes.historyPublicToSubscribers !== undefined
    )
      stream = await changePrivacy(step, stream, changes);
    if (changes.isDefault !== undefined && changes.isDefault !== stream.isDefault) {
      stream = await tx.stream.update({
        where: { id: stream.id },
        data: { isDefault: changes.isDefault },
      });
      await announceDefaultStreams(tx, onCommit, services, realm.id);
    }
    if (changes.settings)
      stream = await applyStreamSettings(
        tx,
        onCommit,
        services,
        realm,
        user,
        access,
        stream,
        changes.settings,
      );
    if (changes.isArchived === false && stream.isArchived) stream = await unarchive(step, stream);
    if (changes.description !== undefined)
      stream = await changeDescription(step, stream, changes.description);
    if (changes.newName !== undefined) await rename(step, stream, changes.newName);
  });
}

/** What each step of a channel update works with: the open transaction and who asks. */
interface UpdateStep {
  tx: Db;
  onCommit: OnCommit;
  services: Services;
  realm: Realm;
  user: User;
  access: ChannelAccess;
}

/**
 * Changes who may see the channel and its history: checks the combination and
 * the permission for it, then tells people who gain or lose the channel, and
 * those who keep it what changed.
 */
async function changePrivacy(
  { tx, onCommit, services, realm, access }: UpdateStep,
  stream: Stream,
  changes: StreamChanges,
): Promise<Stream> {
  const before = await metadataAccessUserIds(tx, stream);
  const inviteOnly = changes.isPrivate ?? stream.inviteOnly;
  const webPublic = changes.isWebPublic ?? stream.isWebPublic;
  const history =
    changes.historyPublicToSubscribers ??
    (changes.isPrivate !== undefined ? !changes.isPrivate : stream.historyPublicToSubscribers);
  if ((webPublic && !history) || (webPublic && inviteOnly) || (!inviteOnly && !history))
    throw badRequest('Invalid parameters');
  if (changes.isPrivate !== undefined && !(await access.hasContentAccess(stream)))
    throw badRequest('Channel content access is required.');
  if (changes.isPrivate === true && !(await access.holds(realm.canCreatePrivateChannelGroupId)))
    throw badRequest('Insufficient permission');
  if (changes.isPrivate === false && !(await access.holds(realm.canCreatePublicChannelGroupId)))
    throw badRequest('Insufficient permission');
  if (changes.isWebPublic && !(await access.holds(realm.canCreateWebPublicChannelGroupId)))
    throw badRequest('Insufficient permission');
  const updated = await tx.stream.update({
    where: { id: stream.id },
    data: { inviteOnly, isWebPublic: webPublic, historyPublicToSubscribers: history },
  });
  const after = await metadataAccessUserIds(tx, updated);
  const objects = await presentStreams(tx, [updated]);
  const gained = after.filter((id) => !before.includes(id));
  const lost = before.filter((id) => !after.includes(id));
  onCommit(() => {
    if (gained.length)
      services.bus.publish({ type: 'stream', op: 'create', streams: objects }, gained);
    if (lost.length)
      services.bus.publish(
        {
          type: 'stream',
          op: 'delete',
          streams: [{ stream_id: updated.id }],
          stream_ids: [updated.id],
        },
        lost,
      );
  });
  const extra = { history_public_to_subscribers: history, is_web_public: webPublic };
  publishStreamUpdate(
    onCommit,
    services,
    updated,
    after.filter((id) => !gained.includes(id)),
    'invite_only',
    inviteOnly,
    extra,
  );
  return updated;
}

/** Brings an archived channel back; clients without archived channels see it created anew. */
async function unarchive({ tx, onCommit, services }: UpdateStep, stream: Stream): Promise<Stream> {
  const unarchived = await tx.stream.update({
    where: { id: stream.id },
    data: { isArchived: false },
  });
  const audience = await metadataAccessUserIds(tx, unarchived);
  const [object] = await presentStreams(tx, [unarchived]);
  const back: EventBody = { type: 'stream', op: 'create', streams: [object] };
  onCommit(() =>
    services.bus.publish(
      {
        type: 'stream',
        op: 'update',
        stream_id: unarchived.id,
        name: unarchived.name,
        property: 'is_archived',
        value: false,
      },
      audience,
      { capability: 'archived_channels', event: back },
    ),
  );
  return unarchived;
}

/** Sets the description (on one line) and its rendered form. */
async function changeDescription(
  { tx, onCommit, services, realm }: UpdateStep,
  stream: Stream,
  requested: string,
): Promise<Stream> {
  const description = requested.replace(/\n/g, ' ');
  if ([...description].length > MAX_STREAM_DESCRIPTION_LENGTH)
    throw badRequest(
      `description is too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters)`,
    );
  const rendered = await renderDescription(tx, realm, description, services.config.externalUrl);
  const updated = await tx.stream.update({
    where: { id: stream.id },
    data: { description, renderedDescription: rendered },
  });
  publishStreamUpdate(
    onCommit,
    services,
    updated,
    await metadataAccessUserIds(tx, updated),
    'description',
    description,
    { rendered_description: rendered },
  );
  return updated;
}

/** Renames the channel; a name another channel holds is refused without revealing a hidden one. */
async function rename(
  { tx, onCommit, services, realm, access }: UpdateStep,
  stream: Stream,
  requested: string,
): Promise<Stream> {
  const name = requested.trim();
  if (stream.name === name) throw badRequest('Channel already has that name.');
  checkStreamName(name);
  if (stream.name.toLowerCase() !== name.toLowerCase()) {
    const clash = await streamByName(tx, realm.id, name);
    if (clash) {
      throw badRequest(
        (await access.hasMetadataAccess(clash))
          ? `Channel name '${name}' is already taken.`
          : 'Insufficient permission',
      );
    }
  }
  const renamed = await tx.stream.update({
    where: { id: stream.id },
    data: { name, nameLower: name.toLowerCase() },
  });
  const audience = await metadataAccessUserIds(tx, renamed);
  onCommit(() =>
    services.bus.publish(
      {
        type: 'stream',
        op: 'update',
        stream_id: renamed.id,
        name: stream.name,
        property: 'name',
        value: name,
      },
      audience,
    ),
  );
  return renamed;
}
