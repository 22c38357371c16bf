// Creating, changing, deactivating and reactivating users. Each change keeps
// the user's system-group memberships in step with their role and announces
// itself with realm_user (and user_group) events after the commit. New people
// join the organization's default channels and find a message from Welcome
// Bot. The server's own bots (Welcome Bot, Notification Bot) are made here too.
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Db, OnCommit } from '../../db/client';
import { ApiError } from '../../errors';
import { Role } from '../../lib/constants';
import { BotType, SystemBot, botAudience, type SystemBotName } from '../../lib/users/bots';
import { generateApiKey, hashPassword } from '../../lib/users/secrets';
import { presentUserStatus } from '../../lib/users/user-status';
import {
  unknownUser,
  userIdsWhoCanAccess,
  userIdsWhoCannotAccess,
} from '../../lib/users/user-access';
import { newUserSettingColumns } from '../../lib/users/user-settings';
import {
  anonymousSettingEvents,
  pastWaitingPeriod,
  systemGroupsFor,
} from '../../lib/users/user-events';
import {
  avatarUrl,
  byDeliveryEmailAccess,
  presentUser,
  realmHost,
  EmailVisibility,
} from '../../lib/users/users';
import { EveryoneIn } from '../../events/bus';
import type { EventBody } from '../../events/queues';
import type { Services } from '../../services';
import { applyProfileData, type ProfileDataChange } from './profile-fields';
import { addSubscriptions } from '../channels/subscriptions';
import { sendMessageIn } from '../messages/messages';
import { welcomeMessageContent } from '../../lib/users/welcome';

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
  /** Whether a human joins the organization's default channels (true unless said). */
  joinDefaultChannels?: boolean;
  /** Further channels to join (an invitation's), by ID; archived ones are left out. */
  channelIds?: number[];
  /**
   * Welcome Bot's second message (an invitation's): null or absent follows the
   * organization's `welcome_message_custom_text`, "" sends none.
   */
  welcomeMessageCustomText?: string | null;
}

const emailFormat = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The system groups a new user of `role` belongs to directly. */
export function systemGroupsForRole(role: number) {
  return systemGroupsFor(role, true);
}

/** Checks a full name as Zulip does; returns it trimmed. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > 100) throw new ApiError('Name too long!');
  if (!name) throw new ApiError('Name too short!');
  // eslint-disable-next-line no-control-regex -- a name must not hold control characters
  if (/[\u0000-\u001f\u007f*`\\>"@]/.test(name)) throw new ApiError('Invalid characters in name!');
  return name;
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
 * Tells everyone in the organization of a new user and of their system group
 * memberships, after commit; guests of a restricted organization who may not
 * see the user hear of an "Unknown user", unless their client declares
 * user_list_incomplete.
 */
async function announceNewUser(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  user: User,
  groups: { id: number }[],
): Promise<void> {
  const everyone = await tx.user.findMany({
    where: { realmId: realm.id, isActive: true },
    select: { id: true, role: true },
  });
  const hiddenFrom = new Set(await userIdsWhoCannotAccess(tx, user));
  const host = realmHost(realm, services.config.externalUrl);
  onCommit(() => {
    // The person differs between viewers only in whether it shows the
    // delivery email: one event for those who see it, one for the rest. The
    // smaller audience is listed; the larger is everyone in the organization
    // but the others, so that the event's size does not grow with it.
    const { seeing, others } = byDeliveryEmailAccess(
      everyone.filter((viewer) => !hiddenFrom.has(viewer.id)),
      user,
    );
    const [few, many] = seeing.length <= others.length ? [seeing, others] : [others, seeing];
    const personFor = (viewer: (typeof everyone)[number]) =>
      presentUser(user, viewer, host, { clientGravatar: false, profileData: new Map() });
    if (few.length > 0)
      services.bus.publish(
        { type: 'realm_user', op: 'add', person: personFor(few[0]) },
        few.map((viewer) => viewer.id),
      );
    if (many.length > 0)
      services.bus.publish(
        { type: 'realm_user', op: 'add', person: personFor(many[0]) },
        new EveryoneIn(realm.id, [...few.map((viewer) => viewer.id), ...hiddenFrom]),
      );
    if (hiddenFrom.size > 0)
      services.bus.publishLegacy(
        { type: 'realm_user', op: 'add', person: unknownUser(user.id, host) },
        hiddenFrom,
        'user_list_incomplete',
      );
    for (const group of groups)
      services.bus.publish(
        { type: 'user_group', op: 'add_members', group_id: group.id, user_ids: [user.id] },
        new EveryoneIn(realm.id),
      );
  });
}

