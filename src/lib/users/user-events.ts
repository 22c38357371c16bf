// Reads the actions of the users and groups area need for their events:
// which system groups a role belongs to, and the anonymous group settings a
// user is a direct member of.
import type { Db } from '../../db/client';
import type { EventBody } from '../../events/queues';
import { Role, SystemGroup, type SystemGroupName } from '../constants';
import {
  readGroupSettingValues,
  realmGroupSettings,
  type GroupSettingValue,
} from '../groups/group-settings';
import { groupSettingColumns } from '../groups/user-groups';
import { apiEmail, canSeeDeliveryEmail, realmHost } from './users';

/**
 * The system groups a user of `role` belongs to directly. Members belong to
 * role:fullmembers too once their account is older than the waiting period.
 */
export function systemGroupsFor(role: number, fullMember: boolean): SystemGroupName[] {
  switch (role) {
    case Role.OWNER:
      return [SystemGroup.OWNERS];
    case Role.ADMINISTRATOR:
      return [SystemGroup.ADMINISTRATORS];
    case Role.MODERATOR:
      return [SystemGroup.MODERATORS];
    case Role.MEMBER:
      return fullMember ? [SystemGroup.MEMBERS, SystemGroup.FULL_MEMBERS] : [SystemGroup.MEMBERS];
    default:
      return [SystemGroup.EVERYONE];
  }
}

/** Whether an account created at `dateJoined` has passed a waiting period of `days`. */
export function pastWaitingPeriod(dateJoined: Date, days: number, now = new Date()): boolean {
  return now.getTime() - dateJoined.getTime() >= days * 86_400_000;
}

/** An event that announces the new value of an anonymous group setting. */
export type SettingEvent =
  | {
      type: 'realm';
      op: 'update_dict';
      property: 'default';
      data: Record<string, GroupSettingValue>;
    }
  | { type: 'user_group'; op: 'update'; group_id: number; data: Record<string, GroupSettingValue> };

/**
 * For each anonymous group in `groupIds`, the event that tells clients its
 * current value: a realm update_dict for organization settings, a user_group
 * update for a group's own settings.
 */
export async function anonymousSettingEvents(
  db: Db,
  realmId: number,
  groupIds: number[],
): Promise<SettingEvent[]> {
  if (groupIds.length === 0) return [];
  const values = await readGroupSettingValues(db, groupIds);
  const events: SettingEvent[] = [];
  const realm = await db.realm.findUniqueOrThrow({ where: { id: realmId } });
  for (const [name, column] of Object.entries(realmGroupSettings)) {
    if (groupIds.includes(realm[column]))
      events.push({
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { [name]: values.get(realm[column])! },
      });
  }
  const groups = await db.userGroup.findMany({
    where: { realmId, name: { not: null } },
    orderBy: { id: 'asc' },
  });
  for (const group of groups) {
    for (const [name, column] of Object.entries(groupSettingColumns)) {
      const id = group[column];
      if (id !== null && groupIds.includes(id))
        events.push({
          type: 'user_group',
          op: 'update',
          group_id: group.id,
          data: { [name]: values.get(id)! },
        });
    }
  }
  return events;
}

/** An event and who receives it. */
export interface Addressed {
  event: EventBody;
  userIds: number[];
}

/**
 * What others must hear when a user changes their own settings: a new email
 * visibility changes the `email` everyone sees and who sees `delivery_email`;
 * turning presence off or on shows as the legacy `away` status.
 */
export async function ownSettingsEvents(
  db: Db,
  before: {
    id: number;
    realmId: number;
    email: string;
    isBot: boolean;
    emailAddressVisibility: number;
    presenceEnabled: boolean;
  },
  changed: Record<string, unknown>,
  externalUrl: string,
): Promise<Addressed[]> {
  const out: Addressed[] = [];
  const viewers = await db.user.findMany({
    where: { realmId: before.realmId, isActive: true },
    select: { id: true, role: true },
  });
  const everyone = viewers.map((v) => v.id);
  if (typeof changed.emailAddressVisibility === 'number') {
    const after = { ...before, emailAddressVisibility: changed.emailAddressVisibility };
    const realm = await db.realm.findUniqueOrThrow({ where: { id: before.realmId } });
    const host = realmHost(realm, externalUrl);
    if (apiEmail(before, host) !== apiEmail(after, host))
      out.push({
        event: {
          type: 'realm_user',
          op: 'update',
          person: { user_id: before.id, email: apiEmail(after, host) },
        },
        userIds: everyone,
      });
    for (const viewer of viewers) {
      const had = canSeeDeliveryEmail(viewer, before);
      const has = canSeeDeliveryEmail(viewer, after);
      if (had !== has)
        out.push({
          event: {
            type: 'realm_user',
            op: 'update',
            person: { user_id: before.id, delivery_email: has ? before.email : null },
          },
          userIds: [viewer.id],
        });
    }
  }
  if (
    typeof changed.presenceEnabled === 'boolean' &&
    changed.presenceEnabled !== before.presenceEnabled
  ) {
    out.push({
      event: { type: 'user_status', user_id: before.id, away: !changed.presenceEnabled },
      userIds: everyone,
    });
  }
  return out;
}
