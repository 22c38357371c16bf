// Creating an organization: the realm, its system groups with their nesting,
// its group-valued settings, its first owner, and (unless WELCOME_MESSAGES=0)
// its first channels with Welcome Bot's first conversations in them.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import {
  SystemGroup,
  systemGroupDescriptions,
  systemGroupNesting,
  type SystemGroupName,
} from '../../lib/constants';
import { realmGroupSettingDefaults, realmGroupSettings } from '../../lib/groups/group-settings';
import type { Services } from '../../services';
import { checkNewUser, insertUser, systemBotIn, type NewUser } from '../users/users';
import { createFirstChannels, postFirstMessages } from './realm-first-state';
import { hashPassword } from '../../lib/users/secrets';

/** Creates the system groups of `realmId`, nested, and returns their IDs by name. */
async function createSystemGroups(tx: Db, realmId: number): Promise<Map<SystemGroupName, number>> {
  const ids = new Map<SystemGroupName, number>();
  for (const name of Object.values(SystemGroup)) {
    const group = await tx.userGroup.create({
      data: {
        realmId,
        name,
        description: systemGroupDescriptions[name],
        isSystemGroup: true,
        dateCreated: new Date(),
      },
    });
    ids.set(name, group.id);
  }
  await tx.userGroupSubgroup.createMany({
    data: systemGroupNesting.map(([outer, inner]) => ({
      supergroupId: ids.get(outer)!,
      subgroupId: ids.get(inner)!,
    })),
  });
  return ids;
}

/** What creating an organization needs. */
export interface NewRealm {
  name: string;
  /** Subdomain; "" for the root domain. */
  stringId?: string;
  owner: Omit<NewUser, 'role'>;
}

/** Creates an organization with its system groups, its owner and its first state. */
export async function doCreateRealm(
  services: Services,
  input: NewRealm,
): Promise<{ realm: Realm; owner: User }> {
  const stringId = input.stringId ?? '';
  const ownerInput: NewUser = { ...input.owner, role: 100 };
  checkNewUser(ownerInput);
  if (!input.name.trim()) throw new ApiError('The organization needs a name.');
  const passwordHash =
    ownerInput.password === null ? null : await hashPassword(ownerInput.password);
  return services.db.write(async (tx, onCommit) => {
    if (await tx.realm.findUnique({ where: { stringId } })) {
      throw new ApiError(
        stringId
          ? `an organization with subdomain "${stringId}" already exists`
          : 'an organization at the root domain already exists',
      );
    }
    const created = await tx.realm.create({ data: { name: input.name.trim(), stringId } });
    const groups = await createSystemGroups(tx, created.id);
    const settings = Object.fromEntries(
      Object.entries(realmGroupSettingDefaults).map(([name, group]) => [
        realmGroupSettings[name as keyof typeof realmGroupSettings],
        groups.get(group)!,
      ]),
    );
    const realm = await tx.realm.update({ where: { id: created.id }, data: settings });
    if (!services.config.welcomeMessages) {
      const owner = await insertUser(tx, onCommit, services, realm, ownerInput, passwordHash);
      return { realm, owner };
    }
    // As in Zulip: the first channels exist before the owner, who joins them
    // as every newcomer does, and then finds Welcome Bot's first messages.
    const welcomeBot = await systemBotIn(tx, onCommit, services, realm, 'welcome');
    const channels = await createFirstChannels(tx, onCommit, services, realm, welcomeBot, groups);
    const owner = await insertUser(tx, onCommit, services, realm, ownerInput, passwordHash);
    await postFirstMessages(tx, onCommit, services, realm, welcomeBot, channels);
    return { realm, owner };
  });
}