/**
 * Inserts a user inside an open transaction; `passwordHash` is computed by the
 * caller beforehand so no transaction waits on Argon2.
 */
export async function insertUser(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  givenRealm: Realm,
  input: NewUser,
  passwordHash: string | null,
): Promise<User> {
  checkNewUser(input);
  // The caller's copy may predate a settings change: the defaults come from the row.
  const realm = await tx.realm.findUniqueOrThrow({ where: { id: givenRealm.id } });
  const emailLower = input.email.toLowerCase();
  if (
    await tx.user.findUnique({ where: { realmId_emailLower: { realmId: realm.id, emailLower } } })
  ) {
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
      // The organization's defaults for personal settings (PATCH /realm/user_settings_defaults).
      ...(newUserSettingColumns(realm) as object),
      ...(input.isBot ? { emailAddressVisibility: EmailVisibility.EVERYONE } : {}),
    },
  });
  const groups = await tx.userGroup.findMany({
    where: {
      realmId: realm.id,
      isSystemGroup: true,
      name: { in: systemGroupsFor(input.role, realm.waitingPeriodThreshold === 0) },
    },
    select: { id: true },
  });
  await tx.userGroupMember.createMany({
    data: groups.map((g) => ({ groupId: g.id, userId: user.id })),
  });
  await announceNewUser(tx, onCommit, services, realm, user, groups);
  // New people join the organization's default channels, and any channels they were given.
  const joinDefaults = !user.isBot && (input.joinDefaultChannels ?? true);
  const given = input.channelIds ?? [];
  if (joinDefaults || given.length > 0) {
    const channels = await tx.stream.findMany({
      where: {
        realmId: realm.id,
        isArchived: false,
        OR: [...(joinDefaults ? [{ isDefault: true }] : []), { id: { in: given } }],
      },
      orderBy: { id: 'asc' },
    });
    if (channels.length > 0)
      await addSubscriptions(
        tx,
        onCommit,
        services,
        channels.map((stream) => ({ user, stream })),
      );
  }
  // As in Zulip, each new person finds a direct message from Welcome Bot.
  if (!user.isBot && services.config.welcomeMessages) {
    const bot = await systemBotIn(tx, onCommit, services, realm, 'welcome');
    const customText = (input.welcomeMessageCustomText ?? realm.welcomeMessageCustomText).trim();
    for (const content of [welcomeMessageContent(realm), ...(customText ? [customText] : [])])
      await sendMessageIn(tx, onCommit, services, realm, bot, {
        type: 'private',
        to: [user.id],
        content,
        byServer: true,
      });
  }
  return user;
}

/** The server's bot `name` of `realmId`, or null before it is first needed. */
function findSystemBot(db: Db, realmId: number, name: SystemBotName): Promise<User | null> {
  return db.user.findUnique({
    where: { realmId_emailLower: { realmId, emailLower: SystemBot[name].email } },
  });
}

/**
 * The server's bot `name` of `realm`, created in the caller's transaction
 * (with the `realm_user` events of any new user) when the organization has
 * none yet.
 */
