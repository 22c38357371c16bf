// Changing a user's own settings (PATCH /settings). Each changed setting goes
// to the user's clients as a user_settings event, and to clients without the
// user_settings_object capability also as the legacy update_display_settings
// or update_global_notifications event; a new name or time zone goes to the
// whole organization as a realm_user update.
import { userIdsWhoCanAccess } from '../../lib/users/user-access';
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import type { EventBody } from '../../events/queues';
import { checkSettingValues } from '../../lib/users/settings-choices';
import { ownSettingsEvents } from '../../lib/users/user-events';
import {
  languageName,
  legacyGroupOf,
  userSettingSpecs,
  type UserSettingName,
  type UserSettingValue,
} from '../../lib/users/user-settings';
import { apiEmail, realmHost } from '../../lib/users/users';
import type { Services } from '../../services';

/** The changes asked for: a new full name and any personal settings. */
export interface SettingsChange {
  fullName?: string;
  settings: Partial<Record<UserSettingName, UserSettingValue>>;
}

/** The events that announce one changed setting to the user's own clients. */
function settingEvents(
  name: UserSettingName,
  value: UserSettingValue,
  email: string,
): { current: EventBody; legacy?: EventBody } {
  const language =
    name === 'default_language' ? { language_name: languageName(String(value)) } : {};
  const current: EventBody = {
    type: 'user_settings',
    op: 'update',
    property: name,
    value,
    ...language,
  };
  const group = legacyGroupOf(name);
  if (group === 'display')
    return {
      current,
      legacy: {
        type: 'update_display_settings',
        user: email,
        setting_name: name,
        setting: value,
        ...language,
      },
    };
  if (group === 'notifications')
    return {
      current,
      legacy: {
        type: 'update_global_notifications',
        user: email,
        notification_name: name,
        setting: value,
      },
    };
  return { current };
}

/** Applies `change` to `user`; settings equal to their current value change nothing. */
export async function doUpdateUserSettings(
  services: Services,
  user: User,
  change: SettingsChange,
): Promise<void> {
  const settings = change.settings;
  checkSettingValues(settings);
  const fullName = change.fullName?.trim();
  if (change.fullName !== undefined && !fullName) throw new ApiError('Name too short!');
  await services.db.write(async (tx, onCommit) => {
    const current = await tx.user.findUniqueOrThrow({ where: { id: user.id } });
    const data: Record<string, unknown> = {};
    const changed: [UserSettingName, UserSettingValue][] = [];
    for (const [name, value] of Object.entries(settings) as [UserSettingName, UserSettingValue][]) {
      const column = userSettingSpecs[name].column;
      if (value === undefined || current[column] === value) continue;
      data[column] = value;
      changed.push([name, value]);
    }
    const renamed = fullName !== undefined && fullName !== current.fullName;
    if (renamed) data.fullName = fullName;
    if (Object.keys(data).length === 0) return;
    const updated = await tx.user.update({ where: { id: user.id }, data });
    // Turning synchronization off deletes the stored drafts (without events, as Zulip).
    if (data.enableDraftsSynchronization === false)
      await tx.draft.deleteMany({ where: { userId: user.id } });
    // The name and time zone are part of the user object everyone holds.
    const sharedChanges: Record<string, unknown>[] = [];
    if (renamed) sharedChanges.push({ full_name: fullName });
    if ('timezone' in data) sharedChanges.push({ timezone: data.timezone });
    // Only those who may see the user (can_access_all_users_group) hear of it.
    const canSee = await userIdsWhoCanAccess(tx, user);
    const everyone = sharedChanges.length ? canSee : [];
    const others = (await ownSettingsEvents(tx, current, data, services.config.externalUrl)).map(
      ({ event, userIds }) => ({
        event,
        userIds:
          event.type === 'realm_user' ? userIds.filter((id) => canSee.includes(id)) : userIds,
      }),
    );
    const realm = await tx.realm.findUniqueOrThrow({ where: { id: user.realmId } });
    const email = apiEmail(updated, realmHost(realm, services.config.externalUrl));
    onCommit(() => {
      services.auth.forgetUser(user.id);
      for (const [name, value] of changed) {
        const { current: event, legacy } = settingEvents(name, value, email);
        services.bus.publish(event, [user.id]);
        if (legacy) services.bus.publishLegacy(legacy, [user.id], 'user_settings_object');
      }
      for (const fields of sharedChanges) {
        services.bus.publish(
          { type: 'realm_user', op: 'update', person: { user_id: user.id, ...fields } },
          everyone,
        );
      }
      for (const { event, userIds } of others) services.bus.publish(event, userIds);
    });
  });
}
