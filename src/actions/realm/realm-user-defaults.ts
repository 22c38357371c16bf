// The organization's defaults for new accounts' personal settings (PATCH
// /realm/user_settings_defaults). Each changed default goes to everyone as a
// `realm_user_settings_defaults` event; existing accounts keep their settings.
import type { User } from '../../../generated/prisma/sqlite/client';
import type { EventBody } from '../../events/queues';
import { requireAdministrator } from '../../lib/realm/admin';
import { checkSettingValues } from '../../lib/users/settings-choices';
import {
  realmSettingOverrides,
  userSettingSpecs,
  type UserSettingName,
  type UserSettingValue,
} from '../../lib/users/user-settings';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

/** An administrator sets defaults; a value equal to the current default changes nothing. */
export async function doUpdateRealmUserSettingsDefaults(
  services: Services,
  actor: User,
  settings: Partial<Record<UserSettingName, UserSettingValue>>,
): Promise<void> {
  requireAdministrator(actor);
  checkSettingValues(settings);
  await services.db.write(async (tx, onCommit) => {
    const realm = await tx.realm.findUniqueOrThrow({ where: { id: actor.realmId } });
    const overrides = realmSettingOverrides(realm);
    const changed: EventBody[] = [];
    for (const [name, value] of Object.entries(settings) as [UserSettingName, UserSettingValue][]) {
      if (value === undefined) continue;
      const current = overrides[name] ?? userSettingSpecs[name].initial;
      if (current === value) continue;
      // Only differences from the server's defaults are stored.
      if (value === userSettingSpecs[name].initial) delete overrides[name];
      else overrides[name] = value;
      changed.push({ type: 'realm_user_settings_defaults', op: 'update', property: name, value });
    }
    if (changed.length === 0) return;
    await tx.realm.update({
      where: { id: realm.id },
      data: { userSettingsDefaults: JSON.stringify(overrides) },
    });
    const everyone = new EveryoneIn(realm.id);
    onCommit(() => {
      services.auth.forgetRealm(realm.id);
      for (const event of changed) services.bus.publish(event, everyone);
    });
  });
}