export async function systemBotIn(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  realm: Realm,
  name: SystemBotName,
): Promise<User> {
  const existing = await findSystemBot(tx, realm.id, name);
  if (existing) return existing;
  const bot: NewUser = {
    ...SystemBot[name],
    password: null,
    role: Role.MEMBER,
    isBot: true,
    botType: BotType.GENERIC,
    botOwnerId: null,
  };
  return insertUser(tx, onCommit, services, realm, bot, null);
}

/**
 * The server's bot `name` of `realm`, created in a transaction of its own
 * when the organization has none yet. Two processes creating it at once: the
 * loser reads the winner's.
 */
export async function doEnsureSystemBot(
  services: Services,
  realm: Realm,
  name: SystemBotName,
): Promise<User> {
  const existing = await services.db.read((db) => findSystemBot(db, realm.id, name));
  if (existing) return existing;
  try {
    return await services.db.write((tx, onCommit) =>
      systemBotIn(tx, onCommit, services, realm, name),
    );
  } catch (error) {
    const winner = await services.db.read((db) => findSystemBot(db, realm.id, name));
    if (winner) return winner;
    throw error;
  }
}

/**
 * Makes Welcome Bot, when a new person will need it, in a transaction of its
 * own: two people joining a new organization at once then never both try to
 * create it inside their own transactions.
 */
export async function ensureWelcomeBot(
  services: Services,
  realm: Realm,
  input: Pick<NewUser, 'isBot'>,
): Promise<void> {
  if (!input.isBot && services.config.welcomeMessages)
    await doEnsureSystemBot(services, realm, 'welcome');
}

/** Creates a user in `realm`. */
export async function doCreateUser(
  services: Services,
  realm: Realm,
  input: NewUser,
): Promise<User> {
  checkNewUser(input);
  const passwordHash = input.password === null ? null : await hashPassword(input.password);
  await ensureWelcomeBot(services, realm, input);
  return services.db.write((tx, onCommit) =>
    insertUser(tx, onCommit, services, realm, input, passwordHash),
  );
}

/** POST /users: an administrator holding can_create_users creates an account. */
export async function doCreateUserByAdmin(
  services: Services,
  actor: User,
  realm: Realm,
  input: { email: string; password: string; fullName: string },
): Promise<User> {
  if (actor.role > Role.ADMINISTRATOR)
    throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  // Read afresh: the permission is granted from the command line, outside this process.
  const holder = await services.db.read((db) =>
    db.user.findUnique({ where: { id: actor.id }, select: { canCreateUsers: true } }),
  );
  if (!holder?.canCreateUsers) throw new ApiError('User not authorized to create users');
  const fullName = checkFullName(input.fullName);
  if (!emailFormat.test(input.email)) throw new ApiError('Bad name or username');
  const taken = await services.db.read((db) =>
    db.user.findUnique({
      where: { realmId_emailLower: { realmId: realm.id, emailLower: input.email.toLowerCase() } },
    }),
  );
  if (taken) throw new ApiError(`Email '${input.email}' already in use`);
  return doCreateUser(services, realm, {
    email: input.email,
    fullName,
    password: input.password,
    role: Role.MEMBER,
  });
}

/** The changes PATCH /users/{user_id} asks for. */
export interface UserChange {
  fullName?: string;
  role?: number;
  profileData?: ProfileDataChange[];
  newEmail?: string;
}

/** Whether `user` is the only active human owner of the realm. */
async function isLastOwner(db: Db, user: User): Promise<boolean> {
  if (user.role !== Role.OWNER || user.isBot) return false;
  const owners = await db.user.count({
    where: { realmId: user.realmId, role: Role.OWNER, isActive: true, isBot: false },
  });
  return owners <= 1;
}

