// Changing organization settings (PATCH /realm): plain settings and group
// settings, each change announced to everyone as a realm update_dict event.
// A new waiting period moves members in or out of role:fullmembers.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { Role, SystemGroup } from '../../lib/constants';
import {
  readGroupSettingValue,
  requestedSettingValue,
  type SettingChange,
  realmGroupSettingRules,
  realmGroupSettings,
  systemGroupId,
} from '../../lib/groups/group-settings';
import { resolveGroupSettingValue } from '../groups/group-settings';
import { editHistoryPolicies } from '../../lib/realm/realm';
import { pastWaitingPeriod } from '../../lib/users/user-events';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

/** A realm group setting's API name. */
export type RealmGroupSettingName = keyof typeof realmGroupSettings;

/** Settings only owners may change. */
const ownerOnlySettings: RealmGroupSettingName[] = ['can_create_groups', 'can_manage_all_groups'];

/** The plain settings PATCH /realm changes: API name, column, and how a value is stored. */
const plainSettings: Record<string, { column: keyof Realm; store?: (value: unknown) => unknown }> =
  {
    name: { column: 'name' },
    description: { column: 'description' },
    allow_message_editing: { column: 'allowMessageEditing' },
    inline_image_preview: { column: 'inlineImagePreview' },
    message_content_edit_limit_seconds: {
      column: 'messageContentEditLimitSeconds',
      store: (v) => (v === 'unlimited' ? null : v),
    },
    move_messages_within_stream_limit_seconds: {
      column: 'moveMessagesWithinStreamLimitSeconds',
      store: (v) => (v === 'unlimited' ? null : v),
    },
    move_messages_between_streams_limit_seconds: {
      column: 'moveMessagesBetweenStreamsLimitSeconds',
      store: (v) => (v === 'unlimited' ? null : v),
    },
    message_edit_history_visibility_policy: {
      column: 'messageEditHistoryVisibilityPolicy',
      store: (v) => Number(Object.entries(editHistoryPolicies).find(([, name]) => name === v)?.[0]),
    },
    topics_policy: { column: 'topicsPolicy' },
    email_address_visibility: { column: 'emailAddressVisibility' },
    waiting_period_threshold: { column: 'waitingPeriodThreshold' },
    moderation_request_channel_id: {
      column: 'moderationRequestChannelId',
      store: (v) => (v === -1 ? null : v),
    },
    message_content_allowed_in_email_notifications: {
      column: 'messageContentAllowedInEmailNotifications',
    },
    digest_emails_enabled: { column: 'digestEmailsEnabled' },
    digest_weekday: { column: 'digestWeekday' },
    require_e2ee_push_notifications: { column: 'requireE2eePushNotifications' },
    welcome_message_custom_text: { column: 'welcomeMessageCustomText' },
  };

/**
 * Settings announced, as Zulip does, by a realm event of op `update` with
 * `property` and `value` rather than by `update_dict`.
 */
const propertyEventSettings = new Set(['moderation_request_channel_id']);

/** Checks a new moderation request channel: -1 (none), or a private channel of the organization. */
async function checkModerationChannel(tx: Db, realmId: number, value: unknown): Promise<void> {
  if (value === undefined || value === -1) return;
  const stream = await tx.stream.findFirst({
    where: { id: value as number, realmId, isArchived: false },
  });
  if (!stream) throw new ApiError('Invalid channel ID');
  if (!stream.inviteOnly) throw new ApiError('Moderation request channel must be private.');
}

/** What PATCH /realm asks for. */
export interface RealmChange {
  plain: Record<string, unknown>;
  groups: Partial<Record<RealmGroupSettingName, SettingChange>>;
}

