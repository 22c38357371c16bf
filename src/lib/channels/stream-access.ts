// Who may see what of a channel. Zulip distinguishes metadata access (seeing
// that a channel exists: its name, description, settings) from content access
// (reading its messages), and history access (messages sent before joining).
// Every read path that can reveal a channel or its messages asks here.
import type { Stream, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { Role } from '../constants';
import { groupsOfUser } from '../groups/permissions';

/** The parts of a user that access checks read. */
export type Viewer = Pick<User, 'id' | 'role' | 'realmId' | 'isBot' | 'botOwnerId'>;

/** Whether `user` is an organization administrator (or owner). */
export function isAdmin(user: Pick<User, 'role'>): boolean {
  return user.role <= Role.ADMINISTRATOR;
}

/** Whether `user` is a guest. */
export function isGuest(user: Pick<User, 'role'>): boolean {
  return user.role >= Role.GUEST;
}

/** Answers access questions for one user, reading subscriptions and groups once. */
export class ChannelAccess {
  private subscribed: Promise<Set<number>> | undefined;
  private groups: Promise<Set<number>> | undefined;

  constructor(
    private readonly db: Db,
    readonly user: Viewer,
  ) {}

  /** IDs of the channels the user is actively subscribed to. */
  subscribedIds(): Promise<Set<number>> {
    this.subscribed ??= this.db.subscription
      .findMany({ where: { userId: this.user.id, active: true }, select: { streamId: true } })
      .then((rows) => new Set(rows.map((r) => r.streamId)));
    return this.subscribed;
  }

  /** IDs of the groups the user belongs to, directly or through subgroups. */
  groupIds(): Promise<Set<number>> {
    this.groups ??= groupsOfUser(this.db, this.user.id);
    return this.groups;
  }

  /** Whether the user is subscribed to `stream`. */
  async isSubscribed(stream: Pick<Stream, 'id'>): Promise<boolean> {
    return (await this.subscribedIds()).has(stream.id);
  }

  /** Whether the user holds the permission stored as group `groupId`. */
  async holds(groupId: number): Promise<boolean> {
    return (await this.groupIds()).has(groupId);
  }

  /** Whether the user may read the channel's messages (those they can see by its history rule). */
  async hasContentAccess(stream: Stream): Promise<boolean> {
    if (stream.isWebPublic) return true;
    if (await this.isSubscribed(stream)) return true;
    if (isGuest(this.user)) return false;
    if (!stream.inviteOnly) return true;
    // Those who may subscribe themselves, or add others, may read the content too.
    return (
      (await this.holds(stream.canSubscribeGroupId)) ||
      (await this.holds(stream.canAddSubscribersGroupId))
    );
  }

  /** Whether the user may know the channel exists and see its settings. */
  async hasMetadataAccess(stream: Stream): Promise<boolean> {
    if (await this.hasContentAccess(stream)) return true;
    if (isGuest(this.user)) return false;
    if (isAdmin(this.user)) return true;
    return this.holds(stream.canAdministerChannelGroupId);
  }

  /** Whether the user may read messages sent to the channel before they joined. */
  async hasHistoryAccess(stream: Stream): Promise<boolean> {
    if (stream.isWebPublic) return true;
    if (!stream.inviteOnly && !isGuest(this.user)) return true;
    if (!stream.historyPublicToSubscribers) return false;
    return this.hasContentAccess(stream);
  }

  /** Whether the user may administer the channel (organization administrators always may). */
  async canAdminister(stream: Stream): Promise<boolean> {
    if (isAdmin(this.user)) return true;
    if (isGuest(this.user)) return false;
    return this.holds(stream.canAdministerChannelGroupId);
  }

  /** The subset of `streams` the user has metadata access to, in order. */
  async withMetadataAccess(streams: Stream[]): Promise<Stream[]> {
    const out: Stream[] = [];
    for (const s of streams) if (await this.hasMetadataAccess(s)) out.push(s);
    return out;
  }

  /** The subset of `streams` the user has content access to, in order. */
  async withContentAccess(streams: Stream[]): Promise<Stream[]> {
    const out: Stream[] = [];
    for (const s of streams) if (await this.hasContentAccess(s)) out.push(s);
    return out;
  }
}