/** Moves `user` to the system groups of `role`; returns the memberships removed and added. */
async function syncSystemGroups(tx: Db, user: User, role: number, realm: Realm) {
  const wanted = systemGroupsFor(
    role,
    pastWaitingPeriod(user.dateJoined, realm.waitingPeriodThreshold),
  );
  const system = await tx.userGroup.findMany({
    where: { realmId: realm.id, isSystemGroup: true },
    select: { id: true, name: true },
  });
  const current = await tx.userGroupMember.findMany({
    where: { userId: user.id, groupId: { in: system.map((g) => g.id) } },
  });
  const wantedIds = system.filter((g) => wanted.includes(g.name as never)).map((g) => g.id);
  const removed = current.map((m) => m.groupId).filter((id) => !wantedIds.includes(id));
  const added = wantedIds.filter((id) => !current.some((m) => m.groupId === id));
  await tx.userGroupMember.deleteMany({ where: { userId: user.id, groupId: { in: removed } } });
  await tx.userGroupMember.createMany({
    data: added.map((groupId) => ({ groupId, userId: user.id })),
  });
  return { removed, added };
}

/**
 * An event of a user update, for those who may see the user ('all'), for
 * every active user of the organization ('realm'), or for some.
 */
type UserEvent = { event: EventBody; to: number[] | 'all' | 'realm' };

/** Gives `user` a new role (and the system groups that go with it), as `actor` may. */
async function changeRole(
  tx: Db,
  actor: User,
  user: User,
  role: number,
  realm: Realm,
): Promise<UserEvent[]> {
  if ((role === Role.OWNER || user.role === Role.OWNER) && actor.role !== Role.OWNER)
    throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  if (await isLastOwner(tx, user))
    throw new ApiError('The owner permission cannot be removed from the only organization owner.');
  if (user.role === Role.GUEST && role <= Role.ADMINISTRATOR)
    throw new ApiError('Guests cannot be organization administrators');
  await tx.user.update({ where: { id: user.id }, data: { role } });
  const { removed, added } = await syncSystemGroups(tx, user, role, realm);
  const membership = (op: 'remove_members' | 'add_members', id: number): UserEvent => ({
    event: { type: 'user_group', op, group_id: id, user_ids: [user.id] },
    to: 'realm',
  });
  return [
    { event: { type: 'realm_user', op: 'update', person: { user_id: user.id, role } }, to: 'all' },
    ...removed.map((id) => membership('remove_members', id)),
    ...added.map((id) => membership('add_members', id)),
  ];
}

/**
 * Changes `user`'s email address; each viewer hears of it as far as they may
 * see it (the delivery address, the public one, a Gravatar built from it).
 */
async function changeEmail(
  tx: Db,
  user: User,
  email: string,
  viewers: { id: number; role: number }[],
): Promise<UserEvent[]> {
  const emailLower = email.toLowerCase();
  if (
    await tx.user.findUnique({
      where: { realmId_emailLower: { realmId: user.realmId, emailLower } },
    })
  )
    throw new ApiError('Email is already in use.');
  const updated = await tx.user.update({ where: { id: user.id }, data: { email, emailLower } });
  const person = (fields: Record<string, unknown>, to: number[] | 'all'): UserEvent => ({
    event: { type: 'realm_user', op: 'update', person: { user_id: user.id, ...fields } },
    to,
  });
  // One event per audience, whatever the size of the organization.
  const audiences = byDeliveryEmailAccess(viewers, updated);
  const seeing = audiences.seeing.map((viewer) => viewer.id);
  const others = audiences.others.map((viewer) => viewer.id);
  const events = seeing.length > 0 ? [person({ delivery_email: updated.email }, seeing)] : [];
  if (updated.isBot || updated.emailAddressVisibility === EmailVisibility.EVERYONE)
    events.push(person({ email: updated.email }, 'all'));
  if (updated.avatarSource === 'G')
    for (const [visible, ids] of [
      [true, seeing],
      [false, others],
    ] as const)
      if (ids.length > 0)
        events.push(
          person(
            {
              avatar_url: avatarUrl(updated, false, visible),
              avatar_version: updated.avatarVersion,
            },
            ids,
          ),
        );
  return events;
}

/**
 * PATCH /users/{user_id} and /users/{email}: an administrator changes another
 * user's role, name, custom profile field values or (owners holding
 * can_change_user_emails) email address.
 */