/** Puts each member in role:fullmembers exactly when their account has passed the waiting period. */
async function syncFullMembers(
  tx: Db,
  realm: Realm,
): Promise<{ added: number[]; removed: number[]; groupId: number }> {
  const groupId = await systemGroupId(tx, realm.id, SystemGroup.FULL_MEMBERS);
  const members = await tx.user.findMany({
    where: { realmId: realm.id, role: Role.MEMBER },
    select: { id: true, dateJoined: true },
  });
  const current = new Set(
    (await tx.userGroupMember.findMany({ where: { groupId }, select: { userId: true } })).map(
      (m) => m.userId,
    ),
  );
  const should = new Set(
    members
      .filter((m) => pastWaitingPeriod(m.dateJoined, realm.waitingPeriodThreshold))
      .map((m) => m.id),
  );
  const added = [...should].filter((id) => !current.has(id));
  const removed = members.map((m) => m.id).filter((id) => current.has(id) && !should.has(id));
  await tx.userGroupMember.createMany({ data: added.map((userId) => ({ groupId, userId })) });
  await tx.userGroupMember.deleteMany({ where: { groupId, userId: { in: removed } } });
  return { added, removed, groupId };
}

/** PATCH /realm: administrators change settings; some group settings need an owner. */
export async function doUpdateRealm(
  services: Services,
  actor: User,
  change: RealmChange,
): Promise<void> {
  if (actor.role > Role.ADMINISTRATOR)
    throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  if (
    actor.role !== Role.OWNER &&
    ownerOnlySettings.some((name) => change.groups[name] !== undefined)
  ) {
    throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  }
  if (typeof change.plain.name === 'string' && !change.plain.name.trim())
    throw new ApiError('Organization name is required');
  await services.db.write(async (tx, onCommit) => {
    let realm = await tx.realm.findUniqueOrThrow({ where: { id: actor.realmId } });
    await checkModerationChannel(tx, realm.id, change.plain.moderation_request_channel_id);
    const updates: Record<string, unknown>[] = [];
    for (const [name, value] of Object.entries(change.plain)) {
      const spec = plainSettings[name];
      if (!spec || value === undefined) continue;
      const stored = spec.store ? spec.store(value) : value;
      if (realm[spec.column] === stored) continue;
      realm = await tx.realm.update({ where: { id: realm.id }, data: { [spec.column]: stored } });
      const shown = name.endsWith('_limit_seconds') ? stored : value;
      updates.push(
        name === 'topics_policy'
          ? { topics_policy: value, mandatory_topics: value === 'disable_empty_topic' }
          : { [name]: shown },
      );
    }
    const nobody = await systemGroupId(tx, realm.id, SystemGroup.NOBODY);
    for (const [name, request] of Object.entries(change.groups) as [
      RealmGroupSettingName,
      SettingChange,
    ][]) {
      const column = realmGroupSettings[name];
      const next = await requestedSettingValue(tx, realm[column], request, nobody);
      if (next === null) continue;
      const id = await resolveGroupSettingValue(
        tx,
        realm.id,
        name,
        realmGroupSettingRules[name],
        next,
        realm[column],
      );
      realm = await tx.realm.update({ where: { id: realm.id }, data: { [column]: id } });
      updates.push({ [name]: await readGroupSettingValue(tx, id) });
    }
    const fullMembers =
      'waiting_period_threshold' in change.plain ? await syncFullMembers(tx, realm) : null;
    const everyone = new EveryoneIn(realm.id);
    onCommit(() => {
      services.auth.forgetRealm(realm.id);
      for (const data of updates) {
        const [[property, value]] = Object.entries(data);
        services.bus.publish(
          propertyEventSettings.has(property)
            ? { type: 'realm', op: 'update', property, value: value as number }
            : { type: 'realm', op: 'update_dict', property: 'default', data },
          everyone,
        );
      }
      if (fullMembers?.added.length)
        services.bus.publish(
          {
            type: 'user_group',
            op: 'add_members',
            group_id: fullMembers.groupId,
            user_ids: fullMembers.added,
          },
          everyone,
        );
      if (fullMembers?.removed.length)
        services.bus.publish(
          {
            type: 'user_group',
            op: 'remove_members',
            group_id: fullMembers.groupId,
            user_ids: fullMembers.removed,
          },
          everyone,
        );
    });
  });
}
