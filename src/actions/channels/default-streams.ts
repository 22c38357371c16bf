// Changing the organization's default channels and default channel groups.
// Each change sends the whole new list to every active user but guests, in a
// `default_streams` or `default_stream_groups` event, after it commits.
import type { Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { ApiError, badRequest } from '../../errors';
import {
  checkDefaultStreamGroupName,
  defaultStreamGroupById,
  defaultStreamIds,
  listDefaultStreamGroups,
} from '../../lib/channels/default-streams';
import { ChannelAccess } from '../../lib/channels/stream-access';
import { Role } from '../../lib/constants';
import { requireAdministrator } from '../../lib/realm/admin';
import type { Services } from '../../services';

/** Who hears about default channels: the active users of the organization but guests. */
async function nonGuestUserIds(tx: Db, realmId: number): Promise<number[]> {
  const users = await tx.user.findMany({
    where: { realmId, isActive: true, role: { not: Role.GUEST } },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return users.map((u) => u.id);
}

/** Sends the organization's default channels, as they are now, once committed. */
export async function announceDefaultStreams(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realmId: number,
): Promise<void> {
  const ids = await defaultStreamIds(tx, realmId);
  const audience = await nonGuestUserIds(tx, realmId);
  onCommit(() => services.bus.publish({ type: 'default_streams', default_streams: ids }, audience));
}

/** Sends the organization's default channel groups, as they are now, once committed. */
async function announceGroups(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realmId: number,
): Promise<void> {
  const groups = await listDefaultStreamGroups(tx, realmId);
  const audience = await nonGuestUserIds(tx, realmId);
  onCommit(() =>
    services.bus.publish(
      { type: 'default_stream_groups', default_stream_groups: groups },
      audience,
    ),
  );
}

/**
 * Takes an archived channel out of the default channels and of every default
 * channel group, announcing what changed (inside the archiving transaction).
 */
export async function forgetArchivedDefaultStream(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  stream: Stream,
): Promise<void> {
  if (stream.isDefault) {
    await tx.stream.update({ where: { id: stream.id }, data: { isDefault: false } });
    await announceDefaultStreams(tx, onCommit, services, stream.realmId);
  }
  const { count } = await tx.defaultStreamGroupStream.deleteMany({
    where: { streamId: stream.id },
  });
  if (count > 0) await announceGroups(tx, onCommit, services, stream.realmId);
}

// The channel `streamId` of the actor's organization, if the actor may reach it
// (its messages, or only its settings when `metadataOnly`).
async function reachableStream(
  tx: Db,
  actor: User,
  streamId: number,
  metadataOnly: boolean,
): Promise<Stream> {
  const stream = await tx.stream.findFirst({
    where: { id: streamId, realmId: actor.realmId, isArchived: false },
  });
  const access = new ChannelAccess(tx, actor);
  if (
    !stream ||
    !(metadataOnly ? await access.hasMetadataAccess(stream) : await access.hasContentAccess(stream))
  )
    throw badRequest('Invalid channel ID');
  return stream;
}

// The channels named in `names`, which the actor must be able to read, in order.
async function streamsByName(tx: Db, actor: User, names: string[]): Promise<Stream[]> {
  const access = new ChannelAccess(tx, actor);
  const out: Stream[] = [];
  for (const name of names) {
    const stream = await tx.stream.findFirst({
      where: { realmId: actor.realmId, nameLower: name.toLowerCase(), isArchived: false },
    });
    if (!stream || !(await access.hasContentAccess(stream)))
      throw badRequest(`Invalid channel name '${name}'`);
    if (!out.some((s) => s.id === stream.id)) out.push(stream);
  }
  return out;
}

/** An administrator makes a public channel a default channel (nothing changes if it is one). */
export async function doAddDefaultStream(
  services: Services,
  actor: User,
  streamId: number,
): Promise<void> {
  requireAdministrator(actor);
  await services.db.write(async (tx, onCommit) => {
    const stream = await reachableStream(tx, actor, streamId, false);
    if (stream.inviteOnly) throw badRequest('Private channels cannot be made default.');
    if (stream.isDefault) return;
    await tx.stream.update({ where: { id: stream.id }, data: { isDefault: true } });
    await announceDefaultStreams(tx, onCommit, services, actor.realmId);
  });
}

/** An administrator takes a channel out of the default channels. */
export async function doRemoveDefaultStream(
  services: Services,
  actor: User,
  streamId: number,
): Promise<void> {
  requireAdministrator(actor);
  await services.db.write(async (tx, onCommit) => {
    const stream = await reachableStream(tx, actor, streamId, true);
    await tx.stream.update({ where: { id: stream.id }, data: { isDefault: false } });
    await announceDefaultStreams(tx, onCommit, services, actor.realmId);
  });
}

// Refuses default channels in a group, as Zulip does.
function refuseDefaults(streams: Stream[], groupName: string): void {
  const inDefaults = streams.find((s) => s.isDefault);
  if (inDefaults)
    throw badRequest(
      `'${inDefaults.name}' is a default channel and cannot be added to '${groupName}'`,
    );
}

/** An administrator creates a default channel group. */
export async function doCreateDefaultStreamGroup(
  services: Services,
  actor: User,
  input: { name: string; description: string; streamNames: string[] },
): Promise<void> {
  requireAdministrator(actor);
  await services.db.write(async (tx, onCommit) => {
    const streams = await streamsByName(tx, actor, input.streamNames);
    refuseDefaults(streams, input.name);
    checkDefaultStreamGroupName(input.name);
    if (
      await tx.defaultStreamGroup.findUnique({
        where: { realmId_name: { realmId: actor.realmId, name: input.name } },
      })
    )
      throw badRequest(`Default channel group '${input.name}' already exists`);
    const group = await tx.defaultStreamGroup.create({
      data: { realmId: actor.realmId, name: input.name, description: input.description },
    });
    await tx.defaultStreamGroupStream.createMany({
      data: streams.map((s) => ({ groupId: group.id, streamId: s.id })),
    });
    await announceGroups(tx, onCommit, services, actor.realmId);
  });
}

/** An administrator renames a default channel group or changes its description. */
export async function doUpdateDefaultStreamGroup(
  services: Services,
  actor: User,
  groupId: number,
  change: { name?: string; description?: string },
): Promise<void> {
  requireAdministrator(actor);
  if (!change.name && !change.description)
    throw badRequest('You must pass "new_description" or "new_group_name".');
  await services.db.write(async (tx, onCommit) => {
    const group = await defaultStreamGroupById(tx, actor.realmId, groupId);
    if (change.name !== undefined) {
      if (group.name === change.name)
        throw badRequest(`This default channel group is already named '${change.name}'`);
      checkDefaultStreamGroupName(change.name);
      if (
        await tx.defaultStreamGroup.findUnique({
          where: { realmId_name: { realmId: actor.realmId, name: change.name } },
        })
      )
        throw badRequest(`Default channel group '${change.name}' already exists`);
    }
    await tx.defaultStreamGroup.update({
      where: { id: group.id },
      data: {
        name: change.name ?? group.name,
        description: change.description ?? group.description,
      },
    });
    await announceGroups(tx, onCommit, services, actor.realmId);
  });
}

/** An administrator adds channels to a default channel group, or removes them. */
export async function doUpdateDefaultStreamGroupStreams(
  services: Services,
  actor: User,
  groupId: number,
  op: string,
  streamNames: string[],
): Promise<void> {
  requireAdministrator(actor);
  await services.db.write(async (tx, onCommit) => {
    const group = await defaultStreamGroupById(tx, actor.realmId, groupId);
    const streams = await streamsByName(tx, actor, streamNames);
    const present = new Set(
      (await tx.defaultStreamGroupStream.findMany({ where: { groupId: group.id } })).map(
        (m) => m.streamId,
      ),
    );
    if (op === 'add') {
      for (const stream of streams) {
        refuseDefaults([stream], group.name);
        if (present.has(stream.id))
          throw badRequest(
            `Channel '${stream.name}' is already present in default channel group '${group.name}'`,
          );
      }
      await tx.defaultStreamGroupStream.createMany({
        data: streams.map((s) => ({ groupId: group.id, streamId: s.id })),
      });
    } else if (op === 'remove') {
      const absent = streams.find((s) => !present.has(s.id));
      if (absent)
        throw badRequest(
          `Channel '${absent.name}' is not present in default channel group '${group.name}'`,
        );
      await tx.defaultStreamGroupStream.deleteMany({
        where: { groupId: group.id, streamId: { in: streams.map((s) => s.id) } },
      });
    } else {
      throw new ApiError('Invalid value for "op". Specify one of "add" or "remove".');
    }
    await announceGroups(tx, onCommit, services, actor.realmId);
  });
}

/** An administrator deletes a default channel group (its channels stay as they are). */
export async function doRemoveDefaultStreamGroup(
  services: Services,
  actor: User,
  groupId: number,
): Promise<void> {
  requireAdministrator(actor);
  await services.db.write(async (tx, onCommit) => {
    const group = await defaultStreamGroupById(tx, actor.realmId, groupId);
    await tx.defaultStreamGroupStream.deleteMany({ where: { groupId: group.id } });
    await tx.defaultStreamGroup.delete({ where: { id: group.id } });
    await announceGroups(tx, onCommit, services, actor.realmId);
  });
}