export async function doUpdateUser(
  services: Services,
  actor: User,
  target: User,
  change: UserChange,
): Promise<void> {
  const realm = await services.db.read((db) =>
    db.realm.findUniqueOrThrow({ where: { id: target.realmId } }),
  );
  if (change.newEmail !== undefined) {
    if (actor.role !== Role.OWNER || !actor.canChangeUserEmails)
      throw new ApiError('User not authorized to change user emails');
    if (!emailFormat.test(change.newEmail)) throw new ApiError('Invalid address.');
  }
  const name =
    change.fullName !== undefined &&
    change.fullName.trim() !== '' &&
    change.fullName !== target.fullName
      ? checkFullName(change.fullName)
      : undefined;
  await services.db.write(async (tx, onCommit) => {
    const user = await tx.user.findUniqueOrThrow({ where: { id: target.id } });
    const events: UserEvent[] = [];
    if (change.role !== undefined && change.role !== user.role)
      events.push(...(await changeRole(tx, actor, user, change.role, realm)));
    if (name !== undefined && name !== user.fullName) {
      await tx.user.update({ where: { id: user.id }, data: { fullName: name } });
      events.push({
        event: { type: 'realm_user', op: 'update', person: { user_id: user.id, full_name: name } },
        to: 'all',
      });
    }
    if (change.profileData) {
      for (const person of await applyProfileData(
        tx,
        user,
        change.profileData,
        services.config.externalUrl.replace(/\/$/, ''),
      ))
        events.push({ event: { type: 'realm_user', op: 'update', person }, to: 'all' });
    }
    // Only those who may see the user (can_access_all_users_group) hear of changes.
    const canSee = new Set(await userIdsWhoCanAccess(tx, user));
    const viewers = (
      await tx.user.findMany({
        where: { realmId: realm.id, isActive: true },
        select: { id: true, role: true },
      })
    ).filter((v) => canSee.has(v.id));
    if (change.newEmail !== undefined && change.newEmail.toLowerCase() !== user.emailLower)
      events.push(...(await changeEmail(tx, user, change.newEmail, viewers)));
    const all = [...canSee];
    const realmWide = new EveryoneIn(realm.id);
    onCommit(() => {
      services.auth.forgetUser(user.id);
      for (const { event, to } of events)
        services.bus.publish(event, to === 'all' ? all : to === 'realm' ? realmWide : to);
    });
  });
}

/**
 * Gives a user a new random API key inside `tx`; once committed, every server
 * process forgets the old key, so it stops working at once.
 */
export async function replaceApiKey(
  tx: Db,
  onCommit: OnCommit,
  services: Services,
  userId: number,
): Promise<User> {
  const user = await tx.user.update({ where: { id: userId }, data: { apiKey: generateApiKey() } });
  onCommit(() => services.auth.forgetUser(user.id));
  return user;
}

/** POST /users/me/api_key/regenerate: a human user's new API key. */
export async function doRegenerateApiKey(services: Services, user: User): Promise<string> {
  if (user.isBot) throw new ApiError('This endpoint does not accept bot requests.');
  return services.db.write(async (tx, onCommit) => {
    const updated = await replaceApiKey(tx, onCommit, services, user.id);
    return updated.apiKey;
  });
}

/** The refusal to deactivate one's own account when it is the last user or owner. */
function cannotDeactivateLastUser(isLastOwner: boolean): ApiError {
  const entity = isLastOwner ? 'organization owner' : 'user';
  return new ApiError(`Cannot deactivate the only ${entity}.`, 'CANNOT_DEACTIVATE_LAST_USER', 400, {
    is_last_owner: isLastOwner,
    entity,
  });
}

/**
 * DELETE /users/{user_id} and DELETE /users/me (`own`): deactivates a user
 * and the bots they own. The organization's last owner stays, and so, for
 * their own account, does its last active account.
 */
