// Numbers and names the API promises clients.

/** The Zulip release whose API this server speaks. */
export const ZULIP_VERSION = '11.0';
/** The feature level whose behaviour this server implements. */
export const ZULIP_FEATURE_LEVEL = 420;

/** Longest topic, in characters; longer topics are truncated. */
export const MAX_TOPIC_LENGTH = 60;
/** Longest message, in characters; longer content is truncated. */
export const MAX_MESSAGE_LENGTH = 10000;
/** Longest channel name, in characters. */
export const MAX_STREAM_NAME_LENGTH = 60;
/** Longest channel description, in characters. */
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
/** Most users subscribed at once who get a message about it (more get none). */
export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100;
/** Longest note of a message reminder, in characters. */
export const MAX_REMINDER_NOTE_LENGTH = 1000;
/** The longest explanation a report of a message may carry. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
/** How clients display the empty topic. */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

/** User roles, as the API numbers them. */
export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;

/** Names of the system groups every organization has, from narrowest to widest. */
export const SystemGroup = {
  OWNERS: 'role:owners',
  ADMINISTRATORS: 'role:administrators',
  MODERATORS: 'role:moderators',
  FULL_MEMBERS: 'role:fullmembers',
  MEMBERS: 'role:members',
  EVERYONE: 'role:everyone',
  INTERNET: 'role:internet',
  NOBODY: 'role:nobody',
} as const;
export type SystemGroupName = (typeof SystemGroup)[keyof typeof SystemGroup];

/** Each nested system group and the one directly inside it. */
export const systemGroupNesting: [outer: SystemGroupName, inner: SystemGroupName][] = [
  [SystemGroup.ADMINISTRATORS, SystemGroup.OWNERS],
  [SystemGroup.MODERATORS, SystemGroup.ADMINISTRATORS],
  [SystemGroup.FULL_MEMBERS, SystemGroup.MODERATORS],
  [SystemGroup.MEMBERS, SystemGroup.FULL_MEMBERS],
  [SystemGroup.EVERYONE, SystemGroup.MEMBERS],
  [SystemGroup.INTERNET, SystemGroup.EVERYONE],
];

/** Descriptions of the system groups. */
export const systemGroupDescriptions: Record<SystemGroupName, string> = {
  'role:owners': 'Owners of this organization',
  'role:administrators': 'Administrators of this organization, including owners',
  'role:moderators': 'Moderators of this organization, including administrators',
  'role:fullmembers': 'Members of this organization, not including new accounts and guests',
  'role:members': 'Members of this organization, not including guests',
  'role:everyone': 'Everyone in this organization, including guests',
  'role:internet': 'Everyone on the internet',
  'role:nobody': 'Nobody',
};

/**
 * The fewest days a deactivated organization's data may be kept before its
 * deletion (POST /realm/deactivate); there is no most.
 */
export const MIN_DEACTIVATED_REALM_DELETION_DAYS = 14;
