// Changing a user's own settings, with a user_settings event per changed
// setting to the user's clients and, for a new name, a realm_user update to
// the whole organization.
import type { User } from '../../generated/prisma/sqlite/client';
import { ApiError } from '../errors';
import { userSettingColumns, type UserSettingName } from '../lib/users/user-settings';
import { ownSettingsEvents } from '../lib/users/user-events';
import type { Services } from '../services';

/** The changes asked for: a new full name and any personal settings. */
export interface SettingsChange {
  fullName?: string;
  settings: Partial<Record<UserSettingName, string | number | boolean>>;
}

function isTimeZone(zone: string): boolean {
  if (zone === '') return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Applies `change` to `user`; settings equal to their current value change nothing. */
export async function doUpdateUserSettings(
  services: Services,
  user: User,
  change: SettingsChange,
): Promise<void> {
  const settings = change.settings;
  if (typeof settings.timezone === 'string' && !isTimeZone(settings.timezone))
    throw new ApiError('Invalid timezone');
  const fullName = change.fullName?.trim();
  if (change.fullName !== undefined && !fullName) throw new ApiError('Name too short!');
  await services.db.write(async (tx, onCommit) => {
    const current = await tx.user.findUniqueOrThrow({ where: { id: user.id } });
    const data: Record<string, unknown> = {};
    const changed: [UserSettingName, unknown][] = [];
    for (const [name, value] of Object.entries(settings) as [UserSettingName, unknown][]) {
      const column = userSettingColumns[name];
      if (value === undefined || current[column] === value) continue;
      data[column] = value;
      changed.push([name, value]);
    }
    const renamed = fullName !== undefined && fullName !== current.fullName;
    if (renamed) data.fullName = fullName;
    if (Object.keys(data).length === 0) return;
    await tx.user.update({ where: { id: user.id }, data });
    // Turning synchronization off deletes the stored drafts (without events, as Zulip).
    if (data.enableDraftsSynchronization === false)
      await tx.draft.deleteMany({ where: { userId: user.id } });
    // The name and time zone are part of the user object everyone holds.
    const sharedChanges: Record<string, unknown>[] = [];
    if (renamed) sharedChanges.push({ full_name: fullName });
    if ('timezone' in data) sharedChanges.push({ timezone: data.timezone });
    const everyone = sharedChanges.length
      ? await tx.user.findMany({
          where: { realmId: user.realmId, isActive: true },
          select: { id: true },
        })
      : [];
    const others = await ownSettingsEvents(tx, current, data, services.config.externalUrl);
    onCommit(() => {
      services.auth.forgetUser(user.id);
      for (const [property, value] of changed)
        services.bus.publish({ type: 'user_settings', op: 'update', property, value }, [user.id]);
      for (const fields of sharedChanges) {
        services.bus.publish(
          { type: 'realm_user', op: 'update', person: { user_id: user.id, ...fields } },
          everyone.map((u) => u.id),
        );
      }
      for (const { event, userIds } of others) services.bus.publish(event, userIds);
    });
  });
}