export async function doDeactivateUser(
  services: Services,
  actor: User,
  target: User,
  { own = false }: { own?: boolean } = {},
): Promise<void> {
  if (target.role === Role.OWNER && actor.role !== Role.OWNER)
    throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
  await services.db.write(async (tx, onCommit) => {
    const user = await tx.user.findUniqueOrThrow({ where: { id: target.id } });
    if (own) {
      const active = await tx.user.count({ where: { realmId: user.realmId, isActive: true } });
      if (active <= 1) throw cannotDeactivateLastUser(false);
      if (await isLastOwner(tx, user)) throw cannotDeactivateLastUser(true);
    } else if (await isLastOwner(tx, user))
      throw new ApiError('Cannot deactivate the only organization owner');
    const bots = await tx.user.findMany({
      where: { botOwnerId: user.id, isBot: true, isActive: true },
      select: { id: true },
    });
    const ids = [...bots.map((b) => b.id), user.id];
    await tx.user.updateMany({ where: { id: { in: ids } }, data: { isActive: false } });
    // Those a restricted organization hides the user from do not hear of it.
    const hiddenFrom = new Set(user.isBot ? [] : await userIdsWhoCannotAccess(tx, user));
    // Bots' owners and the administrators also hear it in `realm_bot` events.
    const deactivatedBots = user.isBot ? [...bots, user] : bots;
    const owners = await Promise.all(
      deactivatedBots.map(async (b) => ({
        id: b.id,
        audience: await botAudience(tx, {
          realmId: user.realmId,
          botOwnerId: user.isBot && b.id === user.id ? user.botOwnerId : user.id,
        }),
      })),
    );
    onCommit(() => {
      for (const bot of owners)
        services.bus.publish(
          { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, is_active: false } },
          bot.audience,
        );
      for (const id of ids) {
        services.auth.forgetUser(id);
        services.bus.publish(
          { type: 'realm_user', op: 'update', person: { user_id: id, is_active: false } },
          new EveryoneIn(user.realmId, id === user.id ? hiddenFrom : []),
        );
      }
    });
  });
}

/** POST /users/{user_id}/reactivate: gives a deactivated user their account back. */
export async function doReactivateUser(services: Services, target: User): Promise<void> {
  if (target.isActive) throw new ApiError('User is already active.');
  await services.db.write(async (tx, onCommit) => {
    await tx.user.update({ where: { id: target.id }, data: { isActive: true } });
    const everyone = new EveryoneIn(target.realmId);
    const canSee = await userIdsWhoCanAccess(tx, target);
    const direct = await tx.userGroupMember.findMany({
      where: { userId: target.id },
      include: { group: { select: { name: true } } },
      orderBy: { groupId: 'asc' },
    });
    const named = direct.filter((m) => m.group.name !== null).map((m) => m.groupId);
    const settingEvents = await anonymousSettingEvents(
      tx,
      target.realmId,
      direct.filter((m) => m.group.name === null).map((m) => m.groupId),
    );
    // Clients drop a deactivated user's status; give it back to them.
    const status = presentUserStatus(
      await tx.userStatus.findUnique({ where: { userId: target.id } }),
      target.presenceEnabled,
    );
    const botOwners = target.isBot ? await botAudience(tx, target) : [];
    onCommit(() => {
      services.auth.forgetUser(target.id);
      services.bus.publish(
        { type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: true } },
        canSee,
      );
      if (target.isBot)
        services.bus.publish(
          { type: 'realm_bot', op: 'update', bot: { user_id: target.id, is_active: true } },
          botOwners,
        );
      for (const id of named)
        services.bus.publish(
          { type: 'user_group', op: 'add_members', group_id: id, user_ids: [target.id] },
          everyone,
        );
      for (const event of settingEvents) services.bus.publish(event, everyone);
      if (Object.keys(status).length > 0)
        services.bus.publish({ type: 'user_status', user_id: target.id, ...status }, everyone);
    });
  });
}
