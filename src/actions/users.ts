// Creating users: the row, an API key, the password hash, and membership of
// the system group of their role; then a realm_user event to the organization.
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../db/client';
import { ApiError } from '../errors';
import { Role, SystemGroup, type SystemGroupName } from '../lib/constants';
import { generateApiKey, hashPassword } from '../lib/secrets';
import { hostOf, presentUser } from '../lib/users';
import type { Services } from '../services';

/** What creating a user needs. */
export interface NewUser {
  email: string;
  fullName: string;
  /** Null leaves the account without password login. */
  password: string | null;
  role: number;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
}

const emailFormat = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The system groups a user of `role` belongs to directly. */
export function systemGroupsForRole(role: number): SystemGroupName[] {
  switch (role) {
    case Role.OWNER:
      return [SystemGroup.OWNERS];
    case Role.ADMINISTRATOR:
      return [SystemGroup.ADMINISTRATORS];
    case Role.MODERATOR:
      return [SystemGroup.MODERATORS];
    case Role.MEMBER:
      return [SystemGroup.MEMBERS, SystemGroup.FULL_MEMBERS];
    default:
      return [SystemGroup.EVERYONE];
  }
}

/** Checks the fields of a new user; throws BAD_REQUEST naming the first problem. */
export function checkNewUser(input: NewUser): void {
  if (!emailFormat.test(input.email)) throw new ApiError(`Invalid address '${input.email}'.`);
  const name = input.fullName.trim();
  if (!name) throw new ApiError('Name too short!');
  if (name.length > 100) throw new ApiError('Name too long!');
  if (!Object.values(Role).includes(input.role as never)) throw new ApiError('Invalid role');
}

/**
 * Inserts a user inside an open transaction; `passwordHash` is computed by the
 * caller beforehand so no transaction waits on Argon2.
 */
export async function insertUser(tx: Db, onCommit: OnCommit, services: Services, realm: Realm, input: NewUser, passwordHash: string | null): Promise<User> {
  checkNewUser(input);
  const emailLower = input.email.toLowerCase();
  if (await tx.user.findUnique({ where: { realmId_emailLower: { realmId: realm.id, emailLower } } })) {
    throw new ApiError('Email is already in use.');
  }
  const user = await tx.user.create({
    data: {
      realmId: realm.id,
      email: input.email,
      emailLower,
      fullName: input.fullName.trim(),
      passwordHash,
      apiKey: generateApiKey(),
      role: input.role,
      isBot: input.isBot ?? false,
      botType: input.botType ?? null,
      botOwnerId: input.botOwnerId ?? null,
      emailAddressVisibility: realm.emailAddressVisibility,
    },
  });
  const groups = await tx.userGroup.findMany({
    where: { realmId: realm.id, isSystemGroup: true, name: { in: systemGroupsForRole(input.role) } },
    select: { id: true },
  });
  await tx.userGroupMember.createMany({ data: groups.map((g) => ({ groupId: g.id, userId: user.id })) });
  const everyone = await tx.user.findMany({ where: { realmId: realm.id, isActive: true }, select: { id: true, role: true } });
  const host = hostOf(services.config.externalUrl);
  onCommit(() => {
    for (const viewer of everyone) {
      services.bus.publish({ type: 'realm_user', op: 'add', person: presentUser(user, viewer, host, { clientGravatar: false }) }, [viewer.id]);
    }
  });
  return user;
}

/** Creates a user in `realm`. */
export async function doCreateUser(services: Services, realm: Realm, input: NewUser): Promise<User> {
  checkNewUser(input);
  const passwordHash = input.password === null ? null : await hashPassword(input.password);
  return services.db.write((tx, onCommit) => insertUser(tx, onCommit, services, realm, input, passwordHash));
}
